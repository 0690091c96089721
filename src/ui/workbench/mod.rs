//! The editor's window content without the OS window: the dock with its tabs, shortcuts, and
//! applying the panels' actions to the document. egui_kittest drives this directly.
//! `status.rs` draws the status bar, `transform_clipboard.rs` copies and pastes transforms,
//! `peers_actions.rs` applies the Peers panel's requests.

mod entity_clipboard;
mod held_cycle;
mod multiplayer;
mod peers_actions;
mod status;
mod transform_clipboard;

use egui_dock::{DockArea, DockState, NodeIndex, Style, TabViewer};
use serde::{Deserialize, Serialize};

use super::action::{Action, PeersAction, SelectAction, Severity};
use super::command::{self, CommandContext, UiCommand, action_for};
use super::hierarchy::HierarchyPanel;
use super::inspector_panel::InspectorPanel;
use super::layout::{PanelSizes, Tab};
use super::peers_panel::{PeersPanel, PeersUiContext};
use super::viewport_tab::ViewportTab;
pub use crate::ui::multiplayer::{Multiplayer, MultiplayerSource};
pub use held_cycle::{HeldCycle, HeldWrite};
use scenetree_core::crdt::Network;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::policy::TreePolicy;
use scenetree_editor::{Command, Document};
use scenetree_viewport::{ViewportCommand, ViewportRenderer};

/// Which set of panels fills the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Workspace {
    /// Hierarchy, viewport, inspector (and the Peers strip): editing one scene.
    #[default]
    Editor,
    /// The simulated peers side by side, the messages between them, the active peer's
    /// viewport and inspector.
    Peers,
}

/// The Peers workspace: Peers | Viewport over Inspector, the peers taking most of the width
/// (72%: at 1024 points the five policy columns fit beside each other).
pub fn peers_dock() -> DockState<Tab> {
    let mut dock = DockState::new(vec![Tab::Peers]);
    let surface = dock.main_surface_mut();
    let [_peers, side] = surface.split_right(NodeIndex::root(), 0.72, vec![Tab::Viewport]);
    surface.split_below(side, 0.5, vec![Tab::Inspector]);
    dock
}

/// The default layout: Hierarchy | Viewport over Peers | Inspector (the sizes in points come
/// from [`PanelSizes`]).
pub fn default_dock() -> DockState<Tab> {
    let mut dock = DockState::new(vec![Tab::Viewport]);
    let surface = dock.main_surface_mut();
    let [center, _left] = surface.split_left(NodeIndex::root(), 0.24, vec![Tab::Hierarchy]);
    let [center, _right] = surface.split_right(center, 0.6, vec![Tab::Inspector]);
    surface.split_below(center, 0.58, vec![Tab::Peers]);
    dock
}

/// Something the workbench asked for that only the app can do: a file dialog, the disk,
/// quitting, the Help window, or the unsaved-changes prompt. The app takes them each frame
/// ([`Workbench::take_app_requests`]), in the order they were asked.
#[derive(Clone, Debug, PartialEq)]
pub enum AppRequest {
    /// A command of the app's (New, Open, Save, Quit, Keyboard Shortcuts, …), from a menu
    /// or the keyboard.
    Command(UiCommand),
    /// Save a simulated peer's state as main.crdt.
    ExportPeer(scenetree_core::crdt::network::PeerId),
    /// Save the peers run as a scenario file.
    SaveRun,
    /// Open bundled lesson number `n` (from 0): it replaces the document, so the app asks
    /// about unsaved changes first.
    OpenLesson(usize),
}

/// The workbench's layout, persisted by the app.
pub struct WorkbenchLayout {
    /// The editor workspace's tab layout.
    pub dock: DockState<Tab>,
    /// The Peers workspace's tab layout.
    pub peers_dock: DockState<Tab>,
    /// Which workspace is shown.
    pub workspace: Workspace,
    /// The panels' sizes in points, kept when the window is resized.
    pub panel_sizes: PanelSizes,
}

/// What was copied in the workbench.
#[derive(Default)]
struct Clipboard {
    /// The copied local transform (position, rotation, scale).
    transform: Option<Transform>,
    /// The copied entities (Ctrl+C), in the document they were copied from.
    entities: Vec<Entity>,
    /// Text for the system clipboard, put there at the end of the frame (see
    /// [`Action::CopyTransform`]).
    text: Option<String>,
}

