//! The one place that starts threads: two halves of a list at once
//! ([`both`], [`split_map`], [`write_each`]) and the background freeing of
//! large trees ([`drop_later`]), and a producer on the caller's thread
//! feeding a consumer on a second one ([`pipeline`]). Whether a second thread pays is decided here
//! ([`worth_splitting`]).
//!
//! The second thread is a scoped thread of the call's own
//! (`std::thread::scope`), not a rayon task, for three reasons. A rayon pool's
//! threads do not survive `fork`: a child process (multiprocessing's `fork`
//! start method, pre-forking servers) that calls in after its parent used a
//! pool would wait for threads that are not there, where a scoped thread is
//! started in the child itself. rayon's global pool is the host
//! application's too, and a private one would hold idle threads for the life
//! of the process (batch.rs keeps one for its explicit `num_threads` only).
//! And what a scoped thread adds, starting and joining a thread (tens of
//! microseconds), is paid only on lists of [`worth_splitting`]'s 2,048 items
//! or more, whose halves take milliseconds.

use crate::error::Result;
use crate::providers::{Counts, Ids, Rec, Value};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Mutex, OnceLock};

/// Frees a large tree on a thread of its own: its many small allocations
/// take about as long to free as to build, and the caller does not wait for
/// that. The trees are freed one after another on that one thread, so that
/// freeing never takes more than one core from the work that follows. In a
/// forked child (which has no such thread) a tree is freed at once.
pub fn drop_later<T: Send + 'static>(x: T) {
    type Dropper = (u32, Mutex<Sender<Box<dyn Send>>>);
    static DROPPER: OnceLock<Option<Dropper>> = OnceLock::new();
    let dropper = DROPPER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Box<dyn Send>>();
        let spawned = std::thread::Builder::new()
            .name("msgnorm-drop".into())
            .spawn(move || rx.into_iter().for_each(drop));
        spawned.ok().map(|_| (std::process::id(), Mutex::new(tx)))
    });
    let x: Box<dyn Send> = Box::new(x);
    match dropper {
        Some((pid, tx)) if *pid == std::process::id() => {
            // a send fails only when the thread is gone: then the tree comes back
            if let Ok(tx) = tx.lock() {
                if let Err(back) = tx.send(x) {
                    drop(back);
                }
            }
        }
        _ => drop(x),
    }
}

/// Whether `n` items are worth halving between this thread and a second one:
/// there is a second core, and enough items to repay starting a thread.
pub fn worth_splitting(n: usize) -> bool {
    /// Below this many items a second thread costs more than it saves.
    const MIN: usize = 2048;
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    n >= MIN && cores >= 2
}

/// `a()` on this thread and `b()` on a second one at the same time (when no
/// thread can be started, `b()` runs here after `a()`). A panic in `b` is
/// raised here, as if `b` had run here.
pub fn both<A, B: Send>(a: impl FnOnce() -> A, b: impl Fn() -> B + Sync) -> (A, B) {
    std::thread::scope(|s| {
        let other = std::thread::Builder::new().spawn_scoped(s, &b);
        let first = a();
        let second = match other {
            Ok(h) => h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => b(),
        };
        (first, second)
    })
}

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
    crate::providers::add_counts(counts, more_counts);
}

/// `f(i, item)` for every item, in order; with many items and a second core,
/// the second half is done on a thread of its own at the same time. The
/// error is the first item's that fails, as when done one by one.
pub fn split_map<'a, T: Sync, U: Send>(
    items: &'a [T],
    f: impl Fn(usize, &'a T) -> Result<U> + Sync,
) -> Result<Vec<U>> {
    let run = |at: usize, xs: &'a [T]| -> Result<Vec<U>> {
        (at..).zip(xs).map(|(i, x)| f(i, x)).collect()
    };
    if !worth_splitting(items.len()) {
        return run(0, items);
    }
    let mid = items.len() / 2;
    let (first, second) = items.split_at(mid);
    let (out, rest) = both(|| run(0, first), || run(mid, second));
    let mut out = out?;
    out.extend(rest?);
    Ok(out)
}

/// `produce` on this thread while `consume` runs on a second one, reading
/// what `produce` hands to its `send` (in order; a consumer that stopped
/// takes no more, and `send` then does nothing). `None` when no thread can
/// be started (then neither has run). The consumer's panic comes back as its
/// `Err`, for the caller to report.
pub fn pipeline<T: Send, P, C: Send>(
    produce: impl FnOnce(&dyn Fn(T)) -> P,
    consume: impl FnOnce(Receiver<T>) -> C + Send,
) -> Option<(P, std::thread::Result<C>)> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<T>();
        let worker = std::thread::Builder::new()
            .spawn_scoped(s, move || consume(rx))
            .ok()?;
        let produced = produce(&|x| {
            let _ = tx.send(x);
        });
        drop(tx);
        Some((produced, worker.join()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::providers::{count, obj, read_records, Provider};

    #[test]
    fn split_map_keeps_the_order_and_the_first_error() {
        let items: Vec<usize> = (0..20_000).collect();
        let out = split_map(&items, |i, x| Ok((i, *x * 2))).unwrap();
        assert!(out
            .iter()
            .enumerate()
            .all(|(k, (i, x))| k == *i && *x == 2 * k));
        let fail = |bad: &'static [usize]| {
            move |i: usize, _: &usize| {
                if bad.contains(&i) {
                    Err(Error::value(format!("item {i}")))
                } else {
                    Ok(i)
                }
            }
        };
        // an error in each half: the first half's, as one by one
        let e = split_map(&items, fail(&[3_000, 15_000])).unwrap_err();
        assert_eq!(e.to_string(), "item 3000");
        let e = split_map(&items, fail(&[15_000, 19_000])).unwrap_err();
        assert_eq!(e.to_string(), "item 15000");
    }

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

    #[test]
    fn pipeline_hands_every_item_over_in_order() {
        let (sent, got) = pipeline(
            |send| {
                (0..1000).for_each(send);
                1000
            },
            |rx| rx.into_iter().collect::<Vec<i32>>(),
        )
        .unwrap();
        assert_eq!(sent, 1000);
        assert_eq!(got.unwrap(), (0..1000).collect::<Vec<_>>());
        // a consumer that stops early: the producer still finishes
        let (_, got) = pipeline(
            |send| (0..1000).for_each(send),
            |rx| rx.iter().take(3).sum::<i32>(),
        )
        .unwrap();
        assert_eq!(got.unwrap(), 3);
    }
}
