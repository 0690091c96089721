//! Where a peer column's tree comes from. The column draws any source of effective parents:
//! today the peer's render tree (Decentraland's root fallback); a view that compares tree
//! policies gives each policy's tree through the same trait.

use crate::model::Entity;
use crate::scene::SceneView;
use crate::ui::tree_row::RowBadge;

/// A tree to draw in a column: the entities in display order with their depths, and why an
/// entity is drawn where it is when that is not under its declared parent.
pub trait TreeSource {
    /// Changes whenever [`Self::rows`] or a badge changes (the column keeps its rows until
    /// then).
    fn generation(&self) -> u64;
    /// Every drawn entity, parents before their children, with its depth (0 = at the root;
    /// the root itself is not listed).
    fn rows(&self) -> Vec<(Entity, u32)>;
    /// The badge of a drawn entity; `name` says what to call an entity.
    fn badge(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> RowBadge;
    /// True for an entity drawn only because others name it as their parent (it holds no
    /// components).
    fn is_implicit(&self, entity: Entity) -> bool;
}

/// A peer's render tree as Decentraland draws it (ADR-153): entities on a parenting cycle at
/// the root, a declared parent without a Transform as the identity.
pub struct RootFallbackTree<'a>(pub &'a SceneView);

impl TreeSource for RootFallbackTree<'_> {
    fn generation(&self) -> u64 {
        self.0.generation()
    }

    fn rows(&self) -> Vec<(Entity, u32)> {
        self.0
            .preorder()
            .into_iter()
            .filter(|(e, _)| !e.is_root())
            .map(|(e, depth)| (e, depth - 1))
            .collect()
    }

    fn badge(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> RowBadge {
        RowBadge::of(self.0, entity, name)
    }

    fn is_implicit(&self, entity: Entity) -> bool {
        self.0.is_implicit(entity)
    }
}
