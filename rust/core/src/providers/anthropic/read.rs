//! Messages → records.

use super::*;

pub(crate) fn system_in(b: &mut Builder, s: &Value) -> Result<()> {
    match s {
        Value::Str(_) => b.system("system", s.clone()),
        Value::Arr(a) => {
            for (j, blk) in a.iter().enumerate() {
                if blk.as_obj().and_then(|o| o.str("type")) != Some("text") {
                    return Err(Error::invalid(
                        0,
                        format!("system[{j}]"),
                        "a system block must be a text block",
                    ));
                }
            }
            b.system("system", s.clone())
        }
        other => {
            return Err(Error::invalid(
                0,
                "system",
                format!(
                    "must be a string or a list of text blocks, not {}",
                    other.type_name()
                ),
            ))
        }
    }
    Ok(())
}

pub(crate) fn from(b: &mut Builder, at: usize, messages: &[Value]) -> Result<()> {
    for item in message_objects(at, messages) {
        let (i, m) = item?;
        if m.str("role") == Some("system") {
            // a system message in the conversation: kept where it is
            match m.get("content") {
                Some(c @ (Value::Str(_) | Value::Arr(_))) => {
                    b.system_in_messages("system", c.clone())
                }
                _ => {
                    return Err(bad(
                        i,
                        ".content",
                        "must be a string or a list of text blocks",
                    ))
                }
            }
            continue;
        }
        let assistant = match m.str("role") {
            Some("user") => false,
            Some("assistant") => true,
            _ => return Err(bad(i, ".role", "must be 'user', 'assistant' or 'system'")),
        };
        let content = match m.get("content") {
            Some(c @ Value::Str(_)) => c.clone(),
            Some(Value::Arr(a)) => {
                for (j, blk) in a.iter().enumerate() {
                    if blk.as_obj().and_then(|o| o.str("type")).is_none() {
                        return Err(bad(
                            i,
                            &format!(".content[{j}]"),
                            "a block must be an object with a string type",
                        ));
                    }
                }
                Value::Arr(a.clone())
            }
            _ => return Err(bad(i, ".content", "must be a string or a list of blocks")),
        };
        b.message(assistant, content, None);
    }
    Ok(())
}
