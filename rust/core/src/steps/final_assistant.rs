//! §4 step 8: the final assistant record ends on real text.

use super::NO_MESSAGE_CONTENT;
use crate::model::{trim_end_space, Block, BlockKind, Kind, Record, Str};
use crate::report::Report;

pub fn run<H>(recs: &mut [Record<'_, H>], report: &mut Report) {
    // system_prompt records after it go to the system parameter: not a turn
    let Some(at) = super::last_turn(recs) else {
        return;
    };
    let last = &mut recs[at];
    if last.kind != Kind::Assistant {
        return;
    }
    let needs = match last.content.blocks().last() {
        Some(b) => match b.kind {
            BlockKind::Thinking | BlockKind::RedactedThinking => true,
            BlockKind::Text => trim_end_space(b.text_str()) != b.text_str(),
            _ => false,
        },
        None => true,
    };
    if !needs {
        return;
    }
    let blocks = last.blocks_mut();
    while let Some(b) = blocks.last_mut() {
        match b.kind {
            BlockKind::Thinking | BlockKind::RedactedThinking => {
                blocks.pop();
                report.final_blocks_trimmed += 1;
            }
            BlockKind::Text => {
                let t = b.text_str();
                let trimmed = trim_end_space(t);
                if trimmed.is_empty() {
                    blocks.pop();
                    report.final_blocks_trimmed += 1;
                } else {
                    if trimmed.len() != t.len() {
                        let s = trimmed.to_string();
                        b.text = Some(Str::Owned(s));
                        b.dirty = true;
                    }
                    break;
                }
            }
            _ => break,
        }
    }
    if blocks.is_empty() {
        blocks.push(Block::new_text(NO_MESSAGE_CONTENT));
    }
}
