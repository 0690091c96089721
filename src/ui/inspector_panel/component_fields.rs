//! The inspector's Components section: each component value as a tree of fields, decoded through the component's
//! codec (protobuf components, schema components, Transform). Most fields are read-only; the
//! ones people change in a scene editor are editable, each through an undoable
//! `SetComponent`: `core::VisibilityComponent` (visible, propagate to children),
//! `core::Material` colours (colour pickers), the `core::MeshRenderer` shape, the
//! `core::GltfContainer` model (any model file of the project). Names are renamed through
//! `Command::Rename`.

use std::path::Path;

use egui::RichText;
use serde_json::{Value, json};

use super::InspectorPanel;
use crate::ui::action::Action;
use scenetree_core::model::{Entity, ids};
use scenetree_dcl::codec::ProtoMessage;
use scenetree_dcl::{self as dcl, ComponentCodec, MATERIAL, MeshShape, VISIBILITY, js::stringify};
use scenetree_editor::{Command, Document};

/// The most list items and object members drawn per level (the rest is counted).
const MAX_SHOWN: usize = 40;
/// The most model files the GltfContainer's picker lists.
const MAX_MODELS: usize = 2000;

/// Draws `value` (the decoded JSON of `component` on `entity`) and its editors; pushes the
/// edits made this frame into `actions`.
/// `models` are the `src` of the project's model files, for the GltfContainer's picker.
pub fn fields_ui(
    ui: &mut egui::Ui,
    entity: Entity,
    component: u32,
    value: &Value,
    models: &[String],
    actions: &mut Vec<Action>,
) {
    match component {
        VISIBILITY => visibility_ui(ui, entity, value, actions),
        MATERIAL => material_colours_ui(ui, entity, value, actions),
        ids::MESH_RENDERER => shape_ui(ui, entity, value, actions),
        ids::GLTF_CONTAINER => model_ui(ui, entity, value, models, actions),
        _ => {}
    }
    tree_ui(ui, value, 0);
}

/// The GltfContainer's model, chosen among the project's model files (its collision layers
/// stay as they are).
fn model_ui(
    ui: &mut egui::Ui,
    entity: Entity,
    value: &Value,
    models: &[String],
    actions: &mut Vec<Action>,
) {
    let current = value["src"].as_str().unwrap_or_default().to_owned();
    let mut chosen = current.clone();
    // The path shows its end (the file), cut to the panel's width; the list shows it whole.
    let shown = chosen.rsplit('/').next().unwrap_or(&chosen).to_owned();
    // The label first, the list in the width left (the file name cut with "…" when narrow):
    // with the list first, a narrow inspector pushed the label past its edge ("mode", found
    // by hand at 1024×700).
    ui.horizontal(|ui| {
        ui.label("model");
        let around = 2.0 * ui.spacing().button_padding.x;
        let combo = egui::ComboBox::from_id_salt(("gltf-model", entity))
            .selected_text(shown)
            .width((ui.available_width() - around).max(24.0))
            .truncate()
            .show_ui(ui, |ui| {
                if models.is_empty() {
                    ui.weak("No .glb or .gltf files in the project");
                }
                for src in models {
                    ui.selectable_value(&mut chosen, src.clone(), src);
                }
            });
        // Named for screen readers (and the UI tests) as the label beside it names it.
        ui.ctx().accesskit_node_builder(combo.response.id, |node| {
            node.set_label("GltfContainer model");
        });
    });
    if chosen != current {
        let mut next = value.clone();
        next["src"] = chosen.into();
        actions.extend(set(entity, ids::GLTF_CONTAINER, &next).map(Action::Edit));
    }
}

