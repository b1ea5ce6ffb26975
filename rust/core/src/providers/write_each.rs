//! A provider writer's pass over the records, in halves on two threads
//! when the history is long ([`crate::parallel::both`]).

use super::counts::{add_counts, Counts};
use super::ids::Ids;
use super::rec::Rec;
use super::value::Value;
use crate::parallel::{both, worth_splitting};

/// Writes every record with `f` (which appends the record's messages to
/// `out`), in order, after the messages `out` already holds; tool ids are
/// kept to `limit` characters ([`Ids`]). When no tool id is rewritten a
/// record's messages depend on that record alone, so a long history is
/// written in halves, the second on a thread of its own at the same time.
pub fn write_each<'v>(
    recs: &[Rec<'v>],
    limit: usize,
    counts: &mut Counts,
    mut out: Vec<Value>,
    f: impl Fn(&Rec<'v>, &mut Ids, &mut Counts, &mut Vec<Value>) + Sync,
) -> Vec<Value> {
    out.reserve(recs.len());
    write_halves(recs, Ids::new(recs, limit), counts, &mut out, f);
    out
}

fn write_halves<'v>(
    recs: &[Rec<'v>],
    mut ids: Ids,
    counts: &mut Counts,
    out: &mut Vec<Value>,
    f: impl Fn(&Rec<'v>, &mut Ids, &mut Counts, &mut Vec<Value>) + Sync,
) {
    let half = |rs: &[Rec<'v>], ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>| {
        rs.iter().for_each(|r| f(r, ids, counts, out))
    };
    if ids.rewrites || !worth_splitting(recs.len()) {
        return half(recs, &mut ids, counts, out);
    }
    let (first, second) = recs.split_at(recs.len() / 2);
    let limit = ids.limit;
    let ((), (more, more_counts)) = both(
        || half(first, &mut ids, counts, out),
        || {
            let (mut ids, mut counts) = (Ids::fixed(limit), Counts::new());
            let mut out = Vec::with_capacity(second.len());
            half(second, &mut ids, &mut counts, &mut out);
            (out, counts)
        },
    );
    out.extend(more);
    add_counts(counts, more_counts);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::blocks::obj;
    use crate::providers::counts::count;
    use crate::providers::provider::Provider;
    use crate::providers::rec::read_records;

    #[test]
    fn write_each_writes_in_order_and_adds_up_the_counts() {
        let text = |i: usize| obj([("type", "text".into()), ("text", i.to_string().into())]);
        let record = |i: usize, id: &str| {
            let call = obj([("type", "tool_use".into()), ("id", id.into())]);
            let message = obj([("content", vec![text(i), call].into())]);
            obj([("type", "assistant".into()), ("message", message)])
        };
        let f = |r: &Rec<'_>, ids: &mut Ids, counts: &mut Counts, out: &mut Vec<Value>| {
            count(counts, "records");
            let id = ids.get(r.blocks[1].as_obj().unwrap().str("id").unwrap(), counts);
            out.push(Value::Arr(vec![r.blocks[0].clone(), id.into()]));
        };
        for bad in [false, true] {
            // one id outside the charset: every record is written on this thread
            let records: Vec<Value> = (0..20_000)
                .map(|i| record(i, if bad && i == 7 { "a.b" } else { "ok" }))
                .collect();
            let recs = read_records(&records, Provider::OpenAIChat).unwrap();
            let mut counts = Counts::new();
            let out = write_each(&recs, 40, &mut counts, Vec::new(), f);
            let want: Vec<Value> = (0..20_000)
                .map(|i| {
                    let id = if bad && i == 7 {
                        out[7].as_arr().unwrap()[1].clone()
                    } else {
                        "ok".into()
                    };
                    Value::Arr(vec![text(i), id])
                })
                .collect();
            assert!(out == want, "bad id: {bad}");
            assert_eq!(counts.get("records"), Some(&20_000));
            assert_eq!(counts.get("ids_rewritten").copied(), bad.then_some(1));
        }
    }
}
