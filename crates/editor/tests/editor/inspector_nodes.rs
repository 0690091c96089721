//! `inspector::Nodes` after scenetree's edits equals what the Decentraland Inspector's own
//! rules make of the same edits (`oracle/inspector-nodes.cjs`, run on @dcl/ecs), and hide /
//! lock are the Inspector's components.

use crate::dcl;
use crate::dcl::node;

use std::path::Path;

use scenetree_core::model::Entity;
use scenetree_dcl::io;
use scenetree_dcl::js::stringify;
use scenetree_dcl::nodes::{Nodes, hide_id, lock_id, nodes_id};
use scenetree_dcl::schema::Schema;
use scenetree_editor::{Command, Document};
use serde_json::{Value, json};

fn nodes_json(doc: &Document) -> String {
    let (_, schema) = scenetree_dcl::nodes::inspector_json_schema(nodes_id()).unwrap();
    let bytes = doc
        .replica()
        .component_data(Entity::ROOT, nodes_id())
        .unwrap();
    let value = Schema::from_json_schema(&schema)
        .unwrap()
        .decode(bytes)
        .unwrap();
    stringify(&value["value"])
}

/// Two scene entities with Transforms, neither below the other.
fn pick(doc: &Document) -> (Entity, Entity) {
    let r = doc.replica();
    let mut with_transform: Vec<Entity> = r
        .live_entities()
        .filter(|&e| !e.is_reserved() && r.transform(e).is_some())
        .collect();
    with_transform.sort_unstable();
    let parent = with_transform[0];
    let leaf = *with_transform
        .iter()
        .find(|&&e| e != parent && !doc.is_drawn_below(e, parent) && !doc.is_drawn_below(parent, e))
        .unwrap();
    (parent, leaf)
}

/// Creates a named entity under `parent` and returns it.
fn create(doc: &mut Document, parent: Entity, name: &str) -> Entity {
    doc.apply(Command::Create {
        parent,
        name: name.into(),
        components: vec![],
    })
    .unwrap()
    .created[0]
}

#[test]
fn edits_leave_inspector_nodes_as_the_inspectors_own_rules_would() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs().iter().take(2) {
        let opened = io::open_scene(&pair.composite).unwrap();
        let mut doc = Document::new(opened.replica, None);
        assert!(
            doc.inspector_nodes().is_some(),
            "{}: the template has Nodes",
            pair.label
        );
        let (parent, leaf) = pick(&doc);
        let mut ops = Vec::new();
        let created = create(&mut doc, Entity::ROOT, "A");
        ops.push(json!({"op": "create", "parent": 0, "entity": created.0}));
        let child = create(&mut doc, parent, "B");
        ops.push(json!({"op": "create", "parent": parent.0, "entity": child.0}));
        let grandchild = create(&mut doc, child, "C");
        ops.push(json!({"op": "create", "parent": child.0, "entity": grandchild.0}));
        for (entity, to) in [(leaf, parent), (created, parent), (created, child)] {
            doc.apply(Command::Reparent {
                entities: vec![entity],
                parent: to,
                keep_world: true,
            })
            .unwrap();
            ops.push(json!({"op": "reparent", "entity": entity.0, "parent": to.0}));
        }
        // Drops between rows: within one parent (first), then to another parent.
        for (entity, to, after) in [(leaf, parent, None), (child, Entity::ROOT, Some(parent))] {
            doc.apply(Command::Reorder {
                entities: vec![entity],
                parent: to,
                after,
                keep_world: true,
            })
            .unwrap();
            ops.push(json!({"op": "reorder", "entity": entity.0, "parent": to.0,
                "after": after.map(|a| a.0)}));
        }
        assert_eq!(doc.inspector_nodes().unwrap().children_of(parent)[0], leaf);
        let copies = doc
            .apply(Command::Duplicate {
                entities: vec![parent],
            })
            .unwrap()
            .copies;
        let map: serde_json::Map<String, Value> = copies
            .iter()
            .map(|(o, c)| (o.0.to_string(), Value::from(c.0)))
            .collect();
        ops.push(json!({"op": "duplicate", "entity": parent.0, "copies": map}));
        doc.apply(Command::Delete {
            entities: vec![leaf],
        })
        .unwrap();
        ops.push(json!({"op": "delete", "entity": leaf.0}));
        doc.apply(Command::Delete {
            entities: vec![created],
        })
        .unwrap();
        ops.push(json!({"op": "delete", "entity": created.0}));

        let ops_path = dir.path().join("ops.json");
        std::fs::write(&ops_path, Value::Array(ops).to_string()).unwrap();
        let theirs =
            String::from_utf8(node("inspector-nodes.cjs", &[&pair.composite, &ops_path])).unwrap();
        assert_eq!(nodes_json(&doc), theirs, "{}", pair.label);
        // Undo restores the Nodes value with everything else.
        let before = io::open_scene(&pair.composite).unwrap().replica;
        for _ in 0..11 {
            doc.undo().unwrap();
        }
        assert_eq!(
            doc.replica().component_data(Entity::ROOT, nodes_id()),
            before.component_data(Entity::ROOT, nodes_id())
        );
    }
}

