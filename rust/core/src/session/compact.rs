//! What compaction records say beyond their links (SPEC §8.4): the preserved
//! segment of a partial compaction, and the tool results a microcompaction
//! cleared. Only these few records are parsed again, from their own text.

use crate::json::Raw;
use crate::model::{Kind, Record};
use crate::providers::Value;

type Rec<'a> = Record<'a, Raw<'a>>;

/// The messages a partial compaction kept verbatim: `head` to `tail` (a
/// `parentUuid` chain, as written before the compaction), to be relinked
/// after `anchor` (the summary, or the boundary itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preserved {
    pub anchor: String,
    pub head: String,
    pub tail: String,
    /// `preservedMessages.uuids` when the boundary lists them (each must exist).
    pub listed: Vec<String>,
}

fn parse(r: &Rec<'_>) -> Option<Value> {
    Value::from_json(r.orig.as_ref()?.text).ok()
}

fn str_of(m: &Value, k: &str) -> Option<String> {
    m.as_obj()?
        .str(k)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A compact boundary's `compactMetadata.preservedMessages` (`anchorUuid` and
/// `uuids`, first to last) or, failing that, its `preservedSegment`
/// (`headUuid`, `anchorUuid`, `tailUuid`). `None`: a full compaction, or
/// metadata of another shape.
pub fn preserved(r: &Rec<'_>) -> Option<Preserved> {
    let v = parse(r)?;
    let meta = v.as_obj()?.get("compactMetadata")?.as_obj()?;
    if let Some(list) = meta.get("preservedMessages") {
        let anchor = str_of(list, "anchorUuid")?;
        let uuids: Vec<String> = list
            .as_obj()?
            .get("uuids")?
            .as_arr()?
            .iter()
            .map(|u| u.as_str().filter(|s| !s.is_empty()).map(str::to_owned))
            .collect::<Option<_>>()?;
        return Some(Preserved {
            anchor,
            head: uuids.first()?.clone(),
            tail: uuids.last()?.clone(),
            listed: uuids,
        });
    }
    let seg = meta.get("preservedSegment")?;
    Some(Preserved {
        anchor: str_of(seg, "anchorUuid")?,
        head: str_of(seg, "headUuid")?,
        tail: str_of(seg, "tailUuid")?,
        listed: Vec::new(),
    })
}

/// The tool call ids a `microcompact_boundary` record's
/// `microcompactMetadata.compactedToolIds` names (`None`: not such a record).
pub fn microcompacted(r: &Rec<'_>) -> Option<Vec<String>> {
    if r.kind != Kind::System {
        return None;
    }
    let text = r.orig.as_ref()?.text;
    memchr::memmem::find(text.as_bytes(), b"microcompact_boundary")?;
    let v = parse(r)?;
    let o = v.as_obj()?;
    if o.str("subtype") != Some("microcompact_boundary") {
        return None;
    }
    let ids = o
        .get("microcompactMetadata")
        .and_then(Value::as_obj)
        .and_then(|m| m.get("compactedToolIds"))
        .and_then(Value::as_arr)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Some(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{load, Options, SourceFile};

    fn chain_of(src: &str) -> (Vec<String>, crate::session::Report) {
        let files = [SourceFile {
            name: "s.jsonl",
            data: src.as_bytes(),
            agent_id: None,
        }];
        let l = load(&files, &Options::default()).expect("loads");
        let ids = l
            .chain
            .iter()
            .map(|&i| l.records[i].uuid.as_deref().unwrap_or("").to_owned())
            .collect();
        (ids, l.report)
    }

    fn line(uuid: &str, parent: Option<&str>, kind: &str, extra: &str) -> String {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        let role = if kind == "assistant" {
            "assistant"
        } else {
            "user"
        };
        let body = if kind == "system" {
            String::new()
        } else {
            format!(r#","message":{{"role":"{role}","content":"{uuid}"}}"#)
        };
        format!(r#"{{"type":"{kind}","uuid":"{uuid}","parentUuid":{parent}{body}{extra}}}"#)
    }

    #[test]
    fn preserved_segment_is_relinked_after_the_summary() {
        let seg = r#","subtype":"compact_boundary","logicalParentUuid":"a2","compactMetadata":{"preservedSegment":{"headUuid":"p2","anchorUuid":"s","tailUuid":"a2"}}"#;
        let src = [
            line("p1", None, "user", ""),
            line("a1", Some("p1"), "assistant", ""),
            line("p2", Some("a1"), "user", ""),
            line("a2", Some("p2"), "assistant", ""),
            line("b", None, "system", seg),
            line("s", Some("b"), "user", r#","isCompactSummary":true"#),
            line("p3", Some("a2"), "user", ""),
        ]
        .join("\n");
        let (ids, report) = chain_of(&src);
        assert_eq!(ids, ["b", "s", "p2", "a2", "p3"]);
        assert_eq!(report.preserved, 2);
        assert_eq!(report.before_compaction, 2);
    }

    #[test]
    fn metadata_shapes() {
        let parse = |extra: &str| {
            let src = line("b", None, "system", extra);
            let mut r = crate::session::Report::default();
            let f = crate::session::lines::read_file(src.as_bytes(), 0, false, &mut r).unwrap();
            (preserved(&f.records[0]), microcompacted(&f.records[0]))
        };
        let (p, m) = parse(
            r#","subtype":"compact_boundary","compactMetadata":{"preservedMessages":{"anchorUuid":"s","uuids":["x","y","z"]}}"#,
        );
        let p = p.expect("a list");
        assert_eq!((p.head.as_str(), p.tail.as_str()), ("x", "z"));
        assert_eq!(p.listed.len(), 3);
        assert!(m.is_none());
        // an empty list, a uuid that is not a string, no metadata: no segment
        for bad in [
            r#","subtype":"compact_boundary","compactMetadata":{"preservedMessages":{"anchorUuid":"s","uuids":[]}}"#,
            r#","subtype":"compact_boundary","compactMetadata":{"preservedSegment":{"headUuid":1,"anchorUuid":"s","tailUuid":"t"}}"#,
            r#","subtype":"compact_boundary""#,
        ] {
            assert!(parse(bad).0.is_none(), "{bad}");
        }
        let (_, m) = parse(
            r#","subtype":"microcompact_boundary","microcompactMetadata":{"compactedToolIds":["t1",2,"t2"]}"#,
        );
        assert_eq!(m, Some(vec!["t1".to_owned(), "t2".to_owned()]));
        let (_, m) = parse(r#","subtype":"turn_duration","note":"microcompact_boundary""#);
        assert!(m.is_none());
    }
}
