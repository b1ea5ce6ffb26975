//! §4 step 10: the history starts with a user record.

use super::NO_CONTENT;
use crate::ids::uuid5_url;
use crate::model::{Block, Content, Kind, Record, Str};
use crate::report::Report;

pub fn run<'a, H: Clone>(recs: &mut Vec<Record<'a, H>>, report: &mut Report) {
    // system prompts kept by step 3 stay before the first turn
    let at = recs
        .iter()
        .position(|r| !r.is_system_prompt())
        .unwrap_or(recs.len());
    let Some(first) = recs.get(at) else { return };
    if first.kind != Kind::Assistant {
        return;
    }
    let uuid = uuid5_url(&format!("msgnorm:first-user:{}", first.uuid_str()));
    let u = Record::new_user(
        first.index,
        Some(Str::Owned(uuid)),
        first.timestamp.clone(),
        true,
        Content::Blocks(vec![Block::new_text(NO_CONTENT)]),
    )
    .inserted();
    recs.insert(at, u);
    report.first_user_inserted += 1;
}
