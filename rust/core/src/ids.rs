//! SPEC §2: derived ids.

use crate::error::{Error, Result};

/// The first 24 characters of `parent` followed by `index` as 12 lowercase hex digits.
pub fn derive_uuid(parent: &str, index: u64) -> Result<String> {
    if index >= 1u64 << 48 {
        return Err(Error::value(format!(
            "index {index} is out of range: it must satisfy 0 <= index < 16**12"
        )));
    }
    let head: String = parent.chars().take(24).collect();
    Ok(format!("{head}{index:012x}"))
}

/// Dashes removed, first 10 characters read as hex, written in base 36, first 6 characters.
pub fn derive_short_message_id(uuid: &str) -> Result<String> {
    let head: String = uuid.chars().filter(|&c| c != '-').take(10).collect();
    if head.is_empty() {
        return Err(Error::value(format!(
            "cannot derive a short id from {uuid:?}: it has no characters besides dashes"
        )));
    }
    let Ok(mut n) = u64::from_str_radix(&head, 16) else {
        return Err(Error::value(format!(
            "cannot derive a short id from {uuid:?}: {head:?} is not hexadecimal"
        )));
    };
    if !head.bytes().all(|c| c.is_ascii_hexdigit()) {
        // from_str_radix accepts a leading '+'.
        return Err(Error::value(format!(
            "cannot derive a short id from {uuid:?}: {head:?} is not hexadecimal"
        )));
    }
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    out.truncate(6);
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// `uuid5(NAMESPACE_URL, name)` in its canonical lowercase form.
pub fn uuid5_url(name: &str) -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_vectors() {
        assert_eq!(
            derive_uuid("550e8400-e29b-41d4-a716-446655440000", 3).unwrap(),
            "550e8400-e29b-41d4-a716-000000000003"
        );
        assert_eq!(
            derive_uuid("user_001", 255).unwrap(),
            "user_0010000000000ff"
        );
        assert_eq!(
            derive_short_message_id("550e8400-e29b-41d4-a716-446655440000").unwrap(),
            "4ntnke"
        );
    }

    #[test]
    fn errors() {
        assert!(derive_uuid("x", 1 << 48).is_err());
        assert!(derive_uuid("x", (1 << 48) - 1).is_ok());
        assert!(derive_short_message_id("user_001").is_err());
        assert!(derive_short_message_id("---").is_err());
        assert!(derive_short_message_id("").is_err());
        assert!(derive_short_message_id("+abc").is_err());
        assert_eq!(derive_short_message_id("a").unwrap(), "a");
    }
}
