//! A seeded random driver for the fuzz checks, on a stable toolchain.
//!
//! `smoke [--seconds N] [--seed S] [TARGET...]` runs each target for N seconds
//! (default 20) on generated transcripts (structure-aware: every record and block
//! type, shared ids, streamed fragments) and on byte-level mutations of them and
//! of the seed files in `fuzz/seeds/`. A failing check writes the input to
//! `fuzz/artifacts/<target>/smoke-<n>` and exits with status 1.

use msgnorm_fuzz::TARGETS;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const TEXTS: &[&str] = &[
    "",
    " ",
    "\\n",
    "hi",
    "x  ",
    "\\u3000",
    "\\u00e9t\\u00e9",
    "\\ud83d\\ude00",
    "a\\tb",
    "\\\"q\\\"",
    "ok",
    "\u{85}",
    "\u{1c}",
    "中文",
];
const IDS: &[&str] = &["t1", "t2", "t3", "srv1"];
const UUIDS: &[&str] = &[
    "550e8400-e29b-41d4-a716-446655440000",
    "a0000000-0000-4000-8000-000000000001",
    "a0000000-0000-4000-8000-000000000002",
    "u1",
    "zz-not-hex",
];
const VALUES: &[&str] = &[
    "1",
    "-0",
    "2.5e10",
    "123456789012345678901234567890",
    "true",
    "null",
    "\"s\"",
    "[]",
    "{}",
    "[1,[2,{\"a\":null}]]",
    "{\"k\":\"v\",\"k\":2}",
];

fn text(r: &mut Rng) -> String {
    format!("\"{}\"", r.pick(TEXTS))
}

fn block(r: &mut Rng, depth: usize) -> String {
    let id = r.pick(IDS);
    match r.below(if depth > 2 { 9 } else { 10 }) {
        0 | 1 => format!("{{\"type\":\"text\",\"text\":{}}}", text(r)),
        2 => format!("{{\"type\":\"thinking\",\"thinking\":{},\"signature\":\"s\"}}", text(r)),
        3 => "{\"type\":\"redacted_thinking\",\"data\":\"xx\"}".into(),
        4 => format!(
            "{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{}}}",
            r.pick(VALUES)
        ),
        5 => "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"data\":\"iVBOR\"}}".into(),
        6 => {
            if r.chance(50) {
                "{\"type\":\"document\",\"source\":{\"type\":\"text\",\"data\":\"doc\"}}".into()
            } else {
                "{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"data\":\"JVB\"}}".into()
            }
        }
        7 => match r.below(3) {
            0 => format!(
                "{{\"type\":\"server_tool_use\",\"id\":\"{id}\",\"name\":\"web_search\",\"input\":{{}}}}"
            ),
            1 => format!(
                "{{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"{id}\",\"content\":[]}}"
            ),
            _ => format!(
                "{{\"type\":\"mcp_tool_use\",\"id\":\"{id}\",\"name\":\"m\",\"server_name\":\"s\",\"input\":{{}}}}"
            ),
        },
        8 => format!("{{\"type\":\"foo\",\"x\":{}}}", r.pick(VALUES)),
        _ => {
            let err = if r.chance(30) { ",\"is_error\":true" } else { "" };
            format!(
                "{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":{}{err}}}",
                content(r, depth + 1)
            )
        }
    }
}

fn content(r: &mut Rng, depth: usize) -> String {
    match r.below(6) {
        0 => text(r),
        1 => "null".into(),
        _ => {
            let n = r.below(4);
            let bs: Vec<String> = (0..n).map(|_| block(r, depth)).collect();
            format!("[{}]", bs.join(","))
        }
    }
}

/// Session-tree fields (docs/SPEC.md §8): parents, sidechains, compactions.
fn links(r: &mut Rng) -> String {
    let mut out = String::new();
    match r.below(4) {
        0 => {}
        1 => out.push_str(",\"parentUuid\":null"),
        _ => out.push_str(&format!(",\"parentUuid\":\"{}\"", r.pick(UUIDS))),
    }
    if r.chance(15) {
        out.push_str(&format!(",\"logicalParentUuid\":\"{}\"", r.pick(UUIDS)));
    }
    if r.chance(20) {
        out.push_str(",\"isSidechain\":true");
        if r.chance(50) {
            out.push_str(&format!(",\"agentId\":\"ag{}\"", r.below(2)));
        }
    }
    if r.chance(20) {
        out.push_str(&format!(
            ",\"sourceToolAssistantUUID\":\"{}\"",
            r.pick(UUIDS)
        ));
    }
    if r.chance(10) {
        out.push_str(",\"isCompactSummary\":true");
    }
    out
}

