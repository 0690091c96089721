//! The editor's commands in one table: each entry owns its label, tooltip, keyboard shortcuts,
//! menu and when it applies. One dispatcher ([`dispatch`]) reads the keyboard once per frame,
//! before any panel, and decides by context which command a key means (Escape cancels a gizmo
//! drag before it clears the selection; nothing fires while a text field has the keyboard).
//! The menus, the Help window and docs/editor.md's shortcut table are made from this table.

mod dispatch;
mod edit_actions;

pub use dispatch::dispatch;

use std::sync::LazyLock;

use egui::{Key, KeyboardShortcut, ModifierNames, Modifiers};
use strum::{EnumIter, IntoEnumIterator};

use super::action::TreeKey;
pub use edit_actions::action_for;
use scenetree_viewport::camera::ViewDirection;
use scenetree_viewport::{GizmoMode, ViewportCommand};

/// A command the user can give from the keyboard or a menu, declared in menu order: where
/// two share a key, the first that applies wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, EnumIter)]
pub enum UiCommand {
    /// Start a new, empty scene.
    New,
    /// Open a scene file.
    Open,
    /// Open a Decentraland project folder.
    OpenProject,
    /// Save to the document's file (asks where when it has none).
    Save,
    /// Save to a new file.
    SaveAs,
    /// Read the scene's file (or project) again, dropping what is not saved.
    Reload,
    /// Quit (asks about unsaved changes).
    Quit,
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Create an entity at the root.
    CreateEntity,
    /// Create a child of the selected entity.
    CreateChild,
    /// Add a glTF model file of the project as an entity.
    AddModel,
    /// Duplicate the selection with its children.
    Duplicate,
    /// Delete the selection with its children.
    Delete,
    /// Move the selection to the root, keeping where it is in the world.
    MoveToRoot,
    /// Rename the selected entity inline.
    Rename,
    /// Remember the selected entities, for Paste.
    Copy,
    /// Duplicate the copied entities (as the Decentraland Inspector pastes).
    Paste,
    /// Copy the selected entity's local transform.
    CopyTransform,
    /// Paste the copied transform onto every selected entity.
    PasteTransform,
    /// Select every entity.
    SelectAll,
    /// Search the hierarchy: its search box takes the keyboard.
    Find,
    /// Cancel the gizmo drag in progress (its values go back).
    CancelGizmoDrag,
    /// Select nothing.
    ClearSelection,
    /// Select the hierarchy row above.
    SelectPrevious,
    /// Select the hierarchy row below.
    SelectNext,
    /// Extend the selection to the row above.
    ExtendSelectionUp,
    /// Extend the selection to the row below.
    ExtendSelectionDown,
    /// Collapse the selected row, or select its parent.
    CollapseOrSelectParent,
    /// Expand the selected row, or select its first child.
    ExpandOrSelectChild,
    /// Point the viewport camera at the selection (or everything).
    FrameSelection,
    /// Turn the viewport camera to look along a world axis.
    LookAlong(ViewDirection),
    /// Gizmo mode: translate.
    GizmoTranslate,
    /// Gizmo mode: rotate.
    GizmoRotate,
    /// Gizmo mode: scale.
    GizmoScale,
    /// Gizmo axes: local or world.
    ToggleGizmoAxes,
    /// Rotate and scale about the active entity's origin or the selection's centre.
    ToggleGizmoPivot,
    /// Switch to the editor's layout (hierarchy, viewport, inspector).
    EditorWorkspace,
    /// Switch to the Peers workspace (simulated peers side by side, the message table).
    PeersWorkspace,
    /// Step the simulation's timeline back one event.
    TimelineBack,
    /// Step the simulation's timeline forward one event.
    TimelineForward,
    /// Put the panels back where they started.
    ResetLayout,
    /// Show the keyboard shortcuts.
    ShowShortcuts,
}

/// The menu a command appears in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menu {
    File,
    Edit,
    View,
    Help,
}

