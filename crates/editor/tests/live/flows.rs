//! Two scenetree documents on one real data layer: the snapshot, writes byte for byte, a real
//! cycle and its repair, Save into main.composite, a stale write, a host restart, and the
//! Inspector's tree (inspector::Nodes) losing one of two structure edits made at once, Undo
//! of this window's edit only, and the cycle guard beside the web Inspector.

use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::scene::SceneView;
use scenetree_dcl::io;
use scenetree_editor::{
    BadValue, Command, Direction, Document, EditError, LinkState, LiveNote, LiveSaveError,
    Unsendable, WriteRefused,
};
use scenetree_live::{LiveConnection, LiveEvent, LiveOptions};

use crate::dcl_host::DclHost;
use crate::support::{
    ELEVATOR, IMAGE, move_x, open, reparent, transform, wait_acknowledged, wait_for, wait_note,
};

/// The fixture's main.composite as scenetree reads it (what the host loaded; its own copy is
/// rewritten by the host in place, so it can be read half written).
fn fixture() -> io::OpenedScene {
    let path = crate::dcl_host::repo_root()
        .join("tests/fixtures/dcl-projects/art-gallery-template/assets/scene/main.composite");
    io::open_scene(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The host's main.composite as scenetree reads it, once the host has written it whole.
fn host_file(host: &DclHost) -> io::OpenedScene {
    let path = host.dir.path().join("assets/scene/main.composite");
    let mut last = None;
    for _ in 0..50 {
        match io::open_scene(&path) {
            Ok(opened) => return opened,
            Err(e) => last = Some(e.to_string()),
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{}", last.unwrap_or_default())
}

/// The tree as `scenetree tree` derives it: (entity, depth, declared parent, world matrix).
fn tree_rows(replica: &Replica) -> Vec<(Entity, u32, Option<Entity>, [f32; 16])> {
    let view = SceneView::from_source(replica);
    (view.preorder().into_iter())
        .map(|(e, depth)| {
            let world = view.world_matrix(e).unwrap_or_default().to_cols_array();
            (e, depth, view.declared_parent_of(e), world)
        })
        .collect()
}

#[test]
fn the_snapshot_is_what_scenetree_reads_from_main_composite() {
    let host = DclHost::start();
    let mut doc = open(&host);
    let fixture = fixture();
    let live = doc.replica();
    assert_eq!(tree_rows(live), tree_rows(&fixture.replica));
    // On start the host migrates the Inspector's scene metadata (v1 to v5) and registers its
    // own smart-item definitions (asset-packs::*): the tools' components may differ; every
    // value of the scene itself is the same bytes.
    let differ = |live: &Replica, file: &Replica| {
        let mut out = Vec::new();
        for entity in file.live_entities() {
            for component in file.components_of(entity) {
                if live.component_data(entity, component) != file.component_data(entity, component)
                {
                    out.push((entity, component));
                }
            }
        }
        out
    };
    let (file, fixture) = (
        fixture.replica,
        fixture.context.composite.expect("a composite"),
    );
    for (entity, component) in differ(live, &file) {
        let name = fixture.name_of(component).unwrap_or_default();
        assert!(
            name.starts_with("inspector::") || name.starts_with("asset-packs::"),
            "{entity}: {name} ({component}) differs from main.composite"
        );
    }
    // Once the host writes its state, scenetree reads back exactly the snapshot's values.
    doc.save_live().expect("connected");
    wait_note(&mut doc, "the host's answer to Save", |n| {
        *n == LiveNote::Saved
    });
    let opened = host_file(&host);
    let composite = opened.context.composite.as_ref().expect("a composite");
    // The host's engine (an older @dcl/ecs) writes an optional field holding "" or false as
    // absent where 7.28.0 writes it as present, so the tools' values can differ in bytes
    // (SceneMetadata's empty thumbnail); the scene's own values cannot.
    for (entity, component) in differ(doc.replica(), &opened.replica) {
        let name = composite.name_of(component).unwrap_or_default();
        assert!(
            name.starts_with("inspector::") || name.starts_with("asset-packs::"),
            "{entity}: {name} ({component}) differs from the saved main.composite"
        );
    }
    assert_eq!(tree_rows(doc.replica()), tree_rows(&opened.replica));
}

#[test]
fn a_write_reaches_the_other_window_byte_for_byte() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    move_x(&mut a, ELEVATOR, 15.75);
    wait_acknowledged(&mut a);
    let sent = (a.live().unwrap().log().entries().iter())
        .rfind(|e| e.direction == Direction::Out)
        .expect("A logged what it sent")
        .message
        .clone();
    wait_for(&mut b, "A's write in B", |b| {
        b.live()
            .unwrap()
            .log()
            .entries()
            .iter()
            .any(|e| e.direction == Direction::In && e.message.to_bytes() == sent.to_bytes())
    });
    assert_eq!(transform(&b, ELEVATOR).position.x, 15.75);
    assert_eq!(
        b.replica()
            .lww_entry(ELEVATOR, ids::TRANSFORM)
            .unwrap()
            .timestamp,
        sent.timestamp().unwrap()
    );
}

#[test]
fn two_windows_reparenting_at_once_both_show_the_cycle_and_converge() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    // Both edits are made before either window hears of the other's.
    a.apply(reparent(ELEVATOR, IMAGE)).expect("A's move");
    b.apply(reparent(IMAGE, ELEVATOR)).expect("B's move");
    let in_cycle = |d: &scenetree_editor::Document| {
        d.view()
            .cycles()
            .iter()
            .any(|c| c.contains(&ELEVATOR) && c.contains(&IMAGE))
    };
    wait_for(&mut a, "the cycle in A", in_cycle);
    wait_for(&mut b, "the cycle in B", in_cycle);
    wait_acknowledged(&mut a);
    wait_acknowledged(&mut b);
    // Both hold the same state: the two Transforms and one of the two Nodes values.
    wait_for(&mut a, "A and B to converge", |a| {
        a.replica().digest() == b.replica().digest()
    });
    // A resolves it: the Elevator back to the root.
    a.apply(reparent(ELEVATOR, Entity::ROOT))
        .expect("A's repair");
    wait_for(&mut b, "the repair in B", |b| b.view().cycles().is_empty());
    assert!(a.view().cycles().is_empty());
    assert_eq!(transform(&b, IMAGE).parent, ELEVATOR);
    wait_acknowledged(&mut a);
    wait_for(&mut b, "A and B to converge after the repair", |b| {
        b.replica().digest() == a.replica().digest()
    });
}

#[test]
fn save_asks_the_host_and_scenetrees_reader_sees_the_edit() {
    let host = DclHost::start();
    let mut doc = open(&host);
    move_x(&mut doc, ELEVATOR, 21.5);
    doc.save_live().expect("connected");
    wait_note(&mut doc, "the host's answer to Save", |n| {
        *n == LiveNote::Saved
    });
    assert_eq!(
        host_file(&host)
            .replica
            .transform(ELEVATOR)
            .unwrap()
            .position
            .x,
        21.5
    );
}

#[test]
fn a_stale_write_from_another_client_is_ignored() {
    let host = DclHost::start();
    let mut doc = open(&host);
    move_x(&mut doc, ELEVATOR, 16.0);
    move_x(&mut doc, ELEVATOR, 17.0);
    wait_acknowledged(&mut doc);
    let ours = transform(&doc, ELEVATOR);
    // A raw client writes the Elevator at timestamp 1 (older than ours), then a marker.
    let other = LiveConnection::connect(&host.url(), LiveOptions::default()).expect("connect");
    assert!(matches!(other.events().recv(), Ok(LiveEvent::Snapshot(_))));
    let mut stale = ours;
    stale.position.x = -99.0;
    let marker_before = transform(&doc, IMAGE);
    let mut marker = marker_before;
    marker.position.y += 1.0;
    let put = |entity: Entity, timestamp: u32, t: &Transform| CrdtMessage::PutComponent {
        entity,
        component: ids::TRANSFORM,
        timestamp,
        data: t.to_bytes().to_vec(),
    };
    let newer = doc.replica().timestamp(IMAGE, ids::TRANSFORM) + 5;
    other
        .send_crdt(put(ELEVATOR, 1, &stale).to_bytes())
        .expect("send");
    other
        .send_crdt(put(IMAGE, newer, &marker).to_bytes())
        .expect("send");
    wait_for(&mut doc, "the marker", |d| transform(d, IMAGE) == marker);
    assert_eq!(
        transform(&doc, ELEVATOR),
        ours,
        "the stale write never arrived"
    );
    let stale_seen = (doc.live().unwrap().log().entries().iter())
        .any(|e| e.direction == Direction::In && e.message.entity() == ELEVATOR);
    assert!(!stale_seen, "the host relayed a stale write");
}

#[test]
fn a_host_restart_mid_session_loses_nothing_typed() {
    let mut host = DclHost::start();
    let mut doc = open(&host);
    move_x(&mut doc, ELEVATOR, 18.0);
    wait_acknowledged(&mut doc);
    host.kill_between_writes();
    wait_for(&mut doc, "the dropped connection", |d| {
        d.live().unwrap().state() != LinkState::Connected
    });
    // Typed while the host is down.
    move_x(&mut doc, ELEVATOR, 19.0);
    doc.apply(Command::Rename {
        entity: IMAGE,
        name: "Typed offline".into(),
    })
    .expect("rename offline");
    assert!(
        doc.is_modified(),
        "unacknowledged offline work counts as unsaved"
    );
    assert!(doc.live().unwrap().waiting() > 0);
    host.restart();
    let notes = wait_for(&mut doc, "the reconnect", |d| {
        let live = d.live().unwrap();
        live.state() == LinkState::Connected && live.waiting() == 0 && live.connection_number() == 2
    });
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, LiveNote::Reconnected { resent, .. } if *resent >= 2)),
        "{notes:?}"
    );
    let fresh = open(&host);
    assert_eq!(transform(&fresh, ELEVATOR).position.x, 19.0);
    assert_eq!(fresh.name_of(IMAGE).as_deref(), Some("Typed offline"));
    assert_eq!(doc.replica().digest(), fresh.replica().digest());
}

