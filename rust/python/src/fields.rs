//! Core structs as plain Python dicts, their fields under their own names.

/// `set_fields!(d, s, [a, b])`: `d["a"] = s.a; d["b"] = s.b` (the enclosing
/// function returns the error of a failed `set_item`).
macro_rules! set_fields {
    ($d:expr, $s:expr, [$($f:ident),+ $(,)?]) => {
        $($d.set_item(stringify!($f), &$s.$f)?;)+
    };
}

/// `fields_dict!(py, s, [a, b])`: a new dict `{"a": s.a, "b": s.b}`.
macro_rules! fields_dict {
    ($py:expr, $s:expr, [$($f:ident),+ $(,)?]) => {{
        let d = pyo3::types::PyDict::new($py);
        $crate::fields::set_fields!(d, $s, [$($f),+]);
        d
    }};
}
/// `fields_dicts!(py, items, [a, b])`: a new list of `fields_dict!` of each item.
macro_rules! fields_dicts {
    ($py:expr, $items:expr, [$($f:ident),+ $(,)?]) => {{
        let out = pyo3::types::PyList::empty($py);
        for s in $items {
            out.append($crate::fields::fields_dict!($py, s, [$($f),+]))?;
        }
        out
    }};
}
pub(crate) use {fields_dict, fields_dicts, set_fields};