#[test]
fn a_scene_without_nodes_gets_none_and_hide_lock_are_inspector_components() {
    let mut doc = Document::new(scenetree_core::crdt::Replica::new(), None);
    let a = create(&mut doc, Entity::ROOT, "A");
    let b = create(&mut doc, a, "B");
    assert!(doc.inspector_nodes().is_none(), "no Nodes invented");
    // Hide applies to the subtree, lock to the entity only, as in the Inspector.
    doc.apply(Command::SetHidden {
        entities: vec![a],
        hidden: true,
    })
    .unwrap();
    assert_eq!(doc.replica().component_data(a, hide_id()), Some(&[1u8][..]));
    assert!(doc.is_hidden(b));
    doc.apply(Command::SetLocked {
        entities: vec![a],
        locked: true,
    })
    .unwrap();
    assert!(doc.is_locked(a) && !doc.is_locked(b));
    doc.undo().unwrap();
    assert!(!doc.is_locked(a));
    doc.apply(Command::SetHidden {
        entities: vec![a],
        hidden: false,
    })
    .unwrap();
    assert!(!doc.is_hidden(a) && !doc.is_hidden(b));
    assert_eq!(doc.replica().component_data(b, lock_id()), None);
    // A drop between rows needs an order to store: the scene gets the Nodes value the
    // Inspector builds when it opens a scene without one, with the move; undo removes it all.
    let c = create(&mut doc, Entity::ROOT, "C");
    let reorder = |entities: Vec<Entity>, parent: Entity, after: Option<Entity>| Command::Reorder {
        entities,
        parent,
        after,
        keep_world: true,
    };
    doc.apply(reorder(vec![c], Entity::ROOT, None)).unwrap();
    let nodes = doc.inspector_nodes().expect("Nodes created for the order");
    assert_eq!(nodes.children_of(Entity::ROOT), [c, a]);
    assert_eq!(nodes.children_of(a), [b]);
    assert_eq!(nodes.nodes[0].open, Some(true));
    doc.undo().unwrap();
    assert!(doc.inspector_nodes().is_none(), "one undo step removes it");
    // Refused: under its own child, and a reserved entity.
    assert!(matches!(
        doc.apply(reorder(vec![a], b, None)),
        Err(scenetree_editor::EditError::WouldCycle { .. })
    ));
    assert!(matches!(
        doc.apply(reorder(vec![Entity(2)], Entity::ROOT, None)),
        Err(scenetree_editor::EditError::Reserved(_))
    ));
    // A drop where the entity already is changes nothing and leaves no undo step.
    doc.apply(reorder(vec![c], Entity::ROOT, None)).unwrap();
    let steps = doc.history().undo_len();
    doc.apply(reorder(vec![c], Entity::ROOT, None)).unwrap();
    assert_eq!(doc.history().undo_len(), steps);
    // A Nodes value decodes through the Inspector's schema.
    assert!(Nodes::decode(&[0, 0, 0, 0]).unwrap().nodes.is_empty());
    let _ = Path::new("");
}

