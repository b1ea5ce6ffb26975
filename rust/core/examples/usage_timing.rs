//! Times usage, listing and search on a directory of session files:
//! `cargo run --release --example usage_timing DIR [ROUNDS]`.
use msgnorm_core::usage::{self, FileIn, Group, Options};
use msgnorm_core::{listing, search};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn best(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("usage: usage_timing DIR [ROUNDS] [only]"),
    );
    let rounds: usize = args.next().map_or(5, |r| r.parse().expect("rounds"));
    let only = args.next().unwrap_or_default();
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    let bytes: u64 = paths
        .iter()
        .map(|p| p.metadata().map_or(0, |m| m.len()))
        .sum();
    let files: Vec<FileIn> = paths
        .iter()
        .map(|p| FileIn {
            path: p.clone(),
            agent: p.to_string_lossy().contains("/subagents/"),
            session: String::new(),
            project: String::new(),
        })
        .collect();
    println!("{} files, {:.0} MB", paths.len(), bytes as f64 / 1e6);
    let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    for threads in [1, 2] {
        if !only.is_empty() && only != "usage" {
            break;
        }
        let opts = Options {
            group: Group::None,
            since: None,
            until: None,
            threads,
        };
        let mut requests = 0;
        let d = best(rounds, || {
            requests = usage::usage(&files, &opts)
                .expect("usage")
                .total
                .total
                .requests;
        });
        println!(
            "usage {threads} thread(s): {d:?} ({:.2} GB/s), {requests} requests",
            gbs(d)
        );
    }
    if only.is_empty() || only == "read" {
        let d = best(rounds, || {
            for p in &paths {
                std::hint::black_box(std::fs::read(p).expect("read"));
            }
        });
        println!("read only, 1 thread: {d:?} ({:.2} GB/s)", gbs(d));
    }
    if only.is_empty() || only == "phases" {
        let data: Vec<Vec<u8>> = paths
            .iter()
            .map(|p| std::fs::read(p).expect("read"))
            .collect();
        let finder = memchr::memmem::Finder::new(b"\"usage\"");
        let d = best(rounds, || {
            let mut n = 0;
            for b in &data {
                let mut pos = 0;
                while let Some(i) = finder.find(&b[pos..]) {
                    let at = pos + i;
                    let start = memchr::memrchr(b'\n', &b[pos..at]).map_or(pos, |j| pos + j + 1);
                    let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |j| at + j);
                    n += usize::from(std::str::from_utf8(&b[start..end]).is_ok());
                    pos = end + 1;
                }
            }
            std::hint::black_box(n);
        });
        println!(
            "lines with usage found, in memory: {d:?} ({:.2} GB/s)",
            gbs(d)
        );
        let d = best(rounds, || {
            for (b, p) in data.iter().zip(&paths) {
                std::hint::black_box(usage::scan(b, p.to_string_lossy().contains("/subagents/")));
            }
        });
        println!("scan, in memory: {d:?} ({:.2} GB/s)", gbs(d));
    }
    if only.is_empty() || only == "list" {
        let sessions: Vec<PathBuf> = paths
            .iter()
            .filter(|p| !p.to_string_lossy().contains("/subagents/"))
            .cloned()
            .collect();
        for threads in [1, 2] {
            let d = best(rounds, || {
                std::hint::black_box(listing::list(&sessions, threads).expect("list"));
            });
            println!("list {threads} thread(s): {d:?}");
        }
    }
    if only.is_empty() || only == "search" {
        let opts = search::Options {
            pattern: "qzxv-not-there".into(),
            regex: false,
            tools: false,
            threads: 1,
        };
        let d = best(rounds, || {
            std::hint::black_box(search::search(&paths, &opts).expect("search"));
        });
        println!("search 1 thread: {d:?} ({:.2} GB/s)", gbs(d));
    }
}
