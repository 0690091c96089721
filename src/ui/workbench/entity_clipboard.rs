//! Copy and Paste of entities, as the Decentraland Inspector has them: Copy remembers the
//! selected entities, Paste duplicates them (with their children, beside the originals, each
//! copy numbered as Duplicate numbers it) and selects the copies. What is pasted is the
//! entities as they are at the paste, not at the copy, as in the Inspector.

use super::Workbench;
use crate::ui::action::Action;
use crate::ui::action::Severity;
use crate::ui::command::UiCommand;
use scenetree_editor::Command;

impl Workbench {
    pub(super) fn copy_entities(&mut self) {
        let selected = self.doc.selection.entities().to_vec();
        if selected.is_empty() {
            return;
        }
        // On the system clipboard too, as names: the window sends Ctrl+V to the app only when
        // that clipboard holds text.
        let names: Vec<String> = selected
            .iter()
            .map(|&e| format!("{} ({})", self.doc.display_name(e), e.0))
            .collect();
        self.clipboard.text = Some(names.join("\n"));
        let what = match selected.as_slice() {
            [one] => self.doc.display_name(*one),
            many => format!("{} entities", many.len()),
        };
        self.status = Some((format!("Copied {what}"), Severity::Info));
        self.clipboard.entities = selected;
    }

    pub(super) fn paste_entities(&mut self) {
        if self.clipboard.entities.is_empty() {
            self.status = Some((
                format!("Copy entities first ({})", UiCommand::Copy.shortcut_text()),
                Severity::Info,
            ));
            return;
        }
        let replica = self.doc.replica();
        let existing: Vec<_> = self
            .clipboard
            .entities
            .iter()
            .copied()
            .filter(|&e| replica.is_live(e))
            .collect();
        if existing.is_empty() {
            self.status = Some((
                "Nothing to paste: the copied entities were deleted".into(),
                Severity::Info,
            ));
            return;
        }
        self.apply_actions(vec![Action::Edit(Command::Paste { entities: existing })]);
    }
}
