//! Copy Transform and Paste Transform: the selected entity's local position, rotation and
//! scale, pasted onto every selected entity (each keeps its parent).

use super::Workbench;
use crate::ui::action::Action;
use crate::ui::action::Severity;
use crate::ui::command::UiCommand;
use scenetree_core::model::Transform;
use scenetree_editor::Command;

impl Workbench {
    pub(super) fn copy_transform(&mut self) {
        let Some(e) = self.doc.selection.primary() else {
            return;
        };
        let t = self.doc.local_transform(e);
        self.clipboard.transform = Some(t);
        // On the system clipboard too, as the native format writes a Transform (without the
        // parent): the window sends Ctrl+Shift+V to the app only when that clipboard holds
        // text, and the values can go elsewhere.
        self.clipboard.text = Some(scenetree_dcl::io::native::pose_json(&t).to_string());
        self.status = Some((
            format!("Copied the transform of {}", self.doc.display_name(e)),
            Severity::Info,
        ));
    }

    pub(super) fn paste_transform(&mut self) {
        let Some(copied) = self.clipboard.transform else {
            self.status = Some((
                format!(
                    "Copy a transform first ({})",
                    UiCommand::CopyTransform.shortcut_text()
                ),
                Severity::Info,
            ));
            return;
        };
        let items: Vec<_> = self
            .doc
            .selection
            .entities()
            .iter()
            .map(|&e| {
                let parent = self.doc.local_transform(e).parent;
                (e, Transform { parent, ..copied })
            })
            .collect();
        if !items.is_empty() {
            self.apply_actions(vec![Action::Edit(Command::SetTransforms(items))]);
        }
    }
}
