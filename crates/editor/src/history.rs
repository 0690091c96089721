//! Undo and redo as CRDT writes: a step remembers what each touched register held before and
//! after, and undoing writes the "before" values again (with fresh timestamps), so peers see
//! undos like any other edit.

use super::command::EditError;
use scenetree_core::model::Entity;

/// Steps kept before the oldest are forgotten (the Decentraland Inspector keeps 1,024 too).
pub const HISTORY_LIMIT: usize = 1024;

/// What one (entity, component) register held before and after an edit (`None` = no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterChange {
    /// The entity.
    pub entity: Entity,
    /// The component id.
    pub component: u32,
    /// The value before the edit.
    pub before: Option<Vec<u8>>,
    /// The value after the edit.
    pub after: Option<Vec<u8>>,
}

/// One undoable edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What the user did, for the Edit menu ("Undo Rename").
    pub label: String,
    /// The registers it changed, in the order they were written.
    pub changes: Vec<RegisterChange>,
    /// Edits with the same key in a row (one drag, one text field) merge into this step.
    pub coalesce: Option<u64>,
    /// What to select once the step is undone or redone.
    pub reselect: Reselect,
}

/// The entities an undo or redo brings back, selected once it is done (as in Godot and Unity:
/// undoing a delete gives back the selection the delete took).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reselect {
    /// Brought back by undo: the top-level entities a delete removed.
    pub on_undo: Vec<Entity>,
    /// Brought back by redo: the entities a create or duplicate made.
    pub on_redo: Vec<Entity>,
}

/// An undo or redo that was refused. Nothing was written. Refused by the replica (a peer
/// deleted the entity for good meanwhile), the step left the history: it can no longer be
/// replayed. Held by the live cycle guard, it stays, for the user to make the cycle or not.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("Could not {direction} {label}: {cause}. {}", match .cause {
    EditError::WouldCycleLive { .. } => "The step stays in the history",
    _ => "The step was removed from the history",
})]
pub struct ReplayError {
    /// The step's label ("Transform").
    pub label: String,
    /// "undo" or "redo".
    pub direction: &'static str,
    /// Why the replica refused.
    pub cause: EditError,
}

/// The undo and redo stacks.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// While set, edits carrying this key join the top undo step.
    open_coalesce: Option<u64>,
}

impl History {
    /// Empty stacks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a finished edit. Clears the redo stack. Merges into the top step when it carries
    /// the same coalesce key and that key is still open.
    pub fn record(&mut self, step: Step) {
        if step.changes.is_empty() {
            return;
        }
        self.redo.clear();
        if let (Some(key), Some(top)) = (step.coalesce, self.undo.last_mut())
            && top.coalesce == Some(key)
            && self.open_coalesce == Some(key)
        {
            for change in step.changes {
                match top
                    .changes
                    .iter_mut()
                    .find(|c| c.entity == change.entity && c.component == change.component)
                {
                    Some(existing) => existing.after = change.after,
                    None => top.changes.push(change),
                }
            }
            return;
        }
        self.open_coalesce = step.coalesce;
        self.undo.push(step);
        if self.undo.len() > HISTORY_LIMIT {
            self.undo.remove(0);
        }
    }

    /// Ends the current coalescing run (a drag was released, a field lost focus): the next edit
    /// starts a new step even with the same key.
    pub fn close_coalescing(&mut self) {
        self.open_coalesce = None;
    }

    /// Takes the top step if it is the open coalescing run (a gesture being cancelled).
    pub fn pop_open_gesture(&mut self) -> Option<Step> {
        let open = self.open_coalesce.take()?;
        if self.undo.last().is_some_and(|s| s.coalesce == Some(open)) {
            self.undo.pop()
        } else {
            None
        }
    }

    /// Takes the step to undo (the caller writes its `before` values and calls
    /// [`Self::push_redo`]).
    pub fn pop_undo(&mut self) -> Option<Step> {
        self.open_coalesce = None;
        self.undo.pop()
    }

    /// Takes the step to redo.
    pub fn pop_redo(&mut self) -> Option<Step> {
        self.open_coalesce = None;
        self.redo.pop()
    }

    /// Puts an undone step on the redo stack.
    pub fn push_redo(&mut self, step: Step) {
        self.redo.push(step);
    }

    /// Puts a redone step back on the undo stack (keeping the redo stack).
    pub fn push_undo(&mut self, step: Step) {
        self.undo.push(step);
    }

    /// The label of the step Undo would revert.
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|s| s.label.as_str())
    }

    /// The label of the step Redo would apply.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|s| s.label.as_str())
    }

    /// Number of undoable steps.
    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// Forgets everything (a new document).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(key: Option<u64>, before: u8, after: u8) -> Step {
        Step {
            label: "Move".into(),
            changes: vec![RegisterChange {
                entity: Entity(512),
                component: 1,
                before: Some(vec![before]),
                after: Some(vec![after]),
            }],
            coalesce: key,
            reselect: Reselect::default(),
        }
    }

    #[test]
    fn a_drag_coalesces_into_one_step_keeping_the_first_before() {
        let mut h = History::new();
        h.record(step(Some(7), 0, 1));
        h.record(step(Some(7), 1, 2));
        h.record(step(Some(7), 2, 3));
        assert_eq!(h.undo_len(), 1);
        let s = h.pop_undo().unwrap();
        assert_eq!(s.changes[0].before, Some(vec![0]));
        assert_eq!(s.changes[0].after, Some(vec![3]));
    }

    #[test]
    fn closing_a_run_starts_a_new_step_and_new_edits_clear_redo() {
        let mut h = History::new();
        h.record(step(Some(7), 0, 1));
        h.close_coalescing();
        h.record(step(Some(7), 1, 2));
        assert_eq!(h.undo_len(), 2);
        let s = h.pop_undo().unwrap();
        h.push_redo(s);
        assert!(h.redo_label().is_some());
        h.record(step(None, 1, 5));
        assert!(h.redo_label().is_none());
    }

    #[test]
    fn the_stack_is_bounded() {
        let mut h = History::new();
        for i in 0..HISTORY_LIMIT + 10 {
            h.record(step(None, i as u8, (i as u8).wrapping_add(1)));
        }
        assert_eq!(h.undo_len(), HISTORY_LIMIT);
    }
}