/// What decides whether a command applies this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandContext {
    /// A text field (or an inline rename) has the keyboard: it keeps its keys.
    pub typing: bool,
    /// A modal dialog is open (unsaved changes, an error, loading, a file dialog).
    pub modal: bool,
    /// A gizmo handle is being dragged.
    pub gizmo_dragging: bool,
    /// At least one entity is selected.
    pub has_selection: bool,
    /// The history has a step to undo.
    pub can_undo: bool,
    /// The history has a step to redo.
    pub can_redo: bool,
    /// A menu or another popup is open: it keeps the keys (Escape closes it). Menu entries
    /// do not depend on this, only the keyboard does.
    pub popup_open: bool,
    /// The scene was read from a file, or saved to one, that can be read again.
    pub has_file: bool,
    /// The scene belongs to a Decentraland project (its models can be added).
    pub has_project: bool,
    /// Entities were copied: Paste has something to paste.
    pub can_paste: bool,
    /// A transform was copied: Paste Transform has something to paste.
    pub can_paste_transform: bool,
    /// A selected entity has a parent other than the root: Move to Root would move it.
    pub can_move_to_root: bool,
    /// A simulation runs and its timeline has an event before the cursor.
    pub can_step_back: bool,
    /// A simulation runs and its timeline has an event after the cursor.
    pub can_step_forward: bool,
}

const fn key(modifiers: Modifiers, key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(modifiers, key)
}

const NONE: Modifiers = Modifiers::NONE;
const CTRL: Modifiers = Modifiers::COMMAND;
const CTRL_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);
const SHIFT: Modifiers = Modifiers::SHIFT;
const ALT_SHIFT: Modifiers = Modifiers::ALT.plus(Modifiers::SHIFT);

