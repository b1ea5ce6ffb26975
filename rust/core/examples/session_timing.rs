//! Times `session::load` on a session file: `cargo run --release --example session_timing FILE`.
use msgnorm_core::session::{load, Options, SourceFile};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: session_timing FILE");
    let data = std::fs::read(&path).expect("read");
    let files = [SourceFile {
        name: &path,
        data: &data,
        agent_id: None,
    }];
    for full in [false, true] {
        let opts = Options {
            after_compaction: !full,
            ..Options::default()
        };
        let t0 = Instant::now();
        let l = load(&files, &opts).expect("load");
        let t1 = Instant::now();
        let out = l.write_chain();
        let t2 = Instant::now();
        println!(
            "full history {full}: load {:?} write {:?} -> {} records, {} bytes",
            t1 - t0,
            t2 - t1,
            l.chain.len(),
            out.len()
        );
    }
}
