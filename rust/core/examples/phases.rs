//! Times the phases of normalize_for_api on a JSON file: `cargo run --release --example phases FILE`.
use msgnorm_core::json::{read_records, utf8, write_records, ReadOpts};
use msgnorm_core::{normalize_for_api, ApiOptions};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: phases FILE");
    let data = std::fs::read(path).expect("read");
    for _ in 0..3 {
        let t0 = Instant::now();
        let src = utf8(&data).expect("utf8");
        let t1 = Instant::now();
        let recs = read_records(src, ReadOpts::default()).expect("read");
        let t2 = Instant::now();
        let mut skip = msgnorm_core::json::parse::Parser::new(src);
        skip.skip_value().expect("skip");
        let t3 = Instant::now();
        let out = normalize_for_api(recs, &ApiOptions::default()).expect("normalize");
        let t4 = Instant::now();
        let bytes = write_records(&out).expect("write");
        let t5 = Instant::now();
        println!(
            "utf8 {:?} read {:?} (skip-only {:?}) pipeline {:?} write {:?} -> {} bytes",
            t1 - t0,
            t2 - t1,
            t3 - t2,
            t4 - t3,
            t5 - t4,
            bytes.len()
        );
    }
}
