//! The editor layer: every command, its validation, undo/redo as CRDT writes.

use glam::{Quat, Vec3};
use scenetree_core::crdt::network::NetworkError;
use scenetree_core::crdt::{PeerId, Replica, WriteError};
use scenetree_core::model::{Entity, Transform, TransformDecodeError, encode_name, ids};
use scenetree_editor::{Command, Document, EditError, LiveSaveError};

const TABLE: Entity = Entity(512);
const LAMP: Entity = Entity(513);
const BULB: Entity = Entity(514);
const CHAIR: Entity = Entity(515);

/// Table (rotated, scaled) > Lamp > Bulb, and a Chair at the root.
fn room() -> Document {
    let mut r = Replica::new();
    let table = Transform {
        position: Vec3::new(2.0, 0.0, 1.0),
        rotation: Quat::from_rotation_y(0.5),
        scale: Vec3::splat(2.0),
        parent: Entity::ROOT,
    };
    r.put_transform(TABLE, &table).unwrap();
    r.put(TABLE, ids::NAME, encode_name("Table")).unwrap();
    r.put_transform(
        LAMP,
        &Transform {
            position: Vec3::new(0.0, 1.0, 0.0),
            parent: TABLE,
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    r.put(LAMP, ids::NAME, encode_name("Lamp")).unwrap();
    r.put_transform(
        BULB,
        &Transform {
            position: Vec3::new(0.0, 0.2, 0.0),
            parent: LAMP,
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    r.put(BULB, 1018, vec![0x0a, 0x00]).unwrap();
    r.put_transform(
        CHAIR,
        &Transform {
            position: Vec3::new(-3.0, 0.0, 0.0),
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    Document::new(r, None)
}

fn world(doc: &Document, e: Entity) -> glam::Affine3A {
    doc.view().world_affine(e).unwrap()
}

#[test]
fn reparent_keeps_the_world_pose_by_default_and_undo_restores_it() {
    let mut doc = room();
    let before = world(&doc, LAMP);
    doc.apply(Command::Reparent {
        entities: vec![LAMP],
        parent: CHAIR,
        keep_world: true,
    })
    .unwrap();
    assert_eq!(doc.view().effective_parent_of(LAMP), Some(CHAIR));
    assert!(
        world(&doc, LAMP).abs_diff_eq(before, 1e-4),
        "the lamp did not move in the world"
    );
    assert!(
        world(&doc, BULB)
            .translation
            .distance(before.transform_point3(Vec3::new(0.0, 0.2, 0.0)).into())
            < 1e-4
    );
    assert_eq!(doc.undo().unwrap().as_deref(), Some("Reparent Lamp"));
    assert_eq!(doc.view().effective_parent_of(LAMP), Some(TABLE));
    assert_eq!(doc.local_transform(LAMP).position, Vec3::new(0.0, 1.0, 0.0));
    doc.redo().unwrap();
    assert_eq!(doc.view().effective_parent_of(LAMP), Some(CHAIR));
}

#[test]
fn reparent_keeping_local_values_moves_with_the_new_parent() {
    let mut doc = room();
    doc.apply(Command::Reparent {
        entities: vec![LAMP],
        parent: CHAIR,
        keep_world: false,
    })
    .unwrap();
    assert_eq!(doc.local_transform(LAMP).position, Vec3::new(0.0, 1.0, 0.0));
    assert!(
        world(&doc, LAMP)
            .translation
            .abs_diff_eq(Vec3::new(-3.0, 1.0, 0.0).into(), 1e-5)
    );
}

#[test]
fn a_drop_under_its_own_descendant_is_refused_and_writes_nothing() {
    let mut doc = room();
    let digest = doc.replica().digest();
    let err = doc
        .apply(Command::Reparent {
            entities: vec![TABLE],
            parent: BULB,
            keep_world: true,
        })
        .unwrap_err();
    assert_eq!(
        err,
        EditError::WouldCycle {
            entity: TABLE,
            parent: BULB
        }
    );
    assert_eq!(
        doc.apply(Command::Reparent {
            entities: vec![LAMP],
            parent: LAMP,
            keep_world: true
        })
        .unwrap_err(),
        EditError::WouldCycle {
            entity: LAMP,
            parent: LAMP
        }
    );
    assert_eq!(doc.replica().digest(), digest);
    assert_eq!(doc.history().undo_len(), 0);
}

#[test]
fn dragging_a_parent_with_its_child_moves_only_the_parent() {
    let mut doc = room();
    doc.apply(Command::Reparent {
        entities: vec![LAMP, BULB],
        parent: CHAIR,
        keep_world: true,
    })
    .unwrap();
    assert_eq!(doc.view().effective_parent_of(BULB), Some(LAMP));
}

#[test]
fn delete_removes_the_subtree_and_undo_restores_it_exactly() {
    let mut doc = room();
    let digest_before = doc
        .replica()
        .state_messages()
        .into_iter()
        .filter(|m| m.component() != Some(1))
        .count();
    doc.apply(Command::Delete {
        entities: vec![LAMP],
    })
    .unwrap();
    assert!(!doc.view().contains(LAMP) && !doc.view().contains(BULB));
    assert!(doc.view().contains(TABLE));
    doc.undo().unwrap();
    assert_eq!(doc.view().effective_parent_of(BULB), Some(LAMP));
    assert_eq!(doc.name_of(LAMP).as_deref(), Some("Lamp"));
    assert_eq!(
        doc.replica().component_data(BULB, 1018),
        Some(&[0x0a, 0x00][..])
    );
    assert_eq!(
        doc.replica()
            .state_messages()
            .into_iter()
            .filter(|m| m.component() != Some(1))
            .count(),
        digest_before
    );
}

#[test]
fn duplicate_copies_the_subtree_with_new_ids_and_remapped_parents() {
    let mut doc = room();
    let applied = doc
        .apply(Command::Duplicate {
            entities: vec![LAMP],
        })
        .unwrap();
    let copy = applied.created[0];
    assert!(![TABLE, LAMP, BULB, CHAIR].contains(&copy));
    assert_eq!(
        doc.view().effective_parent_of(copy),
        Some(TABLE),
        "next to the original"
    );
    assert_eq!(
        doc.name_of(copy).as_deref(),
        Some("Lamp_2"),
        "numbered as the Inspector numbers copies"
    );
    let kids: Vec<Entity> = doc.view().children_of(copy).collect();
    assert_eq!(kids.len(), 1);
    assert_ne!(kids[0], BULB);
    assert_eq!(
        doc.replica().component_data(kids[0], 1018),
        Some(&[0x0a, 0x00][..])
    );
    assert!(world(&doc, kids[0]).abs_diff_eq(world(&doc, BULB), 1e-5));
    doc.undo().unwrap();
    assert!(!doc.view().contains(copy));
}

#[test]
fn create_and_rename_are_undoable_writes_that_peers_receive() {
    let mut doc = room();
    doc.take_outbox();
    let created = doc
        .apply(Command::Create {
            parent: TABLE,
            name: "Vase".into(),
            components: vec![],
        })
        .unwrap()
        .created[0];
    assert_eq!(doc.view().effective_parent_of(created), Some(TABLE));
    doc.apply(Command::Rename {
        entity: created,
        name: "Big vase".into(),
    })
    .unwrap();
    assert_eq!(doc.display_name(created), "Big vase");
    let sent = doc.take_outbox();
    assert_eq!(sent.len(), 3, "Transform + Name, then the rename: {sent:?}");
    doc.undo().unwrap();
    assert_eq!(doc.display_name(created), "Vase");
    let undo_msgs = doc.take_outbox();
    assert_eq!(undo_msgs.len(), 1);
    assert_eq!(
        undo_msgs[0].timestamp(),
        Some(3),
        "an undo is a newer write"
    );
}

#[test]
fn new_entities_and_copies_are_numbered_as_the_inspector_numbers_them() {
    let mut doc = room();
    let create = |doc: &mut Document| {
        let applied = doc
            .apply(Command::Create {
                parent: Entity::ROOT,
                name: "Entity".into(),
                components: vec![],
            })
            .unwrap();
        (doc.name_of(applied.created[0]).unwrap(), applied.label)
    };
    assert_eq!(create(&mut doc).0, "Entity");
    let (second, label) = create(&mut doc);
    assert_eq!(second, "Entity_2");
    assert_eq!(
        label.as_deref(),
        Some("Create Entity_2"),
        "the step names it"
    );
    assert_eq!(create(&mut doc).0, "Entity_3");
    doc.undo().unwrap();
    assert_eq!(
        create(&mut doc).0,
        "Entity_3",
        "an undone entity frees its name"
    );

    // A copy of "Lamp" is "Lamp_2"; its child keeps its own name.
    let lamp_2 = doc
        .apply(Command::Duplicate {
            entities: vec![LAMP],
        })
        .unwrap()
        .created[0];
    assert_eq!(doc.name_of(lamp_2).as_deref(), Some("Lamp_2"));
    let copied_bulb = doc.view().children_of(lamp_2).next().unwrap();
    doc.apply(Command::Rename {
        entity: copied_bulb,
        name: "Bulb".into(),
    })
    .unwrap();
    // Two copies made in one step do not share a name; a copy's children keep theirs.
    let applied = doc
        .apply(Command::Duplicate {
            entities: vec![LAMP, lamp_2],
        })
        .unwrap();
    let names: Vec<String> = applied
        .created
        .iter()
        .map(|&e| doc.name_of(e).unwrap())
        .collect();
    assert_eq!(names, ["Lamp_3", "Lamp_4"]);
    let copied_again = doc.view().children_of(applied.created[1]).next().unwrap();
    assert_eq!(doc.name_of(copied_again).as_deref(), Some("Bulb"));
}

#[test]
fn invalid_transforms_are_refused_with_a_reason() {
    let mut doc = room();
    let mut t = doc.local_transform(CHAIR);
    t.position.x = f32::NAN;
    assert_eq!(
        doc.apply(Command::SetTransforms(vec![(CHAIR, t)]))
            .unwrap_err(),
        EditError::NotFinite {
            entity: CHAIR,
            field: "position"
        }
    );
    let mut t = doc.local_transform(CHAIR);
    t.rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(
        doc.apply(Command::SetTransforms(vec![(CHAIR, t)]))
            .unwrap_err(),
        EditError::ZeroRotation { entity: CHAIR }
    );
    assert!(
        doc.apply(Command::Rename {
            entity: Entity::ROOT,
            name: "x".into()
        })
        .is_err()
    );
}

#[test]
fn a_transform_of_the_wrong_length_is_refused_as_malformed() {
    let mut doc = room();
    let err = doc
        .apply(Command::SetComponent {
            entity: CHAIR,
            component: ids::TRANSFORM,
            value: Some(vec![0; 43]),
        })
        .unwrap_err();
    assert_eq!(
        err,
        EditError::MalformedTransform {
            entity: CHAIR,
            source: TransformDecodeError::WrongLength {
                expected: 44,
                found: 43
            }
        }
    );
    assert!(err.to_string().contains("44 bytes, found 43"), "{err}");
}

#[test]
fn a_write_the_peers_simulation_refuses_says_which_peer_and_why() {
    // A put of a grow-only component (appended, never put): the replica refuses it.
    const GROW_ONLY: u32 = 1063;
    let mut doc = room();
    doc.start_simulation(2, 1).unwrap();
    let err = doc
        .apply(Command::SetComponent {
            entity: CHAIR,
            component: GROW_ONLY,
            value: Some(vec![1]),
        })
        .unwrap_err();
    assert_eq!(
        err,
        EditError::Peers(NetworkError::Write {
            peer: PeerId(1),
            source: WriteError::WrongKind(GROW_ONLY),
        })
    );
    assert_eq!(
        err.to_string(),
        "the peers simulation refused the write: peer 1 cannot write: component 1063 does not \
         take this kind of write"
    );
    // Not live: nothing to ask to save.
    assert_eq!(doc.save_live(), Err(LiveSaveError::NotLive));
}

#[test]
fn the_engines_reserved_entities_are_not_moved_renamed_duplicated_or_deleted() {
    let mut r = Replica::new();
    for e in [Entity::PLAYER, Entity::CAMERA, Entity(300), TABLE] {
        r.put_transform(e, &Transform::IDENTITY).unwrap();
    }
    let mut doc = Document::new(r, None);
    let moved = Transform {
        position: Vec3::X,
        ..Transform::IDENTITY
    };
    for e in [Entity::ROOT, Entity::PLAYER, Entity::CAMERA, Entity(300)] {
        let refusals = [
            doc.apply(Command::SetTransforms(vec![(e, moved)])),
            doc.apply(Command::Reparent {
                entities: vec![e],
                parent: TABLE,
                keep_world: true,
            }),
            doc.apply(Command::Rename {
                entity: e,
                name: "x".into(),
            }),
            doc.apply(Command::Duplicate { entities: vec![e] }),
            doc.apply(Command::Delete { entities: vec![e] }),
            doc.apply(Command::SetComponent {
                entity: e,
                component: ids::TRANSFORM,
                value: Some(moved.to_bytes().to_vec()),
            }),
        ];
        for refusal in refusals {
            assert_eq!(refusal, Err(EditError::Reserved(e)));
        }
    }
    assert!(doc.history().undo_label().is_none(), "nothing was written");
    // Nor deleted or copied along with a scene entity they hang below.
    let mut r = Replica::new();
    r.put_transform(TABLE, &Transform::IDENTITY).unwrap();
    r.put_transform(Entity::CAMERA, &Transform::identity_under(TABLE))
        .unwrap();
    let mut doc = Document::new(r, None);
    for command in [
        Command::Delete {
            entities: vec![TABLE],
        },
        Command::Duplicate {
            entities: vec![TABLE],
        },
    ] {
        assert_eq!(doc.apply(command), Err(EditError::Reserved(Entity::CAMERA)));
    }
    // What scenes do with them stays possible: components on the camera, children of the player.
    let main_camera = scenetree_dcl::component_id("core::MainCamera").unwrap();
    doc.apply(Command::SetComponent {
        entity: Entity::CAMERA,
        component: main_camera,
        value: Some(vec![]),
    })
    .unwrap();
    doc.apply(Command::Reparent {
        entities: vec![TABLE],
        parent: Entity::PLAYER,
        keep_world: false,
    })
    .unwrap();
    assert_eq!(doc.local_transform(TABLE).parent, Entity::PLAYER);
}

#[test]
fn a_drag_is_one_undo_step() {
    let mut doc = room();
    let start = doc.local_transform(CHAIR);
    for i in 1..=10 {
        let mut t = start;
        t.position.x += i as f32 * 0.1;
        doc.apply_coalesced(Command::SetTransforms(vec![(CHAIR, t)]), 42)
            .unwrap();
    }
    doc.end_coalescing();
    assert_eq!(doc.history().undo_len(), 1);
    doc.undo().unwrap();
    assert_eq!(doc.local_transform(CHAIR), start);
}

#[test]
fn editing_several_entities_at_once_is_one_step() {
    let mut doc = room();
    let items = [LAMP, CHAIR]
        .iter()
        .map(|&e| {
            let mut t = doc.local_transform(e);
            t.scale = Vec3::splat(3.0);
            (e, t)
        })
        .collect();
    doc.apply(Command::SetTransforms(items)).unwrap();
    assert_eq!(doc.local_transform(LAMP).scale, Vec3::splat(3.0));
    assert_eq!(doc.local_transform(CHAIR).scale, Vec3::splat(3.0));
    doc.undo().unwrap();
    assert_eq!(doc.local_transform(LAMP).scale, Vec3::ONE);
    assert_eq!(doc.local_transform(CHAIR).scale, Vec3::ONE);
}

#[test]
fn the_modified_flag_follows_edits_and_saves() {
    let mut doc = room();
    assert!(!doc.is_modified());
    doc.apply(Command::Rename {
        entity: CHAIR,
        name: "Chair".into(),
    })
    .unwrap();
    assert!(doc.is_modified());
    doc.mark_saved(scenetree_editor::SceneFile {
        path: "x.json".into(),
        format: scenetree_dcl::io::SceneFormat::Native,
    });
    assert!(!doc.is_modified());
}

#[test]
fn selection_forgets_deleted_entities() {
    let mut doc = room();
    doc.selection.set([LAMP, CHAIR]);
    doc.apply(Command::Delete {
        entities: vec![LAMP],
    })
    .unwrap();
    assert_eq!(doc.selection.entities(), &[CHAIR]);
}

/// An entity and a change to make to its local Transform.
type TransformEdit = (Entity, fn(&mut Transform));

#[test]
fn undo_steps_are_named_by_what_they_changed_and_on_what() {
    let mut doc = room();
    let set = |doc: &mut Document, edits: Vec<TransformEdit>| {
        let edits = edits
            .into_iter()
            .map(|(e, change)| {
                let mut t = doc.local_transform(e);
                change(&mut t);
                (e, t)
            })
            .collect();
        doc.apply(Command::SetTransforms(edits)).unwrap();
        doc.history().undo_label().unwrap().to_string()
    };
    assert_eq!(
        set(&mut doc, vec![(LAMP, |t| t.position.x += 1.0)]),
        "Move Lamp"
    );
    assert_eq!(
        set(
            &mut doc,
            vec![(LAMP, |t| t.rotation = Quat::from_rotation_x(0.3))]
        ),
        "Rotate Lamp"
    );
    // Turning two entities about their shared centre moves them too: still a rotation.
    assert_eq!(
        set(
            &mut doc,
            vec![
                (LAMP, |t| {
                    t.rotation = Quat::from_rotation_z(0.2);
                    t.position.y += 0.5;
                }),
                (CHAIR, |t| t.rotation = Quat::from_rotation_z(0.2)),
            ]
        ),
        "Rotate 2 entities"
    );
    assert_eq!(
        set(&mut doc, vec![(TABLE, |t| t.scale = Vec3::splat(3.0))]),
        "Scale Table"
    );
    assert_eq!(
        set(&mut doc, vec![(CHAIR, |t| t.parent = TABLE)]),
        "Reparent Entity 515",
        "an entity without a name is called by its number"
    );
    assert_eq!(
        set(
            &mut doc,
            vec![(LAMP, |t| {
                t.rotation = Quat::IDENTITY;
                t.scale = Vec3::splat(2.0);
            })]
        ),
        "Edit Transform of Lamp",
        "rotation and scale together"
    );
    doc.apply(Command::Rename {
        entity: LAMP,
        name: "Desk lamp".into(),
    })
    .unwrap();
    assert_eq!(doc.history().undo_label(), Some("Rename Lamp"));
    doc.apply(Command::SetComponent {
        entity: BULB,
        component: 1018,
        value: Some(vec![0x12, 0x00]), // a sphere instead of the box
    })
    .unwrap();
    assert_eq!(
        doc.history().undo_label(),
        Some("Edit core::MeshRenderer of Entity 514")
    );
    doc.apply(Command::Delete {
        entities: vec![LAMP, CHAIR],
    })
    .unwrap();
    assert_eq!(doc.history().undo_label(), Some("Delete 2 entities"));
    assert_eq!(doc.undo().unwrap().as_deref(), Some("Delete 2 entities"));
    assert_eq!(doc.redo().unwrap().as_deref(), Some("Delete 2 entities"));
}

#[test]
fn a_duplicate_lists_its_children_in_the_originals_order() {
    // Found by hand: duplicating the showroom's Shelf (Book 1, 2, 3) listed the copy's
    // children as Book 3, Book 2, Book 1, since the copies were numbered in reverse and a
    // scene without inspector::Nodes lists siblings by id.
    let mut r = Replica::new();
    let shelf = Entity(600);
    r.put_transform(shelf, &Transform::IDENTITY).unwrap();
    // Ids out of name order, with a grandchild, to tell any numbering from the listed one.
    let books = [
        (Entity(603), "Book 1"),
        (Entity(601), "Book 2"),
        (Entity(602), "Book 3"),
    ];
    for (book, name) in books {
        r.put_transform(
            book,
            &Transform {
                parent: shelf,
                ..Transform::IDENTITY
            },
        )
        .unwrap();
        r.put(book, ids::NAME, encode_name(name)).unwrap();
    }
    let bookmark = Entity(604);
    r.put_transform(
        bookmark,
        &Transform {
            parent: Entity(601),
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    let mut doc = Document::new(r, None);
    let names_under = |doc: &Document, parent: Entity| -> Vec<String> {
        doc.ordered_children(parent)
            .into_iter()
            .map(|c| doc.display_name(c))
            .collect()
    };
    let originals = names_under(&doc, shelf);
    assert_eq!(originals, ["Book 2", "Book 3", "Book 1"], "listed by id");
    let copy = doc
        .apply(Command::Duplicate {
            entities: vec![shelf],
        })
        .unwrap()
        .created[0];
    assert_eq!(names_under(&doc, copy), originals);
    let copied_book_2 = doc.ordered_children(copy)[0];
    assert_eq!(
        doc.view().children_of(copied_book_2).count(),
        1,
        "the bookmark came along"
    );
}
