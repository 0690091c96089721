//! Tree policies: what a peer draws when the declared parents do not form a tree.
//!
//! Decentraland's messages commute, so a peer's declared parents (each Transform's `parent`)
//! may hold a cycle for a while. Every system that draws replicated trees picks a rule for
//! that moment, and they disagree. [`TreePolicy`] names five of them; [`PolicyBoard`] runs all
//! five on every peer of a simulated [`Network`](crate::crdt::Network), following its timeline,
//! so the same messages can be seen under every rule side by side.
//!
//! Every policy draws the same nodes as the peer's [`SceneView`](super::SceneView) (live
//! entities, implicit parents, the root) and treats a declared parent without a Transform the
//! same way (an implicit node at the origin that keeps its children); they differ only in
//! where they put entities that a cycle touches, and in the history they read. A policy's tree
//! is stored as the entities it places differently from the view's render tree (root
//! fallback), so comparing policies costs the size of the difference.

mod board;
mod ignore_cyclic;
mod move_op;
mod parent_map;
mod queries;
mod reason;
mod revert;
mod worlds;

pub use board::{KEEP_BEFORE, PolicyAgreement, PolicyBoard};
pub use move_op::MoveStamp;
pub use reason::PlacementReason;
pub use worlds::PolicyWorlds;

use crate::model::Entity;

/// A rule for drawing a peer's tree.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TreePolicy {
    /// Decentraland's rule (ADR-153, "Transform SDK component": moving entities on a cycle to
    /// the root is RECOMMENDED while the cycle lasts): every entity on a cycle is drawn at the
    /// root; entities below a cycle member keep their declared parent and follow it. A function
    /// of the declared parents only, so peers with equal state draw equal trees. This is
    /// [`SceneView`](super::SceneView)'s own rule.
    RootFallback,
    /// unity-renderer's rule (decentraland/unity-renderer PR 2837, `ECSTransformHandler`): the
    /// render tree changes write by write in the order this peer applied them; a Transform
    /// whose parent differs from the entity's render parent asks for that parent, and the
    /// request is ignored when the parent is the entity or one of its descendants. The entity
    /// keeps the parent it had, until a later write of it asks again. History dependent: two
    /// peers that hold the same state can draw different trees.
    IgnoreCyclicChange,
    /// Evan Wallace's rule ("CRDT: Mutable Tree Hierarchy", madebyevan.com, 2022): each entity
    /// remembers every parent it was given (its edge map; here every Transform write the peer
    /// received, newest per parent, in the register's timestamp order). Entities whose declared
    /// parents do not lead to the root are reattached by one deterministic pass: the most
    /// recent edge whose parent is connected is taken first, and an entity left with none goes
    /// to the root. A function of the writes received, so it converges once all arrived.
    RevertToEarlierParent,
    /// Kleppmann, Mulligan, Gomes and Beresford's move operation ("A highly-available move
    /// operation for replicated trees", IEEE TPDS 2021), as Loro's `LoroTree` implements it:
    /// moves are applied in one total order, (Lamport number, peer), undoing and redoing later
    /// moves when an earlier one arrives, and a move that would close a cycle is skipped.
    /// Decentraland's timestamps count per entity and component, so they cannot order writes
    /// to different entities causally; the simulation stamps each move with a Lamport number
    /// the way Loro does (see the `move_op` module). Converges once every move arrived.
    MoveOpSkip,
    /// Figma's client (Evan Wallace, "How Figma's multiplayer technology works", figma.com,
    /// 2019: the server rejects a parent change that would make a cycle, and a client that
    /// sees a cycle meanwhile hides it): entities on a cycle, and everything below them, are
    /// not drawn until the cycle is resolved. A function of the declared parents only.
    HideCycle,
}

impl TreePolicy {
    /// All five, in the order the CLI and the UI list them.
    pub const ALL: [TreePolicy; 5] = [
        TreePolicy::RootFallback,
        TreePolicy::IgnoreCyclicChange,
        TreePolicy::RevertToEarlierParent,
        TreePolicy::MoveOpSkip,
        TreePolicy::HideCycle,
    ];

    /// The policy's name as written on the command line: `RootFallback`, ….
    pub fn name(self) -> &'static str {
        match self {
            TreePolicy::RootFallback => "RootFallback",
            TreePolicy::IgnoreCyclicChange => "IgnoreCyclicChange",
            TreePolicy::RevertToEarlierParent => "RevertToEarlierParent",
            TreePolicy::MoveOpSkip => "MoveOpSkip",
            TreePolicy::HideCycle => "HideCycle",
        }
    }

    /// The policy with this name (case-insensitive, `-` and `_` ignored).
    pub fn from_name(name: &str) -> Option<TreePolicy> {
        let wanted: String = name
            .chars()
            .filter(|c| !matches!(c, '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect();
        TreePolicy::ALL
            .into_iter()
            .find(|p| p.name().to_lowercase() == wanted)
    }

    /// Who uses the rule, in a few words (for column headers and reports).
    pub fn source(self) -> &'static str {
        match self {
            TreePolicy::RootFallback => "Decentraland ADR-153",
            TreePolicy::IgnoreCyclicChange => "unity-renderer",
            TreePolicy::RevertToEarlierParent => "Evan Wallace's mutable tree",
            TreePolicy::MoveOpSkip => "Kleppmann et al., Loro",
            TreePolicy::HideCycle => "Figma's client",
        }
    }

    /// True when the tree depends on the order writes arrived in, not only on which arrived.
    pub fn is_history_dependent(self) -> bool {
        matches!(
            self,
            TreePolicy::IgnoreCyclicChange | TreePolicy::MoveOpSkip
        )
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Where a policy draws an entity.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Under this parent (the root is [`Entity::ROOT`]).
    Under(Entity),
    /// Not drawn.
    Hidden,
}

impl Placement {
    /// The parent, unless hidden.
    pub fn parent(self) -> Option<Entity> {
        match self {
            Placement::Under(p) => Some(p),
            Placement::Hidden => None,
        }
    }
}
