//! Codex rollouts as sessions (SPEC §8.7): `rollout-….jsonl`, one
//! `{"timestamp", "type", "payload"}` line per item. The `response_item`
//! payloads are OpenAI Responses items; those the API takes as input are read
//! by the openai-responses provider reader into records, client-only items
//! (`ghost_snapshot`, ...) are left out and counted. `session_meta` names the
//! session; `compacted` with a `replacement_history` restarts the history (as
//! Codex resumes it) when `after_compaction` is on; `turn_context` and
//! `event_msg` lines are no records.

use super::{LineIssue, Options, Report, SourceFile, Thread, ThreadKind};
use crate::error::{Error, Result};
use crate::providers::input_items::is_api_input_item;
use crate::providers::Provider;
use crate::providers::{FromProvider, Map, Value};

/// The line types of a rollout.
const LINE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "compacted",
    "turn_context",
    "event_msg",
];

/// A loaded rollout: its records as a JSON array, each record's file and line.
pub struct Rollout {
    pub json: String,
    pub origin: Vec<(usize, usize)>,
    pub thread: Thread,
    pub report: Report,
}

/// The lines of `data`: (1-based number, text), BOM and CR stripped, blank lines skipped.
fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    data.split(|&b| b == b'\n')
        .enumerate()
        .map(|(k, l)| (k + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
}

fn line_type(v: &Value) -> Option<&'static str> {
    let o = v.as_obj()?;
    o.get("payload")?;
    let t = o.str("type")?;
    LINE_TYPES.iter().find(|&&l| l == t).copied()
}

/// Whether `data` is a Codex rollout: its first line is a rollout line.
pub fn is_rollout(data: &[u8]) -> bool {
    lines(data).next().is_some_and(|(_, l)| {
        std::str::from_utf8(l)
            .ok()
            .and_then(|t| Value::from_json(t).ok())
            .is_some_and(|v| line_type(&v).is_some())
    })
}

/// What the Responses reader does with an item: it is added to the assistant
/// turn being gathered (`false`), or it ends that turn and is a record of its
/// own (`true`). Used to give each record the line it came from.
fn ends_turn(item: &Map) -> bool {
    match item.str("type").unwrap_or("message") {
        "message" => item.str("role") != Some("assistant"),
        t => t.ends_with("_output"),
    }
}

/// The line each record of `items` comes from: an assistant turn's first
/// item, or the item that is a record of its own.
fn record_lines(items: &[Value], item_lines: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(items.len());
    let mut pending: Option<usize> = None;
    for (it, &line) in items.iter().zip(item_lines) {
        if it.as_obj().is_some_and(ends_turn) {
            out.extend(pending.take());
            out.push(line);
        } else {
            pending.get_or_insert(line);
        }
    }
    out.extend(pending);
    out
}

fn text_of(item: &Map) -> Option<&str> {
    match item.get("content")? {
        Value::Str(s) => Some(s.as_str()),
        Value::Arr(parts) => parts
            .iter()
            .filter_map(Value::as_obj)
            .filter_map(|p| p.str("text"))
            .find(|t| !t.trim_start().starts_with('<')),
        _ => None,
    }
}

