//! One tick of a replay: what the model did, and whether it matches the capture.

use super::super::ops::SceneOp;
use super::super::player::TickOutput;

/// One replayed tick.
#[derive(Clone, Debug)]
pub struct ReplayedTick {
    /// The player's position in the header.
    pub player: usize,
    /// The capture line it came from.
    pub line: usize,
    /// The scene's writes, recovered.
    pub ops: Vec<SceneOp>,
    /// What the model's tick did.
    pub output: TickOutput,
    /// Where the model's renderer bytes first differ from the capture's (`None`: equal, or no
    /// renderer bytes captured).
    pub renderer_differs_at: Option<usize>,
    /// The positions of sent items that differ from the capture's (a missing or extra item
    /// counts at its position).
    pub sent_differs: Vec<usize>,
    /// What the inference could not reconcile.
    pub notes: Vec<String>,
}

impl ReplayedTick {
    /// True when the model sent exactly what the capture recorded.
    pub fn matches(&self) -> bool {
        self.renderer_differs_at.is_none() && self.sent_differs.is_empty()
    }
}
