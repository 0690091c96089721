//! The open scene: the replica being edited, its derived render tree, undo history and
//! selection. [`Document::apply`] is the one place where user intent becomes CRDT writes.

use std::path::PathBuf;

use scenetree_core::crdt::network::LocalWrite;
use scenetree_core::crdt::{CrdtMessage, Replica, ReplicaVersion};
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::SceneView;
use scenetree_dcl::io::project::Project;
use scenetree_dcl::io::{FileVersion, SaveContext, SceneFormat};

use super::command::{Command, EditError};
use super::history::{History, RegisterChange, ReplayError, Reselect, Step};
use super::peers::Backend;
use super::peers::Simulation;
use super::saved::SavedState;
use super::selection::Selection;

/// Where a document was loaded from or last saved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneFile {
    /// The file path.
    pub path: PathBuf,
    /// The format it is saved in.
    pub format: SceneFormat,
}

/// Which values of a history step to write again.
#[derive(Clone, Copy)]
enum Direction {
    /// The values before the step (undo).
    Back,
    /// The values after the step (redo).
    Forward,
}

/// What an applied command produced that the UI may want to act on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Entities the command created (new entities, duplicates), top-level ones first.
    pub created: Vec<Entity>,
    /// For a duplicate: every (original, copy) pair of the copied subtrees.
    pub copies: Vec<(Entity, Entity)>,
    /// For a delete: the top-level entities removed (what an undo brings back and selects).
    pub deleted: Vec<Entity>,
    /// What the Edit menu calls the step ("Move Lamp"), for the status bar; `None` when the
    /// command changed nothing (every value was already as asked), so no step was recorded.
    pub label: Option<String>,
}

/// An open scene.
#[derive(Debug)]
pub struct Document {
    backend: Backend,
    view: SceneView,
    history: History,
    /// The selected entities.
    pub selection: Selection,
    /// Messages authored by this document's writes, for other peers to receive.
    outbox: Vec<CrdtMessage>,
    /// The file this document belongs to, if any.
    pub file: Option<SceneFile>,
    /// Where Save As proposes to save a document without a file, when something better than
    /// "Untitled.json" is known (beside the damaged file whose readable part it holds).
    pub save_as_suggestion: Option<PathBuf>,
    /// What the file held beyond the replica (a main.crdt's message order, a composite's
    /// untouched JSON), so saving back changes only what was edited.
    pub save_context: SaveContext,
    /// What loading the file noticed (skipped messages, values kept but not loaded).
    pub load_notes: Vec<String>,
    /// The Decentraland project the file is in (resolves model paths, names the window).
    pub project: Option<Project>,
    /// Saving writes the project's main.composite, main.crdt and entity-names.ts (the file is
    /// its scene).
    pub saves_as_project: bool,
    /// How `file` looked on disk when it was read or last written, and its bytes' hash then
    /// (`None`: not known, as for recovered work older editors left). A save over a file that
    /// no longer holds those bytes asks first: another program changed it, and saving would
    /// replace its changes.
    pub disk_version: Option<FileVersion>,
    /// What was last loaded or saved, to tell unsaved changes.
    saved: SavedState,
    /// True when some replica of the document (any simulated peer) differs from what was last
    /// loaded or saved; updated by [`Self::refresh`].
    modified: bool,
    /// While a lesson plays: the user edited the scene themselves since it opened (or was
    /// saved). The lesson's own steps and the deliveries it asks for are not the user's work.
    edited_in_lesson: bool,
    /// Where the Inspector's tree and the Transforms disagree, kept between reads.
    pub(super) nodes_check: super::nodes_check::DocumentNodesCheck,
    /// While live, a write that would close a parenting cycle is refused unless the user
    /// chose to make it (see `live_cycles.rs`).
    pub(super) guard_live_cycles: bool,
}

impl Default for Document {
    fn default() -> Self {
        Self::new(Replica::new(), None)
    }
}

impl Document {
    /// A document over `replica`, considered saved.
    pub fn new(replica: Replica, file: Option<SceneFile>) -> Self {
        let view = SceneView::from_source(&replica);
        let saved = SavedState::at([replica.version()]);
        Document {
            backend: Backend::Solo(replica),
            view,
            history: History::new(),
            selection: Selection::new(),
            outbox: Vec::new(),
            file,
            save_as_suggestion: None,
            save_context: SaveContext::default(),
            load_notes: Vec::new(),
            project: None,
            saves_as_project: false,
            disk_version: None,
            saved,
            modified: false,
            edited_in_lesson: false,
            nodes_check: Default::default(),
            guard_live_cycles: true,
        }
    }

