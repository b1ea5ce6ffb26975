//! Whether a record can become Python objects (SPEC §8, "Skip means skip").
//!
//! The reader accepts any depth and any number JSON allows; Python's decoders
//! do not: a value nested past the interpreter's recursion limit, a float out
//! of a double's range (`1e400`) or an integer longer than Python converts
//! from text (`sys.get_int_max_str_digits()`) cannot be decoded there. When
//! the loaded records are to become Python objects, such a record is left out
//! of the tree like a broken line, with its line and reason in the report.

/// The limits of the Python objects the records become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    /// Containers (arrays and objects) nested at most this deep, the record included.
    pub max_depth: usize,
    /// Integers of at most this many digits; 0 for any.
    pub max_int_digits: usize,
}

/// Why the record `text` (valid JSON) cannot become Python objects, if it cannot.
pub fn unfit(text: &str, fit: Fit) -> Option<String> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                // The text is valid JSON: every string ends.
                while let Some(k) = memchr::memchr2(b'"', b'\\', &b[i..]) {
                    i += k;
                    if b[i] == b'\\' {
                        i += 2;
                    } else {
                        i += 1;
                        break;
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > fit.max_depth {
                    return Some(format!(
                        "a value nested more than {} levels deep: too deep for Python objects \
                         (the interpreter's recursion limit)",
                        fit.max_depth
                    ));
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                if let Some(why) = number_unfit(&text[start..i], fit) {
                    return Some(why);
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn number_unfit(num: &str, fit: Fit) -> Option<String> {
    let shown = || {
        if num.len() > 40 {
            format!("{}... ({} characters)", &num[..40], num.len())
        } else {
            num.to_string()
        }
    };
    let exponent = num.contains(['e', 'E']);
    if exponent || num.contains('.') {
        // Only an exponent or a long mantissa can leave a double's range.
        let out =
            (exponent || num.len() > 300) && num.parse::<f64>().map_or(true, f64::is_infinite);
        return out.then(|| {
            format!(
                "the number {} is out of the range of a Python float",
                shown()
            )
        });
    }
    let digits = num.len() - usize::from(num.starts_with('-'));
    (fit.max_int_digits > 0 && digits > fit.max_int_digits).then(|| {
        format!(
            "the integer {} has more than {} digits (Python's limit for integers read from text)",
            shown(),
            fit.max_int_digits
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{unfit, Fit};

    const FIT: Fit = Fit {
        max_depth: 10,
        max_int_digits: 20,
    };

    fn nested(n: usize) -> String {
        format!("{{\"a\":{}{}}}", "[".repeat(n - 1), "]".repeat(n - 1))
    }

    #[test]
    fn depth_counts_arrays_and_objects_not_brackets_in_strings() {
        assert_eq!(unfit(&nested(10), FIT), None);
        assert!(unfit(&nested(11), FIT)
            .unwrap()
            .contains("more than 10 levels"));
        let text = format!("{{\"s\":\"{}\\\"[{{\",\"t\":[1]}}", "[".repeat(50));
        assert_eq!(unfit(&text, FIT), None);
        // Siblings do not add up: depth is how deep, not how many.
        let wide = format!("[{}]", vec!["[[]]"; 50].join(","));
        assert_eq!(unfit(&wide, FIT), None);
    }

    #[test]
    fn numbers_python_cannot_read() {
        for ok in [
            "1e308",
            "-1.5e-400",
            "0.1",
            "12345678901234567890",
            "-12345678901234567890",
        ] {
            assert_eq!(unfit(&format!("[{ok}]"), FIT), None, "{ok}");
        }
        let long_float = format!("[{}.0]", "9".repeat(400));
        for bad in [
            "[1e309]",
            "[-1E+999]",
            "[123456789012345678901]",
            long_float.as_str(),
        ] {
            assert!(unfit(bad, FIT).is_some(), "{bad}");
        }
        let any = Fit {
            max_int_digits: 0,
            ..FIT
        };
        assert_eq!(unfit(&format!("[{}]", "7".repeat(5000)), any), None);
        // Digits inside strings are not numbers.
        assert_eq!(unfit("{\"n\":\"1e999\"}", FIT), None);
    }
}
