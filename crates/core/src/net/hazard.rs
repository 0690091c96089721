//! The sync hazards `@dcl/sdk` 7.28.0 really produces, found where they show: in what a
//! player's renderer is told (or not told) in a tick. Each comes with a one-sentence cause for
//! badges and the CLI.

use std::fmt;

use serde::Serialize;

use super::address::short_address;
use super::components::NetworkIdentity;
use crate::model::Entity;

/// A kind of hazard.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardKind {
    /// The renderer was told an entity is its own parent.
    SelfParent,
    /// A synced entity's Transform carries a parent number written by another player.
    RawParent,
    /// A NetworkParent that maps to nothing here: its raw entity id stood in as the parent.
    UnmappedParent,
    /// A joiner applied a second state response and its renderer got the entity again.
    RepeatedStateResponse,
    /// A remote delete told the renderer to delete another entity than the one deleted.
    WrongEntityDeleted,
    /// NetworkParent went away but the renderer kept the old parent.
    ParentNotRemoved,
}

impl HazardKind {
    /// The name in the JSON contract (`"self_parent"`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SelfParent => "self_parent",
            Self::RawParent => "raw_parent",
            Self::UnmappedParent => "unmapped_parent",
            Self::RepeatedStateResponse => "repeated_state_response",
            Self::WrongEntityDeleted => "wrong_entity_deleted",
            Self::ParentNotRemoved => "parent_not_removed",
        }
    }
}

impl fmt::Display for HazardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One hazard: at which entity (in the player's numbers) and tick, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// What went wrong.
    pub kind: HazardKind,
    /// The entity, as the player's renderer numbers it.
    pub entity: Entity,
    /// The player's tick.
    pub tick: u32,
    /// One sentence saying why.
    pub cause: String,
}

/// A network identity as people read it: `0x1234…7890:512`, or `#7` for a fixed id.
pub fn identity_label(identity: NetworkIdentity, owner: Option<&str>) -> String {
    match (identity.network_id, owner) {
        (0, _) => format!("#{}", identity.entity_id),
        (_, Some(address)) => format!("{}:{}", short_address(address), Entity(identity.entity_id)),
        (net, None) => format!("net {net}:{}", Entity(identity.entity_id)),
    }
}

/// The cause of a self-parent: the parent came from NetworkParent, mapped or not.
pub fn self_parent_cause(entity: Entity, parent: &str, mapped: bool) -> String {
    if mapped {
        format!(
            "Entity {entity}'s NetworkParent names {parent}, which is entity {entity} itself here."
        )
    } else {
        format!(
            "Entity {entity}'s NetworkParent names {parent}, which had not arrived here, so its \
             raw id {entity} stood in: the child's frames were applied before the parent's and \
             nothing sends its Transform again."
        )
    }
}

/// The cause of a raw parent.
pub fn raw_parent_cause(entity: Entity, parent: Entity, sender: Option<&str>) -> String {
    let who = sender.map_or("its author".to_string(), short_address);
    format!(
        "Entity {entity} is synced but its Transform.parent {parent} was set directly: that is \
         {who}'s own entity number, which names an unrelated entity here (use parentEntity)."
    )
}

/// The cause of an unmapped parent.
pub fn unmapped_parent_cause(entity: Entity, parent: &str, stand_in: Entity) -> String {
    format!(
        "Entity {entity}'s NetworkParent names {parent}, which maps to no entity here, so the \
         renderer got the raw id {stand_in} as its parent."
    )
}

/// The cause of a repeated state response.
pub fn repeated_state_response_cause(entity: Entity, sender: Option<&str>) -> String {
    let from = sender.map_or("another player".to_string(), short_address);
    format!(
        "Entity {entity} was written again by a later state response (from {from}): every peer \
         answers a state request, so a joiner applies several full dumps."
    )
}

/// The cause of a delete that hit another entity.
pub fn wrong_entity_deleted_cause(told: Entity, real: Entity) -> String {
    format!(
        "A remote delete reached the renderer as a delete of {told} (the sender's own number) \
         because the local copy {real} and its mapping were removed first; {real} only lost its \
         components."
    )
}

/// The cause of a parent the renderer keeps.
pub fn parent_not_removed_cause(entity: Entity, parent: Entity) -> String {
    format!(
        "Entity {entity}'s NetworkParent was removed but its Transform was not sent again, so \
         the renderer keeps {parent} as its parent."
    )
}
