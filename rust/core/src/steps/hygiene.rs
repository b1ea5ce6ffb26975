//! §4 step 7: content hygiene: blank texts, error results, the media limit.

use super::NO_CONTENT;
use crate::model::{is_blank, Block, BlockKind, Content, Kind, Record, Str};
use crate::report::Report;

pub fn run<'a, H>(recs: &mut [Record<'a, H>], max_media: Option<usize>, report: &mut Report) {
    for r in recs.iter_mut() {
        blank_texts(r, report);
        error_results(r, report);
    }
    if let Some(limit) = max_media {
        report.media_omitted += media_limit(recs, limit);
    }
}

fn blank_texts<H>(r: &mut Record<'_, H>, report: &mut Report) {
    match &r.content {
        Content::Str(s) => {
            if r.kind == Kind::User && is_blank(s) {
                r.set_content(Content::Str(Str::Borrowed(NO_CONTENT)));
                report.no_content_filled += 1;
            }
        }
        Content::Blocks(bs) => {
            let has_blank = bs.iter().any(|b| b.is_blank_text());
            let has_blank_inside = bs.iter().any(has_blank_inside);
            if has_blank {
                let blocks = r.blocks_mut();
                let before = blocks.len();
                blocks.retain(|b| !b.is_blank_text());
                report.blank_texts_removed += before - blocks.len();
            }
            if has_blank_inside {
                // a tool_result's content list is a content list too
                for b in r.blocks_mut().iter_mut() {
                    if let Some(Content::Blocks(inner)) = &mut b.inner {
                        let before = inner.len();
                        inner.retain(|x| !x.is_blank_text());
                        if inner.len() != before {
                            report.blank_texts_removed += before - inner.len();
                            b.dirty = true;
                        }
                    }
                }
            }
            if r.kind == Kind::User && r.content.blocks().is_empty() {
                r.set_content(Content::Blocks(vec![Block::new_text(NO_CONTENT)]));
                report.no_content_filled += 1;
            }
        }
    }
}

fn has_blank_inside<H>(b: &Block<'_, H>) -> bool {
    b.kind == BlockKind::ToolResult
        && matches!(&b.inner, Some(Content::Blocks(inner)) if inner.iter().any(|x| x.is_blank_text()))
}

fn error_results<H>(r: &mut Record<'_, H>, report: &mut Report) {
    let needs = r.content.blocks().iter().any(needs_join);
    if !needs {
        return;
    }
    for b in r.blocks_mut().iter_mut().filter(|b| needs_join(b)) {
        let texts: Vec<&str> = b
            .inner
            .as_ref()
            .map(|c| c.blocks())
            .unwrap_or_default()
            .iter()
            .filter(|x| x.kind == BlockKind::Text)
            .map(|x| x.text_str())
            .collect();
        let joined = texts.join("\n\n");
        b.inner = Some(Content::Str(Str::Owned(joined)));
        report.error_results_joined += 1;
        b.dirty = true;
    }
}

fn needs_join<H>(b: &Block<'_, H>) -> bool {
    b.kind == BlockKind::ToolResult
        && b.is_error
        && matches!(&b.inner, Some(Content::Blocks(inner)) if inner.iter().any(|x| x.kind != BlockKind::Text))
}

/// Media blocks of a record (§4 step 7 counts them), also those in tool results.
pub fn media_in<H>(r: &Record<'_, H>) -> usize {
    r.content
        .blocks()
        .iter()
        .map(|b| {
            if is_media(b) {
                1
            } else if b.kind == BlockKind::ToolResult {
                b.inner
                    .as_ref()
                    .map_or(0, |c| c.blocks().iter().filter(|x| is_media(x)).count())
            } else {
                0
            }
        })
        .sum()
}

fn is_media<H>(b: &Block<'_, H>) -> bool {
    matches!(b.kind, BlockKind::Image | BlockKind::Document)
}

/// Replaces the oldest media over the limit; how many.
fn media_limit<H>(recs: &mut [Record<'_, H>], limit: usize) -> usize {
    let mut total = 0usize;
    for r in recs.iter() {
        for b in r.content.blocks() {
            if is_media(b) {
                total += 1;
            } else if b.kind == BlockKind::ToolResult {
                if let Some(inner) = &b.inner {
                    total += inner.blocks().iter().filter(|x| is_media(x)).count();
                }
            }
        }
    }
    if total <= limit {
        return 0;
    }
    // Replace the oldest `total - limit`.
    let mut left = total - limit;
    for r in recs.iter_mut() {
        if left == 0 {
            break;
        }
        let has = r.content.blocks().iter().any(|b| {
            is_media(b)
                || (b.kind == BlockKind::ToolResult
                    && b.inner
                        .as_ref()
                        .is_some_and(|c| c.blocks().iter().any(|x| is_media(x))))
        });
        if !has {
            continue;
        }
        for b in r.blocks_mut().iter_mut() {
            if left == 0 {
                break;
            }
            if is_media(b) {
                *b = omitted(b.kind, limit);
                left -= 1;
            } else if b.kind == BlockKind::ToolResult {
                if let Some(Content::Blocks(inner)) = &mut b.inner {
                    for x in inner.iter_mut() {
                        if left == 0 {
                            break;
                        }
                        if is_media(x) {
                            *x = omitted(x.kind, limit);
                            left -= 1;
                            b.dirty = true;
                        }
                    }
                }
            }
        }
    }
    total - limit
}

fn omitted<'a, H>(kind: BlockKind, limit: usize) -> Block<'a, H> {
    let what = if kind == BlockKind::Image {
        "image"
    } else {
        "document"
    };
    Block::new_text(format!("[{what} omitted: over the media limit of {limit}]"))
}