impl UiCommand {
    /// Every command, in menu order (the enum's order, each view direction in turn). Where
    /// two share a key, the first that applies wins.
    pub fn all() -> &'static [UiCommand] {
        static ALL: LazyLock<Vec<UiCommand>> = LazyLock::new(|| {
            UiCommand::iter()
                .flat_map(|command| match command {
                    UiCommand::LookAlong(_) => {
                        ViewDirection::iter().map(UiCommand::LookAlong).collect()
                    }
                    other => vec![other],
                })
                .collect()
        });
        &ALL
    }

    /// The (label, tooltip) shown in menus and the Help window.
    pub fn text(self) -> (&'static str, &'static str) {
        match self {
            UiCommand::New => ("New", "Start a new, empty scene"),
            UiCommand::Open => (
                "Open…",
                "Open a scene (.json, .crdt, .composite) or a lesson",
            ),
            UiCommand::OpenProject => (
                "Open Project…",
                "Open a Decentraland project: the folder with scene.json",
            ),
            UiCommand::Save => (
                "Save",
                "Save to the scene's file (a project: main.composite, main.crdt, entity-names.ts)",
            ),
            UiCommand::SaveAs => ("Save As…", "Save to a new file"),
            UiCommand::Reload => (
                "Reload from Disk",
                "Read the scene's file again (asks first when changes are not saved)",
            ),
            UiCommand::Quit => ("Quit", "Close scenetree"),
            UiCommand::Undo => ("Undo", "Undo the last edit"),
            UiCommand::Redo => ("Redo", "Redo the last undone edit"),
            UiCommand::CreateEntity => ("Create Entity", "Create an entity at the root"),
            UiCommand::CreateChild => ("Create Child", "Create a child of the selected entity"),
            UiCommand::AddModel => (
                "Add Model…",
                "Add a .glb or .gltf of the project where the centre of the view meets the scene",
            ),
            UiCommand::Duplicate => ("Duplicate", "Duplicate with children"),
            UiCommand::Copy => ("Copy", "Copy the selected entities, for Paste"),
            UiCommand::Paste => (
                "Paste",
                "Paste copies of the copied entities, with children, beside them",
            ),
            UiCommand::Delete => ("Delete", "Delete with children"),
            UiCommand::MoveToRoot => (
                "Move to Root",
                "Move to the root, keeping the place in the world",
            ),
            UiCommand::Rename => ("Rename", "Rename in the hierarchy"),
            UiCommand::CopyTransform => (
                "Copy Transform",
                "Copy position, rotation and scale of the selected entity",
            ),
            UiCommand::PasteTransform => (
                "Paste Transform",
                "Paste position, rotation and scale onto every selected entity",
            ),
            UiCommand::CancelGizmoDrag => (
                "Cancel Gizmo Drag",
                "Cancel the gizmo drag in progress; the values go back",
            ),
            UiCommand::ClearSelection => (
                "Clear Selection",
                "Select nothing (after closing the Keyboard Shortcuts window, when no gizmo drag is in progress)",
            ),
            UiCommand::SelectAll => ("Select All", "Select every entity in the scene"),
            UiCommand::Find => (
                "Find…",
                "Search the hierarchy by name or id, or by component (t:GltfContainer)",
            ),
            UiCommand::SelectPrevious => ("Select Previous", "Select the hierarchy row above"),
            UiCommand::SelectNext => ("Select Next", "Select the hierarchy row below"),
            UiCommand::ExtendSelectionUp => (
                "Extend Selection Up",
                "Extend the selection to the row above",
            ),
            UiCommand::ExtendSelectionDown => (
                "Extend Selection Down",
                "Extend the selection to the row below",
            ),
            UiCommand::CollapseOrSelectParent => (
                "Collapse or Select Parent",
                "Collapse the selected row, or select its parent",
            ),
            UiCommand::ExpandOrSelectChild => (
                "Expand or Select Child",
                "Expand the selected row, or select its first child",
            ),
            UiCommand::FrameSelection => (
                "Frame Selection",
                "Frame the selection (or everything) in the viewport",
            ),
            UiCommand::LookAlong(view) => match view {
                ViewDirection::Front => ("Front View", "View from the front (looking along +Z)"),
                ViewDirection::Back => ("Back View", "View from the back (looking along −Z)"),
                ViewDirection::Right => ("Right View", "View from the right (looking along −X)"),
                ViewDirection::Left => ("Left View", "View from the left (looking along +X)"),
                ViewDirection::Top => ("Top View", "View from above"),
                ViewDirection::Bottom => ("Bottom View", "View from below"),
            },
            UiCommand::GizmoTranslate => ("Move", "Gizmo: translate"),
            UiCommand::GizmoRotate => ("Rotate", "Gizmo: rotate"),
            UiCommand::GizmoScale => ("Scale", "Gizmo: scale along local axes"),
            UiCommand::ToggleGizmoAxes => ("Local / World Axes", "Gizmo: local or world axes"),
            UiCommand::ToggleGizmoPivot => (
                "Pivot / Center",
                "Gizmo: rotate and scale about the active entity's origin or the selection's centre",
            ),
            UiCommand::EditorWorkspace => (
                "Editor Workspace",
                "Show the editor: hierarchy, viewport and inspector",
            ),
            UiCommand::PeersWorkspace => (
                "Peers Workspace",
                "Show the simulated peers side by side with the messages between them",
            ),
            UiCommand::TimelineBack => (
                "Step Back",
                "Peers: step the timeline back one event (the states before it come back)",
            ),
            UiCommand::TimelineForward => {
                ("Step Forward", "Peers: step the timeline forward one event")
            }
            UiCommand::ResetLayout => ("Reset Layout", "Put the panels back where they started"),
            UiCommand::ShowShortcuts => ("Keyboard Shortcuts", "Every shortcut and mouse gesture"),
        }
    }

    /// The keys that give this command, the first one shown in menus.
    pub fn shortcuts(self) -> &'static [KeyboardShortcut] {
        const NO_KEYS: &[KeyboardShortcut] = &[];
        match self {
            UiCommand::New => const { &[key(CTRL, Key::N)] },
            UiCommand::Open => const { &[key(CTRL, Key::O)] },
            UiCommand::OpenProject => const { &[key(CTRL_SHIFT, Key::O)] },
            UiCommand::Save => const { &[key(CTRL, Key::S)] },
            UiCommand::SaveAs => const { &[key(CTRL_SHIFT, Key::S)] },
            UiCommand::Quit => const { &[key(CTRL, Key::Q)] },
            UiCommand::Undo => const { &[key(CTRL, Key::Z)] },
            UiCommand::Redo => const { &[key(CTRL_SHIFT, Key::Z), key(CTRL, Key::Y)] },
            // Unity's Create Empty and Create Empty Child.
            UiCommand::CreateEntity => const { &[key(CTRL_SHIFT, Key::N)] },
            UiCommand::CreateChild => const { &[key(ALT_SHIFT, Key::N)] },
            UiCommand::Duplicate => const { &[key(CTRL, Key::D)] },
            UiCommand::Delete => const { &[key(NONE, Key::Delete), key(NONE, Key::Backspace)] },
            UiCommand::Rename => const { &[key(NONE, Key::F2)] },
            UiCommand::Copy => const { &[key(CTRL, Key::C)] },
            UiCommand::Paste => const { &[key(CTRL, Key::V)] },
            UiCommand::CopyTransform => const { &[key(CTRL_SHIFT, Key::C)] },
            UiCommand::PasteTransform => const { &[key(CTRL_SHIFT, Key::V)] },
            // Also with the snapping modifier (Ctrl) still held, as the hand holds it mid-drag
            // (an extra Shift or Alt matches anyway).
            UiCommand::CancelGizmoDrag => {
                const { &[key(NONE, Key::Escape), key(CTRL, Key::Escape)] }
            }
            UiCommand::ClearSelection => const { &[key(NONE, Key::Escape)] },
            UiCommand::SelectAll => const { &[key(CTRL, Key::A)] },
            UiCommand::Find => const { &[key(CTRL, Key::F)] },
            UiCommand::SelectPrevious => const { &[key(NONE, Key::ArrowUp)] },
            UiCommand::SelectNext => const { &[key(NONE, Key::ArrowDown)] },
            UiCommand::ExtendSelectionUp => const { &[key(SHIFT, Key::ArrowUp)] },
            UiCommand::ExtendSelectionDown => const { &[key(SHIFT, Key::ArrowDown)] },
            UiCommand::CollapseOrSelectParent => const { &[key(NONE, Key::ArrowLeft)] },
            UiCommand::ExpandOrSelectChild => const { &[key(NONE, Key::ArrowRight)] },
            UiCommand::FrameSelection => const { &[key(NONE, Key::F)] },
            // The numeric keypad's views in Blender and Godot (1, 3, 7; Ctrl for the opposite
            // side); the digit row gives the same keys.
            UiCommand::LookAlong(view) => match view {
                ViewDirection::Front => const { &[key(NONE, Key::Num1)] },
                ViewDirection::Back => const { &[key(CTRL, Key::Num1)] },
                ViewDirection::Right => const { &[key(NONE, Key::Num3)] },
                ViewDirection::Left => const { &[key(CTRL, Key::Num3)] },
                ViewDirection::Top => const { &[key(NONE, Key::Num7)] },
                ViewDirection::Bottom => const { &[key(CTRL, Key::Num7)] },
            },
            UiCommand::GizmoTranslate => const { &[key(NONE, Key::W)] },
            UiCommand::GizmoRotate => const { &[key(NONE, Key::E)] },
            UiCommand::GizmoScale => const { &[key(NONE, Key::R)] },
            UiCommand::ToggleGizmoAxes => const { &[key(NONE, Key::X)] },
            // Unity's Pivot/Center toggle.
            UiCommand::ToggleGizmoPivot => const { &[key(NONE, Key::Z)] },
            // As Godot switches its workspaces (Ctrl+F1 2D, Ctrl+F2 3D, …).
            UiCommand::EditorWorkspace => const { &[key(CTRL, Key::F1)] },
            UiCommand::PeersWorkspace => const { &[key(CTRL, Key::F2)] },
            // A video player's frame steps (YouTube's , and .).
            UiCommand::TimelineBack => const { &[key(NONE, Key::Comma)] },
            UiCommand::TimelineForward => const { &[key(NONE, Key::Period)] },
            UiCommand::Reload
            | UiCommand::AddModel
            | UiCommand::MoveToRoot
            | UiCommand::ResetLayout
            | UiCommand::ShowShortcuts => NO_KEYS,
        }
    }

    /// The menu that lists this command, if any (Escape's commands are keyboard only).
    pub fn menu(self) -> Option<Menu> {
        match self {
            UiCommand::New
            | UiCommand::Open
            | UiCommand::OpenProject
            | UiCommand::Save
            | UiCommand::SaveAs
            | UiCommand::Reload
            | UiCommand::Quit => Some(Menu::File),
            UiCommand::Undo
            | UiCommand::Redo
            | UiCommand::CreateEntity
            | UiCommand::CreateChild
            | UiCommand::AddModel
            | UiCommand::Duplicate
            | UiCommand::Delete
            | UiCommand::MoveToRoot
            | UiCommand::Rename
            | UiCommand::Copy
            | UiCommand::Paste
            | UiCommand::CopyTransform
            | UiCommand::PasteTransform
            | UiCommand::SelectAll
            | UiCommand::Find => Some(Menu::Edit),
            UiCommand::FrameSelection
            | UiCommand::LookAlong(_)
            | UiCommand::GizmoTranslate
            | UiCommand::GizmoRotate
            | UiCommand::GizmoScale
            | UiCommand::ToggleGizmoAxes
            | UiCommand::ToggleGizmoPivot
            | UiCommand::EditorWorkspace
            | UiCommand::PeersWorkspace
            | UiCommand::TimelineBack
            | UiCommand::TimelineForward
            | UiCommand::ResetLayout => Some(Menu::View),
            UiCommand::ShowShortcuts => Some(Menu::Help),
            UiCommand::CancelGizmoDrag
            | UiCommand::ClearSelection
            | UiCommand::SelectPrevious
            | UiCommand::SelectNext
            | UiCommand::ExtendSelectionUp
            | UiCommand::ExtendSelectionDown
            | UiCommand::CollapseOrSelectParent
            | UiCommand::ExpandOrSelectChild => None,
        }
    }

    /// True when the command can be given now (from its keys or its menu entry).
    pub fn applies(self, c: &CommandContext) -> bool {
        if c.modal {
            return false;
        }
        // Keys a text field uses (letters, Delete, Escape, Ctrl+Z) stay with it; the file
        // commands work while typing, as in other editors.
        let editing = !c.typing && !c.gizmo_dragging;
        match self {
            UiCommand::New
            | UiCommand::Open
            | UiCommand::OpenProject
            | UiCommand::Save
            | UiCommand::SaveAs
            | UiCommand::Quit
            | UiCommand::Find => !c.gizmo_dragging,
            UiCommand::Reload => c.has_file && !c.gizmo_dragging,
            UiCommand::AddModel => editing && c.has_project,
            UiCommand::Undo => editing && c.can_undo,
            UiCommand::Redo => editing && c.can_redo,
            UiCommand::CreateEntity => editing,
            // Greyed out when it would change nothing, as in the row menu.
            UiCommand::MoveToRoot => editing && c.can_move_to_root,
            UiCommand::Duplicate
            | UiCommand::CreateChild
            | UiCommand::Delete
            | UiCommand::Rename
            | UiCommand::Copy
            | UiCommand::CopyTransform
            | UiCommand::ClearSelection => editing && c.has_selection,
            // Greyed out with nothing copied, as Unity greys it: it would change nothing.
            UiCommand::PasteTransform => editing && c.has_selection && c.can_paste_transform,
            UiCommand::Paste => editing && c.can_paste,
            UiCommand::CancelGizmoDrag => c.gizmo_dragging,
            UiCommand::TimelineBack => editing && c.can_step_back,
            UiCommand::TimelineForward => editing && c.can_step_forward,
            UiCommand::SelectAll
            | UiCommand::SelectPrevious
            | UiCommand::SelectNext
            | UiCommand::ExtendSelectionUp
            | UiCommand::ExtendSelectionDown
            | UiCommand::CollapseOrSelectParent
            | UiCommand::ExpandOrSelectChild
            | UiCommand::FrameSelection
            | UiCommand::LookAlong(_)
            | UiCommand::GizmoTranslate
            | UiCommand::GizmoRotate
            | UiCommand::GizmoScale
            | UiCommand::ToggleGizmoAxes
            | UiCommand::ToggleGizmoPivot => editing,
            UiCommand::EditorWorkspace
            | UiCommand::PeersWorkspace
            | UiCommand::ResetLayout
            | UiCommand::ShowShortcuts => true,
        }
    }

    /// The keys as people read them: "Ctrl+Shift+Z, Ctrl+Y" (empty without keys).
    pub fn shortcut_text(self) -> String {
        self.shortcuts()
            .iter()
            .map(|s| s.format(&ModifierNames::NAMES, false))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The tooltip with the keys: "Gizmo: rotate (E)".
    pub fn hint(self) -> String {
        match self.shortcut_text() {
            keys if keys.is_empty() => self.text().1.to_string(),
            keys => format!("{} ({keys})", self.text().1),
        }
    }

    /// The viewport toolbar's tooltips, naming this table's shortcuts for its buttons.
    pub fn viewport_toolbar_hints() -> scenetree_viewport::ToolbarHints {
        scenetree_viewport::ToolbarHints {
            translate: UiCommand::GizmoTranslate.hint(),
            rotate: UiCommand::GizmoRotate.hint(),
            scale: UiCommand::GizmoScale.hint(),
            axes: UiCommand::ToggleGizmoAxes.hint(),
            pivot: UiCommand::ToggleGizmoPivot.hint(),
        }
    }

    /// What the viewport does for this command, if it is one of the viewport's.
    pub fn viewport_command(self) -> Option<ViewportCommand> {
        match self {
            UiCommand::CancelGizmoDrag => Some(ViewportCommand::CancelDrag),
            UiCommand::FrameSelection => Some(ViewportCommand::Frame),
            UiCommand::LookAlong(view) => Some(ViewportCommand::LookAlong(view)),
            UiCommand::GizmoTranslate => Some(ViewportCommand::Mode(GizmoMode::Translate)),
            UiCommand::GizmoRotate => Some(ViewportCommand::Mode(GizmoMode::Rotate)),
            UiCommand::GizmoScale => Some(ViewportCommand::Mode(GizmoMode::Scale)),
            UiCommand::ToggleGizmoAxes => Some(ViewportCommand::ToggleOrientation),
            UiCommand::ToggleGizmoPivot => Some(ViewportCommand::TogglePivot),
            _ => None,
        }
    }

    /// What the hierarchy does for this command, if it is one of its keyboard moves.
    pub fn tree_key(self) -> Option<TreeKey> {
        match self {
            UiCommand::SelectPrevious => Some(TreeKey::Previous),
            UiCommand::SelectNext => Some(TreeKey::Next),
            UiCommand::ExtendSelectionUp => Some(TreeKey::ExtendPrevious),
            UiCommand::ExtendSelectionDown => Some(TreeKey::ExtendNext),
            UiCommand::CollapseOrSelectParent => Some(TreeKey::CollapseOrParent),
            UiCommand::ExpandOrSelectChild => Some(TreeKey::ExpandOrChild),
            _ => None,
        }
    }

    /// A menu entry for the command, enabled when it applies; `label` replaces the default
    /// ("Undo Rename"). True when clicked.
    pub fn menu_item(
        self,
        ui: &mut egui::Ui,
        context: &CommandContext,
        label: Option<&str>,
    ) -> bool {
        let (text, tooltip) = self.text();
        let button = egui::Button::new(label.unwrap_or(text)).shortcut_text(
            self.shortcuts()
                .first()
                .map(|s| ui.ctx().format_shortcut(s))
                .unwrap_or_default(),
        );
        ui.add_enabled(self.applies(context), button)
            .on_hover_text(tooltip)
            .clicked()
    }
}

