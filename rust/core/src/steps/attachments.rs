//! §4 step 2: attachments bubble up to just after the nearest stop above them
//! (an assistant record, or a user record whose content starts with a tool_result),
//! or to the top.

use super::Relay;
use crate::model::{Kind, Record};

pub fn run<'a, H>(recs: Vec<Record<'a, H>>) -> Vec<Record<'a, H>> {
    if !recs.iter().any(|r| r.kind == Kind::Attachment) {
        return recs;
    }
    // One pass forward, in place: an attachment goes out at once, the other
    // records since the last stop wait (in `held`) until the next stop, so the
    // attachments of a stretch come out first, each group in its own order.
    let mut out = Relay::new(recs);
    let mut held: Vec<Record<'a, H>> = Vec::new();
    while let Some(r) = out.next() {
        if r.kind == Kind::Attachment {
            out.push(r);
        } else if r.kind == Kind::Assistant || r.starts_with_tool_result() {
            for h in held.drain(..) {
                out.push(h);
            }
            out.push(r);
        } else {
            held.push(r);
        }
    }
    for h in held {
        out.push(h);
    }
    out.finish()
}