fn record(r: &mut Rng) -> String {
    let uuid = r.pick(UUIDS);
    let ts = format!(
        "{}{}",
        if r.chance(50) {
            format!(",\"timestamp\":\"2026-01-01T00:00:0{}Z\"", r.below(10))
        } else {
            String::new()
        },
        links(r)
    );
    let meta = if r.chance(20) { ",\"isMeta\":true" } else { "" };
    match r.below(14) {
        0..=3 => format!(
            "{{\"type\":\"user\",\"uuid\":\"{uuid}\"{ts}{meta},\"message\":{{\"role\":\"user\",\"content\":{}}}}}",
            content(r, 0)
        ),
        4..=7 => {
            let mid = match r.below(4) {
                0 => String::new(),
                1 => ",\"id\":null".into(),
                n => format!(",\"id\":\"m{n}\""),
            };
            let extra = match r.below(8) {
                0 => ",\"isApiErrorMessage\":true",
                1 => ",\"isVirtual\":true",
                _ => "",
            };
            let model = if r.chance(20) { "<synthetic>" } else { "claude" };
            format!(
                "{{\"type\":\"assistant\",\"uuid\":\"{uuid}\"{ts}{extra},\"message\":{{\"role\":\"assistant\",\"model\":\"{model}\"{mid},\"content\":{}}}}}",
                content(r, 0)
            )
        }
        8 => {
            let sub = r.pick(&["local_command", "informational", "compact_boundary"]);
            format!(
                "{{\"type\":\"system\",\"uuid\":\"{uuid}\"{ts},\"subtype\":\"{sub}\",\"content\":{}}}",
                text(r)
            )
        }
        9 => {
            let att = match r.below(6) {
                0 => "{\"type\":\"date\",\"date\":\"2026-01-01\"}".to_string(),
                1 => "{\"type\":\"memory\",\"path\":\"/m\",\"content\":\"mem\"}".into(),
                2 => "{\"type\":\"queued_command\",\"prompt\":7}".into(),
                3 => "{\"type\":\"other\",\"content\":\"c\"}".into(),
                4 => "{\"type\":\"other\",\"content\":1.5}".into(),
                _ => "{\"type\":\"edited_text_file\",\"filename\":\"f\",\"snippet\":\"{x}\"}".into(),
            };
            format!("{{\"type\":\"attachment\",\"uuid\":\"{uuid}\"{ts},\"attachment\":{att}}}")
        }
        10 => format!(
            "{{\"type\":\"progress\",\"uuid\":\"{uuid}\"{ts},\"data\":{{}},\"toolUseID\":\"{}\"}}",
            r.pick(IDS)
        ),
        11 => format!(
            "{{\"type\":\"tool_use_summary\",\"uuid\":\"{uuid}\",\"summary\":\"s\",\"precedingToolUseIds\":[]}}"
        ),
        12 => format!("{{\"type\":\"tombstone\",\"message\":{{\"uuid\":\"{}\"}}}}", r.pick(UUIDS)),
        _ => "{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"x\"}".into(),
    }
}

fn transcript(r: &mut Rng) -> Vec<u8> {
    let n = r.below(12);
    let recs: Vec<String> = (0..n).map(|_| record(r)).collect();
    if r.chance(50) {
        format!("[{}]", recs.join(",")).into_bytes()
    } else {
        recs.join("\n").into_bytes()
    }
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"null",
    b"NaN",
    b"\n",
    b"\"type\"",
    b"\"user\"",
    b"\"assistant\"",
    b"\"tool_result\"",
    b"\"content\"",
    b"1e999",
    b"\xff",
    b"\xc3",
    b"\xe2\x80",
    b"-",
    b"0",
];

fn mutate(r: &mut Rng, data: &mut Vec<u8>) {
    for _ in 0..=r.below(4) {
        let at = r.below(data.len() + 1);
        match r.below(5) {
            0 if !data.is_empty() => {
                let at = at.min(data.len() - 1);
                data[at] = r.next() as u8;
            }
            1 if at < data.len() => {
                let end = (at + 1 + r.below(16)).min(data.len());
                data.drain(at..end);
            }
            2 => {
                let t = TOKENS[r.below(TOKENS.len())];
                data.splice(at..at, t.iter().copied());
            }
            3 if !data.is_empty() => {
                // Duplicate a slice (repeated keys, records, nesting).
                let s = r.below(data.len());
                let e = (s + 1 + r.below(64)).min(data.len());
                let piece = data[s..e].to_vec();
                data.splice(at..at, piece);
            }
            _ => data.truncate(at),
        }
    }
}

fn prefix(target: &str) -> usize {
    match target {
        "normalize_for_api" | "count_tokens" | "session" | "conversation" | "providers" => 1,
        "budget" => 3,
        _ => 0,
    }
}

fn main() {
    let mut seconds = 20u64;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds N")
            }
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).expect("--seed S"),
            _ => names.push(a),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    if let Ok(dir) = std::fs::read_dir(root.join("seeds")) {
        let mut paths: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        paths.sort();
        seeds.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    // A panic inside a check is reported once, with the input saved.
    std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    let mut failed = false;
    for &(name, check) in TARGETS {
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            continue;
        }
        let mut r = Rng(seed ^ name.len() as u64 ^ 0xD1B5_4A32_D192_ED03);
        let start = Instant::now();
        let mut execs = 0u64;
        while start.elapsed() < Duration::from_secs(seconds) {
            let mut data: Vec<u8> = (0..prefix(name)).map(|_| r.next() as u8).collect();
            let body = if !seeds.is_empty() && r.chance(30) {
                seeds[r.below(seeds.len())].clone()
            } else {
                transcript(&mut r)
            };
            data.extend(body);
            if r.chance(40) {
                mutate(&mut r, &mut data);
            }
            execs += 1;
            if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
                let dir = root.join("artifacts").join(name);
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("smoke-{execs}"));
                let _ = std::fs::write(&path, &data);
                eprintln!(
                    "{name}: check failed on input {} ({} bytes): {:?}",
                    path.display(),
                    data.len(),
                    String::from_utf8_lossy(&data)
                );
                failed = true;
                break;
            }
        }
        println!(
            "{name}: {execs} executions in {:.1} s{}",
            start.elapsed().as_secs_f64(),
            if failed { " (FAILED)" } else { "" }
        );
        if failed {
            break;
        }
    }
    std::process::exit(i32::from(failed));
}