#[test]
fn two_structure_edits_at_once_lose_one_in_the_inspectors_tree_and_the_rebuild_repairs_it() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    let (nft, shelf) = (Entity(520), Entity(521));
    // Each window writes a Transform and its own whole inspector::Nodes before hearing of the
    // other's: both Transforms survive, one Nodes value does.
    a.apply(reparent(ELEVATOR, IMAGE)).expect("A's move");
    b.apply(reparent(nft, shelf)).expect("B's move");
    for doc in [&mut a, &mut b] {
        wait_acknowledged(doc);
        wait_for(doc, "both moves", |d| {
            transform(d, ELEVATOR).parent == IMAGE && transform(d, nft).parent == shelf
        });
    }
    wait_for(&mut a, "A and B to converge", |a| {
        a.replica().digest() == b.replica().digest()
    });
    let lost: Vec<_> = (a.inspector_tree_mismatches().list.iter())
        .map(|m| (m.entity, m.effective))
        .collect();
    assert!(
        lost == [(ELEVATOR, IMAGE)] || lost == [(nft, shelf)],
        "exactly the losing writer's move is misplaced in Nodes: {lost:?}"
    );
    assert_eq!(
        b.inspector_tree_mismatches().list.len(),
        1,
        "B marks it too"
    );
    // A repairs it; B's Inspector tree agrees again when the repair arrives.
    let repair = a.rebuild_inspector_tree().expect("a repair");
    a.apply(repair).expect("the repair applies");
    assert!(a.inspector_tree_mismatches().is_empty());
    wait_for(&mut b, "the repair in B", |b| {
        b.inspector_tree_mismatches().is_empty()
    });
    wait_acknowledged(&mut a);
    assert_eq!(a.replica().digest(), b.replica().digest());
}

