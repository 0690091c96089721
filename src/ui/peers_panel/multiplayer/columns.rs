//! One column per player: its name, address, network id and ticks run, the hazards it showed
//! so far, and what its renderer holds as a tree in the player's own numbers, each synced
//! entity with its network identity and its hazards as badges (hover one for its cause).

use rustc_hash::FxHashMap;

use egui::RichText;

use super::super::columns::side_by_side;
use super::super::tree_source::below_root;
use crate::ui::style;
use crate::ui::tree_row::{Expander, ROW_HEIGHT, RowBadge, TreeRow};
use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::net::hazard::Hazard;
use scenetree_core::net::network_id_from_address;
use scenetree_core::net::run::{NetRun, RunState};
use scenetree_core::scene::SceneView;
use scenetree_editor::SiblingOrder;

/// The narrowest a player's column gets; more players than fit scroll sideways.
const MIN_COLUMN_WIDTH: f32 = 240.0;
/// Hazard lines listed under a column's header before the rest go to a tooltip.
const LISTED_HAZARDS: usize = 4;

/// What one player's column shows, read from the run at the timeline's position.
pub struct PlayerColumn {
    /// The player's name ("A", or its short address).
    pub name: String,
    /// Its address.
    pub address: String,
    /// Its ticks run so far.
    pub ticks: u32,
    /// How many entities its renderer holds a Transform of (the rows also show parents it
    /// was told of but holds nothing of).
    pub held: usize,
    /// Its renderer's tree.
    view: SceneView,
    /// The rows: (entity, depth below the root), in tree order.
    pub rows: Vec<(Entity, u32)>,
    /// Each synced entity's network identity as people read it (`0xaaaa…aaaa:513`).
    pub identities: FxHashMap<Entity, String>,
    /// Each row's tooltip: where the entity is and, when synced, its network identity in full.
    notes: FxHashMap<Entity, String>,
    /// The hazards it showed up to the timeline's position, with the tick's label.
    pub hazards: Vec<(String, Hazard)>,
}

impl PlayerColumn {
    /// Player `player`'s column in `state` (the run after its cursor's steps).
    pub fn read(run: &NetRun, state: &RunState, player: usize) -> PlayerColumn {
        let replica = state.scenes[player].replica();
        let view = SceneView::from_source(&replica);
        // By id, a cycle's members first at the root (as every other column lists them).
        let rows = below_root(SiblingOrder::default().preorder(&view));
        let mut identities = FxHashMap::default();
        let mut notes = FxHashMap::default();
        let name = run.player_name(player);
        for &(entity, _) in &rows {
            let scene = &state.scenes[player];
            let mut note = format!("Entity {entity} in {name}'s renderer (its own numbering)");
            if let Some(t) = scene
                .value(entity, ids::TRANSFORM)
                .and_then(|bytes| Transform::from_bytes(bytes).ok())
            {
                let [x, y, z] = t.position.to_array();
                note.push_str(&format!(", at ({x}, {y}, {z}) under {}", t.parent));
            }
            note.push('.');
            if let Some(identity) = state.identity(player, entity) {
                identities.insert(entity, run.identity_label(identity));
                let owner = run.owner_of(identity.network_id).map_or_else(
                    || "a player not in this run".to_string(),
                    |address| address.to_string(),
                );
                note.push_str(&if identity.network_id == 0 {
                    format!(
                        "\nSynced with the fixed id {} (networkId 0).",
                        identity.entity_id
                    )
                } else {
                    format!(
                        "\nNetwork identity: networkId {} ({owner}), entityId {}.",
                        identity.network_id, identity.entity_id
                    )
                });
            }
            notes.insert(entity, note);
        }
        let hazards = (run.hazards_until_cursor())
            .filter(|(step, _)| run.script()[*step].player == player)
            .map(|(step, h)| (run.tick_label(step), h.hazard.clone()))
            .collect();
        let address = run.players()[player].address.clone();
        PlayerColumn {
            name,
            ticks: state.players[player].ticks(),
            held: state.scenes[player].tree().len(),
            address,
            view,
            rows,
            identities,
            notes,
            hazards,
        }
    }