/// What the last frame ended with.
#[derive(Default)]
struct LastFrame {
    /// A text field had the keyboard.
    text_field_had_keyboard: bool,
    /// A menu or popup was open.
    popup_was_open: bool,
}

/// Everything inside the editor window.
pub struct Workbench {
    /// The open scene.
    pub doc: Document,
    /// Tree state.
    pub hierarchy: HierarchyPanel,
    /// Inspector state.
    pub inspector: InspectorPanel,
    /// The 3D view's state (camera, gizmo, built scene).
    pub viewport: ViewportTab,
    /// The workspaces' tab layouts, which one is shown, the panels' sizes.
    pub layout: WorkbenchLayout,
    /// What was copied.
    clipboard: Clipboard,
    /// The last message for the status bar.
    pub status: Option<(String, Severity)>,
    /// A save in progress, as the status bar tells it beside a spinner (the app sets it).
    pub saving: Option<String>,
    /// A modal dialog of the app is open, so no command applies (the app sets it each frame).
    pub modal_open: bool,
    /// What the last frame left that decides how keys apply in this one.
    last_frame: LastFrame,
    /// The Peers panel's state.
    pub peers: PeersPanel,
    /// What waits for the app, oldest first.
    app_requests: Vec<AppRequest>,
    /// A live write held back because it would make a parenting cycle: the app asks.
    pub held_cycle: Option<HeldCycle>,
    /// A multiplayer run (a capture, a multiplayer lesson): the Peers workspace shows it.
    pub multiplayer: Option<Multiplayer>,
}

impl Workbench {
    /// What the workbench asked of the app since the last call, oldest first.
    pub fn take_app_requests(&mut self) -> Vec<AppRequest> {
        std::mem::take(&mut self.app_requests)
    }

    /// A workbench showing `doc` in the default layout.
    pub fn new(doc: Document) -> Self {
        let mut viewport = ViewportTab::default();
        viewport.viewport.toolbar_hints = UiCommand::viewport_toolbar_hints();
        Workbench {
            doc,
            hierarchy: HierarchyPanel::default(),
            inspector: InspectorPanel::default(),
            viewport,
            layout: WorkbenchLayout {
                dock: default_dock(),
                peers_dock: peers_dock(),
                workspace: Workspace::default(),
                panel_sizes: PanelSizes::default(),
            },
            clipboard: Clipboard::default(),
            status: None,
            saving: None,
            modal_open: false,
            last_frame: LastFrame::default(),
            peers: PeersPanel::default(),
            app_requests: Vec::new(),
            held_cycle: None,
            multiplayer: None,
        }
    }

    /// Replaces the document (a file was opened), keeping the layouts; a lesson opens in the
    /// Peers workspace, any other document in the editor's (where its hierarchy is).
    pub fn set_document(&mut self, doc: Document) {
        self.install_document(doc);
        self.hierarchy = HierarchyPanel::default();
        self.viewport.frame_all_next();
        // The image shown is the old document's: draw the new one at once, models or not.
        self.viewport.viewport.request_render();
    }

    /// Replaces the document with the same scene read again from disk (Reload from Disk): the
    /// camera, the hierarchy's folded rows and search text, and the selection of the entities
    /// still in the scene stay as they were.
    pub fn reload_document(&mut self, mut doc: Document) {
        let kept: Vec<Entity> = (self.doc.selection.entities().iter().copied())
            .filter(|&e| doc.view().contains(e))
            .collect();
        doc.selection.set(kept);
        self.install_document(doc);
        self.hierarchy = self.hierarchy.carried_over();
    }

    /// What [`Self::set_document`] and [`Self::reload_document`] share.
    fn install_document(&mut self, doc: Document) {
        // The status bar counts the new scene's model files only (found by hand: a scene
        // opened after one with 13 missing models still said 13).
        self.viewport.assets.start_document(doc.project.clone());
        self.doc = doc;
        self.layout.workspace = if self.doc.simulation().is_some() {
            Workspace::Peers
        } else {
            Workspace::Editor
        };
        // Ids mean other entities in another scene.
        self.clipboard.entities.clear();
        // A policy chosen for one run's cycles is not the next run's (found by hand: it
        // carried over into another lesson).
        self.viewport.policy = super::viewport_tab::PolicyDrawing::default();
        // The last message was about the scene that is gone ("Delivered 2 messages").
        self.status = None;
        // Another document ends a multiplayer run's showing.
        self.multiplayer = None;
        self.inspector.error = None;
    }