    /// A document holding work that was never saved (recovered after a crash): it reports
    /// itself modified until saved.
    pub fn recovered(replica: Replica, file: Option<SceneFile>) -> Self {
        let mut doc = Self::new(replica, file);
        doc.saved = SavedState::default();
        doc.modified = true;
        doc
    }

    /// This document (as just read from its file) holding `replica`, work that was never saved
    /// (recovered after a crash) instead: the file, its project and what it held beyond the
    /// replica stay, so saving writes the work as an edit of the file would be written.
    pub fn with_recovered_work(self, replica: Replica) -> Self {
        Document {
            save_context: self.save_context,
            load_notes: self.load_notes,
            project: self.project,
            saves_as_project: self.saves_as_project,
            disk_version: self.disk_version,
            ..Self::recovered(replica, self.file)
        }
    }

    pub(super) fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The backend, to change the simulation (which may replace replica instances: a seek).
    pub(super) fn backend_mut(&mut self) -> &mut Backend {
        self.saved.remember_digest(self.backend.replicas());
        &mut self.backend
    }

    /// Replaces where the replica lives and re-derives the view (a new replica instance makes
    /// the view rebuild).
    pub(super) fn set_backend(&mut self, backend: Backend) {
        self.saved.remember_digest(self.backend.replicas());
        self.backend = backend;
        self.refresh();
    }

    /// Takes the current state of every replica as the unmodified one (a lesson just opened:
    /// nothing the user did yet).
    pub(super) fn mark_unmodified(&mut self) {
        self.saved = SavedState::at(self.backend.replicas().map(Replica::version));
        self.modified = false;
        self.edited_in_lesson = false;
    }

    /// True when the user edited a lesson's scene themselves (see [`Self::is_modified`]).
    pub(super) fn edited_in_lesson(&self) -> bool {
        self.edited_in_lesson
    }

    /// A lesson stopped, its kept state now the document: unmodified unless the user had
    /// edited the lesson's scene (`edited`), in which case nothing on disk holds it.
    pub(super) fn keep_lesson_state(&mut self, edited: bool) {
        if edited {
            self.saved = SavedState::default();
            self.modified = true;
        } else {
            self.mark_unmodified();
        }
    }

    /// Forgets undo history (a lesson starts from its own state).
    pub(super) fn clear_history(&mut self) {
        self.history.clear();
    }

    /// How many entities the scene has: every entity holding a component except the root,
    /// which holds the scene's own values (`inspector::Nodes`) and heads the tree instead of
    /// being a row. Other reserved entities (the player, the camera, any number below 512)
    /// holding components are rows of the hierarchy like any other, so they count. Leftovers
    /// (editor data of deleted entities, which the Inspector shows nowhere) are counted apart,
    /// so the count is the Inspector's.
    pub fn scene_entity_count(&self) -> usize {
        let replica = self.replica();
        let leftovers = self.inspector_tree_mismatches().leftovers.len();
        replica.live_entity_count() - usize::from(replica.is_live(Entity::ROOT)) - leftovers
    }

    /// The replica (read-only: all writes go through [`Self::apply`]).
    pub fn replica(&self) -> &Replica {
        self.backend.shown()
    }

    /// The derived render tree, up to date with the replica.
    pub fn view(&self) -> &SceneView {
        &self.view
    }

    /// The undo history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// True when the document holds changes that are not on disk: the replica changed since
    /// the last load or save, or, with simulated peers, any peer's state differs from it. While
    /// a lesson plays, only the user's own edits count: replaying its steps or delivering its
    /// messages loses nothing when the lesson is left, and asking to save them would be noise.
    pub fn is_modified(&self) -> bool {
        self.modified
    }

    /// Records that the current state (the active peer's, when simulating) is what is on disk.
    pub fn mark_saved(&mut self, file: SceneFile) {
        let saved = self.replica();
        // Other peers are other instances: compare them with what was written.
        let digest = matches!(self.backend, Backend::Peers { .. }).then(|| saved.digest());
        self.record_saved(file, saved.version(), digest);
    }

    /// Records that the state `version` (a copy of it, with this `digest`, was written on
    /// another thread) is what is on disk; a replica that moved on since is modified.
    pub fn mark_saved_at(&mut self, file: SceneFile, version: ReplicaVersion, digest: u128) {
        self.record_saved(file, version, Some(digest));
    }

