//! The conversation's record buffers: JSON texts, one per record, in one
//! string with their offsets (the input as the inside of an array, the output
//! likewise, kept ready to be sent as it is).

/// JSON texts, one per record, in one buffer, each followed by a separator
/// (`\n` for the input: JSON Lines; `,` for the output: the inside of an array).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Texts {
    pub(super) text: String,
    /// Start of each text; one more than there are texts (the end).
    pub(super) starts: Vec<usize>,
    pub(super) sep: char,
}

impl Texts {
    pub(super) fn new(sep: char) -> Self {
        Texts {
            text: String::new(),
            starts: vec![0],
            sep,
        }
    }
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }
    pub(super) fn get(&self, i: usize) -> &str {
        &self.text[self.starts[i]..self.starts[i + 1] - 1]
    }
    /// A conversation's output buffer: `[` first, so that the whole output is
    /// the text itself with the tail and `]` added for a moment
    /// ([`Conversation::api_bytes`]); nothing past the last start is kept.
    pub(super) fn array() -> Self {
        Texts {
            text: "[".into(),
            starts: vec![1],
            sep: ',',
        }
    }
    pub(super) fn end(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }
    /// Truncates to the end of the last text, with its separator: `api_bytes`
    /// puts `]` in place of the last separator until the next call.
    pub(super) fn reseal(&mut self) {
        self.text.truncate(self.end());
        if self.len() > 0 {
            self.text.pop();
            self.text.push(self.sep);
        }
    }
    /// The text up to the end of the last text, the last separator included.
    pub(super) fn sealed(&self) -> std::borrow::Cow<'_, str> {
        let t = &self.text[..self.end()];
        if self.len() > 0 && !t.ends_with(self.sep) {
            let mut o = t[..t.len() - 1].to_owned();
            o.push(self.sep);
            std::borrow::Cow::Owned(o)
        } else {
            std::borrow::Cow::Borrowed(t)
        }
    }
    pub(super) fn push(&mut self, t: &str) {
        self.reseal();
        self.text.push_str(t);
        self.text.push(self.sep);
        self.starts.push(self.text.len());
    }
    /// Texts `i..j` with their separators.
    pub(super) fn range(&self, i: usize, j: usize) -> &str {
        &self.text[self.starts[i]..self.starts[j]]
    }
    /// Keeps the first `n` texts.
    pub(super) fn truncate(&mut self, n: usize) {
        if n < self.len() {
            self.starts.truncate(n + 1);
            self.text.truncate(self.end());
        }
        self.reseal();
    }
    /// Texts `i..j` as a JSON array (output texts only).
    pub(super) fn array_of(&self, i: usize, j: usize) -> String {
        let r = self.range(i, j);
        let inner = if r.is_empty() { r } else { &r[..r.len() - 1] };
        format!("[{inner}]")
    }
    pub(super) fn clear(&mut self) {
        let lead = self.starts.first().copied().unwrap_or(0);
        self.text.truncate(lead);
        self.starts.clear();
        self.starts.push(lead);
    }
}

impl Default for Texts {
    fn default() -> Self {
        Texts::new(',')
    }
}
