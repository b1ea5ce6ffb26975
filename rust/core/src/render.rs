//! SPEC §5: attachment rendering through templates.

use crate::error::{Error, Result};
use crate::model::{AttValue, Str};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Lit(String),
    Field(String),
}

/// A parsed template: `{field}` names a top-level field, `{{`/`}}` are braces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template(Vec<Part>);

impl Template {
    pub fn parse(src: &str) -> Result<Template> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut chars = src.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let rest = &src[i + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(Error::value(format!(
                            "invalid attachment template {src:?}: unclosed '{{' at {i}"
                        )));
                    };
                    let name = &rest[..end];
                    if name.contains('{') {
                        return Err(Error::value(format!(
                            "invalid attachment template {src:?}: '{{' inside a field name"
                        )));
                    }
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Field(name.to_string()));
                    for _ in 0..name.chars().count() + 1 {
                        chars.next();
                    }
                }
                '}' => {
                    return Err(Error::value(format!(
                        "invalid attachment template {src:?}: single '}}' at {i} (write '}}}}')"
                    )))
                }
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template(parts))
    }

    fn render(&self, att: &[(Str<'_>, AttValue<'_>)]) -> Option<String> {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Lit(s) => out.push_str(s),
                Part::Field(name) => match field(att, name)? {
                    AttValue::Str(s) => out.push_str(s),
                    AttValue::Int(d) => out.push_str(d),
                    AttValue::Other => return None,
                },
            }
        }
        Some(out)
    }
}

/// The last occurrence of a field (as JSON parsers keep the last of duplicate keys).
fn field<'x, 'a>(att: &'x [(Str<'a>, AttValue<'a>)], name: &str) -> Option<&'x AttValue<'a>> {
    att.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The built-in templates plus the caller's overrides (`None` disables a type).
#[derive(Clone, Debug, Default)]
pub struct Templates {
    overrides: HashMap<String, Option<Template>>,
}

const BUILTIN: &[(&str, &str)] = &[
    ("memory", "Contents of {path}:\n\n{content}"),
    ("nested_memory", "Contents of {path}:\n\n{content}"),
    (
        "edited_text_file",
        "{filename} was modified by the user or a tool. The relevant changes:\n{snippet}",
    ),
    ("date", "Today's date is {date}."),
    ("queued_command", "{prompt}"),
];

impl Templates {
    pub fn new(overrides: &[(String, Option<String>)]) -> Result<Templates> {
        let mut map = HashMap::new();
        for (k, v) in overrides {
            let t = match v {
                Some(src) => Some(Template::parse(src)?),
                None => None,
            };
            map.insert(k.clone(), t);
        }
        Ok(Templates { overrides: map })
    }

    /// The attachment's text wrapped in `<system-reminder>`, or `None` when it renders to nothing.
    pub fn render(&self, att: &[(Str<'_>, AttValue<'_>)]) -> Option<String> {
        let ty = match field(att, "type")? {
            AttValue::Str(s) => s.as_ref(),
            _ => return None,
        };
        let text = match self.overrides.get(ty) {
            Some(Some(t)) => t.render(att)?,
            Some(None) => return None,
            None => match BUILTIN.iter().find(|(k, _)| *k == ty) {
                Some((_, src)) => Template::parse(src).ok()?.render(att)?,
                None => match field(att, "content")? {
                    AttValue::Str(s) => s.to_string(),
                    _ => return None,
                },
            },
        };
        Some(format!("<system-reminder>\n{text}\n</system-reminder>"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn att(fields: &[(&'static str, AttValue<'static>)]) -> Vec<(Str<'static>, AttValue<'static>)> {
        fields
            .iter()
            .map(|(k, v)| (Cow::Borrowed(*k), v.clone()))
            .collect()
    }
    fn s(x: &'static str) -> AttValue<'static> {
        AttValue::Str(Cow::Borrowed(x))
    }

    #[test]
    fn builtins() {
        let t = Templates::default();
        let memory = |content| {
            att(&[
                ("type", s("memory")),
                ("path", s("/p")),
                ("content", content),
            ])
        };
        let cases = [
            (
                att(&[("type", s("date")), ("date", s("2025-01-01"))]),
                Some("Today's date is 2025-01-01."),
            ),
            (
                memory(AttValue::Int("7".into())),
                Some("Contents of /p:\n\n7"),
            ),
            (memory(AttValue::Other), None),
            (
                att(&[("type", s("whatever")), ("content", s("x"))]),
                Some("x"),
            ),
            (att(&[("type", s("whatever"))]), None),
        ];
        for (k, (a, text)) in cases.iter().enumerate() {
            let want = text.map(|x| format!("<system-reminder>\n{x}\n</system-reminder>"));
            assert_eq!(t.render(a), want, "case {k}");
        }
    }

    #[test]
    fn overrides_and_braces() {
        let t = Templates::new(&[
            ("date".into(), None),
            ("x".into(), Some("{{lit}} {n}}}".into())),
        ])
        .unwrap();
        assert_eq!(
            t.render(&att(&[("type", s("date")), ("date", s("d"))])),
            None
        );
        let a = att(&[("type", s("x")), ("n", AttValue::Int("-3".into()))]);
        assert_eq!(
            t.render(&a).unwrap(),
            "<system-reminder>\n{lit} -3}\n</system-reminder>"
        );
        assert!(Template::parse("{open").is_err());
        assert!(Template::parse("close}").is_err());
    }
}
