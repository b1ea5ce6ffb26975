//! §4 step 11: `[id:xxxxxx]` after the last text of every non-meta user record.

use crate::error::{Error, Result};
use crate::ids::derive_short_message_id;
use crate::model::{BlockKind, Content, Kind, Record, Str};

pub fn run<H>(recs: &mut [Record<'_, H>]) -> Result<()> {
    for r in recs.iter_mut() {
        if r.kind != Kind::User || r.is_meta {
            continue;
        }
        let has_text = match &r.content {
            Content::Str(_) => true,
            Content::Blocks(bs) => bs.iter().any(|b| b.kind == BlockKind::Text),
        };
        if !has_text {
            continue;
        }
        let id = derive_short_message_id(r.uuid_str()).map_err(|e| {
            let i = r.uuid_from;
            Error::invalid(i, format!("records[{i}].uuid"), format!("short_ids: {e}"))
        })?;
        let suffix = format!("\n[id:{id}]");
        match &mut r.content {
            Content::Str(s) => {
                let mut t = std::mem::take(s).into_owned();
                t.push_str(&suffix);
                r.set_content(Content::Str(Str::Owned(t)));
            }
            Content::Blocks(_) => {
                let blocks = r.blocks_mut();
                if let Some(b) = blocks.iter_mut().rev().find(|b| b.kind == BlockKind::Text) {
                    let mut t = b.text.take().unwrap_or_default().into_owned();
                    t.push_str(&suffix);
                    b.text = Some(Str::Owned(t));
                    b.dirty = true;
                }
            }
        }
    }
    Ok(())
}
