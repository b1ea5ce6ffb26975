//! Gemini `contents` (`{"role": "user"|"model", "parts"}`) and `system_instruction`.
//! Input parts may use the REST API's camelCase or the Python SDK's snake_case
//! keys; output uses snake_case (what `google.genai.types` documents), and
//! camelCase when converted from Gemini contents in camelCase ([`to_camel`]).
//!
//! `read.rs`: its messages → records; `write.rs`: records → its request;
//! `rules.rs`: what its API refuses (`validate`).

pub mod models;
mod read;
pub mod rules;
mod write;

pub(crate) use read::*;
pub(crate) use write::*;

use super::*;

const ME: Provider = Provider::Gemini;

/// `k` in snake_case or its camelCase spelling.
fn get<'v>(m: &'v Map, snake: &str, camel: &str) -> Option<&'v Value> {
    m.get(snake).or_else(|| m.get(camel))
}

/// The part keys the writer spells in snake_case, with their camelCase spelling.
const CAMEL: &[(&str, &str)] = &[
    ("function_call", "functionCall"),
    ("function_response", "functionResponse"),
    ("inline_data", "inlineData"),
    ("file_data", "fileData"),
    ("thought_signature", "thoughtSignature"),
    ("executable_code", "executableCode"),
    ("code_execution_result", "codeExecutionResult"),
    ("video_metadata", "videoMetadata"),
    ("mime_type", "mimeType"),
    ("file_uri", "fileUri"),
    ("display_name", "displayName"),
    ("system_instruction", "systemInstruction"),
];

/// The key style of Gemini `contents`, where the REST API's camelCase is
/// used: the parts' keys, and the keys inside their `inlineData` /
/// `fileData` (a client may mix them: `{"fileData": {"file_uri": ...}}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Camel {
    pub parts: bool,
    pub media: bool,
}

/// [`Camel`] of `contents`: a level is camelCase when some key of it is in
/// [`CAMEL`]'s camelCase and none in its snake_case.
pub fn camel_case(contents: &[Value]) -> Camel {
    fn keys(m: &Map, camel: &mut bool, snake: &mut bool) {
        for (k, _) in &m.0 {
            let k: &str = k;
            *camel |= CAMEL.iter().any(|(_, c)| *c == k);
            *snake |= CAMEL.iter().any(|(s, _)| *s == k);
        }
    }
    let (mut camel, mut snake) = (false, false);
    let (mut media_camel, mut media_snake) = (false, false);
    for c in contents.iter().filter_map(Value::as_obj) {
        for p in c.get("parts").and_then(Value::as_arr).unwrap_or(&[]) {
            let Some(p) = p.as_obj() else { continue };
            keys(p, &mut camel, &mut snake);
            for key in ["inlineData", "fileData", "inline_data", "file_data"] {
                if let Some(m) = p.get(key).and_then(Value::as_obj) {
                    keys(m, &mut media_camel, &mut media_snake);
                }
            }
        }
    }
    let parts = camel && !snake;
    Camel {
        parts,
        media: parts && media_camel && !media_snake,
    }
}

fn rename(m: &mut Map) {
    for (k, _) in m.0.iter_mut() {
        if let Some((_, c)) = CAMEL.iter().find(|(s, _)| **s == **k) {
            *k = (*c).into();
        }
    }
}

/// A Gemini request written by [`to`] with its keys in camelCase where
/// `style` says: the request's `system_instruction` and the parts' keys, and
/// the keys of their media objects. Function arguments and responses (the
/// caller's data) are left as they are.
pub fn to_camel(out: &mut Value, style: Camel) {
    if !style.parts {
        return;
    }
    let Value::Obj(req) = out else { return };
    rename(req);
    for (k, v) in req.0.iter_mut() {
        let contents: Vec<&mut Value> = match (&**k, v) {
            ("contents", Value::Arr(cs)) => cs.iter_mut().collect(),
            ("systemInstruction", v) => vec![v],
            _ => continue,
        };
        for c in contents {
            let Value::Obj(c) = c else { continue };
            let Some(Value::Arr(parts)) = c.get_mut("parts") else {
                continue;
            };
            for p in parts.iter_mut() {
                let Value::Obj(p) = p else { continue };
                rename(p);
                if !style.media {
                    continue;
                }
                for key in ["inlineData", "fileData"] {
                    if let Some(Value::Obj(media)) = p.get_mut(key) {
                        rename(media);
                    }
                }
            }
        }
    }
}
