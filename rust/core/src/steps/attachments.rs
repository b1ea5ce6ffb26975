//! §4 step 2: attachments bubble up to just after the nearest stop above them
//! (an assistant record, or a user record whose content starts with a tool_result),
//! or to the top.
//!
//! Step 3 ([`super::drop`]) runs in the same pass: a record it drops goes at
//! once, except that a dropped stop still stops the attachments below it.

use super::drop::kept;
use super::Relay;
use crate::model::{Kind, Record};
use crate::report::Report;

/// Steps 2 and 3.
pub fn run<'a, H>(recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    if !recs.iter().any(|r| r.kind == Kind::Attachment) {
        return super::drop::run(recs, report);
    }
    // One pass forward, in place: an attachment goes out at once, the other
    // records since the last stop wait (in `held`) until the next stop, so the
    // attachments of a stretch come out first, each group in its own order.
    let mut out = Relay::new(recs);
    let mut held: Vec<Record<'a, H>> = Vec::new();
    while let Some(r) = out.next() {
        if r.kind == Kind::Attachment {
            // step 3 keeps every attachment
            out.push(r);
        } else if r.kind == Kind::Assistant || r.starts_with_tool_result() {
            for h in held.drain(..) {
                out.push(h);
            }
            if kept(&r, report) {
                out.push(r);
            }
        } else if kept(&r, report) {
            held.push(r);
        }
    }
    for h in held {
        out.push(h);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use crate::model::{Block, Content, Kind, Record, Str};
    use crate::report::Report;

    fn rec(i: usize, kind: Kind, uuid: &'static str) -> Record<'static, ()> {
        let mut r = Record::new(i, kind, None);
        r.uuid = Some(Str::Borrowed(uuid));
        r.content = Content::Str(Str::Borrowed("x"));
        r
    }

    /// Steps 1–3 as `normalize_after` runs them: the output's input indices.
    fn steps_1_to_3(recs: Vec<Record<'static, ()>>) -> (Vec<usize>, Report) {
        let mut report = Report::default();
        let mut recs = recs;
        super::super::tombstones::run(&mut recs, &mut report);
        let out = super::run(recs, &mut report);
        (out.iter().map(|r| r.index).collect(), report)
    }

    /// Records of `(index, kind, uuid)`.
    fn recs(spec: &[(usize, Kind, &'static str)]) -> Vec<Record<'static, ()>> {
        spec.iter().map(|&(i, k, u)| rec(i, k, u)).collect()
    }

    #[test]
    fn a_tombstoned_stop_stops_nothing_a_dropped_one_still_does() {
        use Kind::{Assistant, Attachment, Progress, Tombstone, User};
        // the assistant a tombstone names is gone before step 2: the attachment
        // below it bubbles to the top
        let mut r = recs(&[
            (0, User, "u0"),
            (1, Assistant, "a1"),
            (2, User, "u2"),
            (3, Attachment, "at3"),
            (4, Tombstone, "t4"),
        ]);
        r[4].tombstone_of = Some(Str::Borrowed("a1"));
        let (order, report) = steps_1_to_3(r);
        assert_eq!(order, vec![3, 0, 2]);
        assert_eq!((report.tombstoned, report.dropped), (2, 0));

        // a virtual assistant is a stop in step 2 and dropped in step 3; a
        // virtual user above it goes too
        let mut r = recs(&[
            (0, User, "v0"),
            (1, Assistant, "a1"),
            (5, Progress, "p5"),
            (3, Attachment, "at3"),
            (2, User, "u2"),
            (4, Attachment, "at4"),
        ]);
        r[0].is_virtual = true;
        r[1].is_virtual = true;
        r[4].content = Content::Blocks(vec![Block::new_error_result(Str::Borrowed("t"), "r")]);
        let (order, report) = steps_1_to_3(r);
        // at3 stops at the dropped assistant; u2 starts with a result, a stop
        assert_eq!(order, vec![3, 2, 4]);
        assert_eq!((report.tombstoned, report.dropped), (0, 3));
    }
}