#[test]
fn the_repair_writes_what_the_inspectors_rebuild_builds_on_every_test_scene() {
    let dir = tempfile::tempdir().unwrap();
    let ops = dir.path().join("ops.json");
    std::fs::write(&ops, json!([{"op": "rebuild"}]).to_string()).unwrap();
    for pair in dcl::pairs() {
        let opened = io::open_scene(&pair.composite).unwrap();
        let mut doc = Document::new(opened.replica, None);
        // As the app opens it: the composite's layout gives the Inspector engine's order.
        doc.save_context = opened.context;
        let rebuilt = doc.inspector_tree_rebuilt().encode();
        doc.apply(Command::SetComponent {
            entity: Entity::ROOT,
            component: nodes_id(),
            value: Some(rebuilt),
        })
        .unwrap();
        let theirs =
            String::from_utf8(node("inspector-nodes.cjs", &[&pair.composite, &ops])).unwrap();
        assert_eq!(nodes_json(&doc), theirs, "{}", pair.label);
        assert!(doc.inspector_tree_mismatches().is_empty(), "{}", pair.label);
    }
}

#[test]
fn two_structural_edits_at_once_leave_nodes_misplacing_one_until_the_repair() {
    use scenetree_core::crdt::network::{DeliveryOrder, MessageFilter, PeerId};
    let pair = &dcl::pairs()[1];
    let mut doc = Document::new(io::open_scene(&pair.composite).unwrap().replica, None);
    assert!(doc.inspector_tree_mismatches().is_empty());
    assert!(doc.rebuild_inspector_tree().is_none(), "nothing to repair");
    doc.start_simulation(2, 1).unwrap();
    let reparent = |entity: u32, parent: u32| Command::Reparent {
        entities: vec![Entity(entity)],
        parent: Entity(parent),
        keep_world: true,
    };
    doc.apply(reparent(512, 513)).unwrap();
    doc.set_active_peer(PeerId(2)).unwrap();
    doc.apply(reparent(520, 521)).unwrap();
    doc.with_network(|n| n.deliver_all(DeliveryOrder::Send, MessageFilter::default()));
    // Both Transforms arrived everywhere; one Nodes value won.
    let r = doc.replica();
    assert_eq!(r.transform(Entity(512)).unwrap().parent, Entity(513));
    assert_eq!(r.transform(Entity(520)).unwrap().parent, Entity(521));
    let found = doc.inspector_tree_mismatches();
    assert_eq!(found.len(), 1, "{:?}", found.list);
    let misplaced = found.list[0];
    assert!([Entity(512), Entity(520)].contains(&misplaced.entity));
    assert_eq!(misplaced.in_nodes, Some(Entity::ROOT));
    assert!(
        doc.inspector_tree_summary()
            .unwrap()
            .starts_with("≠ 1 entity")
    );
    // One undoable step repairs it.
    let repair = doc.rebuild_inspector_tree().expect("a repair");
    doc.apply(repair).unwrap();
    assert!(doc.inspector_tree_mismatches().is_empty());
    doc.undo().unwrap();
    assert_eq!(doc.inspector_tree_mismatches().len(), 1);
}

/// The art gallery project: a real Inspector-made scene with a tree of several levels.
fn art_gallery() -> Document {
    let path = dcl::repo_root()
        .join("tests/fixtures/dcl-projects/art-gallery-template/assets/scene/main.composite");
    Document::new(io::open_scene(&path).unwrap().replica, None)
}

