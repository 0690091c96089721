//! What a drop of dragged rows would do, in words, and whether it is refused: one text for
//! the hierarchy and for the peers' columns, so a drop reads the same wherever it is made.

use scenetree_core::model::Entity;

/// Where a drop would put the dragged entities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSpot {
    /// Under this entity, after its children.
    Onto(Entity),
    /// Among `parent`'s children, right after `after` (`None`: first).
    Between {
        parent: Entity,
        after: Option<Entity>,
    },
}

impl DropSpot {
    /// The parent the entities would be put under.
    pub fn parent(self) -> Entity {
        match self {
            DropSpot::Onto(p) | DropSpot::Between { parent: p, .. } => p,
        }
    }
}

/// The tree a drop is made in: names, declared and drawn parents, and the cycle check of the
/// replica it would be written to (the document's, or a simulated peer's).
pub struct DropTree<'a> {
    /// What the UI calls an entity.
    pub name: &'a dyn Fn(Entity) -> String,
    /// The parent an entity's Transform names (the root without one).
    pub declared_parent: &'a dyn Fn(Entity) -> Entity,
    /// The parent an entity is drawn under.
    pub drawn_parent: &'a dyn Fn(Entity) -> Option<Entity>,
    /// True when putting the entity under the parent would make it its own ancestor.
    pub would_cycle: &'a dyn Fn(Entity, Entity) -> bool,
}

/// What a drop says before it is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DropCheck {
    /// The hint: what the drop does, or why it is refused.
    pub text: String,
    /// The drop is refused (it would close a cycle): nothing happens on release.
    pub refused: bool,
    /// The drop changes nothing (every entity is already under that parent): nothing is
    /// written on release.
    pub changes_nothing: bool,
}

/// Describes dropping the top-level dragged entities `movers` at `spot` in `tree`;
/// `keep_local` is Shift held.
pub fn check_drop(
    tree: &DropTree<'_>,
    movers: &[Entity],
    spot: DropSpot,
    keep_local: bool,
) -> DropCheck {
    let parent = spot.parent();
    let parent_name = || {
        if parent.is_root() {
            "the scene root".to_string()
        } else {
            (tree.name)(parent)
        }
    };
    let names: Vec<String> = movers.iter().map(|&e| (tree.name)(e)).collect();
    if let Some(&e) = movers.iter().find(|&&e| (tree.would_cycle)(e, parent)) {
        return DropCheck {
            text: format!(
                "Cannot move {} under {}: it would become its own ancestor",
                (tree.name)(e),
                (tree.name)(parent)
            ),
            refused: true,
            changes_nothing: true,
        };
    }
    let already = movers.iter().all(|&e| (tree.declared_parent)(e) == parent);
    if matches!(spot, DropSpot::Onto(_)) && already {
        return DropCheck {
            text: format!(
                "{} already under {}: nothing to move",
                match names.as_slice() {
                    [one] => format!("{one} is"),
                    _ => format!("{} are", names.join(", ")),
                },
                parent_name()
            ),
            refused: false,
            changes_nothing: true,
        };
    }
    let moves_parent = movers
        .iter()
        .any(|&e| (tree.drawn_parent)(e) != Some(parent));
    let what = match spot {
        DropSpot::Onto(_) => format!("Move {} under {}", names.join(", "), parent_name()),
        DropSpot::Between { after: None, .. } => {
            format!("Place {} first under {}", names.join(", "), parent_name())
        }
        DropSpot::Between { after: Some(a), .. } => format!(
            "Place {} after {} under {}",
            names.join(", "),
            (tree.name)(a),
            parent_name()
        ),
    };
    let how = match (
        moves_parent || matches!(spot, DropSpot::Onto(_)),
        keep_local,
    ) {
        (false, _) => "",
        (true, true) => " — keeping local values (Shift)",
        (true, false) => " — keeping world position (hold Shift to keep local values)",
    };
    DropCheck {
        text: format!("{what}{how}"),
        refused: false,
        changes_nothing: false,
    }
}
