//! Whole-window flows where the system cannot show a file dialog (no XDG desktop portal, no
//! zenity): scenetree shows its own, says so once, and a request waiting for a save through it
//! goes on or is dropped with the save.

use std::path::{Path, PathBuf};

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use scenetree::ui::app::{Launch, ScenetreeApp};
use scenetree::ui::file_dialog::FilePick;
use scenetree_core::model::Entity;
use scenetree_dcl::io;
use scenetree_editor::Command;
use scenetree_viewport::NullRenderer;

/// What rfd does with no portal and no zenity: it logs on the asking thread, returns nothing.
fn no_system_dialog(_: &FilePick) -> Option<PathBuf> {
    log::error!(
        target: "rfd::backend::xdg_desktop_portal",
        "Failed to save file with zenity: No such file or directory (os error 2)"
    );
    None
}

/// The app on `dir/room.json` (so dialogs start in `dir`), with no system file dialog.
fn app_in(dir: &Path) -> Harness<'static, ScenetreeApp> {
    let room = dir.join("room.json");
    io::save_scene(&scenetree_core::examples::showroom(), &room).unwrap();
    let ctx = egui::Context::default();
    let mut app = ScenetreeApp::with_storage(
        &ctx,
        Launch {
            file: Some(room),
            ..Launch::default()
        },
        None,
        None,
    );
    app.set_native_file_picker(no_system_dialog);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, app: &mut ScenetreeApp| app.draw(ui, &mut NullRenderer::default()),
            app,
        );
    wait_until(&mut h, |h| !h.state().is_loading());
    h
}

/// Runs frames until `done` (the system dialog runs on a worker thread).
fn wait_until(
    h: &mut Harness<'static, ScenetreeApp>,
    done: impl Fn(&Harness<'static, ScenetreeApp>) -> bool,
) {
    for _ in 0..2000 {
        h.step();
        if done(h) {
            h.run_steps(4);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("never happened");
}

fn status(h: &Harness<'static, ScenetreeApp>) -> String {
    h.state()
        .workbench()
        .status
        .clone()
        .map(|(text, _)| text)
        .unwrap_or_default()
}

fn in_app_dialog_open(h: &Harness<'static, ScenetreeApp>) -> bool {
    h.query_by_label("Save the scene as").is_some()
}

/// Types `name` into the in-app dialog's file name field (which shows `shown`) and saves.
fn save_in_dialog_as(h: &mut Harness<'static, ScenetreeApp>, shown: &str, name: &str) {
    h.get(By::new().role(Role::TextInput).value(shown)).click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by(|n| n.is_focused()).type_text(name);
    h.run_steps(2);
    h.get_all_by_label("Save").last().unwrap().click();
    h.run_steps(4);
    super::app_flows::settle(h);
}

#[test]
fn save_as_without_a_system_dialog_uses_scenetrees_own_and_says_so_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = app_in(dir.path());
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    wait_until(&mut h, in_app_dialog_open);
    assert!(
        status(&h).contains("No system file dialog could be shown"),
        "said why: {}",
        status(&h)
    );
    save_in_dialog_as(&mut h, "room.json", "copy.json");
    let copy = dir.path().join("copy.json");
    assert!(!in_app_dialog_open(&h));
    assert!(copy.exists(), "saved through the in-app dialog");
    assert_eq!(super::app_flows::document_path(&h), Some(copy));
    // The next time it opens at once, without asking the system or saying it again.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.run_steps(2);
    assert!(in_app_dialog_open(&h));
    assert!(status(&h).starts_with("Saved"), "{}", status(&h));
    h.get_all_by_label("Cancel").last().unwrap().click();
    h.run_steps(4);
    assert!(!in_app_dialog_open(&h));
}

#[test]
fn new_waits_for_the_save_of_an_untitled_scene_through_a_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = app_in(dir.path());
    h.state_mut().new_scene();
    h.run();
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(Command::Create {
            parent: Entity::ROOT,
            name: "Unsaved".into(),
            components: Vec::new(),
        })
        .unwrap();
    h.run();
    for save in [false, true] {
        h.state_mut().new_scene();
        h.run();
        h.get_by_label("Save").click();
        // Untitled: Save asks where, and the New waits for the answer.
        wait_until(&mut h, in_app_dialog_open);
        if save {
            save_in_dialog_as(&mut h, "Untitled.json", "kept.json");
            assert!(dir.path().join("kept.json").exists());
            let doc = &h.state().workbench().doc;
            assert_eq!(doc.replica().live_entity_count(), 0, "then New went ahead");
            assert_eq!(doc.file, None);
        } else {
            h.get_all_by_label("Cancel").last().unwrap().click();
            h.run_steps(4);
            let doc = &h.state().workbench().doc;
            assert_eq!(doc.replica().live_entity_count(), 1, "no save, no New");
            assert!(doc.is_modified());
            assert_eq!(status(&h), "Not saved, so New did not happen");
        }
    }
}

#[test]
fn the_window_names_every_format_the_command_line_reads() {
    let permille = std::sync::atomic::AtomicU32::new(0);
    let err = scenetree::ui::files::load_document(Path::new("scene.txt"), &permille)
        .unwrap_err()
        .to_string();
    assert!(err.contains(".composite"), "{err}");
}