    fn record_saved(&mut self, file: SceneFile, version: ReplicaVersion, digest: Option<u128>) {
        self.file = Some(file);
        self.saved = SavedState {
            clean: vec![version],
            differ: Vec::new(),
            digest,
        };
        self.edited_in_lesson = false;
        self.refresh();
    }

    /// Takes the messages written since the last call (for the peers simulation).
    pub fn take_outbox(&mut self) -> Vec<CrdtMessage> {
        std::mem::take(&mut self.outbox)
    }

    /// Applies a message from outside (not an undoable edit) and refreshes the view. With
    /// simulated peers, messages travel through the network instead: this applies to the
    /// active peer's replica directly, outside the timeline.
    pub fn receive(&mut self, msg: &CrdtMessage) -> Option<scenetree_core::crdt::ApplyOutcome> {
        let outcome = match &mut self.backend {
            Backend::Solo(replica) => Some(replica.apply(msg)),
            Backend::Peers { .. } | Backend::Live(_) => None,
        };
        self.refresh();
        outcome
    }

    // ----- tree queries --------------------------------------------------------------------

    /// `entity` and everything drawn below it, parents first (iterative, any depth).
    pub fn subtree(&self, entity: Entity) -> Vec<Entity> {
        super::tree::subtree(&self.view, entity)
    }

    /// True when `ancestor` is `entity`'s effective parent, grandparent, …
    pub fn is_drawn_below(&self, entity: Entity, ancestor: Entity) -> bool {
        super::tree::is_drawn_below(&self.view, entity, ancestor)
    }

    /// True when putting `entity` under `parent` would make a parenting cycle: `parent` is
    /// `entity` or lies below it along declared parents.
    pub fn would_cycle(&self, entity: Entity, parent: Entity) -> bool {
        super::tree::would_cycle(self.replica(), self.view.len(), entity, parent)
    }

    /// The entity's local Transform as stored, or the identity at the root without one.
    pub fn local_transform(&self, entity: Entity) -> Transform {
        self.replica()
            .transform(entity)
            .unwrap_or(Transform::IDENTITY)
    }

    /// Keeps only the top-most entities of a set (a child moves with its selected parent), in
    /// the order given, without repeats (see [`super::tree::top_level`]).
    pub fn top_level(&self, entities: &[Entity]) -> Vec<Entity> {
        super::tree::top_level(&self.view, entities)
    }

    // ----- edits ---------------------------------------------------------------------------

    /// Applies a command as one undo step.
    pub fn apply(&mut self, command: Command) -> Result<Applied, EditError> {
        self.apply_with(command, None)
    }

    /// Applies a command that merges with the previous one while `key` stays the same and the
    /// run is open (one gizmo drag, one slider drag). Call [`Self::end_coalescing`] when the
    /// gesture ends.
    pub fn apply_coalesced(&mut self, command: Command, key: u64) -> Result<Applied, EditError> {
        self.apply_with(command, Some(key))
    }

    /// Ends a coalescing run.
    pub fn end_coalescing(&mut self) {
        self.history.close_coalescing();
    }

    /// Cancels the gesture in progress: its writes are reverted (as new writes) and it leaves
    /// no undo step. Returns false when no gesture was open.
    pub fn cancel_gesture(&mut self) -> Result<bool, ReplayError> {
        let Some(step) = self.history.pop_open_gesture() else {
            return Ok(false);
        };
        self.replay(step, Direction::Back, |_, _| {})?;
        Ok(true)
    }

    fn apply_with(
        &mut self,
        command: Command,
        coalesce: Option<u64>,
    ) -> Result<Applied, EditError> {
        let command = match command {
            // Numbered before the label is made, so the step says which entity it created.
            Command::Create {
                parent,
                name,
                components,
            } => Command::Create {
                parent,
                name: if name.is_empty() {
                    name
                } else {
                    self.scene_names().take(&name)
                },
                components,
            },
            other => other,
        };
        let label = self.step_label(&command);
        let (writes, mut applied) = self.plan(command)?;
        let changes = self.write_all(writes)?;
        applied.label = (!changes.is_empty()).then(|| label.clone());
        self.edited_in_lesson |= !changes.is_empty();
        self.history.record(Step {
            label,
            changes,
            coalesce,
            reselect: Reselect {
                on_undo: applied.deleted.clone(),
                on_redo: applied.created.clone(),
            },
        });
        self.refresh();
        Ok(applied)
    }