    /// Draws the status bar and the dock, handles shortcuts, and applies what the panels asked.
    /// `renderer` draws the 3D view (three-d on the window's GL context, or a stub in tests).
    pub fn ui(&mut self, ui: &mut egui::Ui, renderer: &mut dyn ViewportRenderer) {
        // The keyboard, once, before any panel: a panel drawn later sees the result (the
        // viewport cancels a drag this frame) and no panel reads a key a command took.
        if command::window_got_focus(ui.ctx()) {
            // Files changed while the window was in the background (a model exported again
            // from Blender): read them again, as Godot reimports when its window is focused.
            let reloading = self.viewport.assets.reload_changed();
            if reloading > 0 {
                self.status = Some((
                    format!("Reading {reloading} changed model or texture file(s) again"),
                    Severity::Info,
                ));
            }
        }
        let context = self.command_context(ui.ctx());
        for command in command::dispatch(ui.ctx(), &context) {
            self.run_command(command);
        }
        self.hierarchy.flags.update(self.doc.replica());
        self.refresh_file_problems();
        let mut actions = (egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui))).inner;
        let workspace = self.layout.workspace;
        if workspace == Workspace::Peers && self.multiplayer.is_some() {
            return self.multiplayer_frame(ui, actions);
        }
        let shown = match workspace {
            Workspace::Editor => &mut self.layout.dock,
            Workspace::Peers => &mut self.layout.peers_dock,
        };
        let mut dock = std::mem::replace(shown, DockState::new(Vec::new()));
        if workspace == Workspace::Editor {
            // The Peers workspace gives the peers most of the width on purpose.
            self.layout
                .panel_sizes
                .fit(&mut dock, ui.available_rect_before_wrap());
        }
        let mut tabs = Tabs {
            bench: self,
            actions: &mut actions,
            renderer,
        };
        DockArea::new(&mut dock)
            .style(Style::from_egui(ui.style().as_ref()))
            .show_close_buttons(false)
            .show_leaf_close_all_buttons(false)
            .id(egui::Id::new(("dock", workspace)))
            .show_inside(ui, &mut tabs);
        match workspace {
            Workspace::Editor => self.layout.dock = dock,
            Workspace::Peers => self.layout.peers_dock = dock,
        }
        self.apply_actions(actions);
        self.end_frame(ui);
    }

    /// What every frame ends with: the copied text to the clipboard, what the keys apply to.
    pub(super) fn end_frame(&mut self, ui: &egui::Ui) {
        if let Some(text) = self.clipboard.text.take() {
            ui.ctx().copy_text(text);
        }
        self.last_frame.text_field_had_keyboard = ui.ctx().egui_wants_keyboard_input();
        self.last_frame.popup_was_open = egui::Popup::is_any_open(ui.ctx());
    }

    /// What decides which commands apply now (see [`UiCommand::applies`]).
    pub fn command_context(&self, ctx: &egui::Context) -> CommandContext {
        CommandContext {
            // egui lets go of a text field on Escape before anyone reads the key: a field that
            // had the keyboard at the end of the last frame still owns this frame's keys.
            typing: self.last_frame.text_field_had_keyboard
                || ctx.egui_wants_keyboard_input()
                || self.hierarchy.is_renaming(),
            modal: self.modal_open,
            gizmo_dragging: self.viewport.viewport.is_dragging_gizmo(),
            has_selection: !self.doc.selection.is_empty(),
            can_undo: self.doc.history().undo_label().is_some(),
            can_redo: self.doc.history().redo_label().is_some(),
            // Like text fields, a menu closes on Escape before anyone reads the key.
            popup_open: self.last_frame.popup_was_open || egui::Popup::is_any_open(ctx),
            has_file: self.doc.file.is_some() && self.doc.disk_version.is_some(),
            has_project: self.doc.project.is_some(),
            can_paste: !self.clipboard.entities.is_empty(),
            can_paste_transform: self.clipboard.transform.is_some(),
            can_move_to_root: (self.doc.selection.entities().iter())
                .any(|&e| self.doc.declared_parent(e) != Entity::ROOT),
            can_step_back: self.network().is_some_and(|n| n.cursor() > 0)
                || self.shown_run().is_some_and(|r| r.cursor() > 0),
            can_step_forward: self.network().is_some_and(Network::is_rewound)
                || self
                    .shown_run()
                    .is_some_and(|r| r.cursor() < r.script().len()),
        }
    }

    /// The simulation's network, while one runs.
    fn network(&self) -> Option<&Network> {
        self.doc.simulation().map(|(sim, _)| sim.network())
    }

    /// Runs a command from the keyboard or a menu. The ones only the app can run (files,
    /// quitting, the Help window) wait for it in [`Self::take_app_requests`].
    pub fn run_command(&mut self, command: UiCommand) {
        let selection = &self.doc.selection;
        if let Some(action) = action_for(command, selection.primary(), selection.entities()) {
            self.apply_actions(vec![action]);
            return;
        }
        let action = match command {
            UiCommand::CreateChild | UiCommand::Rename => return, // nothing selected
            UiCommand::SelectAll => {
                Action::Select(SelectAction::Many(self.hierarchy.all_entities(&self.doc)))
            }
            UiCommand::ResetLayout => {
                match self.layout.workspace {
                    Workspace::Editor => {
                        self.layout.dock = default_dock();
                        self.layout.panel_sizes.reset();
                    }
                    Workspace::Peers => self.layout.peers_dock = peers_dock(),
                }
                return;
            }
            UiCommand::EditorWorkspace => {
                self.layout.workspace = Workspace::Editor;
                return;
            }
            UiCommand::Find => {
                // The hierarchy is in the editor's workspace.
                self.layout.workspace = Workspace::Editor;
                self.hierarchy.focus_search();
                return;
            }
            UiCommand::PeersWorkspace => {
                self.layout.workspace = Workspace::Peers;
                return;
            }
            UiCommand::TimelineBack | UiCommand::TimelineForward
                if let Some(cursor) = self.shown_run().map(|r| r.cursor()) =>
            {
                let to = match command {
                    UiCommand::TimelineBack => cursor.saturating_sub(1),
                    _ => cursor + 1,
                };
                Action::Multiplayer(crate::ui::action::MultiplayerAction::Seek(to))
            }
            UiCommand::TimelineBack | UiCommand::TimelineForward => {
                let Some(cursor) = self.network().map(Network::cursor) else {
                    return;
                };
                let to = match command {
                    UiCommand::TimelineBack => cursor.saturating_sub(1),
                    _ => cursor + 1,
                };
                Action::Peers(PeersAction::Seek(to))
            }
            _ => {
                if let Some(key) = command.tree_key() {
                    let actions = self.hierarchy.navigate(&self.doc, key);
                    self.apply_actions(actions);
                    return;
                }
                match command.viewport_command() {
                    Some(viewport) => self.viewport.viewport.run(viewport),
                    None => self.app_requests.push(AppRequest::Command(command)),
                }
                return;
            }
        };
        self.apply_actions(vec![action]);
    }

    /// Applies panel actions in order. Refused edits become an error in the status bar; nothing
    /// is written for them.
    pub fn apply_actions(&mut self, actions: Vec<Action>) {
        for action in actions {
            // The status bar tells what the latest action did, or "Ready": an older message
            // (a refusal, "Saved …") goes. The end of a drag keeps the drag's message, a frame
            // of a drag that moved nothing keeps it too, and the clock of auto-delivery is not
            // the user's action.
            if !matches!(
                action,
                Action::EndGesture
                    | Action::EditCoalesced(..)
                    | Action::Peers(PeersAction::Advance(_))
            ) {
                self.status = None;
            }
            match action {
                Action::Edit(command) => {
                    // Kept while live, where the cycle guard may hold the edit for a question.
                    let held = self.doc.live().is_some().then(|| command.clone());
                    let applied = self.doc.apply(command);
                    self.edited(applied, held.map(HeldWrite::Edit));
                }
                Action::EditCoalesced(command, key) => {
                    match self.doc.apply_coalesced(command, key) {
                        Ok(applied) => {
                            if let Some(label) = applied.label {
                                self.status = Some((label, Severity::Info));
                            }
                        }
                        Err(err) => self.status = Some((err.to_string(), Severity::Error)),
                    }
                }
                Action::EndGesture => self.doc.end_coalescing(),
                Action::CancelGesture => match self.doc.cancel_gesture() {
                    Ok(true) => self.status = Some(("Cancelled".into(), Severity::Info)),
                    Ok(false) => {}
                    Err(err) => self.status = Some((err.to_string(), Severity::Error)),
                },
                Action::Select(select) => {
                    let sel = &mut self.doc.selection;
                    match select {
                        SelectAction::Only(e) => sel.select_only(e),
                        SelectAction::Toggle(e) => sel.toggle(e),
                        SelectAction::Range(e, order) => sel.select_range(e, &order),
                        SelectAction::Many(entities) => sel.set(entities),
                        SelectAction::Clear => sel.clear(),
                    }
                }
                Action::Reveal(e) => self.hierarchy.reveal(&self.doc, e),
                Action::BeginRename(e) => {
                    let current = self.doc.name_of(e).unwrap_or_default();
                    self.hierarchy.begin_rename(e, current);
                }
                Action::Undo => self.replay(HeldWrite::Undo),
                Action::Redo => self.replay(HeldWrite::Redo),
                Action::CopyEntities => self.copy_entities(),
                Action::PasteEntities => self.paste_entities(),
                Action::CopyTransform => self.copy_transform(),
                Action::PasteTransform => self.paste_transform(),
                Action::ToggleHidden(e) => {
                    let hidden = !self.doc.is_hidden(e);
                    let edit = Command::SetHidden {
                        entities: vec![e],
                        hidden,
                    };
                    self.apply_actions(vec![Action::Edit(edit)]);
                }
                Action::ToggleLocked(e) => {
                    let locked = !self.doc.is_locked(e);
                    let edit = Command::SetLocked {
                        entities: vec![e],
                        locked,
                    };
                    self.apply_actions(vec![Action::Edit(edit)]);
                }
                Action::FrameSelection => self.viewport.viewport.run(ViewportCommand::Frame),
                Action::Status(text, severity) => self.status = Some((text, severity)),
                Action::Peers(request) => self.apply_peers_action(request),
                Action::Multiplayer(request) => self.apply_multiplayer_action(request),
            }
        }
    }
}