    /// The text of an entity's row: `512 · 0xaaaa…aaaa:513`, or `512` when not synced.
    pub fn row_text(&self, entity: Entity) -> String {
        match self.identities.get(&entity) {
            Some(identity) => format!("{entity}  ·  {identity}"),
            None => entity.to_string(),
        }
    }
}

/// Every player's column, side by side.
pub(super) fn columns_ui(ui: &mut egui::Ui, columns: &[PlayerColumn]) {
    side_by_side(
        ui,
        "mp-columns",
        columns.len(),
        (MIN_COLUMN_WIDTH, 8.0),
        |ui, i, _size| column_ui(ui, &columns[i], i),
    );
}

fn column_ui(ui: &mut egui::Ui, column: &PlayerColumn, index: usize) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(&column.name).strong());
        ui.weak(scenetree_core::net::short_address(&column.address))
            .on_hover_text(format!(
                "{}\nnetworkId {}",
                column.address,
                network_id_from_address(&column.address)
            ));
    });
    ui.weak(format!(
        "{} tick(s) run · its renderer holds {} entit{}",
        column.ticks,
        column.held,
        if column.held == 1 { "y" } else { "ies" }
    ));
    hazard_lines_ui(ui, column);
    ui.separator();
    if column.rows.is_empty() {
        ui.weak("Its renderer holds nothing yet.");
        return;
    }
    let name = |e: Entity| e.to_string();
    egui::ScrollArea::vertical()
        .id_salt(("mp-column", index))
        .auto_shrink([false, false])
        .show_rows(ui, ROW_HEIGHT, column.rows.len(), |ui, range| {
            for &(entity, depth) in &column.rows[range] {
                let row = TreeRow {
                    entity,
                    depth,
                    name: column.row_text(entity),
                    named: false,
                    implicit: column.view.is_implicit(entity),
                    expander: Expander::Leaf,
                    selected: false,
                    dimmed: false,
                    highlight: "",
                    badge: RowBadge::of(&column.view, entity, name),
                };
                let shown = row.show(ui, None, |ui| {
                    // The last glyph of a right-aligned badge reaches past its label's rect:
                    // at the column's edge the clip cut it ("parent_not_removec").
                    ui.add_space(4.0);
                    for (tick, hazard) in column.hazards.iter().filter(|(_, h)| h.entity == entity)
                    {
                        hazard_badge(ui, hazard, tick);
                    }
                });
                // Beside the row's own tooltip: where the entity is, and its network identity.
                if let Some(note) = column.notes.get(&entity) {
                    shown.label.on_hover_text(note);
                }
            }
        });
}

/// The hazards the player showed so far, a line each (the last few; the rest in a tooltip).
fn hazard_lines_ui(ui: &mut egui::Ui, column: &PlayerColumn) {
    if column.hazards.is_empty() {
        ui.weak("No hazard so far.");
        return;
    }
    let skipped = column.hazards.len().saturating_sub(LISTED_HAZARDS);
    for (tick, hazard) in &column.hazards[skipped..] {
        ui.horizontal(|ui| {
            hazard_badge(ui, hazard, tick);
            ui.weak(format!("on {} · {tick}", hazard.entity));
        });
    }
    if skipped > 0 {
        let all: Vec<String> = (column.hazards.iter())
            .map(|(tick, h)| format!("{tick}: {} on {}", h.kind, h.entity))
            .collect();
        ui.weak(format!("… and {skipped} earlier"))
            .on_hover_text(all.join("\n"));
    }
}

/// A hazard's badge: its kind in the warning colour; hovering says the cause in one sentence.
pub(super) fn hazard_badge(ui: &mut egui::Ui, hazard: &Hazard, tick: &str) -> egui::Response {
    ui.label(
        RichText::new(format!("⚠ {}", hazard.kind))
            .color(style::WARNING)
            .small(),
    )
    .on_hover_text(format!("{} ({tick})", hazard.cause))
}
