//! Times each §4 step on a JSON file: `cargo run --release --example steps_timing FILE`.
use msgnorm_core::json::{read_records, utf8, ReadOpts};
use msgnorm_core::{steps, ApiOptions, Report};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: steps_timing FILE");
    let data = std::fs::read(path).expect("read");
    let src = utf8(&data).expect("utf8");
    sizes();
    let opts = ApiOptions::default();
    for _ in 0..3 {
        let recs = read_records(src, ReadOpts::default()).expect("read");
        let mut rep = Report::default();
        let mut t = Instant::now();
        let mut lap = |name: &str| {
            let now = Instant::now();
            print!("{name} {:?}  ", now - t);
            t = now;
        };
        let mut recs = recs;
        steps::tombstones::run(&mut recs, &mut rep);
        lap("tomb");
        let recs = steps::attachments::run(recs, &mut rep);
        lap("att+drop");
        let recs = steps::fold::run(recs, &opts.templates, &mut rep);
        lap("fold");
        let recs = steps::assistant_cleanup::run(recs, false, &mut rep).expect("x");
        lap("clean");
        let mut recs = steps::tool_pairing::run(recs, false, &mut rep).expect("x");
        lap("pair");
        steps::hygiene::run(&mut recs, Some(100), &mut rep);
        lap("hyg");
        steps::final_assistant::run(&mut recs, &mut rep);
        steps::empty_content::run(&mut recs, &mut rep);
        steps::user_first::run(&mut recs, &mut rep);
        lap("rest");
        drop(recs);
        lap("drop-mem");
        println!();
    }
}

#[allow(dead_code)]
fn sizes() {
    use msgnorm_core::json::Raw;
    use msgnorm_core::model::{Block, Record};
    println!(
        "Record {} Block {}",
        std::mem::size_of::<Record<'static, Raw<'static>>>(),
        std::mem::size_of::<Block<'static, Raw<'static>>>()
    );
}
