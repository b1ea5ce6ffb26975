//! §4 step 7: content hygiene: blank texts, error results, the media limit.

use super::NO_CONTENT;
use crate::model::{is_blank, Block, BlockKind, Content, Kind, Record, Str};
use crate::report::Report;

pub fn run<'a, H>(recs: &mut [Record<'a, H>], max_media: Option<usize>, report: &mut Report) {
    // one look at every block: what each rule needs, and the media count
    let mut media = 0;
    for r in recs.iter_mut() {
        media += tidy(r, report);
    }
    if let Some(limit) = max_media {
        if media > limit {
            report.media_omitted += media_limit(recs, limit, media);
        }
    }
}

/// Blank texts and error results of one record; its media blocks after that.
fn tidy<H>(r: &mut Record<'_, H>, report: &mut Report) -> usize {
    let Content::Blocks(bs) = &r.content else {
        blank_texts(r, Seen::default(), report);
        return 0;
    };
    let mut seen = Seen::default();
    let mut media = 0;
    for b in bs {
        match b.kind {
            BlockKind::Text => seen.blank |= is_blank(b.text_str()),
            BlockKind::Image | BlockKind::Document => media += 1,
            BlockKind::ToolResult => {
                if let Some(Content::Blocks(inner)) = &b.inner {
                    seen.blank_inside |= inner.iter().any(|x| x.is_blank_text());
                    seen.join |= b.is_error && inner.iter().any(|x| x.kind != BlockKind::Text);
                    media += inner.iter().filter(|x| is_media(x)).count();
                }
            }
            _ => {}
        }
    }
    let join = seen.join;
    blank_texts(r, seen, report);
    if join {
        error_results(r, report);
        media = media_in(r);
    }
    media
}

/// What [`tidy`]'s look at a record's blocks found.
#[derive(Clone, Copy, Default)]
struct Seen {
    /// A blank text block.
    blank: bool,
    /// A blank text block in a tool_result's content list.
    blank_inside: bool,
    /// An error tool_result whose content list holds something besides text.
    join: bool,
}

fn blank_texts<H>(r: &mut Record<'_, H>, seen: Seen, report: &mut Report) {
    match &r.content {
        Content::Str(s) => {
            if r.kind == Kind::User && is_blank(s) {
                r.set_content(Content::Str(Str::Borrowed(NO_CONTENT)));
                report.no_content_filled += 1;
            }
        }
        Content::Blocks(_) => {
            if seen.blank {
                let blocks = r.blocks_mut();
                let before = blocks.len();
                blocks.retain(|b| !b.is_blank_text());
                report.blank_texts_removed += before - blocks.len();
            }
            if seen.blank_inside {
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

fn error_results<H>(r: &mut Record<'_, H>, report: &mut Report) {
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

/// Replaces the oldest media over the limit (`total` of them in `recs`); how many.
fn media_limit<H>(recs: &mut [Record<'_, H>], limit: usize, total: usize) -> usize {
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

#[cfg(test)]
mod tests {
    use super::run;
    use crate::model::{Block, BlockKind, Content, Kind, Record, Str};
    use crate::report::Report;

    fn block(kind: BlockKind) -> Block<'static, ()> {
        let mut b = Block::new_text("x");
        b.kind = kind;
        b.text = None;
        b
    }

    fn text(t: &'static str) -> Block<'static, ()> {
        Block::new_text(Str::Borrowed(t))
    }

    #[test]
    fn one_look_finds_what_each_rule_needs() {
        // an error result holding an image and a blank text, a blank text, an image
        let mut result = block(BlockKind::ToolResult);
        result.is_error = true;
        result.inner = Some(Content::Blocks(vec![
            text("failed"),
            text(" "),
            block(BlockKind::Image),
        ]));
        let mut a = Record::new(0, Kind::User, None);
        a.content = Content::Blocks(vec![result, text("\n"), block(BlockKind::Image)]);
        let mut b = Record::new(1, Kind::User, None);
        b.content = Content::Blocks(vec![block(BlockKind::Document), text("  ")]);
        let mut recs = vec![a, b];
        let mut rep = Report::default();
        run(&mut recs, Some(1), &mut rep);
        assert_eq!(rep.blank_texts_removed, 3);
        assert_eq!(rep.error_results_joined, 1);
        // the image inside the joined result is gone: two media left, one over the limit
        assert_eq!(rep.media_omitted, 1);
        let a = recs[0].content.blocks();
        assert_eq!(a.len(), 2);
        assert!(matches!(&a[0].inner, Some(Content::Str(s)) if s == "failed"));
        assert_eq!(a[1].kind, BlockKind::Text, "the oldest media replaced");
        assert!(a[1].text_str().starts_with("[image omitted"));
        let b = recs[1].content.blocks();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].kind, BlockKind::Document);
    }
}