#[test]
fn undo_undoes_this_windows_edit_only_as_a_new_write() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    let before = transform(&a, ELEVATOR);
    move_x(&mut a, ELEVATOR, 16.25);
    wait_acknowledged(&mut a);
    // Another person's later edit, which the host's own (global) Undo would undo first.
    wait_for(&mut b, "A's move in B", |b| {
        transform(b, ELEVATOR).position.x == 16.25
    });
    move_x(&mut b, IMAGE, 7.5);
    wait_acknowledged(&mut b);
    wait_for(&mut a, "B's move in A", |a| {
        transform(a, IMAGE).position.x == 7.5
    });
    let moved_at = (a.replica().lww_entry(ELEVATOR, ids::TRANSFORM))
        .unwrap()
        .timestamp;
    a.undo().expect("undo replays").expect("something to undo");
    wait_acknowledged(&mut a);
    wait_for(&mut b, "A's undo in B", |b| {
        transform(b, ELEVATOR).position.x == before.position.x
    });
    assert!(
        (b.replica().lww_entry(ELEVATOR, ids::TRANSFORM))
            .unwrap()
            .timestamp
            > moved_at,
        "the undo is a new write"
    );
    assert_eq!(transform(&b, IMAGE).position.x, 7.5, "B's edit stays");
    assert_eq!(transform(&a, IMAGE).position.x, 7.5);
}