struct Tabs<'a> {
    bench: &'a mut Workbench,
    actions: &'a mut Vec<Action>,
    renderer: &'a mut dyn ViewportRenderer,
}

impl TabViewer for Tabs<'_> {
    type Tab = Tab;

    fn id(&mut self, tab: &mut Tab) -> egui::Id {
        egui::Id::new(("tab", *tab))
    }

    fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
        tab.title().into()
    }

    fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab) {
        match tab {
            Tab::Hierarchy => {
                let bench = &mut *self.bench;
                bench.hierarchy.can_paste = !bench.clipboard.entities.is_empty();
                bench.hierarchy.can_paste_transform = bench.clipboard.transform.is_some();
                let actions = bench.hierarchy.ui(ui, &bench.doc);
                self.actions.extend(actions);
            }
            Tab::Inspector => {
                let bench = &mut *self.bench;
                let model = bench
                    .doc
                    .selection
                    .primary()
                    .and_then(|e| bench.viewport.model_state(&bench.doc, e));
                let actions = bench.inspector.ui(ui, &bench.doc, model.as_ref());
                self.actions.extend(actions);
            }
            Tab::Viewport => {
                let bench = &mut *self.bench;
                // The board follows the network only while the view draws another policy.
                let other_policy = bench.viewport.policy.policy != TreePolicy::RootFallback;
                let policies = bench.doc.simulation().map(|(sim, active)| {
                    let board = other_policy.then(|| bench.peers.policy_board(sim.network()));
                    (board, active)
                });
                let actions = bench.viewport.ui(
                    ui,
                    &bench.doc,
                    &bench.hierarchy.flags.hidden,
                    &bench.hierarchy.flags.locked,
                    policies,
                    self.renderer,
                );
                self.actions.extend(actions);
            }
            Tab::Peers => {
                let bench = &mut *self.bench;
                let cx = PeersUiContext {
                    renderer: self.renderer,
                    assets: &mut bench.viewport.assets,
                    euler_order: bench.inspector.euler_order,
                };
                let actions = bench.peers.ui(ui, &bench.doc, cx);
                self.actions.extend(actions);
            }
        }
    }

    fn is_closeable(&self, _tab: &Tab) -> bool {
        false
    }
}
