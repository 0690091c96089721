//! A run a person changes (`net::run`): a capture opened as a run is its replay, and moving one
//! delivery changes what the renderers hold and which hazards show.

use scenetree_core::crdt::decode_stream;
use scenetree_core::model::Entity;
use scenetree_core::net::HazardKind;
use scenetree_core::net::capture::{Capture, replay};
use scenetree_core::net::run::{Delivery, DeliveryRow, NetRun, RendererScene, RunError, Slot};

/// A capture of `tests/fixtures/net-captures/`, made by the real SDK (see its SOURCE.txt).
pub fn fixture(name: &str) -> Capture {
    let path = scenetree_test_support::repo_root()
        .join("tests/fixtures/net-captures")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap();
    Capture::parse(&text).unwrap()
}

const FIXTURES: [&str; 5] = [
    "hazard-1-child-before-parent",
    "hazard-2-raw-parent",
    "hazard-3-late-join",
    "hazard-4-remote-delete",
    "hazard-5-remove-parent",
];

const B: usize = 1;

fn self_parents(run: &NetRun) -> Vec<(usize, Entity)> {
    run.hazards()
        .filter(|(_, h)| h.hazard.kind == HazardKind::SelfParent)
        .map(|(step, h)| (step, h.hazard.entity))
        .collect()
}

/// The rows in flight to B at the cursor: the child's frame (A's tick 4, naming A:513) and the
/// parent's (A's tick 3, naming A:512).
fn child_and_parent_rows(run: &NetRun) -> (DeliveryRow, DeliveryRow) {
    let rows: Vec<DeliveryRow> = run.in_flight().into_iter().filter(|r| r.to == B).collect();
    let sent_at = |tick: u32| {
        let step = run.step_of(0, tick).unwrap();
        rows.iter()
            .find(|r| r.sent_step == Some(step))
            .cloned()
            .unwrap_or_else(|| panic!("A's tick {tick} frame is not in flight to B: {rows:?}"))
    };
    (sent_at(4), sent_at(3))
}

#[test]
fn a_capture_opened_as_a_run_is_its_replay() {
    for name in FIXTURES {
        let capture = fixture(name);
        let replayed = replay(&capture);
        let run = NetRun::from_replay(&capture, &replayed);
        assert_eq!(run.script().len(), capture.ticks.len(), "{name}");
        // Every item a tick received is a frame the model sent with the same bytes.
        for step in 0..run.script().len() {
            for d in run.inbox(step) {
                assert!(
                    matches!(d, Delivery::Frame(_)),
                    "{name}: step {step}: {d:?}"
                );
            }
        }
        let end = run.state();
        for (at, player) in replayed.players.iter().enumerate() {
            assert_eq!(end.scenes[at].tree(), player.renderer().tree(), "{name}");
        }
        let mut ours: Vec<_> = (run.hazards())
            .map(|(step, h)| (run.script()[step].player, h.hazard.clone()))
            .collect();
        let mut theirs: Vec<_> = (replayed.hazards.iter().enumerate())
            .flat_map(|(at, hs)| hs.iter().map(move |h| (at, h.clone())))
            .collect();
        let key = |(at, h): &(usize, scenetree_core::net::Hazard)| (*at, h.tick, h.kind, h.entity);
        ours.sort_by_key(key);
        theirs.sort_by_key(key);
        assert_eq!(ours, theirs, "{name}");
        assert!(!ours.is_empty(), "{name}: each fixture shows its hazard");
    }
}

#[test]
fn every_position_of_the_timeline_holds_what_the_capture_rendered_until_then() {
    for name in FIXTURES {
        let capture = fixture(name);
        let run = NetRun::from_capture(&capture);
        let mut scenes = vec![RendererScene::default(); capture.header.players.len()];
        for steps in 0..=capture.ticks.len() {
            let state = run.state_at(steps);
            assert_eq!(state.steps, steps);
            for (at, scene) in scenes.iter().enumerate() {
                assert_eq!(
                    state.scenes[at], *scene,
                    "{name} after {steps} steps, player {at}"
                );
            }
            if let Some((_, tick)) = capture.ticks.get(steps) {
                let at = capture.player_index(&tick.player).unwrap();
                let bytes = tick.renderer.as_ref().map_or(&[][..], |r| &r.0);
                for message in decode_stream(bytes).unwrap().messages {
                    scenes[at].apply(&message);
                }
            }
        }
    }
}

#[test]
fn moving_the_parents_frame_before_the_childs_unmakes_the_self_parent() {
    let mut run = NetRun::from_capture(&fixture("hazard-1-child-before-parent"));
    let b_tick_6 = run.step_of(B, 6).unwrap();
    assert_eq!(self_parents(&run), [(b_tick_6, Entity(512))]);
    assert_eq!(run.state().scenes[B].parent(Entity(512)), Some(Entity(512)));
    // Just after A sent the child: both frames are in flight to B, the child's first.
    run.seek(run.step_of(0, 4).unwrap() + 1);
    let (child, parent) = child_and_parent_rows(&run);
    assert!(child.arrives < parent.arrives);
    assert_eq!(
        child
            .hazards
            .iter()
            .map(|h| h.hazard.kind)
            .collect::<Vec<_>>(),
        [HazardKind::SelfParent],
        "the child's row is badged: the tick applying it makes the self-parent"
    );
    assert!(parent.hazards.is_empty());
    run.reorder(parent.slot, child.slot).unwrap();
    assert_eq!(self_parents(&run), []);
    let (child, parent) = child_and_parent_rows(&run);
    assert!(child.hazards.is_empty());
    assert_eq!(parent.arrives, child.arrives, "both arrive at one tick");
    let b = &run.state_at(run.script().len()).scenes[B];
    assert_eq!(
        b.tree(),
        [(Entity(512), Entity::ROOT), (Entity(513), Entity(512))]
    );
    // Held one more of B's ticks, the parent's frame makes it again.
    run.delay(parent.slot, 1).unwrap();
    assert_eq!(self_parents(&run), [(b_tick_6, Entity(512))]);
}