    /// What the Edit menu and the status bar call the step a command makes: its verb and what
    /// it acts on, "Move Lamp", "Rotate 3 entities", "Rename Chair" (the name before the
    /// rename). A Transform edit is named by what it changes: the parent ("Reparent"), the
    /// rotation ("Rotate", the position may change with it, as when turning about a shared
    /// pivot), the scale ("Scale", likewise), the position alone ("Move"), else "Edit Transform
    /// of" (a paste, a reset).
    fn step_label(&self, command: &Command) -> String {
        // One entity by its name, several by their count.
        let subject = |entities: &[Entity]| match entities {
            [one] => self.display_name(*one),
            many => format!("{} entities", many.len()),
        };
        let verb = command.label();
        match command {
            Command::SetTransforms(edits) => {
                let (mut moved, mut turned, mut scaled, mut reparented) =
                    (false, false, false, false);
                for (entity, new) in edits {
                    let old = self.local_transform(*entity);
                    moved |= old.position != new.position;
                    turned |= old.rotation != new.rotation;
                    scaled |= old.scale != new.scale;
                    reparented |= old.parent != new.parent;
                }
                let verb = match (reparented, turned, scaled, moved) {
                    (true, ..) => "Reparent",
                    (false, true, false, _) => "Rotate",
                    (false, false, true, _) => "Scale",
                    (false, false, false, true) => "Move",
                    _ => "Edit Transform of",
                };
                let entities: Vec<Entity> = edits.iter().map(|(e, _)| *e).collect();
                format!("{verb} {}", subject(&entities))
            }
            Command::Reparent { entities, .. }
            | Command::Reorder { entities, .. }
            | Command::Duplicate { entities }
            | Command::Paste { entities }
            | Command::Delete { entities }
            | Command::SetHidden { entities, .. }
            | Command::SetLocked { entities, .. } => {
                format!("{verb} {}", subject(entities))
            }
            Command::Rename { entity, .. } => format!("{verb} {}", self.display_name(*entity)),
            Command::Create { name, .. } if !name.is_empty() => format!("Create {name}"),
            Command::Create { .. } => verb.to_string(),
            Command::SetComponent {
                entity, component, ..
            } => {
                let what = scenetree_core::model::known_component_name(*component)
                    .map_or_else(|| format!("component {component}"), str::to_owned);
                format!("Edit {what} of {}", self.display_name(*entity))
            }
        }
    }

    /// Reverts the last step. Returns its label, or `None` when there is nothing to undo. When
    /// the replica refuses a value (a peer deleted the entity for good meanwhile), or another
    /// writer deleted an entity the step left in the scene, nothing is written and the step,
    /// which can no longer be undone, leaves the history.
    pub fn undo(&mut self) -> Result<Option<String>, ReplayError> {
        let Some(step) = self.history.pop_undo() else {
            return Ok(None);
        };
        self.replay(step, Direction::Back, History::push_redo)
            .map(Some)
    }

    /// Re-applies the last undone step; refused like [`Self::undo`].
    pub fn redo(&mut self) -> Result<Option<String>, ReplayError> {
        let Some(step) = self.history.pop_redo() else {
            return Ok(None);
        };
        self.replay(step, Direction::Forward, History::push_undo)
            .map(Some)
    }

    /// Writes a step's values again, as new writes: its `before` values (backwards, in reverse
    /// order) or its `after` values, all or nothing. Done, the step goes to `keep` (the other
    /// stack) and its label is returned; refused, it is dropped and the error says why.
    fn replay(
        &mut self,
        step: Step,
        direction: Direction,
        keep: impl FnOnce(&mut History, Step),
    ) -> Result<String, ReplayError> {
        let writes: Vec<_> = match direction {
            Direction::Back => step
                .changes
                .iter()
                .rev()
                .map(|c| (c.entity, c.component, c.before.clone()))
                .collect(),
            Direction::Forward => step
                .changes
                .iter()
                .map(|c| (c.entity, c.component, c.after.clone()))
                .collect(),
        };
        let written = match self.deleted_by_another_writer(&step, direction) {
            Some(entity) => Err(EditError::DeletedMeanwhile(entity)),
            None => self.write_all(writes),
        };
        if let Err(EditError::WouldCycleLive { .. }) = &written {
            // Nothing was written and the user may still choose to make the cycle: the step
            // stays where it was.
            match direction {
                Direction::Back => self.history.push_undo(step.clone()),
                Direction::Forward => self.history.push_redo(step.clone()),
            }
        }
        self.refresh();
        match written {
            Ok(_) => {
                // What the replay brought back is selected, as the user last saw it selected
                // (a deleted entity) or as the edit selected it (a created one).
                let revived = match direction {
                    Direction::Back => &step.reselect.on_undo,
                    Direction::Forward => &step.reselect.on_redo,
                };
                let view = &self.view;
                let replica = self.replica();
                let revived: Vec<Entity> = revived
                    .iter()
                    .copied()
                    .filter(|&e| view.contains(e) && replica.is_live(e))
                    .collect();
                if !revived.is_empty() {
                    self.selection.set(revived);
                }
                let label = step.label.clone();
                keep(&mut self.history, step);
                Ok(label)
            }
            Err(cause) => Err(ReplayError {
                label: step.label,
                direction: match direction {
                    Direction::Back => "undo",
                    Direction::Forward => "redo",
                },
                cause,
            }),
        }
    }

