//! Edits and undos while live: what they did, for the status bar, and the one the cycle guard
//! held back (it would make a parenting cycle in the host's scene, on which web Inspectors
//! freeze), for the question the app asks and for carrying it out if the user chooses to.

use super::{Severity, Workbench};
use scenetree_core::model::Entity;
use scenetree_editor::{Applied, Command, EditError, ReplayError};

/// A write the live cycle guard held back.
#[derive(Clone, Debug)]
pub enum HeldWrite {
    /// An edit.
    Edit(Command),
    /// Undo of the last step.
    Undo,
    /// Redo of the last undone step.
    Redo,
}

/// A held write and the cycle it would make.
#[derive(Clone, Debug)]
pub struct HeldCycle {
    /// What was asked for.
    pub write: HeldWrite,
    /// The cycle's members, from the written entity along declared parents.
    pub members: Vec<Entity>,
}

impl Workbench {
    /// Reports an edit's outcome: its label, the entities it created selected and shown, or
    /// its refusal; a refusal of the live cycle guard holds `write` for the question.
    pub(super) fn edited(&mut self, applied: Result<Applied, EditError>, write: Option<HeldWrite>) {
        match applied {
            Ok(applied) => {
                // An edit that changed nothing (a field committed unchanged, a refused value)
                // says nothing: it made no step.
                self.status = applied.label.map(|label| (label, Severity::Info));
                if !applied.created.is_empty() {
                    self.doc.selection.set(applied.created.iter().copied());
                    for &e in &applied.created {
                        self.hierarchy.reveal(&self.doc, e);
                    }
                }
            }
            Err(EditError::WouldCycleLive { members }) if write.is_some() => {
                self.held_cycle = write.map(|write| HeldCycle { write, members });
            }
            Err(err) => self.status = Some((err.to_string(), Severity::Error)),
        }
    }

    /// Undo or redo (`write`), guarded.
    pub(super) fn replay(&mut self, write: HeldWrite) {
        let replayed = match write {
            HeldWrite::Undo => self.doc.undo(),
            _ => self.doc.redo(),
        };
        self.replayed(replayed, write);
    }

    /// Reports an undo's or redo's outcome; a refusal of the live cycle guard holds it.
    fn replayed(&mut self, replayed: Result<Option<String>, ReplayError>, write: HeldWrite) {
        let before = self.doc.selection.generation();
        let (done, nothing) = match write {
            HeldWrite::Undo => ("Undid", "Nothing to undo"),
            _ => ("Redid", "Nothing to redo"),
        };
        self.status = match replayed {
            Ok(Some(label)) => Some((format!("{done} {label}"), Severity::Info)),
            Ok(None) => Some((nothing.into(), Severity::Info)),
            Err(ReplayError {
                cause: EditError::WouldCycleLive { members },
                ..
            }) => {
                self.held_cycle = Some(HeldCycle { write, members });
                None
            }
            Err(err) => Some((err.to_string(), Severity::Error)),
        };
        // An undone delete (a redone create) selects what came back: show its rows.
        if self.doc.selection.generation() != before {
            for e in self.doc.selection.entities().to_vec() {
                self.hierarchy.reveal(&self.doc, e);
            }
        }
    }

    /// The question about the held write: its heading and text.
    pub fn held_cycle_question(&self) -> Option<(String, String)> {
        let held = self.held_cycle.as_ref()?;
        let what = match &held.write {
            HeldWrite::Edit(_) => "This edit",
            HeldWrite::Undo => "This undo",
            HeldWrite::Redo => "This redo",
        };
        let ring = self.doc.cycle_ring(&held.members);
        Some((
            "Make a parenting cycle?".to_owned(),
            format!(
                "{what} would make a parenting cycle in the live scene: {ring}, since another \
                 editor changed the tree meanwhile. scenetree and the runtime draw its members \
                 at the root, but the Decentraland web Inspector freezes on a cycle: any of its \
                 tabs on this session hangs until closed."
            ),
        ))
    }

    /// Carries out the held write, cycle and all (the user chose to).
    pub fn make_held_cycle(&mut self) {
        let Some(held) = self.held_cycle.take() else {
            return;
        };
        match held.write {
            HeldWrite::Edit(command) => {
                let applied = self.doc.apply_making_cycle(command);
                self.edited(applied, None);
            }
            HeldWrite::Undo => {
                let replayed = self.doc.undo_making_cycle();
                self.replayed(replayed, HeldWrite::Undo);
            }
            HeldWrite::Redo => {
                let replayed = self.doc.redo_making_cycle();
                self.replayed(replayed, HeldWrite::Redo);
            }
        }
    }

    /// Drops the held write: nothing is written, the step stays to undo later.
    pub fn drop_held_cycle(&mut self) {
        if self.held_cycle.take().is_some() {
            self.status = Some(("Cancelled: no cycle made".into(), Severity::Info));
        }
    }
}
