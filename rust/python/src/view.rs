//! One way to read a JSON object whether it is a dict or a msgnorm Struct, and
//! to make new objects of the caller's kind.
//!
//! A Struct is read through its class's field table (`__struct_encode_fields__`
//! → `__struct_fields__`): `type` is the class's tag, `UNSET` reads as absent,
//! and a key the class does not name is looked up in its `extra` catch-all.

use ahash::AHashMap as HashMap;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use std::cell::RefCell;
use std::rc::Rc;

/// The model classes the writers make objects of (for a list of Structs).
const MADE_CLASSES: [&str; 4] = ["UserPayload", "UserMessage", "TextBlock", "ToolResultBlock"];

/// Any Python object the readers and writers hold.
pub type Obj<'py> = Bound<'py, PyAny>;

pub struct ClassInfo<'py> {
    tag: Option<Bound<'py, PyString>>,
    /// JSON name → attribute name.
    fields: HashMap<String, Bound<'py, PyString>>,
}

impl<'py> ClassInfo<'py> {
    fn new(cls: &Bound<'py, PyAny>) -> PyResult<Self> {
        let attrs = cls.getattr("__struct_fields__")?;
        let names = cls.getattr("__struct_encode_fields__")?;
        let attrs = attrs.cast::<PyTuple>()?;
        let names = names.cast::<PyTuple>()?;
        let mut fields = HashMap::with_capacity(attrs.len());
        for (a, n) in attrs.iter().zip(names.iter()) {
            let a = a.cast_into::<PyString>()?;
            fields.insert(n.extract::<String>()?, a);
        }
        let tag = cls.getattr("__struct_config__")?.getattr("tag")?;
        let tag = tag.cast_into::<PyString>().ok();
        Ok(ClassInfo { tag, fields })
    }

    pub fn attr(&self, json: &str) -> Option<&Bound<'py, PyString>> {
        self.fields.get(json)
    }
}

/// Per-call context: the class tables met so far and the model's constructors.
pub struct Ctx<'py> {
    py: Python<'py>,
    classes: RefCell<HashMap<usize, Option<Rc<ClassInfo<'py>>>>>,
    unset: RefCell<Option<Obj<'py>>>,
    /// Python strs of the JSON keys looked up (made once per call, not per lookup).
    keys: RefCell<HashMap<&'static str, Bound<'py, PyString>>>,
    /// The last short str written (a placeholder repeats): one object, shared.
    last_text: RefCell<Option<(Box<str>, Bound<'py, PyString>)>>,
    /// The input was a list of Structs: new objects are Structs too.
    pub structs: bool,
}

pub enum View<'py> {
    Dict(Bound<'py, PyDict>),
    Struct(Obj<'py>, Rc<ClassInfo<'py>>),
}

impl<'py> Ctx<'py> {
    pub fn new(py: Python<'py>, structs: bool) -> Self {
        Ctx {
            py,
            classes: RefCell::new(HashMap::new()),
            unset: RefCell::new(None),
            keys: RefCell::new(HashMap::new()),
            last_text: RefCell::new(None),
            structs,
        }
    }

    /// `key` as a Python str, made once per call.
    pub fn key(&self, key: &'static str) -> Bound<'py, PyString> {
        // The keys the readers and writers use: interned once per process.
        macro_rules! known {
            ($($name:literal),*) => {
                match key {
                    $($name => return pyo3::intern!(self.py, $name).clone(),)*
                    _ => {}
                }
            };
        }
        known!(
            "type",
            "uuid",
            "message",
            "content",
            "role",
            "text",
            "id",
            "tool_use_id",
            "is_error",
            "isMeta",
            "input",
            "name",
            "timestamp",
            "thinking",
            "data",
            "source"
        );
        if let Some(k) = self.keys.borrow().get(key) {
            return k.clone();
        }
        let k = PyString::intern(self.py, key);
        self.keys.borrow_mut().insert(key, k.clone());
        k
    }

    /// A Python str of `text`; a short text written twice in a row is one object.
    pub fn text(&self, text: &str) -> Obj<'py> {
        if let Some((last, obj)) = &*self.last_text.borrow() {
            if **last == *text {
                return obj.clone().into_any();
            }
        }
        let obj = PyString::new(self.py, text);
        if text.len() <= 64 {
            *self.last_text.borrow_mut() = Some((text.into(), obj.clone()));
        }
        obj.into_any()
    }