#[test]
fn undo_of_an_edit_to_an_entity_another_window_deleted_brings_nothing_back() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    a.apply(Command::Rename {
        entity: IMAGE,
        name: "Portrait".into(),
    })
    .expect("a rename");
    wait_acknowledged(&mut a);
    wait_for(&mut b, "A's rename in B", |b| {
        b.name_of(IMAGE).as_deref() == Some("Portrait")
    });
    b.apply(Command::Delete {
        entities: vec![IMAGE],
    })
    .expect("a delete");
    wait_acknowledged(&mut b);
    wait_for(&mut a, "B's delete in A", |a| !a.replica().is_live(IMAGE));
    // Undoing the rename would bring the image back as a name alone (no Transform, nothing
    // drawn, missing from the Inspector's tree) in every window.
    let refused = a.undo().expect_err("the image is gone");
    assert_eq!(
        refused.cause,
        scenetree_editor::EditError::DeletedMeanwhile(IMAGE)
    );
    assert!(!a.replica().is_live(IMAGE));
    assert_eq!(a.history().undo_len(), 0, "the step left the history");
    // B's own undo brings its delete back, as usual, in both windows.
    b.undo().expect("undo replays").expect("the delete");
    wait_acknowledged(&mut b);
    wait_for(&mut a, "B's undo in A", |a| a.replica().is_live(IMAGE));
    assert_eq!(a.name_of(IMAGE).as_deref(), Some("Portrait"));
}