/// Sets `entity`'s Transform parent as another peer's raw write would: `inspector::Nodes` is
/// not told.
fn raw_parent(doc: &mut Document, entity: Entity, parent: Entity) {
    let mut t = doc.replica().transform(entity).unwrap();
    t.parent = parent;
    doc.apply(Command::SetComponent {
        entity,
        component: scenetree_core::model::ids::TRANSFORM,
        value: Some(t.to_bytes().to_vec()),
    })
    .unwrap();
}

fn misplaced(doc: &Document) -> Vec<Entity> {
    (doc.inspector_tree_mismatches().list.iter())
        .map(|m| m.entity)
        .collect()
}

#[test]
fn the_repair_moves_only_what_is_off_a_cycle_and_the_rest_after_the_cycle_is_broken() {
    let mut doc = art_gallery();
    let (elevator, image, nft, shelf) = (Entity(512), Entity(513), Entity(520), Entity(521));
    raw_parent(&mut doc, nft, shelf);
    raw_parent(&mut doc, elevator, image);
    raw_parent(&mut doc, image, elevator);
    // On the cycle both are drawn at the root, where Nodes has them; the NFT is misplaced and
    // is the only one the repair moves (the cycle's members have nowhere to go yet).
    assert_eq!(misplaced(&doc), [nft]);
    let repair = doc.inspector_tree_repair().expect("a repair");
    assert_eq!(
        repair.moves.iter().map(|m| m.entity).collect::<Vec<_>>(),
        [nft]
    );
    doc.apply(repair.command).unwrap();
    assert!(misplaced(&doc).is_empty());
    raw_parent(&mut doc, elevator, Entity::ROOT);
    assert_eq!(misplaced(&doc), [image]);
    let cause = doc.inspector_tree_mismatches().list[0].cause;
    assert_eq!(cause, scenetree_editor::MisplacedCause::OtherParent);
    let repair = doc.rebuild_inspector_tree().expect("a repair");
    doc.apply(repair).unwrap();
    assert!(misplaced(&doc).is_empty());
}

#[test]
fn the_repair_changes_only_the_misplaced_entitys_place_in_nodes() {
    let mut doc = art_gallery();
    let before = doc.inspector_nodes().unwrap();
    let (nft, shelf) = (Entity(520), Entity(521));
    raw_parent(&mut doc, nft, shelf);
    let repair = doc.inspector_tree_repair().expect("a repair");
    let old_parent = before.parent_of(nft);
    assert_eq!(
        repair.moves,
        [scenetree_editor::NodesMove {
            entity: nft,
            from: Some(old_parent),
            to: shelf
        }]
    );
    doc.apply(repair.command).unwrap();
    let after = doc.inspector_nodes().unwrap();
    // The diff: the NFT left its old list and is last in the shelf's; nothing else changed
    // (no list reordered, no node added or dropped, every open flag as it was).
    let mut expected = before.clone();
    for node in &mut expected.nodes {
        node.children.retain(|&c| c != nft);
    }
    match expected.nodes.iter_mut().find(|n| n.entity == shelf) {
        Some(node) => node.children.push(nft),
        None => expected.nodes.push(scenetree_dcl::nodes::Node {
            entity: shelf,
            open: None,
            children: vec![nft],
        }),
    }
    assert_eq!(after, expected);
    assert!(
        before.nodes.iter().any(|n| n.open.is_some()),
        "flags to keep"
    );
    doc.undo().unwrap();
    assert_eq!(doc.inspector_nodes().unwrap(), before, "one undo step");
}