    /// An entity that `step`, replayed in `direction`, would write a value to although it is
    /// gone now while the step left it in the scene (the side being replayed away from holds a
    /// value for it): someone else deleted it since, and the replay would bring it back holding
    /// only this step's values (a name with no Transform, say). A step that itself deleted or
    /// created the entity brings it back or removes it as usual.
    fn deleted_by_another_writer(&self, step: &Step, direction: Direction) -> Option<Entity> {
        let replica = self.replica();
        step.changes.iter().find_map(|c| {
            let (left, written) = match direction {
                Direction::Back => (&c.after, &c.before),
                Direction::Forward => (&c.before, &c.after),
            };
            (left.is_some() && written.is_some() && !replica.is_live(c.entity)).then_some(c.entity)
        })
    }

    /// Brings the view up to date after the replica changed, and drops vanished entities from
    /// the selection.
    pub fn refresh(&mut self) {
        if let Backend::Peers { sim, .. } = &mut self.backend
            && let Simulation::Lesson(player) = sim.as_mut()
        {
            // An operation after a rewind may have replaced played steps' events.
            player.forget_replaced_steps();
        }
        if let Backend::Live(session) = &mut self.backend {
            // What the command wrote goes out now when the host can take it.
            session.flush();
        }
        let replica = self.backend.shown();
        self.view.update(replica);
        let view = &self.view;
        self.selection
            .retain(|e| view.contains(e) && replica.is_live(e));
        let saved = &mut self.saved;
        let lesson = matches!(&self.backend, Backend::Peers { sim, .. }
            if matches!(sim.as_ref(), Simulation::Lesson(_)));
        self.modified = if lesson {
            self.edited_in_lesson
        } else if let Some(unsaved) = self.backend.live_unsaved() {
            unsaved
        } else {
            !self.backend.replicas().all(|r| saved.holds(r))
        };
    }

    /// Writes register values; returns what changed. On a refused write, what was already
    /// written is reverted and the error returned, so a command is all or nothing.
    fn write_all(
        &mut self,
        writes: Vec<super::plan::Write>,
    ) -> Result<Vec<RegisterChange>, EditError> {
        if self.guard_live_cycles
            && let Some(members) = self.live_cycle_closed_by(&writes)
        {
            return Err(EditError::WouldCycleLive { members });
        }
        let mut changes: Vec<RegisterChange> = Vec::new();
        for (entity, component, value) in writes {
            let before = self
                .replica()
                .component_data(entity, component)
                .map(<[u8]>::to_vec);
            if before == value {
                continue;
            }
            match self.write_register(entity, component, value.clone()) {
                Ok(()) => changes.push(RegisterChange {
                    entity,
                    component,
                    before,
                    after: value,
                }),
                Err(err) => {
                    for c in changes.iter().rev() {
                        self.write_register(c.entity, c.component, c.before.clone())
                            .ok();
                    }
                    return Err(err);
                }
            }
        }
        Ok(changes)
    }

    /// One register write, authored by this document (the active peer when simulating).
    fn write_register(
        &mut self,
        entity: Entity,
        component: u32,
        value: Option<Vec<u8>>,
    ) -> Result<(), EditError> {
        match &mut self.backend {
            Backend::Solo(replica) => {
                let msg = match value {
                    Some(data) => Some(replica.put(entity, component, data)?),
                    None => replica.delete_component(entity, component),
                };
                self.outbox.extend(msg);
            }
            Backend::Peers { sim, active } => {
                sim.network_mut()
                    .write(*active, LocalWrite::register(entity, component, value))?;
            }
            Backend::Live(session) => session.write(entity, component, value)?,
        }
        Ok(())
    }
}
