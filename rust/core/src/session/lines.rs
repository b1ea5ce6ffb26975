//! A forgiving JSON Lines reader for session files (SPEC §8, "Broken lines").
//!
//! Every line is read on its own: a broken line is skipped and reported (or
//! raised), never the whole file. A line holding several JSON values written
//! back to back (`…}{"type":…`, seen in real files when two writers raced)
//! yields every record; a record after a truncated one on the same line is
//! found again. A BOM, CRLF line ends and blank lines are fine.

use super::tree::Packs;
use super::{LineIssue, Report};
use crate::error::{Error, Result};
use crate::json::parse::Parser;
use crate::json::read::read_record;
use crate::json::{Raw, ReadOpts};
use crate::model::Record;

/// How many times one broken line is searched for a record after the break.
const MAX_RESYNC: usize = 8;

/// The records of one file, each with its 1-based line number and its
/// uuid, parent and timestamp packed for the tree.
pub struct FileRecords<'a> {
    pub records: Vec<Record<'a, Raw<'a>>>,
    pub lines: Vec<usize>,
    pub packs: Vec<Packs>,
}

/// Reads one session file. With `raise`, the first broken line is an error
/// (`Error::Json` with the line and column, or `Error::InvalidRecord`);
/// otherwise it is skipped and written into `report`.
pub fn read_file<'a>(
    data: &'a [u8],
    file: usize,
    raise: bool,
    report: &mut Report,
) -> Result<FileRecords<'a>> {
    let mut out = FileRecords {
        records: Vec::new(),
        lines: Vec::new(),
        packs: Vec::new(),
    };
    let opts = ReadOpts {
        links: true,
        ..ReadOpts::default()
    };
    let mut start = 0;
    let mut line_no = 0;
    let mut index = 0;
    while start < data.len() {
        line_no += 1;
        let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
        let mut bytes = &data[start..end];
        start = end + 1;
        if line_no == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        report.lines += 1;
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let ok = e.valid_up_to();
                let column = String::from_utf8_lossy(&bytes[..ok]).chars().count() + 1;
                let msg = "invalid UTF-8 byte sequence";
                if raise {
                    return Err(json_error(line_no, column, msg));
                }
                report.skip(file, line_no, Some(column), msg.into());
                continue;
            }
        };
        read_line(
            text,
            LineAt { file, line_no },
            &mut index,
            opts,
            raise,
            report,
            &mut out,
        )?;
    }
    Ok(out)
}

#[derive(Clone, Copy)]
struct LineAt {
    file: usize,
    line_no: usize,
}

fn json_error(line: usize, column: usize, msg: &str) -> Error {
    Error::Json {
        line,
        column,
        msg: msg.into(),
    }
}

/// Reads the values of one line into `out`.
fn read_line<'a>(
    text: &'a str,
    at: LineAt,
    index: &mut usize,
    opts: ReadOpts,
    raise: bool,
    report: &mut Report,
    out: &mut FileRecords<'a>,
) -> Result<()> {
    let mut p = Parser::new(text);
    let mut values = 0;
    let mut resyncs = 0;
    loop {
        p.ws();
        if p.at_end() {
            break;
        }
        let start = p.pos;
        let err = match read_record(&mut p, *index, opts, Some(at.line_no)) {
            Ok(rec) => {
                *index += 1;
                values += 1;
                out.packs.push(Packs::of(&rec));
                out.records.push(rec);
                out.lines.push(at.line_no);
                continue;
            }
            Err(e @ Error::InvalidRecord { .. }) => {
                // A well-formed value that is not a valid record: skip just it.
                p.pos = start;
                match p.skip_value() {
                    Ok(_) => {
                        if raise {
                            return Err(e);
                        }
                        *index += 1;
                        values += 1;
                        let column = text[..start].chars().count() + 1;
                        report.skip(at.file, at.line_no, Some(column), e.to_string());
                        continue;
                    }
                    Err(json) => json,
                }
            }
            Err(e) => e,
        };
        // Broken JSON from here on.
        let (column, msg) = match &err {
            Error::Json { column, msg, .. } => (*column, msg.clone()),
            other => (text[..start].chars().count() + 1, other.to_string()),
        };
        if raise {
            return Err(json_error(at.line_no, column, &msg));
        }
        let next = (resyncs < MAX_RESYNC).then(|| next_record_start(text, start + 1));
        match next.flatten() {
            Some(pos) => {
                resyncs += 1;
                let to = text[..pos].chars().count() + 1;
                report.skip(
                    at.file,
                    at.line_no,
                    Some(column),
                    format!("{msg}; the text up to column {to} was skipped"),
                );
                p.pos = pos;
            }
            None => {
                report.skip(at.file, at.line_no, Some(column), msg);
                break;
            }
        }
    }
    if values > 1 {
        report.repaired.push(LineIssue {
            file: at.file,
            line: at.line_no,
            column: None,
            reason: format!("{values} JSON values on one line: each read as a record"),
        });
    }
    Ok(())
}