#[test]
fn the_official_templates_have_no_misplaced_entities_and_their_leftovers_apart() {
    let root = dcl::repo_root();
    let mut scenes: Vec<std::path::PathBuf> =
        dcl::pairs().into_iter().map(|p| p.composite).collect();
    scenes.push(root.join("scenes/Cozy-House-Template/assets/scene/main.composite"));
    scenes.push(
        root.join("tests/fixtures/dcl-projects/art-gallery-template/assets/scene/main.composite"),
    );
    for path in &scenes {
        let doc = Document::new(io::open_scene(path).unwrap().replica, None);
        let found = doc.inspector_tree_mismatches();
        assert!(found.is_empty(), "{}: {:?}", path.display(), found.list);
        assert!(doc.inspector_tree_summary().is_none(), "{}", path.display());
    }
    // The Cozy House holds two: one with only inspector::TransformConfig, one with an
    // Animator too. Neither the Inspector nor the count shows them; they can go at once.
    let cozy = root.join("scenes/Cozy-House-Template/assets/scene/main.composite");
    let mut doc = Document::new(io::open_scene(&cozy).unwrap().replica, None);
    let leftovers = doc.inspector_tree_mismatches().leftovers.clone();
    assert_eq!(leftovers, [Entity(512), Entity(540)]);
    let all = doc.replica().live_entity_count() - 1;
    assert_eq!(
        doc.scene_entity_count(),
        all - 2,
        "leftovers are counted apart"
    );
    let note = doc.leftover_note(Entity(540));
    assert!(note.contains("inspector::TransformConfig"), "{note}");
    let remove = doc.remove_leftovers().expect("a removal");
    doc.apply(remove).unwrap();
    assert!(doc.inspector_tree_mismatches().leftovers.is_empty());
    assert!(!doc.replica().is_live(Entity(540)));
    assert!(doc.remove_leftovers().is_none());
    doc.undo().unwrap();
    assert_eq!(doc.inspector_tree_mismatches().leftovers, leftovers);
}

#[test]
fn the_mismatch_note_says_the_cause_the_entity_shows() {
    let mut doc = art_gallery();
    let (nft, shelf) = (Entity(520), Entity(521));
    raw_parent(&mut doc, nft, shelf);
    let name = |e: Entity| doc.display_name(e);
    let m = *doc.inspector_tree_mismatches().get(nft).unwrap();
    let note = m.describe(name);
    assert!(
        note.contains(&format!("names {} as its parent", name(shelf))),
        "{note}"
    );
    assert!(!note.contains("at once"), "no guess at history: {note}");
    // Out of every list: the Inspector shows it nowhere.
    let mut nodes = doc.inspector_nodes().unwrap();
    for node in &mut nodes.nodes {
        node.children.retain(|&c| c != nft);
    }
    doc.apply(Command::SetComponent {
        entity: Entity::ROOT,
        component: nodes_id(),
        value: Some(nodes.encode()),
    })
    .unwrap();
    let m = *doc.inspector_tree_mismatches().get(nft).unwrap();
    assert_eq!(m.cause, scenetree_editor::MisplacedCause::NotListed);
    assert!(
        m.describe(|e| doc.display_name(e))
            .contains("does not show it")
    );
    let repair = doc.inspector_tree_repair().unwrap();
    assert_eq!(repair.moves[0].from, None);
}

#[test]
fn an_entity_created_in_an_inspector_scene_gets_the_inspectors_transform_config() {
    let root = dcl::repo_root();
    let cozy = root.join("scenes/Cozy-House-Template/assets/scene/main.composite");
    let mut doc = Document::new(io::open_scene(&cozy).unwrap().replica, None);
    let config = scenetree_dcl::nodes::transform_config_id();
    // What the Inspector itself stored for one of its entities.
    let theirs = doc
        .replica()
        .component_data(Entity(513), config)
        .unwrap()
        .to_vec();
    let created = create(&mut doc, Entity::ROOT, "Made here");
    assert_eq!(
        doc.replica().component_data(created, config),
        Some(&theirs[..])
    );
    // A scene without the Inspector's tree is not the Inspector's: nothing is added.
    let mut plain = Document::default();
    let created = create(&mut plain, Entity::ROOT, "Plain");
    assert!(plain.replica().component_data(created, config).is_none());
}
