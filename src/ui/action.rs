//! What panels ask for. Panels read the document and push actions; the workbench applies them
//! after drawing, so no panel writes to the replica.

use scenetree_core::crdt::network::{DeliveryOrder, Op, PeerId};
use scenetree_core::model::Entity;
use scenetree_core::net::run::Slot;
use scenetree_editor::Command;

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
    /// Bring the entity's hierarchy row into view: expand its ancestors, scroll only if the row
    /// is out of view.
    Reveal(Entity),
    /// Start renaming an entity inline in the tree.
    BeginRename(Entity),
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Remember the selected entities, for [`Action::PasteEntities`].
    CopyEntities,
    /// Duplicate the remembered entities with their children, beside the originals.
    PasteEntities,
    /// Remember the primary selection's local transform (position, rotation, scale).
    CopyTransform,
    /// Apply the remembered transform to every selected entity (parents are kept).
    PasteTransform,
    /// Hide or show an entity and its descendants (`inspector::Hide`, an undoable edit).
    ToggleHidden(Entity),
    /// Lock or unlock an entity (`inspector::Lock`, an undoable edit).
    ToggleLocked(Entity),
    /// Move the viewport camera to show the selection.
    FrameSelection,
    /// Show a message in the status bar.
    Status(String, Severity),
    /// Something for the simulated peers.
    Peers(PeersAction),
    /// Something for the multiplayer run the Peers workspace shows.
    Multiplayer(MultiplayerAction),
}

/// A request from the Peers workspace in multiplayer mode, about the run it shows.
#[derive(Clone, Debug, PartialEq)]
pub enum MultiplayerAction {
    /// The delivery arrives at its receiver's next tick from the timeline's position on.
    Deliver(Slot),
    /// The delivery waits one more of its receiver's ticks.
    Delay(Slot),
    /// The delivery is lost.
    Drop(Slot),
    /// A second copy of the delivery arrives right after it.
    Duplicate(Slot),
    /// The delivery arrives just before another one to the same player (a drag).
    Reorder { slot: Slot, before: Slot },
    /// The timeline goes to step `n` (0: before any tick).
    Seek(usize),
    /// The lesson's next step.
    NextStep,
    /// Leave multiplayer mode.
    Close,
}

/// A request from the Peers panel.
#[derive(Clone, Debug, PartialEq)]
pub enum PeersAction {
    /// Split the document into simulated peers.
    Start { peers: usize, seed: u64 },
    /// Open bundled lesson number `n` (from 0).
    OpenLesson(usize),
    /// End the simulation, keeping this peer's state.
    Stop(PeerId),
    /// Show and edit another peer.
    Activate(PeerId),
    /// Make an edit as `peer` (a drop in its column): it becomes the peer shown and edited.
    EditAs { peer: PeerId, command: Command },
    /// One network operation (deliver, drop, duplicate, reorder, online, auto-delivery).
    Op(Op),
    /// Deliver everything deliverable, in this order.
    DeliverAll(DeliveryOrder),
    /// Advance the clock (auto-delivery delivers what is due).
    Advance(u64),
    /// Move the timeline cursor (replaying from the start).
    Seek(usize),
    /// Play the lesson's next step.
    NextStep,
    /// Save a peer's state as main.crdt (the app asks where).
    ExportPeer(PeerId),
    /// Save the whole run as a scenario file (the app asks where).
    SaveRun,
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
    /// Exactly these (Select All), the last one primary.
    Many(Vec<Entity>),
    /// Nothing.
    Clear,
}

/// How serious a status message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Informational ("Undid Move Lamp").
    Info,
    /// An edit or file operation was refused.
    Error,
}

/// A keyboard move in the tree, as in other editors' hierarchies (Unity, Godot, VS Code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKey {
    /// Up: select the row above.
    Previous,
    /// Down: select the row below.
    Next,
    /// Shift+Up: extend the selection to the row above.
    ExtendPrevious,
    /// Shift+Down: extend the selection to the row below.
    ExtendNext,
    /// Left: collapse the row, or go to its parent when it is collapsed or a leaf.
    CollapseOrParent,
    /// Right: expand the row, or go to its first child when it is expanded.
    ExpandOrChild,
}