/// Reads one rollout file.
pub fn load(file: &SourceFile<'_>, k: usize, opts: &Options<'_>) -> Result<Rollout> {
    let mut report = Report::default();
    let mut items: Vec<Value> = Vec::new();
    let mut item_lines: Vec<usize> = Vec::new();
    let mut session_id = None;
    let mut last_ts: Option<String> = None;
    let skip = |report: &mut Report, line: usize, column: Option<usize>, reason: String| {
        report.skipped.push(LineIssue {
            file: k,
            line,
            column,
            reason,
        });
    };
    for (line, bytes) in lines(file.data) {
        report.lines += 1;
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let column = String::from_utf8_lossy(&bytes[..e.valid_up_to()])
                    .chars()
                    .count()
                    + 1;
                let msg = "invalid UTF-8 byte sequence";
                if opts.raise {
                    return Err(Error::Json {
                        line,
                        column,
                        msg: format!("{msg} (in {})", file.name),
                    });
                }
                skip(&mut report, line, Some(column), msg.into());
                continue;
            }
        };
        let value = match Value::from_json(text) {
            Ok(v) => v,
            Err(Error::Json { column, msg, .. }) => {
                if opts.raise {
                    return Err(Error::Json {
                        line,
                        column,
                        msg: format!("{msg} (in {})", file.name),
                    });
                }
                skip(&mut report, line, Some(column), msg);
                continue;
            }
            Err(e) => return Err(e),
        };
        let Some(ty) = line_type(&value) else {
            let msg = "not a rollout line (an object with a rollout `type` and a `payload`)";
            if opts.raise {
                return Err(Error::invalid(
                    line - 1,
                    format!("records[{}]", line - 1),
                    format!("{msg} (line {line} of {})", file.name),
                ));
            }
            skip(&mut report, line, None, msg.into());
            continue;
        };
        let Value::Obj(mut obj) = value else { continue };
        if let Some(ts) = obj.str("timestamp") {
            last_ts = Some(ts.to_owned());
        }
        let payload = obj.remove("payload").unwrap_or(Value::Null);
        match ty {
            "session_meta" if session_id.is_none() => {
                session_id = payload
                    .as_obj()
                    .and_then(|p| p.str("id"))
                    .map(str::to_owned);
            }
            "response_item" => {
                let kind = payload.as_obj().map(|p| p.str("type").unwrap_or("message"));
                match kind {
                    Some(t) if is_api_input_item(t) => {
                        // An item the Responses reader refuses is this line's problem only.
                        if let Err(e) = FromProvider::read(
                            Provider::OpenAIResponses,
                            std::slice::from_ref(&payload),
                            None,
                            false,
                        ) {
                            let (path, msg) = match e {
                                Error::InvalidRecord { path, msg, .. } => {
                                    (path.replacen("messages[0]", "payload", 1), msg)
                                }
                                other => ("payload".to_owned(), other.to_string()),
                            };
                            if opts.raise {
                                return Err(Error::invalid(
                                    line - 1,
                                    format!("records[{}].{path}", line - 1),
                                    format!("{msg} (line {line} of {})", file.name),
                                ));
                            }
                            skip(&mut report, line, None, format!("{path}: {msg}"));
                            continue;
                        }
                        items.push(payload);
                        item_lines.push(line);
                    }
                    _ => report.client_only += 1,
                }
            }
            "compacted" => {
                report.compactions += 1;
                let history = payload
                    .as_obj()
                    .and_then(|p| p.get("replacement_history"))
                    .and_then(Value::as_arr);
                if let (true, Some(history)) = (opts.after_compaction, history) {
                    report.before_compaction += record_lines(&items, &item_lines).len();
                    items.clear();
                    item_lines.clear();
                    for it in history {
                        let t = it.as_obj().map(|p| p.str("type").unwrap_or("message"));
                        if t.is_some_and(is_api_input_item)
                            && FromProvider::read(
                                Provider::OpenAIResponses,
                                std::slice::from_ref(it),
                                None,
                                false,
                            )
                            .is_ok()
                        {
                            items.push(it.clone());
                            item_lines.push(line);
                        } else {
                            report.client_only += 1;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    report.records = items.len();
    let first_prompt = items
        .iter()
        .filter_map(Value::as_obj)
        .filter(|m| {
            m.str("type").unwrap_or("message") == "message" && m.str("role") == Some("user")
        })
        .find_map(text_of)
        .map(|t| t.lines().next().unwrap_or("").chars().take(200).collect())
        .unwrap_or_default();
    let mut origin: Vec<(usize, usize)> = record_lines(&items, &item_lines)
        .into_iter()
        .map(|l| (k, l))
        .collect();
    let records = FromProvider::read(Provider::OpenAIResponses, &items, None, true)?;
    if records.len() != origin.len() {
        // Never a wrong line: every record then names the file's first item.
        let first = item_lines.first().copied().unwrap_or(0);
        origin = vec![(k, first); records.len()];
    }
    let json = Value::Arr(records).to_json();
    let thread = Thread {
        id: "main".into(),
        kind: ThreadKind::Main,
        leaf: None,
        session_id,
        agent_id: None,
        file: Some(k),
        records: origin.len(),
        first_prompt,
        last_timestamp: last_ts,
    };
    if !matches!(opts.thread, "main") && Some(opts.thread) != thread.session_id.as_deref() {
        return Err(Error::value(format!(
            "no thread {:?} in this Codex rollout: it has one thread, \"main\"",
            opts.thread
        )));
    }
    Ok(Rollout {
        json,
        origin,
        thread,
        report,
    })
}
