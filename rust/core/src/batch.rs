//! Many histories at once, on every core: one item per history, the results in
//! input order, each exactly what the single call gives.
//!
//! The work runs on a private rayon pool (never the global one, so a host
//! application's own rayon use is not disturbed), built lazily per thread count.
//! A pool does not survive `fork`: a child process (`multiprocessing`, an
//! engine's forked workers) finds the parent's pool without its threads, so the
//! pools are keyed by process id and a child builds its own.

use crate::error::{Error, Result};
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable that sets the default number of threads.
pub const THREADS_VAR: &str = "MSGNORM_NUM_THREADS";

/// Threads to use: `requested` if given (at least 1), else `MSGNORM_NUM_THREADS`,
/// else the CPUs this process may run on (the standard library reads the
/// affinity mask and cgroup quotas).
pub fn threads(requested: Option<usize>) -> usize {
    if let Some(n) = requested {
        return n.max(1);
    }
    if let Some(n) = std::env::var(THREADS_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.max(1);
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

type Pools = Vec<(u32, usize, Arc<ThreadPool>)>;

fn pools() -> &'static Mutex<Pools> {
    static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();
    POOLS.get_or_init(|| Mutex::new(Vec::new()))
}

/// The pool of `n` threads of this process.
fn pool(n: usize) -> Result<Arc<ThreadPool>> {
    let pid = std::process::id();
    let mut pools = pools()
        .lock()
        .map_err(|_| Error::value("internal error: the thread pool registry is poisoned"))?;
    if pools.iter().any(|p| p.0 != pid) {
        // Inherited through fork: their threads do not exist here. Dropping them
        // would signal threads that are gone, so they are leaked (once per fork).
        for stale in std::mem::take(&mut *pools) {
            std::mem::forget(stale);
        }
    }
    if let Some(p) = pools.iter().find(|p| p.1 == n) {
        return Ok(Arc::clone(&p.2));
    }
    let built = ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("msgnorm-{i}"))
        .build()
        .map_err(|e| Error::value(format!("cannot start {n} threads: {e}")))?;
    let built = Arc::new(built);
    pools.push((pid, n, Arc::clone(&built)));
    Ok(built)
}

/// `f` on every item, on `threads` threads; a panic in one item becomes its error.
pub fn map<I, T, F>(items: &[I], threads: usize, f: F) -> Result<Vec<Result<T>>>
where
    I: Sync,
    T: Send,
    F: Fn(&I) -> Result<T> + Sync,
{
    let one = |item: &I| match catch_unwind(AssertUnwindSafe(|| f(item))) {
        Ok(r) => r,
        Err(payload) => Err(crate::error::from_panic(payload.as_ref())),
    };
    if threads <= 1 || items.len() <= 1 {
        return Ok(items.iter().map(one).collect());
    }
    let pool = pool(threads)?;
    Ok(pool.install(|| items.par_iter().map(one).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_and_panics_become_errors() {
        let items: Vec<u32> = (0..1000).collect();
        let out = map(&items, 4, |&i| {
            if i == 7 {
                panic!("boom {i}");
            }
            Ok(i * 2)
        })
        .unwrap();
        assert_eq!(out.len(), 1000);
        assert!(matches!(&out[7], Err(Error::Value { msg }) if msg.contains("boom 7")));
        for (i, r) in out.iter().enumerate().filter(|(i, _)| *i != 7) {
            assert_eq!(r.as_ref().ok(), Some(&(i as u32 * 2)));
        }
    }

    #[test]
    fn thread_counts() {
        assert_eq!(threads(Some(0)), 1);
        assert_eq!(threads(Some(3)), 3);
        assert!(threads(None) >= 1);
        // the same pool is reused for the same size
        let a = pool(2).unwrap();
        let b = pool(2).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 2);
    }
}