/// Why a component's value is shown as bytes instead of fields.
#[derive(Debug, thiserror::Error)]
pub enum NotDecoded {
    /// No codec is known for the component.
    #[error("no known layout: shown as bytes")]
    NoLayout,
    /// The bytes do not decode with the component's codec (the field and the problem).
    #[error("not a valid value of this component: {0}")]
    Invalid(#[from] scenetree_dcl::js::FieldError),
}

/// The JSON a value reads as, through the codec that fits it; why not when none does or the
/// bytes do not decode.
pub fn decoded(codec: Option<&ComponentCodec>, data: &[u8]) -> Result<Value, NotDecoded> {
    Ok(codec.ok_or(NotDecoded::NoLayout)?.decode(data)?)
}

fn tree_ui(ui: &mut egui::Ui, value: &Value, depth: usize) {
    match value {
        Value::Object(obj) => {
            for (key, v) in obj.iter().take(MAX_SHOWN) {
                member_ui(ui, key, v, depth);
            }
            if obj.len() > MAX_SHOWN {
                ui.weak(format!("… {} more", obj.len() - MAX_SHOWN));
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate().take(MAX_SHOWN) {
                member_ui(ui, &format!("[{i}]"), v, depth);
            }
            if items.len() > MAX_SHOWN {
                ui.weak(format!("… {} more", items.len() - MAX_SHOWN));
            }
        }
        leaf => leaf_ui(ui, leaf),
    }
}

/// A value cut short with "…" at the panel's edge (a model's path is often longer than the
/// inspector is wide); egui shows a cut label whole on hover.
fn leaf_ui(ui: &mut egui::Ui, leaf: &Value) {
    ui.add(egui::Label::new(RichText::new(stringify(leaf)).monospace()).truncate());
}

fn member_ui(ui: &mut egui::Ui, key: &str, v: &Value, depth: usize) {
    match v {
        Value::Object(o) if !o.is_empty() => {
            let title = match o.get("$case").and_then(Value::as_str) {
                Some(case) => format!("{key}: {case}"),
                None => key.to_owned(),
            };
            egui::CollapsingHeader::new(title)
                .id_salt((key, depth, ui.next_auto_id()))
                .default_open(depth < 2)
                .show(ui, |ui| tree_ui(ui, v, depth + 1));
        }
        Value::Array(a) if !a.is_empty() => {
            egui::CollapsingHeader::new(format!("{key} ({} items)", a.len()))
                .id_salt((key, depth, ui.next_auto_id()))
                .default_open(depth < 1 && a.len() <= 8)
                .show(ui, |ui| tree_ui(ui, v, depth + 1));
        }
        leaf => {
            ui.horizontal(|ui| {
                ui.label(format!("{key}:"));
                leaf_ui(ui, leaf);
            });
        }
    }
}

fn set(entity: Entity, component: u32, json: &Value) -> Option<Command> {
    let bytes = ProtoMessage::of_component(component)?.encode(json).ok()?;
    Some(Command::SetComponent {
        entity,
        component,
        value: Some(bytes),
    })
}

fn visibility_ui(ui: &mut egui::Ui, entity: Entity, value: &Value, actions: &mut Vec<Action>) {
    let mut visible = value["visible"].as_bool().unwrap_or(true);
    let mut propagate = value["propagateToChildren"].as_bool().unwrap_or(false);
    let a = ui.checkbox(&mut visible, "visible");
    let b = ui.checkbox(&mut propagate, "propagate to children");
    if a.changed() || b.changed() {
        let mut next = value.clone();
        next["visible"] = visible.into();
        next["propagateToChildren"] = propagate.into();
        actions.extend(set(entity, VISIBILITY, &next).map(Action::Edit));
    }
}

/// The colour fields of a Material: (JSON key, has alpha, label).
const COLOURS: &[(&str, &str, bool, &str)] = &[
    ("pbr", "albedoColor", true, "albedo colour"),
    ("pbr", "emissiveColor", false, "emissive colour"),
    ("pbr", "reflectivityColor", false, "reflectivity colour"),
    ("unlit", "diffuseColor", true, "diffuse colour"),
];

fn material_colours_ui(
    ui: &mut egui::Ui,
    entity: Entity,
    value: &Value,
    actions: &mut Vec<Action>,
) {
    let Some(case) = value["material"]["$case"].as_str() else {
        return;
    };
    for &(kind, key, alpha, label) in COLOURS.iter().filter(|(k, ..)| *k == case) {
        let stored = &value["material"][kind][key];
        let get = |c: &str, default: f32| stored[c].as_f64().map_or(default, |x| x as f32);
        // Unset colours show the protocol's defaults (white, or black for emission).
        let default = if key == "emissiveColor" { 0.0 } else { 1.0 };
        let mut rgba = [
            get("r", default),
            get("g", default),
            get("b", default),
            get("a", 1.0),
        ];
        let changed = ui
            .horizontal(|ui| {
                let r = if alpha {
                    ui.color_edit_button_rgba_unmultiplied(&mut rgba)
                } else {
                    let mut rgb = [rgba[0], rgba[1], rgba[2]];
                    let r = ui.color_edit_button_rgb(&mut rgb);
                    rgba[..3].copy_from_slice(&rgb);
                    r
                };
                ui.label(label);
                r.changed()
            })
            .inner;
        if changed {
            let mut next = value.clone();
            let mut colour = json!({"r": rgba[0], "g": rgba[1], "b": rgba[2]});
            if alpha {
                colour["a"] = json!(rgba[3]);
            }
            next["material"][kind][key] = colour;
            // A colour drag is one undo step (the workbench ends it when the picker closes).
            let gesture = colour_gesture(entity, key);
            actions.extend(set(entity, MATERIAL, &next).map(|c| Action::EditCoalesced(c, gesture)));
        }
    }
}

/// The coalescing key of a colour picker gesture.
pub fn colour_gesture(entity: Entity, key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ("material colour", entity, key).hash(&mut h);
    h.finish()
}

fn shape_ui(ui: &mut egui::Ui, entity: Entity, value: &Value, actions: &mut Vec<Action>) {
    let current = value["mesh"]["$case"].as_str().unwrap_or("none").to_owned();
    let mut chosen = current.clone();
    egui::ComboBox::from_label("shape")
        .selected_text(&chosen)
        .show_ui(ui, |ui| {
            for kind in ["box", "sphere", "cylinder", "plane", "none"] {
                ui.selectable_value(&mut chosen, kind.to_owned(), kind);
            }
        });
    if chosen != current {
        let shape = match chosen.as_str() {
            "box" => MeshShape::Box { uvs: vec![] },
            "sphere" => MeshShape::Sphere,
            "cylinder" => MeshShape::Cylinder {
                radius_top: None,
                radius_bottom: None,
            },
            "plane" => MeshShape::Plane { uvs: vec![] },
            _ => MeshShape::Empty,
        };
        actions.push(Action::Edit(Command::SetComponent {
            entity,
            component: ids::MESH_RENDERER,
            value: Some(shape.encode()),
        }));
    }
}

impl InspectorPanel {
    /// Every component of the entity: a header with its name, size and timestamp, then its
    /// fields decoded (`component_fields`), the editable ones with their editors.
    pub(super) fn components_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<Action>,
    ) {
        let replica = doc.replica();
        let composite = doc.save_context.composite.as_ref();
        for component in replica.components_of(entity) {
            let Some(data) = replica.component_data(entity, component) else {
                let values = replica.grow_only_values(entity, component);
                ui.label(format!(
                    "{}  ·  {} appended values",
                    composite
                        .and_then(|c| c.name_of(component))
                        .map_or_else(|| dcl::display_component_name(component), str::to_owned),
                    values.len()
                ));
                continue;
            };
            let name = composite
                .and_then(|c| c.name_of(component))
                .map_or_else(|| dcl::display_component_name(component), str::to_owned);
            let ts = replica.timestamp(entity, component);
            let bytes = match data.len() {
                1 => "1 byte".to_owned(),
                n => format!("{n} bytes"),
            };
            egui::CollapsingHeader::new(format!("{name}  ·  {bytes}  ·  t={ts}"))
                .id_salt(("component", component))
                .default_open(component != ids::TRANSFORM)
                .show(ui, |ui| {
                    if component == ids::NAME {
                        self.name_ui(ui, doc, entity, actions);
                    }
                    let codec = composite
                        .and_then(|c| c.codec_of(component).cloned())
                        .or_else(|| ComponentCodec::known(component));
                    match decoded(codec.as_ref(), data) {
                        Ok(value) if component != ids::NAME => {
                            let models = match component {
                                ids::GLTF_CONTAINER => self.project_models(ui.ctx(), doc),
                                _ => &[],
                            };
                            fields_ui(ui, entity, component, &value, models, actions)
                        }
                        Ok(_) => {}
                        Err(why) => {
                            ui.weak(why.to_string());
                            ui.label(RichText::new(hex_preview(data)).monospace().small());
                        }
                    }
                    ui.label(RichText::new(format!("id {component}")).weak().small());
                });
        }
        // Values a main.composite holds that scenetree keeps as written without loading them.
        if let Some(composite) = composite {
            for (name, count) in composite.preserved_for(entity) {
                ui.label(RichText::new(format!("{name}  ·  kept from main.composite as written ({count})")).weak())
                    .on_hover_text("scenetree does not decode this component; it is saved back unchanged to main.composite");
            }
        }
    }

    /// The model files of the document's project (none without one), listed once per project
    /// and again whenever the window gets the focus back (files may have been added).
    fn project_models(&mut self, ctx: &egui::Context, doc: &Document) -> &[String] {
        let root = doc.project.as_ref().map(|p| p.root.as_path());
        // Compared by reference: this runs every frame the section is open.
        let stale = self.models_listed.as_ref().map(|(r, _)| r.as_deref()) != Some(root)
            || crate::ui::command::window_got_focus(ctx);
        if stale {
            let models =
                (doc.project.as_ref()).map_or_else(Vec::new, |p| p.model_files(MAX_MODELS));
            self.models_listed = Some((root.map(Path::to_path_buf), models));
        }
        self.models_listed.as_ref().map_or(&[], |(_, m)| m)
    }

    /// The entity's name as an editable field (Enter or leaving the field renames).
    fn name_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<Action>,
    ) {
        let stored = doc.name_of(entity).unwrap_or_default();
        let mut text = match &self.name_draft {
            Some((e, t)) if *e == entity => t.clone(),
            _ => stored.clone(),
        };
        let response = ui
            .horizontal(|ui| {
                ui.label("value:");
                ui.text_edit_singleline(&mut text)
            })
            .inner;
        if response.changed() {
            self.name_draft = Some((entity, text.clone()));
        }
        if response.lost_focus() {
            if text != stored {
                actions.push(Action::Edit(Command::Rename { entity, name: text }));
            }
            self.name_draft = None;
        }
    }

    /// Ends a Material colour drag once its picker is closed, so the next one is a new step.
    pub(super) fn end_colour_gesture(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let colour_edit = actions.iter().any(|a| {
            matches!(a, Action::EditCoalesced(Command::SetComponent { component, .. }, _)
                if *component == dcl::MATERIAL)
        });
        if colour_edit {
            self.colour_gesture_open = true;
        } else if self.colour_gesture_open && !egui::Popup::is_any_open(ctx) {
            self.colour_gesture_open = false;
            actions.push(Action::EndGesture);
        }
    }
}

fn hex_preview(data: &[u8]) -> String {
    const SHOWN: usize = 64;
    let mut out: String = data
        .iter()
        .take(SHOWN)
        .map(|b| format!("{b:02x} "))
        .collect();
    if data.len() > SHOWN {
        out.push_str(&format!("… ({} more)", data.len() - SHOWN));
    }
    out
}
