//! SPEC §6: what a block costs, and J(value), written once for every reader.

use crate::model::{BlockKind, Classes, Cost, ImageCost};

/// What J() adds for a number, `true`, `false` or `null`.
pub const SCALAR_J: u64 = 4;

/// A leaf of a value, as J() sees it: a string (object keys included) of so
/// many Unicode code points, or any other scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    Str(u64),
    Scalar,
}

/// §6: J() of one leaf; J(value) is the sum over its leaves (containers add nothing).
#[inline]
pub fn j_leaf(leaf: Leaf) -> u64 {
    match leaf {
        Leaf::Str(n) => n,
        Leaf::Scalar => SCALAR_J,
    }
}

/// What a reader measured of a text or value: §6's count (code points, or
/// J()) and the same characters by class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub n: u64,
    pub cls: Classes,
}

impl Tally {
    /// This tally as a text's ([`Classes::text`]).
    #[inline]
    pub fn text(self) -> Tally {
        Tally {
            cls: self.cls.text(),
            ..self
        }
    }
    #[inline]
    pub fn add(&mut self, o: Tally) {
        self.n = self.n.saturating_add(o.n);
        self.cls.add(&o.cls);
    }
}

/// The parts of a block that §6 may read, as a reader finds them. A streaming
/// reader hands over what it gathered in its one pass; an object reader looks
/// each up when asked. Only the parts the block's kind needs are asked for.
pub trait BlockCostFields {
    type Error;
    /// Code points of a text block's `text`.
    fn text_chars(&mut self) -> Result<Tally, Self::Error>;
    /// J() of field `key` (`name`, `input`, `thinking`, `data`); 0 when absent.
    fn field_j(&mut self, key: &'static str) -> Result<Tally, Self::Error>;
    /// Code points of `source.data` when `source.type == "text"` (a document).
    fn text_document_chars(&mut self) -> Result<Option<Tally>, Self::Error>;
    /// An image's cost by its size, when its `source.data` header gave one.
    fn image_cost(&mut self) -> Result<Option<ImageCost>, Self::Error>;
    /// J() of the whole block.
    fn block_j(&mut self) -> Result<Tally, Self::Error>;
}

/// §6: the cost of a block of `kind`; `inner` is the cost of a tool_result's content.
pub fn block_cost<F: BlockCostFields>(
    kind: BlockKind,
    inner: Cost,
    f: &mut F,
) -> Result<Cost, F::Error> {
    let mut cost = Cost::default();
    let mut set = |t: Tally| {
        cost.chars = t.n;
        cost.cls = t.cls;
    };
    match kind {
        BlockKind::Text => set(f.text_chars()?.text()),
        BlockKind::Thinking => set(f.field_j("thinking")?),
        BlockKind::RedactedThinking => set(f.field_j("data")?),
        BlockKind::ToolUse | BlockKind::ServerToolUse => {
            let mut t = f.field_j("name")?;
            t.add(f.field_j("input")?);
            set(t);
            cost.calls = 1;
        }
        BlockKind::ToolResult => {
            cost = inner;
            cost.results = cost.results.saturating_add(1);
        }
        BlockKind::Image => {
            cost.images = 1;
            if let Some(m) = f.image_cost()? {
                cost.media = m;
            }
        }
        BlockKind::Document => match f.text_document_chars()? {
            Some(t) => set(t.text()),
            None => cost.documents = 1,
        },
        BlockKind::McpToolUse | BlockKind::ServerResult | BlockKind::Other => set(f.block_j()?),
    }
    cost.blocks = cost.blocks.saturating_add(1);
    Ok(cost)
}