/// Where a new record may start after a break: a `{"` that does not follow
/// `:`, `,` or `[` (which would make it a value nested in the broken record).
fn next_record_start(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = from;
    while i + 1 < b.len() {
        let pos = i + memchr::memmem::find(&b[i..], b"{\"")?;
        let before = b[..pos]
            .iter()
            .rev()
            .find(|&&c| !crate::json::is_ws(c))
            .copied();
        if !matches!(before, Some(b':' | b',' | b'[')) {
            return Some(pos);
        }
        i = pos + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str) -> (FileRecords<'_>, Report) {
        let mut r = Report::default();
        let f = read_file(src.as_bytes(), 0, false, &mut r).expect("skip mode never fails");
        (f, r)
    }

    const U: &str = r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}"#;
    const A: &str =
        r#"{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[]}}"#;

    #[test]
    fn two_values_on_a_line_are_both_kept() {
        let src = format!("{U}{A}\n");
        let (f, r) = read(&src);
        assert_eq!((f.records.len(), f.lines), (2, vec![1, 1]));
        assert_eq!((r.repaired.len(), r.skipped.len()), (1, 0));
    }

    #[test]
    fn bom_crlf_and_blank_lines() {
        let src = format!("\u{feff}{U}\r\n\r\n   \n{A}\r\n");
        let (f, r) = read(&src);
        assert_eq!((f.records.len(), f.lines), (2, vec![1, 4]));
        assert!(r.skipped.is_empty() && r.repaired.is_empty());
        assert_eq!(r.lines, 4);
    }

    #[test]
    fn truncated_line_then_a_good_one() {
        let src = format!("{}\n{A}\n", &U[..30]);
        let (f, r) = read(&src);
        assert_eq!(f.records.len(), 1);
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.skipped[0].line, 1);
    }

    #[test]
    fn a_record_after_a_truncated_one_on_the_same_line_is_found() {
        let src = format!("{}{A}\n", &U[..40]);
        let (f, r) = read(&src);
        assert_eq!(f.records.len(), 1);
        assert_eq!(f.records[0].uuid.as_deref(), Some("a1"));
        assert_eq!(r.skipped.len(), 1);
    }

    #[test]
    fn invalid_records_and_non_objects_are_skipped_and_named() {
        let src = format!(
            "\"just a string\"\n{{\"type\":\"user\",\"uuid\":\"x\",\"message\":\"s\"}}\n{U}\n"
        );
        let (f, r) = read(&src);
        assert_eq!(f.records.len(), 1);
        assert_eq!(r.skipped.len(), 2);
        assert!(r.skipped[1].reason.contains("records[1].message"));
    }

    #[test]
    fn raise_gives_line_and_column() {
        let src = format!("{U}\n{{\"type\": tru}}\n");
        let mut r = Report::default();
        match read_file(src.as_bytes(), 0, true, &mut r) {
            Err(Error::Json { line, column, .. }) => {
                assert_eq!(line, 2);
                assert!(column > 1);
            }
            other => panic!(
                "expected a JSON error, got {:?}",
                other.map(|f| f.records.len())
            ),
        }
    }

    #[test]
    fn invalid_utf8_skips_only_its_line() {
        let mut src = U.as_bytes().to_vec();
        src.extend_from_slice(b"\n{\"type\":\"x\xff\"}\n");
        let mut r = Report::default();
        let f = read_file(&src, 0, false, &mut r).unwrap();
        assert_eq!(f.records.len(), 1);
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.skipped[0].line, 2);
        assert_eq!(r.skipped[0].column, Some(11));
    }
}
