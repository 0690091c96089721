//! File dialogs: the system's (rfd, on a worker thread), and scenetree's own
//! (egui-file-dialog) when the system cannot show one.
//!
//! On Linux rfd asks the XDG desktop portal and falls back to zenity; with neither it returns
//! `None`, exactly as when the user cancels. rfd reports that failure only through the `log`
//! crate, so scenetree installs a small logger that notices rfd's errors about its last resort
//! (zenity) on the thread that asked, and the app then shows its own dialog instead.

use std::path::{Path, PathBuf};

use egui_file_dialog::{DialogState, FileDialog, OpeningMode};

use super::logging;

/// A file dialog to show: what for, and the file to suggest (its folder and name).
#[derive(Clone, Debug, PartialEq)]
pub struct FilePick {
    /// Why the dialog is shown (open, save as, export, save a run).
    pub purpose: DialogPurpose,
    /// The file to start from, if any.
    pub suggested: Option<PathBuf>,
}

/// Shows a system file dialog and blocks until it closes: the chosen path, or `None`.
pub type NativePicker = fn(&FilePick) -> Option<PathBuf>;

/// What a system dialog did.
#[derive(Clone, Debug, PartialEq)]
pub enum NativeOutcome {
    /// The user chose this file, or cancelled (`None`).
    Picked(Option<PathBuf>),
    /// No dialog could be shown at all.
    Unavailable,
}

/// Runs `picker` on the current thread and tells a cancel from a dialog that could not be
/// shown (rfd logged that its last resort failed).
pub fn pick_natively(picker: NativePicker, pick: &FilePick) -> NativeOutcome {
    logging::watch_for_dialog_failure();
    let picked = picker(pick);
    if picked.is_none() && logging::dialog_failed() {
        NativeOutcome::Unavailable
    } else {
        NativeOutcome::Picked(picked)
    }
}

/// The system dialog, through rfd.
pub fn rfd_picker(pick: &FilePick) -> Option<PathBuf> {
    let mut dialog = rfd::FileDialog::new();
    for &(name, extensions) in filters(pick.purpose) {
        dialog = dialog.add_filter(name, extensions);
    }
    if let Some(path) = &pick.suggested {
        if let Some(dir) = path.parent() {
            dialog = dialog.set_directory(dir);
        }
        if let Some(name) = path.file_name() {
            dialog = dialog.set_file_name(name.to_string_lossy());
        }
    }
    match pick.purpose {
        DialogPurpose::Open | DialogPurpose::AddModel => dialog.pick_file(),
        DialogPurpose::OpenProject => dialog
            .set_title("Open a Decentraland project folder")
            .pick_folder(),
        _ => dialog.save_file(),
    }
}

/// The file types offered for each purpose: (name, extensions), the default first.
fn filters(purpose: DialogPurpose) -> &'static [(&'static str, &'static [&'static str])] {
    match purpose {
        DialogPurpose::Open | DialogPurpose::SaveAs => &[
            (
                "Scenes (.json, .crdt, .composite)",
                &["json", "crdt", "composite"],
            ),
            ("scenetree scene (.json)", &["json"]),
            ("Decentraland main.crdt (.crdt)", &["crdt"]),
            ("Decentraland main.composite (.composite)", &["composite"]),
        ],
        DialogPurpose::ExportPeer(_) => &[("Decentraland main.crdt (.crdt)", &["crdt"])],
        DialogPurpose::OpenProject => &[], // a folder
        DialogPurpose::SaveRun | DialogPurpose::SaveRecording => {
            &[("scenetree scenario (.scenario.json)", &["json"])]
        }
        DialogPurpose::AddModel => &[("glTF models (.glb, .gltf)", &["glb", "gltf"])],
    }
}

/// scenetree's own file dialog (egui-file-dialog), shown in the window.
pub struct InAppDialog {
    dialog: FileDialog,
    purpose: DialogPurpose,
    /// Drawn at least once. The first frame is skipped: a dialog opened from a modal (the
    /// unsaved-changes prompt) would otherwise ask for the keyboard while that modal still
    /// holds it, and typing would go to the search box instead of the file name.
    started: bool,
}

