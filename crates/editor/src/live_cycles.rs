//! Parenting cycles beside the Decentraland web Inspector. The protocol allows a cycle (two
//! editors reparenting A under B and B under A at once), and scenetree draws one as the
//! runtime does, but the web Inspector's renderer recurses up the parent chain and its tab
//! hangs. So while live, a write of this editor that would close a cycle in the host's scene
//! is refused until the user chooses to make it, and a cycle that concurrent edits made can
//! be broken by one write that every scenetree window chooses alike. Lessons and the
//! simulator are not guarded: there cycles are what is being taught.

use rustc_hash::FxHashMap;

use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::scene::Fallback;

use super::command::{Command, EditError};
use super::document::{Applied, Document};
use super::history::ReplayError;
use super::tree::closed_cycle;

impl Document {
    /// The parenting cycle `writes` would close in the live scene, as its members; `None`
    /// when not live or when they close none (a cycle the scene holds already is not closed
    /// again by a write to one of its members).
    pub(super) fn live_cycle_closed_by(
        &self,
        writes: &[super::plan::Write],
    ) -> Option<Vec<Entity>> {
        self.live()?;
        let parents: FxHashMap<Entity, Entity> = (writes.iter())
            .filter(|(_, component, _)| *component == ids::TRANSFORM)
            .map(|(entity, _, value)| {
                let parent = (value.as_deref())
                    .and_then(|bytes| Transform::from_bytes(bytes).ok())
                    .map_or(Entity::ROOT, |t| t.parent);
                (*entity, parent)
            })
            .collect();
        if parents.is_empty() {
            return None;
        }
        closed_cycle(self.replica(), &parents, |e| {
            matches!(self.view().fallback_reason(e), Fallback::Cycle(_))
        })
    }

    /// [`Self::apply`], making a parenting cycle in the live scene if the command closes one
    /// (the user was told web Inspectors freeze on it, and chose to).
    pub fn apply_making_cycle(&mut self, command: Command) -> Result<Applied, EditError> {
        self.unguarded(|doc| doc.apply(command))
    }

    /// [`Self::undo`], making a parenting cycle in the live scene if the step closes one.
    pub fn undo_making_cycle(&mut self) -> Result<Option<String>, ReplayError> {
        self.unguarded(Document::undo)
    }

    /// [`Self::redo`], making a parenting cycle in the live scene if the step closes one.
    pub fn redo_making_cycle(&mut self) -> Result<Option<String>, ReplayError> {
        self.unguarded(Document::redo)
    }

    fn unguarded<T>(&mut self, write: impl FnOnce(&mut Document) -> T) -> T {
        self.guard_live_cycles = false;
        let result = write(self);
        self.guard_live_cycles = true;
        result
    }

    /// While live, the parenting cycles the scene holds (each as its members, from its
    /// smallest entity); empty otherwise.
    pub fn live_cycles(&self) -> Vec<Vec<Entity>> {
        if self.live().is_none() {
            return Vec::new();
        }
        self.view()
            .cycles()
            .into_iter()
            .map(<[Entity]>::to_vec)
            .collect()
    }

    /// The one write that breaks a cycle (`members`, as [`Self::live_cycles`] lists them):
    /// its smallest entity moves to the root where it is drawn now (on a cycle it is drawn at
    /// the root with its own values, so its world position is kept). Every window holding
    /// the same scene computes the same value for the same entity, so two windows breaking it
    /// at once write the same thing and do not fight. `None` for an empty list.
    pub fn cycle_breaker(&self, members: &[Entity]) -> Option<Command> {
        let entity = members.iter().copied().min()?;
        let transform = Transform {
            parent: Entity::ROOT,
            ..self.local_transform(entity)
        };
        Some(Command::SetTransforms(vec![(entity, transform)]))
    }
}
