//! What panels ask for. Panels read the document and push actions; the workbench applies them
//! after drawing, so no panel writes to the replica.

use crate::editor::Command;
use crate::model::Entity;

/// A user request coming out of a panel.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// An undoable edit.
    Edit(Command),
    /// An edit that merges with the previous one of the same gesture (`key` identifies it).
    EditCoalesced(Command, u64),
    /// The gesture (drag, text field) that was coalescing edits ended.
    EndGesture,
    /// The gesture was cancelled (Escape during a drag): its edits are reverted and leave no
    /// undo step.
    CancelGesture,
    /// Change the selection.
    Select(SelectAction),
    /// Start renaming an entity inline in the tree.
    BeginRename(Entity),
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Remember the primary selection's local transform (position, rotation, scale).
    CopyTransform,
    /// Apply the remembered transform to every selected entity (parents are kept).
    PasteTransform,
    /// Toggle the editor-only "hidden" flag (not saved in the scene).
    ToggleHidden(Entity),
    /// Toggle the editor-only "locked" flag (not saved in the scene).
    ToggleLocked(Entity),
    /// Move the viewport camera to show the selection.
    FrameSelection,
    /// Show a message in the status bar.
    Status(String),
}

/// A selection change.
#[derive(Clone, Debug, PartialEq)]
pub enum SelectAction {
    /// Plain click: only this entity.
    Only(Entity),
    /// Ctrl+click: add or remove.
    Toggle(Entity),
    /// Shift+click: the range from the anchor, in the given row order.
    Range(Entity, Vec<Entity>),
    /// Nothing.
    Clear,
}
