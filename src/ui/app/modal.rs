//! The app's modal prompts, one concern each: the answer a request waits for about unsaved
//! changes, a problem to report (with what it offers instead), work a crashed editor left.
//! They queue: the oldest is shown, and a new one of the same kind replaces the one waiting
//! (a second error replaces the first, as a second request replaces the first).

use std::path::PathBuf;

use scenetree_dcl::io::recovery::OrphanedWork;

use super::requests::Pending;
use crate::ui::files::Salvage;

/// A problem the user is told about.
pub(super) struct Problem {
    /// What happened, and what was or was not changed.
    pub message: String,
    /// A scene file the folder that failed to open holds (it is not a project): offered.
    pub open_offer: Option<PathBuf>,
    /// The readable start of the damaged main.crdt the problem is about, offered instead.
    pub salvage: Option<Box<Salvage>>,
}

impl Problem {
    /// A problem that offers nothing.
    pub fn plain(message: impl Into<String>) -> Problem {
        Problem {
            message: message.into(),
            open_offer: None,
            salvage: None,
        }
    }
}

/// Work a crashed editor left, offered at start.
pub(super) struct RecoveryOffer {
    /// The newest; the others wait for a later start.
    pub work: OrphanedWork,
    /// How many others wait.
    pub more: usize,
}

/// One modal prompt.
pub(super) enum Modal {
    /// A request that replaces the document or closes the window waits for an answer about
    /// the unsaved changes (Reload asks whether to drop them).
    Unsaved(Pending),
    /// Something failed.
    Problem(Problem),
    /// Unsaved work from a session that did not end cleanly.
    Recovery(RecoveryOffer),
}

impl Modal {
    fn kind(&self) -> u8 {
        match self {
            Modal::Unsaved(_) => 0,
            Modal::Problem(_) => 1,
            Modal::Recovery(_) => 2,
        }
    }
}

/// The prompts waiting, oldest first; the first is shown.
#[derive(Default)]
pub(super) struct Modals(Vec<Modal>);

impl Modals {
    /// Shows `modal` once those before it are answered; one waiting of the same kind is
    /// replaced in its place.
    pub fn show(&mut self, modal: Modal) {
        match self.0.iter_mut().find(|m| m.kind() == modal.kind()) {
            Some(waiting) => *waiting = modal,
            None => self.0.push(modal),
        }
    }

    /// Asks about the unsaved changes before `what` is carried out.
    pub fn ask_about_unsaved(&mut self, what: Pending) {
        self.show(Modal::Unsaved(what));
    }

    /// Reports a problem that offers nothing.
    pub fn problem(&mut self, message: impl Into<String>) {
        self.show(Modal::Problem(Problem::plain(message)));
    }

    /// The prompt shown now.
    pub fn front(&self) -> Option<&Modal> {
        self.0.first()
    }

    /// Takes the prompt shown now (it was answered).
    pub fn answered(&mut self) -> Option<Modal> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }

    /// True while any prompt waits.
    pub fn any(&self) -> bool {
        !self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_prompt_shows_and_a_newer_one_of_its_kind_replaces_the_waiting_one() {
        let mut modals = Modals::default();
        assert!(!modals.any());
        modals.show(Modal::Unsaved(Pending::New));
        modals.problem("first");
        modals.problem("second");
        modals.show(Modal::Unsaved(Pending::Quit));
        assert!(matches!(
            modals.front(),
            Some(Modal::Unsaved(Pending::Quit))
        ));
        assert!(matches!(modals.answered(), Some(Modal::Unsaved(_))));
        match modals.front() {
            Some(Modal::Problem(p)) => assert_eq!(p.message, "second"),
            _ => panic!("the problem is next"),
        }
        assert!(modals.answered().is_some());
        assert!(!modals.any());
    }
}
