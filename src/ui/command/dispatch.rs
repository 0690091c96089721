//! Reading the keyboard once per frame into commands (see the table in `mod.rs`).

use egui::{Key, KeyboardShortcut, Modifiers};

use super::{CommandContext, UiCommand};

/// The commands the keyboard gave this frame, in the order of their keys. Keys are consumed
/// only by a command that applies, so anything else (a text field, a popup) still gets them.
/// Combinations with more modifiers are read first: Ctrl+Shift+Z is not also Ctrl+Z.
pub fn dispatch(ctx: &egui::Context, context: &CommandContext) -> Vec<UiCommand> {
    // The modifiers held at the end of each frame, for the next one (every frame, so that
    // they are never stale).
    let held_id = egui::Id::new("scenetree.command.modifiers_at_frame_end");
    let held_before = ctx.data(|d| d.get_temp::<Modifiers>(held_id));
    let held_now = ctx.input(|i| i.modifiers);
    ctx.data_mut(|d| d.insert_temp(held_id, held_now));
    if context.popup_open {
        return Vec::new();
    }
    let mut bindings: Vec<(UiCommand, KeyboardShortcut)> = UiCommand::all()
        .iter()
        .flat_map(|&c| c.shortcuts().iter().map(move |&s| (c, s)))
        .collect();
    let modifier_count = |m: Modifiers| {
        [m.alt, m.shift, m.command || m.ctrl]
            .iter()
            .filter(|&&b| b)
            .count()
    };
    bindings.sort_by_key(|(_, s)| std::cmp::Reverse(modifier_count(s.modifiers)));
    ctx.input_mut(|input| {
        restore_clipboard_shortcuts(input, held_before, context);
        bindings
            .into_iter()
            .filter(|(command, shortcut)| {
                command.applies(context) && input.consume_shortcut(shortcut)
            })
            .map(|(command, _)| command)
            .collect()
    })
}

/// egui's window integration (egui-winit) turns Ctrl+C, Ctrl+X and Ctrl+V into clipboard events
/// and sends no key for them, whatever other modifiers are held, and a paste event only when
/// the system clipboard holds text. So Ctrl+Shift+C and Ctrl+Shift+V, which copy and paste a
/// transform, never arrived as keys in the window (found by hand: both did nothing there, while
/// the tests, which send keys, passed), nor would Ctrl+C and Ctrl+V for entities. This turns
/// such an event back into its key when the command it means applies (not while typing: a
/// text field keeps its clipboard). Both copies put text on the system clipboard, so that
/// the paste event comes. `held_before` are the modifiers held at the end of the previous frame; the
/// frame's own modifier changes are followed event by event.
fn restore_clipboard_shortcuts(
    input: &mut egui::InputState,
    held_before: Option<Modifiers>,
    context: &CommandContext,
) {
    let mut held = held_before.unwrap_or(input.modifiers);
    for event in &mut input.events {
        let (command, key) = match event {
            egui::Event::ModifiersChanged(now) => {
                held = *now;
                continue;
            }
            egui::Event::Copy if held.shift => (UiCommand::CopyTransform, Key::C),
            egui::Event::Paste(_) if held.shift => (UiCommand::PasteTransform, Key::V),
            egui::Event::Copy => (UiCommand::Copy, Key::C),
            egui::Event::Paste(_) => (UiCommand::Paste, Key::V),
            _ => continue,
        };
        if held.command && command.applies(context) {
            *event = egui::Event::Key {
                key,
                physical_key: None,
                pressed: true,
                repeat: false,
                modifiers: held,
            };
        }
    }
}