#[test]
fn an_undo_that_would_close_a_cycle_on_the_host_waits_for_a_choice_and_a_cycle_breaks_alike() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    // A puts the Image under the Elevator, then back at the root.
    a.apply(reparent(IMAGE, ELEVATOR)).expect("A's first move");
    a.apply(reparent(IMAGE, Entity::ROOT))
        .expect("A's second move");
    wait_acknowledged(&mut a);
    let after_a = a.replica().digest();
    wait_for(&mut b, "A's moves in B", |b| {
        b.replica().digest() == after_a
    });
    // B, seeing the Image at the root, puts the Elevator under it: valid where it was made.
    b.apply(reparent(ELEVATOR, IMAGE)).expect("B's move");
    wait_acknowledged(&mut b);
    wait_for(&mut a, "B's move in A", |a| {
        transform(a, ELEVATOR).parent == IMAGE
    });
    // A's undo would put the Image back under the Elevator: a cycle on the host. It is held.
    let steps = a.history().undo_len();
    let digest = a.replica().digest();
    let held = a.undo().expect_err("the undo is held");
    assert!(
        matches!(&held.cause, EditError::WouldCycleLive { members } if members.contains(&IMAGE) && members.contains(&ELEVATOR)),
        "{held}"
    );
    assert!(held.to_string().contains("stays in the history"), "{held}");
    assert_eq!(a.history().undo_len(), steps, "the step stays");
    assert_eq!(a.replica().digest(), digest, "nothing written");
    assert_eq!(a.live().unwrap().waiting(), 0, "nothing sent");
    // Chosen anyway, the cycle reaches B.
    a.undo_making_cycle().expect("the undo, cycle and all");
    wait_acknowledged(&mut a);
    wait_for(&mut b, "the cycle in B", |b| !b.live_cycles().is_empty());
    let cycle_a = a.live_cycles();
    let cycle_b = b.live_cycles();
    assert_eq!(cycle_a, cycle_b);
    // Both windows break it at once: the same write, so they converge without a fight.
    let breaker = a.cycle_breaker(&cycle_a[0]).expect("a breaker");
    assert_eq!(Some(&breaker), b.cycle_breaker(&cycle_b[0]).as_ref());
    let Command::SetTransforms(items) = &breaker else {
        panic!("one Transform write: {breaker:?}")
    };
    let [(moved, _)] = items.as_slice() else {
        panic!("one entity: {items:?}")
    };
    let moved = *moved;
    let world_before = a.view().world_matrix(moved).unwrap();
    a.apply(breaker.clone()).expect("A breaks it");
    b.apply(breaker).expect("B breaks it");
    for doc in [&mut a, &mut b] {
        wait_acknowledged(doc);
        wait_for(doc, "no cycle", |d| d.live_cycles().is_empty());
    }
    wait_for(&mut a, "A and B to converge", |a| {
        a.replica().digest() == b.replica().digest()
    });
    assert_eq!(a.view().world_matrix(moved).unwrap(), world_before);
}

#[test]
fn an_edit_that_would_close_a_cycle_is_held_only_while_live() {
    let host = DclHost::start();
    let mut live = open(&host);
    let mut t = transform(&live, ELEVATOR);
    t.parent = IMAGE;
    live.apply(reparent(IMAGE, ELEVATOR))
        .expect("the Image under the Elevator");
    // A raw Transform write (as a pasted component) that closes the loop.
    let raw = Command::SetComponent {
        entity: ELEVATOR,
        component: scenetree_core::model::ids::TRANSFORM,
        value: Some(t.to_bytes().to_vec()),
    };
    assert!(matches!(
        live.apply(raw.clone()),
        Err(EditError::WouldCycleLive { .. })
    ));
    assert!(live.live_cycles().is_empty());
    live.apply_making_cycle(raw.clone()).expect("chosen");
    assert_eq!(live.live_cycles().len(), 1);
    // The same write in a document that is not live (a lesson, a file) is not held.
    let mut solo = Document::new(fixture().replica, None);
    solo.apply(reparent(IMAGE, ELEVATOR)).unwrap();
    solo.apply(raw).expect("not live: no question");
    assert!(solo.live_cycles().is_empty(), "only live cycles are listed");
    assert_eq!(solo.view().cycles().len(), 1);
}

#[test]
fn a_value_the_host_cannot_take_and_a_save_while_offline_are_refused_with_what_happened() {
    let mut host = DclHost::start();
    let mut doc = open(&host);
    // A put of a grow-only component would end the host's process: it is not sent.
    let err = doc
        .apply(Command::SetComponent {
            entity: IMAGE,
            component: 1063,
            value: Some(vec![1]),
        })
        .unwrap_err();
    assert!(
        matches!(
            &err,
            EditError::Live(WriteRefused::Unsendable(Unsendable {
                entity: IMAGE,
                reason: BadValue::GrowOnly,
                ..
            }))
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("not sent to the data layer"),
        "{err}"
    );
    host.kill();
    wait_note(&mut doc, "the dropped connection", |n| {
        matches!(n, LiveNote::Disconnected(_))
    });
    let host_label = format!("127.0.0.1:{}", host.port);
    assert_eq!(
        doc.save_live(),
        Err(LiveSaveError::Offline { host: host_label })
    );
}