/// Mouse gestures, listed beside the commands in the Help window and docs/editor.md (the panels
/// handle them where they happen).
pub const GESTURES: &[(&str, &str)] = &[
    (
        "Click / Ctrl+click / Shift+click",
        "Select, add to the selection, select a range",
    ),
    ("Double-click a row", "Rename (the whole name selected)"),
    (
        "Drag a row onto a row",
        "Reparent, keeping the world position",
    ),
    (
        "Drag a row between two rows",
        "Reorder among those siblings (stored in inspector::Nodes)",
    ),
    (
        "Shift while dropping",
        "Move under a new parent keeping the local values",
    ),
    ("Ctrl while dragging the gizmo", "Snap (0.25 m, 15°, 0.1)"),
    ("Left drag in the viewport", "Orbit"),
    ("Right or middle drag, Shift+left drag", "Pan"),
    ("Wheel", "Zoom"),
];

/// Every shortcut and gesture as (keys, what it does), for the Help window and docs/editor.md.
pub fn shortcut_rows() -> Vec<(String, &'static str)> {
    let mut rows: Vec<(String, &'static str)> = Vec::new();
    for &command in UiCommand::all() {
        let keys = command.shortcut_text();
        if !keys.is_empty() {
            rows.push((keys, command.text().1));
        }
    }
    rows.extend(
        GESTURES
            .iter()
            .map(|&(keys, what)| (keys.to_string(), what)),
    );
    rows
}

/// docs/editor.md's shortcut table (tested against that page).
pub fn shortcut_table_markdown() -> String {
    let mut out = String::from("| Keys | Action |\n|---|---|\n");
    for (keys, what) in shortcut_rows() {
        out += &format!("| {keys} | {what} |\n");
    }
    out
}

/// True in the frame the window got the keyboard focus back (the user returns from another
/// program): the moment to look for files other programs changed.
pub fn window_got_focus(ctx: &egui::Context) -> bool {
    ctx.input(|i| (i.events.iter()).any(|e| matches!(e, egui::Event::WindowFocused(true))))
}

#[cfg(test)]
mod tests;
