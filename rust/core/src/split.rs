//! SPEC §3: one output record per content block, with derived uuids.

use crate::error::Result;
use crate::ids::derive_uuid;
use crate::model::{Content, Record, Str};

pub fn normalize_messages<'a, H: Clone>(recs: Vec<Record<'a, H>>) -> Result<Vec<Record<'a, H>>> {
    let mut out = Vec::with_capacity(recs.len());
    let mut sticky = false;
    for mut r in recs {
        if !r.kind.is_message() {
            out.push(r);
            continue;
        }
        let blocks =
            std::mem::replace(&mut r.content, Content::Blocks(Vec::new())).into_blocks(true);
        if blocks.len() > 1 {
            sticky = true;
        }
        for (i, b) in blocks.into_iter().enumerate() {
            let mut copy = r.clone();
            copy.set_content(Content::Blocks(vec![b]));
            if sticky {
                copy.uuid = Some(Str::Owned(derive_uuid(r.uuid_str(), i as u64)?));
                copy.uuid_dirty = true;
            }
            out.push(copy);
        }
    }
    Ok(out)
}
