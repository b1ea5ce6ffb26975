//! §4 step 3: drop what the API must not see.

use crate::model::{Kind, Record};

pub fn run<'a, H>(mut recs: Vec<Record<'a, H>>) -> Vec<Record<'a, H>> {
    recs.retain(|r| match r.kind {
        Kind::Progress | Kind::ToolUseSummary | Kind::Entry | Kind::Tombstone => false,
        Kind::System => r.local_command,
        Kind::User => !r.is_virtual,
        Kind::Assistant => !r.is_virtual && !r.synthetic_error,
        Kind::Attachment => true,
    });
    recs
}
