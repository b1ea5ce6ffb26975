//! §4 step 9: an assistant record that is not last never has empty content.

use super::NO_CONTENT;
use crate::model::{Block, Content, Kind, Record};
use crate::report::Report;

pub fn run<H>(recs: &mut [Record<'_, H>], report: &mut Report) {
    let n = recs.len();
    for r in recs.iter_mut().take(n.saturating_sub(1)) {
        if r.kind == Kind::Assistant && r.content.is_empty() {
            r.set_content(Content::Blocks(vec![Block::new_text(NO_CONTENT)]));
            report.no_content_filled += 1;
        }
    }
}
