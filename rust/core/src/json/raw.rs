//! [`Raw`]: where a record read from JSON text came from, so that the
//! writer splices a change into the original text instead of writing the
//! whole record again.

/// A handle to an original JSON value: its raw text, and where in it the value
/// the pipeline may replace sits (`message.content` of a record, `text` of a
/// text block, `content` of a tool_result), so a change is a splice, not a rescan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raw<'a> {
    pub text: &'a str,
    /// Byte offsets in `text` (32 bits: every record and block holds one
    /// `Raw`, and every pass over them reads it); `None` also for a value
    /// beyond 4 GiB into its record, which the writer then rewrites.
    pub hole: Option<(u32, u32)>,
    /// The value was read from an object that repeats a key (SPEC §1: the
    /// last value wins): the writer writes it again without the shadowed
    /// members, never copies it as it is.
    pub dup: bool,
}

impl<'a> Raw<'a> {
    /// [`Raw::hole`] as a range of `text`.
    #[inline]
    pub fn hole(&self) -> Option<(usize, usize)> {
        self.hole.map(|(s, e)| (s as usize, e as usize))
    }
    pub fn plain(text: &'a str) -> Self {
        Raw {
            text,
            hole: None,
            dup: false,
        }
    }
    pub(super) fn with_hole(
        text: &'a str,
        start: usize,
        hole: Option<(usize, usize)>,
        dup: bool,
    ) -> Self {
        Raw {
            text,
            dup,
            hole: hole.and_then(|(s, e)| {
                Some((
                    u32::try_from(s - start).ok()?,
                    u32::try_from(e - start).ok()?,
                ))
            }),
        }
    }
}
