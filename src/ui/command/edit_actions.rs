//! The actions the editing commands ask for: one table for the menu bar, the keyboard and
//! the hierarchy's row menu.

use super::UiCommand;
use crate::ui::action::{Action, SelectAction};
use scenetree_core::model::Entity;
use scenetree_editor::Command;

/// The action an editing command asks for, the one table the menu bar, the keyboard and the
/// hierarchy's row menu share: `primary` is the entity it is about (the selection's primary,
/// or the row whose menu it is), `targets` the entities it acts on (the selection, or that
/// row). `None` for a command that is not an edit of entities (it belongs to the app, the
/// tree's keys or the viewport), or that has nothing to act on.
pub fn action_for(
    command: UiCommand,
    primary: Option<Entity>,
    targets: &[Entity],
) -> Option<Action> {
    use UiCommand as C;
    let create_under = |parent: Entity| {
        Action::Edit(Command::Create {
            parent,
            name: "Entity".into(),
            components: vec![],
        })
    };
    Some(match command {
        C::Undo => Action::Undo,
        C::Redo => Action::Redo,
        C::CreateEntity => create_under(Entity::ROOT),
        C::CreateChild => create_under(primary?),
        C::Duplicate => Action::Edit(Command::Duplicate {
            entities: targets.to_vec(),
        }),
        C::Delete => Action::Edit(Command::Delete {
            entities: targets.to_vec(),
        }),
        C::MoveToRoot => Action::Edit(Command::Reparent {
            entities: targets.to_vec(),
            parent: Entity::ROOT,
            keep_world: true,
        }),
        C::Rename => Action::BeginRename(primary?),
        C::Copy => Action::CopyEntities,
        C::Paste => Action::PasteEntities,
        C::CopyTransform => Action::CopyTransform,
        C::PasteTransform => Action::PasteTransform,
        C::ClearSelection => Action::Select(SelectAction::Clear),
        C::FrameSelection => Action::FrameSelection,
        C::New
        | C::Open
        | C::OpenProject
        | C::Save
        | C::SaveAs
        | C::Reload
        | C::Quit
        | C::AddModel
        | C::SelectAll
        | C::Find
        | C::CancelGizmoDrag
        | C::SelectPrevious
        | C::SelectNext
        | C::ExtendSelectionUp
        | C::ExtendSelectionDown
        | C::CollapseOrSelectParent
        | C::ExpandOrSelectChild
        | C::LookAlong(_)
        | C::GizmoTranslate
        | C::GizmoRotate
        | C::GizmoScale
        | C::ToggleGizmoAxes
        | C::ToggleGizmoPivot
        | C::EditorWorkspace
        | C::PeersWorkspace
        | C::TimelineBack
        | C::TimelineForward
        | C::ResetLayout
        | C::ShowShortcuts => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_menu_bar_and_the_row_menu_share_one_table() {
        let (row, other) = (Entity(520), Entity(530));
        let targets = [row, other];
        let action = |c| action_for(c, Some(row), &targets);
        assert_eq!(action(UiCommand::Rename), Some(Action::BeginRename(row)));
        assert_eq!(
            action(UiCommand::CreateChild),
            Some(Action::Edit(Command::Create {
                parent: row,
                name: "Entity".into(),
                components: vec![],
            }))
        );
        assert_eq!(
            action(UiCommand::Delete),
            Some(Action::Edit(Command::Delete {
                entities: targets.to_vec()
            }))
        );
        assert_eq!(action(UiCommand::Copy), Some(Action::CopyEntities));
        assert_eq!(
            action(UiCommand::PasteTransform),
            Some(Action::PasteTransform)
        );
        // Not an edit of entities: another part of the app answers it.
        assert_eq!(action(UiCommand::Save), None);
        assert_eq!(action(UiCommand::SelectNext), None);
        // Nothing to act on.
        assert_eq!(action_for(UiCommand::Rename, None, &[]), None);
    }
}
