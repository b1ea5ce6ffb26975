//! The JSON-text backend: JSON `bytes`/`str` in, JSON out, without building a
//! tree; and the one value tree ([`value`]) for what does build one.

pub mod parse;
pub mod raw;
pub mod read;
pub mod value;
pub mod write;

pub use raw::Raw;
pub use read::{read_records, tool_use_info, utf8, ReadOpts};
pub use write::{records_len, write_records, write_records_into, write_str};

/// JSON's insignificant white space (RFC 8259 §2): space, tab, line feed and
/// carriage return. Nothing else: not form feed or vertical tab (which Rust's
/// `u8::is_ascii_whitespace` and Python's `bytes.strip` include), nothing
/// beyond ASCII. The one definition the reader, the JSON Lines splitting, the
/// session reader and the fuzz oracles use.
#[inline]
pub const fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `b` is empty or JSON white space only ([`is_ws`]): a JSON Lines
/// line that holds no record.
pub fn is_all_ws(b: &[u8]) -> bool {
    b.iter().all(|&c| is_ws(c))
}

#[cfg(test)]
mod tests {
    use super::{is_all_ws, is_ws};

    #[test]
    fn json_white_space_is_the_four_of_rfc_8259() {
        let ws: Vec<u8> = (0..=255u8).filter(|&c| is_ws(c)).collect();
        assert_eq!(ws, b"\t\n\r ");
        // form feed and vertical tab are ASCII white space, not JSON's
        assert!(0x0c_u8.is_ascii_whitespace() && !is_ws(0x0c));
        assert!(!is_ws(0x0b));
        assert!(is_all_ws(b"") && is_all_ws(b" \t\r\n"));
        assert!(!is_all_ws(b" \x0c ") && !is_all_ws("\u{a0}".as_bytes()));
    }
}
