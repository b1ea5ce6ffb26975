//! §4 step 9: an assistant record that is not last never has empty content.

use super::NO_CONTENT;
use crate::model::{Block, Content, Kind, Record};
use crate::report::Report;

pub fn run<H>(recs: &mut [Record<'_, H>], report: &mut Report) {
    // the final turn's record keeps its emptiness (step 8 fills it)
    let n = super::last_turn(recs).unwrap_or(0);
    for r in recs.iter_mut().take(n) {
        if r.kind == Kind::Assistant && r.content.is_empty() {
            r.set_content(Content::Blocks(vec![Block::new_text(NO_CONTENT)]));
            report.no_content_filled += 1;
        }
    }
}