#[test]
fn controls_refuse_what_cannot_happen() {
    let mut run = NetRun::from_capture(&fixture("hazard-1-child-before-parent"));
    run.seek(run.step_of(0, 4).unwrap() + 1);
    let (child, parent) = child_and_parent_rows(&run);
    let to_c = run.in_flight().into_iter().find(|r| r.to == 2).unwrap();
    assert_eq!(
        run.reorder(child.slot, to_c.slot),
        Err(RunError::OtherReceiver)
    );
    // B's first tick received state requests long before A's tick 3 sent the parent.
    let early = Slot::At {
        step: run.step_of(B, 0).unwrap(),
        index: 0,
    };
    assert!(matches!(
        run.reorder(parent.slot, early),
        Err(RunError::BeforeSent { .. })
    ));
    assert!(matches!(
        run.deliver_now(child.slot),
        Err(RunError::AlreadyNext(_))
    ));
    assert_eq!(
        run.drop_delivery(Slot::At { step: 0, index: 9 }),
        Err(RunError::NoSuchDelivery)
    );
    // Refusals change nothing.
    assert_eq!(child_and_parent_rows(&run), (child, parent));
}

#[test]
fn a_frame_delayed_past_the_end_is_still_in_flight_and_can_be_delivered() {
    let mut run = NetRun::from_capture(&fixture("hazard-1-child-before-parent"));
    run.seek(run.step_of(0, 4).unwrap() + 1);
    let (_, parent) = child_and_parent_rows(&run);
    run.delay(parent.slot, 99).unwrap();
    let held = (run.in_flight().into_iter())
        .find(|r| r.sent_step == parent.sent_step && r.to == B)
        .unwrap();
    assert!(matches!(held.slot, Slot::Nowhere(_)));
    assert_eq!(held.arrives, None);
    // B never learns of P: its child keeps the raw id as parent, and P is nowhere on B.
    assert_eq!(
        run.state_at(usize::MAX).scenes[B].tree(),
        [(Entity(512), Entity(512))]
    );
    run.deliver_now(held.slot).unwrap();
    let (child, parent) = child_and_parent_rows(&run);
    assert_eq!(parent.arrives, child.arrives);
    assert_eq!(self_parents(&run), []);
    // Dropped, it is gone from the messages in flight, not held.
    run.drop_delivery(parent.slot).unwrap();
    assert!(!(run.in_flight().iter()).any(|r| r.sent_step == parent.sent_step && r.to == B));
}

#[test]
fn a_duplicate_arrives_twice_and_changes_nothing_here() {
    let mut run = NetRun::from_capture(&fixture("hazard-1-child-before-parent"));
    run.seek(run.step_of(0, 4).unwrap() + 1);
    let (child, _) = child_and_parent_rows(&run);
    let before = run.state_at(usize::MAX).scenes;
    run.duplicate(child.slot).unwrap();
    let Slot::At { step, .. } = child.slot else {
        panic!("the child's frame arrives at a tick");
    };
    assert_eq!(run.inbox(step).len(), 2);
    assert_eq!(run.inbox(step)[0], run.inbox(step)[1]);
    // The copy is applied with the same timestamps: the renderers hold the same.
    assert_eq!(run.state_at(usize::MAX).scenes, before);
}

/// What a run's outcome shows: every player's renderer after every step, and the hazards.
type Outcome = (Vec<Vec<RendererScene>>, Vec<(usize, Entity, HazardKind)>);

fn outcome(run: &NetRun) -> Outcome {
    let scenes = (0..=run.script().len())
        .map(|steps| run.state_at(steps).scenes)
        .collect();
    let hazards = (run.hazards())
        .map(|(step, h)| (step, h.hazard.entity, h.hazard.kind))
        .collect();
    (scenes, hazards)
}

#[test]
fn a_change_runs_the_script_from_the_first_tick_it_touches_and_agrees_with_a_whole_run() {
    for name in FIXTURES {
        let mut run = NetRun::from_capture(&fixture(name));
        let steps = run.script().len();
        let mut changes = 0;
        // At every fourth position, hold the first delivery in flight one tick and deliver
        // the last one now, each time checking against the script run again from its start.
        for cursor in (0..steps).step_by(4) {
            run.seek(cursor);
            let rows = run.in_flight();
            let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                continue;
            };
            let (first, last) = (first.slot, last.slot);
            for change in [0, 1] {
                let done = match change {
                    0 => run.delay(first, 1),
                    _ => run.deliver_now(last),
                };
                if done.is_err() {
                    continue;
                }
                changes += 1;
                let mut whole = run.clone();
                whole.rerun();
                assert_eq!(
                    outcome(&run),
                    outcome(&whole),
                    "{name}, at {cursor}, change {change}"
                );
                assert_ne!(run.generation(), whole.generation());
            }
        }
        assert!(changes > 3, "{name}: {changes} changes tried");
    }
}
