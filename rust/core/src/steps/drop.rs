//! §4 step 3: drop what the API must not see. A provider's system prompt
//! (`system` with `subtype: "system_prompt"`, as `from_provider` makes it) is
//! kept in place: it is the request's system text, not Claude Code's own.

use crate::model::{Kind, Record};
use crate::report::Report;

pub fn run<'a, H>(mut recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    let before = recs.len();
    recs.retain(|r| match r.kind {
        Kind::Progress | Kind::ToolUseSummary | Kind::Entry | Kind::Tombstone => false,
        Kind::System => r.local_command || r.system_prompt,
        Kind::User => !r.is_virtual,
        Kind::Assistant => !r.is_virtual && !r.synthetic_error,
        Kind::Attachment => true,
    });
    report.dropped += before - recs.len();
    recs
}
