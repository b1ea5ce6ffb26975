//! §4 step 3: drop what the API must not see.

use crate::model::{Kind, Record};
use crate::report::Report;

pub fn run<'a, H>(mut recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    let before = recs.len();
    recs.retain(|r| match r.kind {
        Kind::Progress | Kind::ToolUseSummary | Kind::Entry | Kind::Tombstone => false,
        Kind::System => r.local_command,
        Kind::User => !r.is_virtual,
        Kind::Assistant => !r.is_virtual && !r.synthetic_error,
        Kind::Attachment => true,
    });
    report.dropped += before - recs.len();
    recs
}