impl InAppDialog {
    /// Opens it for `pick`, in the suggested file's folder (or `fallback_dir`).
    pub fn open(pick: &FilePick, fallback_dir: Option<&Path>) -> Self {
        let directory = pick
            .suggested
            .as_deref()
            .and_then(Path::parent)
            .filter(|d| d.is_dir())
            .or(fallback_dir)
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let file_name = pick
            .suggested
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| default_name(pick.purpose).to_string());
        let saving = !matches!(
            pick.purpose,
            DialogPurpose::Open | DialogPurpose::OpenProject | DialogPurpose::AddModel
        );
        let mut dialog = FileDialog::new()
            // A fresh id each time: egui then focuses the file name field as on the first
            // opening, instead of keeping the last dialog's focus (typing went to its search).
            .id(egui::Id::new(("in-app-file-dialog", next_dialog_number())))
            .title(title(pick.purpose))
            .opening_mode(OpeningMode::AlwaysInitialDir)
            .initial_directory(directory)
            .default_file_name(&file_name)
            .as_modal(true);
        for &(name, extensions) in filters(pick.purpose) {
            dialog = dialog.add_file_filter_extensions(name, extensions.to_vec());
            if saving && extensions.len() == 1 {
                dialog = dialog.add_save_extension(name, extensions[0]);
            }
        }
        if let Some(&(first, _)) = filters(pick.purpose).first() {
            dialog = dialog.default_file_filter(first);
        }
        let labels = dialog.labels_mut();
        labels.open_button = "Open".into();
        labels.save_button = "Save".into();
        labels.cancel_button = "Cancel".into();
        if pick.purpose == DialogPurpose::OpenProject {
            dialog.pick_directory();
        } else if saving {
            dialog.save_file();
        } else {
            dialog.pick_file();
        }
        InAppDialog {
            dialog,
            purpose: pick.purpose,
            started: false,
        }
    }

    /// What the dialog is for.
    pub fn purpose(&self) -> DialogPurpose {
        self.purpose
    }

    /// Draws it. Once it closes: `Some(path)` chosen, or `Some(None)` cancelled.
    pub fn update(&mut self, ctx: &egui::Context) -> Option<Option<PathBuf>> {
        if !std::mem::replace(&mut self.started, true) {
            ctx.request_repaint();
            return None;
        }
        self.dialog.update(ctx);
        match self.dialog.state() {
            DialogState::Open => None,
            DialogState::Picked(_) | DialogState::PickedMultiple(_) => {
                Some(self.dialog.take_picked())
            }
            DialogState::Closed | DialogState::Cancelled => Some(None),
        }
    }
}

fn next_dialog_number() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn title(purpose: DialogPurpose) -> &'static str {
    match purpose {
        DialogPurpose::Open => "Open a scene",
        DialogPurpose::OpenProject => "Open a Decentraland project folder",
        DialogPurpose::SaveAs => "Save the scene as",
        DialogPurpose::ExportPeer(_) => "Export the peer's state as main.crdt",
        DialogPurpose::SaveRun => "Save the run as a scenario",
        DialogPurpose::SaveRecording => "Save the session recording",
        DialogPurpose::AddModel => "Add a model of the project",
    }
}

fn default_name(purpose: DialogPurpose) -> &'static str {
    match purpose {
        DialogPurpose::Open | DialogPurpose::SaveAs => "Untitled.json",
        DialogPurpose::OpenProject => "",
        DialogPurpose::ExportPeer(_) => "main.crdt",
        DialogPurpose::SaveRun => "run.scenario.json",
        DialogPurpose::SaveRecording => "session.scenario.json",
        DialogPurpose::AddModel => "",
    }
}

/// Why a file dialog was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Pick a scene to open.
    Open,
    /// Pick a Decentraland project folder to open.
    OpenProject,
    /// Pick where to save the current scene.
    SaveAs,
    /// Pick where to save a simulated peer's state as main.crdt.
    ExportPeer(scenetree_core::crdt::network::PeerId),
    /// Pick where to save the peers run as a scenario file.
    SaveRun,
    /// Pick where to save a live session's recording (a scenario file).
    SaveRecording,
    /// Pick a glTF model of the project to add to the scene.
    AddModel,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick() -> FilePick {
        FilePick {
            purpose: DialogPurpose::SaveAs,
            suggested: None,
        }
    }

    #[test]
    fn a_dialog_rfd_could_not_show_is_told_from_a_cancel() {
        // What rfd does with no portal and no zenity: logs, on the asking thread, and returns
        // nothing.
        fn no_dialog(_: &FilePick) -> Option<PathBuf> {
            log::error!(
                target: "rfd::backend::xdg_desktop_portal",
                "Failed to save file with zenity: No such file or directory (os error 2)"
            );
            None
        }
        fn cancelled(_: &FilePick) -> Option<PathBuf> {
            None
        }
        fn chosen(_: &FilePick) -> Option<PathBuf> {
            Some("/tmp/a.json".into())
        }
        // Each on its own thread, as the app runs them, so the flags cannot mix.
        let run = |picker: NativePicker| {
            std::thread::Builder::new()
                .name("pick".into())
                .spawn(move || pick_natively(picker, &pick()))
                .unwrap()
                .join()
                .unwrap()
        };
        assert_eq!(run(no_dialog), NativeOutcome::Unavailable);
        assert_eq!(run(cancelled), NativeOutcome::Picked(None));
        assert_eq!(
            run(chosen),
            NativeOutcome::Picked(Some("/tmp/a.json".into()))
        );
    }
}
