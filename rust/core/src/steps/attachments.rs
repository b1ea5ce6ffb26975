//! §4 step 2: attachments bubble up to just after the nearest stop above them
//! (an assistant record, or a user record whose content starts with a tool_result),
//! or to the top.

use crate::model::{Kind, Record};

pub fn run<'a, H>(recs: Vec<Record<'a, H>>) -> Vec<Record<'a, H>> {
    if !recs.iter().any(|r| r.kind == Kind::Attachment) {
        return recs;
    }
    let mut rev: Vec<Record<'a, H>> = Vec::with_capacity(recs.len());
    // Collected attachments, last first.
    let mut pending: Vec<Record<'a, H>> = Vec::new();
    for r in recs.into_iter().rev() {
        if r.kind == Kind::Attachment {
            pending.push(r);
        } else if r.kind == Kind::Assistant || r.starts_with_tool_result() {
            rev.append(&mut pending);
            rev.push(r);
        } else {
            rev.push(r);
        }
    }
    rev.append(&mut pending);
    rev.reverse();
    rev
}
