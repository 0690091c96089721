//! The inspector's model and project sections: what became of an entity's glTF model (drawn,
//! loading, or why not), and which Decentraland project the scene belongs to.

use egui::RichText;

use crate::ui::viewport_tab::ModelState;
use scenetree_editor::Document;

use crate::ui::style::WARNING;

/// The "Model" section for an entity with a GltfContainer.
pub(super) fn model_ui(ui: &mut egui::Ui, doc: &Document, state: &ModelState) {
    let shown = |path: &std::path::Path| {
        doc.project
            .as_ref()
            .and_then(|p| path.strip_prefix(&p.root).ok())
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let placeholder = "It is drawn as a placeholder box.";
    match state {
        ModelState::Loaded { path, stats } => {
            ui.label(shown(path));
            ui.label(
                RichText::new(format!(
                    "{} · {} · {}",
                    count(stats.triangles, "triangle"),
                    count(stats.parts, "part"),
                    count(stats.textures, "texture")
                ))
                .weak(),
            );
        }
        ModelState::Loading { path } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("Loading {}…", shown(path)));
            });
        }
        ModelState::Failed { path, reason } => {
            ui.colored_label(
                WARNING,
                format!("△ {} could not be loaded: {reason}", shown(path)),
            );
            ui.label(RichText::new(placeholder).weak());
        }
        ModelState::BadPath { src, reason } => {
            ui.colored_label(WARNING, format!("△ Model \"{src}\": {reason}"));
            ui.label(RichText::new(placeholder).weak());
        }
        ModelState::Undecodable => {
            ui.colored_label(
                WARNING,
                "△ The GltfContainer value does not decode, so no model is known.",
            );
            ui.label(RichText::new(placeholder).weak());
        }
    }
}

/// The project line of the scene summary.
pub(super) fn project_ui(ui: &mut egui::Ui, doc: &Document) {
    let Some(project) = &doc.project else {
        return;
    };
    ui.label(RichText::new(project.display_name()).strong().size(15.0));
    ui.label(
        RichText::new(format!(
            "Decentraland project · {}{}",
            project.root.display(),
            if doc.saves_as_project {
                " · saving writes main.composite, main.crdt and entity-names.ts"
            } else {
                ""
            }
        ))
        .weak()
        .small(),
    );
}

/// "1 part", "3 parts".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
