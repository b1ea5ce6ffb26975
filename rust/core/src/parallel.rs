//! The one place that starts threads: two halves of a list at once
//! ([`both`], [`split_map`]; the provider writers' `providers::write_each`) and the background freeing of
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