    pub fn py(&self) -> Python<'py> {
        self.py
    }

    /// A context for a list of records: Structs when any record is a Struct.
    pub fn for_list(list: &Bound<'py, pyo3::types::PyList>) -> PyResult<Self> {
        let ctx = Ctx::new(list.py(), false);
        for item in list.iter() {
            if !item.is_instance_of::<PyDict>() && ctx.class_of(&item)?.is_some() {
                return Ok(Ctx::new(list.py(), true));
            }
            if !item.is_instance_of::<PyDict>() {
                break;
            }
        }
        Ok(ctx)
    }

    fn unset(&self) -> PyResult<Obj<'py>> {
        if let Some(u) = self.unset.borrow().as_ref() {
            return Ok(u.clone());
        }
        let u = self.py.import("msgspec")?.getattr("UNSET")?;
        *self.unset.borrow_mut() = Some(u.clone());
        Ok(u)
    }

    /// The class table of a Struct object, or `None` for any other object.
    fn class_of(&self, obj: &Obj<'py>) -> PyResult<Option<Rc<ClassInfo<'py>>>> {
        let cls = obj.get_type();
        let key = cls.as_ptr() as usize;
        if let Some(found) = self.classes.borrow().get(&key) {
            return Ok(found.clone());
        }
        let info = if cls.hasattr("__struct_fields__")? {
            Some(Rc::new(ClassInfo::new(cls.as_any())?))
        } else {
            None
        };
        self.classes.borrow_mut().insert(key, info.clone());
        Ok(info)
    }

    /// A dict or a Struct as a [`View`]; `None` for anything else.
    pub fn view(&self, obj: &Obj<'py>) -> PyResult<Option<View<'py>>> {
        if let Ok(d) = obj.cast::<PyDict>() {
            return Ok(Some(View::Dict(d.clone())));
        }
        Ok(self.class_of(obj)?.map(|c| View::Struct(obj.clone(), c)))
    }

    /// The value of JSON field `key`; `None` when absent (or `UNSET`).
    pub fn get(&self, v: &View<'py>, key: &'static str) -> PyResult<Option<Obj<'py>>> {
        self.get_key(v, key, &self.key(key))
    }

    /// [`Ctx::get`] with the key's Python str given (`k` is `key`, interned).
    #[inline]
    pub fn get_key(
        &self,
        v: &View<'py>,
        key: &'static str,
        k: &Bound<'py, PyString>,
    ) -> PyResult<Option<Obj<'py>>> {
        match v {
            View::Dict(d) => d.get_item(k),
            View::Struct(obj, info) => {
                if key == "type" {
                    if let Some(tag) = &info.tag {
                        return Ok(Some(tag.clone().into_any()));
                    }
                }
                match info.attr(key) {
                    Some(attr) => {
                        let val = obj.getattr(attr)?;
                        if val.is(&self.unset()?) {
                            Ok(None)
                        } else {
                            Ok(Some(val))
                        }
                    }
                    None => match info.attr("__extra__") {
                        Some(extra) => match obj.getattr(extra)?.cast_into::<PyDict>() {
                            Ok(d) => d.get_item(key),
                            Err(_) => Ok(None),
                        },
                        None => Ok(None),
                    },
                }
            }
        }
    }

    /// A Struct's JSON fields (tag, named fields set, `extra`'s), or `None`
    /// for an object that is not a Struct.
    pub fn struct_fields(&self, obj: &Obj<'py>) -> PyResult<Option<Vec<(String, Obj<'py>)>>> {
        let Some(info) = self.class_of(obj)? else {
            return Ok(None);
        };
        let unset = self.unset()?;
        let mut out = Vec::with_capacity(info.fields.len() + 1);
        if let Some(tag) = &info.tag {
            out.push(("type".to_string(), tag.clone().into_any()));
        }
        for (json, attr) in &info.fields {
            let val = obj.getattr(attr)?;
            if val.is(&unset) {
                continue;
            }
            if json == "__extra__" {
                if let Ok(d) = val.cast::<PyDict>() {
                    for (k, x) in d.iter() {
                        out.push((k.str()?.to_str()?.to_owned(), x));
                    }
                }
                continue;
            }
            out.push((json.clone(), val));
        }
        Ok(Some(out))
    }

    /// A shallow copy of a dict or Struct with JSON fields set (`None`: removed).
    pub fn replace(
        &self,
        orig: &Obj<'py>,
        set: &[(&'static str, Option<Obj<'py>>)],
    ) -> PyResult<Obj<'py>> {
        if let Ok(d) = orig.cast::<PyDict>() {
            let d = d.copy()?;
            for (k, v) in set {
                let k = self.key(k);
                match v {
                    Some(v) => d.set_item(&k, v)?,
                    None => {
                        if d.contains(&k)? {
                            d.del_item(&k)?;
                        }
                    }
                }
            }
            return Ok(d.into_any());
        }
        let Some(info) = self.class_of(orig)? else {
            return Ok(orig.clone());
        };
        let copy = orig.call_method0("__copy__")?;
        for (k, v) in set {
            match info.attr(k) {
                Some(attr) => match v {
                    Some(v) => copy.setattr(attr, v)?,
                    None => copy.setattr(attr, self.unset()?)?,
                },
                None => {
                    if let Some(extra) = info.attr("__extra__") {
                        let ex = copy.getattr(extra)?;
                        if let Ok(ex) = ex.cast::<PyDict>() {
                            let ex = ex.copy()?;
                            match v {
                                Some(v) => ex.set_item(*k, v)?,
                                None => {
                                    if ex.contains(*k)? {
                                        ex.del_item(*k)?;
                                    }
                                }
                            }
                            copy.setattr(extra, ex)?;
                        }
                    }
                }
            }
        }
        Ok(copy)
    }

    /// A new object of the caller's kind: a dict, or the model's class `class`
    /// built from JSON-named keyword arguments.
    pub fn make(
        &self,
        class: &'static str,
        fields: &[(&'static str, Obj<'py>)],
    ) -> PyResult<Obj<'py>> {
        let d = PyDict::new(self.py);
        if !self.structs {
            for (k, v) in fields {
                d.set_item(self.key(k), v)?;
            }
            return Ok(d.into_any());
        }
        let cls = self.model_class(class)?;
        let info = self.class_of_class(&cls)?;
        for (k, v) in fields {
            if *k == "type" {
                continue; // the class's tag
            }
            match info.attr(k) {
                Some(attr) => d.set_item(attr, v)?,
                None => {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "internal error: {class} has no field {k}"
                    )))
                }
            }
        }
        cls.call((), Some(&d))
    }

    /// The model's class `name` (`UserMessage`, ...), looked up once per process.
    fn model_class(&self, name: &'static str) -> PyResult<Obj<'py>> {
        static CLASSES: [PyOnceLock<Py<PyAny>>; MADE_CLASSES.len()] =
            [const { PyOnceLock::new() }; MADE_CLASSES.len()];
        let Some(i) = MADE_CLASSES.iter().position(|c| *c == name) else {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "internal error: {name} is not a class the writers make"
            )));
        };
        let cls = CLASSES[i].get_or_try_init(self.py, || -> PyResult<_> {
            Ok(self.py.import("msgnorm.model")?.getattr(name)?.unbind())
        })?;
        Ok(cls.bind(self.py).clone())
    }

    fn class_of_class(&self, cls: &Obj<'py>) -> PyResult<Rc<ClassInfo<'py>>> {
        let key = cls.as_ptr() as usize;
        if let Some(Some(found)) = self.classes.borrow().get(&key) {
            return Ok(found.clone());
        }
        let info = Rc::new(ClassInfo::new(cls)?);
        self.classes.borrow_mut().insert(key, Some(info.clone()));
        Ok(info)
    }
}
