//! §4 step 3: drop what the API must not see. A provider's system prompt
//! (`system` with `subtype: "system_prompt"`, as `from_provider` makes it) is
//! kept in place: it is the request's system text, not Claude Code's own.
//! A blank one (no content, or a string of whitespace) is not: no provider
//! takes a system text without a non-whitespace character; it goes, counted
//! as a blank text removed. The tombstones step 1 left in place go too (step 1
//! counted them).

use crate::model::{is_blank, Content, Kind, Record};
use crate::report::Report;

/// Whether step 3 keeps `r`; a record it drops is counted into `report`.
pub fn kept<H>(r: &Record<'_, H>, report: &mut Report) -> bool {
    let keep = match r.kind {
        Kind::Progress | Kind::ToolUseSummary | Kind::Entry | Kind::Tombstone => false,
        Kind::System if r.system_prompt && blank_prompt(r) => {
            report.blank_texts_removed += 1;
            return false;
        }
        Kind::System => r.local_command || r.system_prompt,
        Kind::User => !r.is_virtual,
        Kind::Assistant => !r.is_virtual && !r.synthetic_error,
        Kind::Attachment => true,
    };
    if !keep && r.kind != Kind::Tombstone {
        report.dropped += 1;
    }
    keep
}

/// A system prompt with no text: no `content`, or a string of whitespace (a
/// list of blocks is the writer's to check, block by block).
fn blank_prompt<H>(r: &Record<'_, H>) -> bool {
    matches!(&r.content, Content::Str(s) if is_blank(s))
}

pub fn run<'a, H>(mut recs: Vec<Record<'a, H>>, report: &mut Report) -> Vec<Record<'a, H>> {
    recs.retain(|r| kept(r, report));
    recs
}
