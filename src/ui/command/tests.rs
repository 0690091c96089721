//! The command table's own rules: one meaning per key at a time, docs/editor.md's shortcut
//! table in step, Escape's order.

use super::*;

#[test]
fn every_command_is_in_the_table_once_and_every_key_means_one_thing_at_a_time() {
    let all = UiCommand::all();
    for (i, a) in all.iter().enumerate() {
        assert!(!all[i + 1..].contains(a), "{a:?} twice");
    }
    for view in [ViewDirection::Front, ViewDirection::Bottom] {
        assert!(
            all.contains(&UiCommand::LookAlong(view)),
            "{view:?} missing"
        );
    }
    // Two commands on one key must never apply together.
    let contexts = (0..64u8).map(|bits| CommandContext {
        typing: bits & 1 != 0,
        modal: bits & 2 != 0,
        gizmo_dragging: bits & 4 != 0,
        has_selection: bits & 8 != 0,
        can_undo: bits & 16 != 0,
        can_redo: bits & 32 != 0,
        popup_open: false,
        has_file: true,
        has_project: true,
        can_paste: true,
        can_paste_transform: true,
        can_move_to_root: true,
        can_step_back: true,
        can_step_forward: true,
    });
    for c in contexts {
        for &a in all {
            for &b in all {
                let shared = a.shortcuts().iter().any(|s| b.shortcuts().contains(s));
                assert!(
                    a == b || !shared || !(a.applies(&c) && b.applies(&c)),
                    "{a:?} and {b:?} share a key and both apply in {c:?}"
                );
            }
        }
    }
}

#[test]
fn the_editor_guide_lists_exactly_the_table() {
    let guide = include_str!("../../../docs/editor.md");
    let table = shortcut_table_markdown();
    assert!(
        guide.contains(&format!("## Keyboard shortcuts\n\n{table}")),
        "docs/editor.md's shortcut table is out of date; it should read:\n\n{table}"
    );
}

#[test]
fn escape_cancels_a_drag_before_it_clears_the_selection() {
    let dragging = CommandContext {
        gizmo_dragging: true,
        has_selection: true,
        ..CommandContext::default()
    };
    assert!(UiCommand::CancelGizmoDrag.applies(&dragging));
    assert!(!UiCommand::ClearSelection.applies(&dragging));
    let idle = CommandContext {
        has_selection: true,
        ..CommandContext::default()
    };
    assert!(!UiCommand::CancelGizmoDrag.applies(&idle));
    assert!(UiCommand::ClearSelection.applies(&idle));
    let typing = CommandContext {
        typing: true,
        ..idle
    };
    assert!(
        !UiCommand::ClearSelection.applies(&typing),
        "a text field keeps Escape"
    );
    assert!(UiCommand::Save.applies(&typing));
}
