//! The lessons in `scenes/`: each asserts what it teaches at the step where it teaches it,
//! reading the peers' render trees the way the panel shows them.

use std::path::{Path, PathBuf};

use scenetree_core::crdt::scenario::{ScenarioWriter, parse};
use scenetree_core::crdt::{
    ApplyOutcome, EventKind, MessageKind, Network, PeerId, Replica, ScenarioPlayer,
};
use scenetree_core::model::{Entity, ids};
use scenetree_core::scene::order_explorer::explore_inbox;
use scenetree_core::scene::{Fallback, SceneView};

const LAMP: Entity = Entity(512);
const TABLE: Entity = Entity(513);
const CHAIR: Entity = Entity(514);
const P1: PeerId = PeerId(1);
const P2: PeerId = PeerId(2);
const P3: PeerId = PeerId(3);

fn scenes() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("scenes")
}

fn lesson(file: &str) -> ScenarioPlayer {
    let path = scenes().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let scenario = parse(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    ScenarioPlayer::new(scenario).unwrap()
}

/// Plays steps until `step` (from 1) has been played.
fn play_to(player: &mut ScenarioPlayer, step: usize) {
    while player.steps_played() < step {
        assert!(player.next_step().unwrap(), "the lesson has a step {step}");
    }
}

fn view(player: &ScenarioPlayer, peer: PeerId) -> SceneView {
    SceneView::from_source(player.network().replica(peer).unwrap())
}

fn world_x(view: &SceneView, e: Entity) -> f32 {
    view.world_affine(e).unwrap().translation.x
}

/// The apply outcomes of the deliveries the last played step made, in order.
fn outcomes_of_last_step(player: &ScenarioPlayer) -> Vec<ApplyOutcome> {
    let ends = player.step_ends();
    let first = ends.len().checked_sub(2).map_or(0, |i| ends[i]);
    player.network().events()[first..ends[ends.len() - 1]]
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Deliver { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect()
}

fn assert_converged(net: &Network) {
    let c = net.convergence();
    assert!(
        c.converged,
        "differing: {:?}, in flight: {}",
        c.differing, c.in_flight
    );
}

#[test]
fn lesson_1_two_concurrent_reparents_make_a_two_cycle_that_a_later_write_resolves() {
    let mut l = lesson("01-concurrent-reparent.scenario.json");
    play_to(&mut l, 1);
    assert_eq!(view(&l, P1).effective_parent_of(LAMP), Some(TABLE));
    assert_eq!(view(&l, P2).effective_parent_of(LAMP), Some(Entity::ROOT));
    play_to(&mut l, 2);
    assert!(view(&l, P1).cycles().is_empty() && view(&l, P2).cycles().is_empty());

    // After step 3 peer 1 shows Lamp and Table re-rooted with reason Cycle[Lamp, Table].
    play_to(&mut l, 3);
    let p1 = view(&l, P1);
    assert_eq!(p1.fallback_reason(LAMP), Fallback::Cycle(&[LAMP, TABLE]));
    assert_eq!(p1.fallback_reason(TABLE), Fallback::Cycle(&[LAMP, TABLE]));
    assert_eq!(p1.effective_parent_of(LAMP), Some(Entity::ROOT));
    assert_eq!(p1.effective_parent_of(TABLE), Some(Entity::ROOT));
    assert_eq!(
        world_x(&p1, LAMP),
        1.0,
        "drawn at the root with its own local values"
    );
    assert!(view(&l, P2).cycles().is_empty());

    // Step 4: both hold both writes: the same state, with the cycle.
    play_to(&mut l, 4);
    assert_converged(l.network());
    assert_eq!(view(&l, P2).cycles(), vec![&[LAMP, TABLE][..]]);

    play_to(&mut l, 5);
    assert!(l.is_finished());
    assert_converged(l.network());
    for p in [P1, P2] {
        let v = view(&l, p);
        assert!(v.rerooted().is_empty());
        assert_eq!(v.effective_parent_of(TABLE), Some(LAMP));
        assert_eq!(world_x(&v, TABLE), 4.0, "Table back under Lamp (1 + 3)");
    }
}

#[test]
fn lesson_2_a_three_cycle_needs_all_three_edits() {
    let mut l = lesson("02-three-cycle.scenario.json");
    play_to(&mut l, 1);
    assert_eq!(l.network().in_flight().len(), 6);
    for p in [P1, P2, P3] {
        assert!(view(&l, p).cycles().is_empty(), "{p} alone has no cycle");
    }
    play_to(&mut l, 2);
    let p1 = view(&l, P1);
    assert!(p1.cycles().is_empty(), "two edits make a chain");
    assert_eq!(p1.effective_parent_of(LAMP), Some(TABLE));
    assert_eq!(p1.effective_parent_of(TABLE), Some(CHAIR));

    play_to(&mut l, 3);
    let p1 = view(&l, P1);
    for e in [LAMP, TABLE, CHAIR] {
        assert_eq!(
            p1.fallback_reason(e),
            Fallback::Cycle(&[LAMP, TABLE, CHAIR])
        );
    }
    assert!(view(&l, P2).cycles().is_empty());

    play_to(&mut l, 4);
    assert_converged(l.network());
    for p in [P1, P2, P3] {
        assert_eq!(view(&l, p).cycles(), vec![&[LAMP, TABLE, CHAIR][..]]);
    }

    play_to(&mut l, 5);
    assert_converged(l.network());
    for p in [P1, P2, P3] {
        let v = view(&l, p);
        assert!(v.cycles().is_empty());
        assert_eq!(v.effective_parent_of(CHAIR), Some(Entity::ROOT));
        assert_eq!(v.effective_parent_of(TABLE), Some(CHAIR));
        assert_eq!(v.effective_parent_of(LAMP), Some(TABLE));
    }
}

#[test]
fn lesson_3_equal_timestamps_are_decided_by_the_bytes_not_the_number() {
    let mut l = lesson("03-equal-timestamps.scenario.json");
    play_to(&mut l, 2);
    let (r1, r2) = (
        l.network().replica(P1).unwrap(),
        l.network().replica(P2).unwrap(),
    );
    assert_eq!(r1.timestamp(LAMP, ids::TRANSFORM), 2);
    assert_eq!(r2.timestamp(LAMP, ids::TRANSFORM), 2, "a tie");
    assert_eq!(r2.transform(LAMP).unwrap().position.x, 2.0);

    play_to(&mut l, 3);
    assert_eq!(
        outcomes_of_last_step(&l),
        [ApplyOutcome::AcceptedGreaterData]
    );
    assert_eq!(
        world_x(&view(&l, P2), LAMP),
        1.0,
        "x = 1 has the greater bytes"
    );

    play_to(&mut l, 4);
    assert!(matches!(
        outcomes_of_last_step(&l)[..],
        [ApplyOutcome::IgnoredSmallerData { .. }]
    ));
    let reply = &l.network().in_flight()[0];
    assert_eq!(
        (reply.from, reply.to, reply.kind),
        (P1, P2, MessageKind::Reply)
    );

    play_to(&mut l, 5);
    assert_eq!(outcomes_of_last_step(&l), [ApplyOutcome::IgnoredEqual]);
    assert_converged(l.network());
    for p in [P1, P2] {
        assert_eq!(world_x(&view(&l, p), LAMP), 1.0);
    }
}

#[test]
fn lesson_4_children_follow_a_parent_that_loses_its_transform() {
    let mut l = lesson("04-delete-parent-transform.scenario.json");
    assert_eq!(world_x(&view(&l, P1), LAMP), 6.0);
    play_to(&mut l, 1);
    let p1 = view(&l, P1);
    assert!(!p1.has_transform(TABLE));
    assert_eq!(p1.fallback_reason(LAMP), Fallback::MissingParent);
    assert_eq!(
        p1.effective_parent_of(LAMP),
        Some(TABLE),
        "still Table's child"
    );
    assert_eq!(world_x(&p1, TABLE), 0.0);
    assert_eq!(world_x(&p1, LAMP), 1.0);
    assert_eq!(
        world_x(&view(&l, P2), LAMP),
        6.0,
        "peer 2 has not heard yet"
    );

    play_to(&mut l, 2);
    assert_eq!(view(&l, P2).fallback_reason(LAMP), Fallback::MissingParent);
    assert_converged(l.network());

    play_to(&mut l, 3);
    assert_converged(l.network());
    for p in [P1, P2] {
        let v = view(&l, p);
        assert_eq!(v.fallback_reason(LAMP), Fallback::None);
        assert_eq!(world_x(&v, LAMP), 4.0);
    }
}

#[test]
fn lesson_5_a_delete_wins_over_a_concurrent_move() {
    let mut l = lesson("05-delete-while-moving.scenario.json");
    const CHAIR_ON_LAMP: Entity = Entity(513);
    play_to(&mut l, 1);
    assert!(l.network().replica(P1).unwrap().is_deleted(LAMP));
    let p1 = view(&l, P1);
    assert_eq!(p1.fallback_reason(CHAIR_ON_LAMP), Fallback::MissingParent);
    assert!(
        p1.is_implicit(LAMP),
        "Lamp stays in the tree as an empty parent"
    );
    assert_eq!(l.network().in_flight().len(), 3);

    play_to(&mut l, 3);
    assert_eq!(
        outcomes_of_last_step(&l),
        [ApplyOutcome::IgnoredDeletedEntity]
    );
    assert!(
        l.network().in_flight().iter().all(|m| m.from == P1),
        "no reply"
    );

    play_to(&mut l, 4);
    let outcomes = outcomes_of_last_step(&l);
    assert!(matches!(
        outcomes[0],
        ApplyOutcome::IgnoredSmallerData { .. }
    ));
    assert_eq!(outcomes[1], ApplyOutcome::AcceptedNewer);
    assert!(matches!(outcomes[2], ApplyOutcome::EntityDeleted { .. }));
    let kinds: Vec<MessageKind> = l.network().in_flight().iter().map(|m| m.kind).collect();
    assert_eq!(kinds, [MessageKind::Reply, MessageKind::Announcement]);
    assert!(l.network().replica(P2).unwrap().is_deleted(LAMP));

    play_to(&mut l, 5);
    assert_converged(l.network());
    for p in [P1, P2] {
        assert!(l.network().replica(p).unwrap().is_deleted(LAMP));
        let v = view(&l, p);
        assert_eq!(v.fallback_reason(CHAIR_ON_LAMP), Fallback::MissingParent);
        assert_eq!(v.world_affine(CHAIR_ON_LAMP).unwrap().translation.y, 1.0);
    }
}

#[test]
fn lesson_6_out_of_order_delivery_makes_a_transient_cycle() {
    let mut l = lesson("06-transient-cycle.scenario.json");
    for step in 1..=3 {
        play_to(&mut l, step);
        assert!(view(&l, P1).cycles().is_empty(), "peer 1 never has a cycle");
    }
    // The explorer on peer 2's inbox: 6 orders, 2 through the cycle, one end state.
    let x = explore_inbox(l.network(), P2).unwrap();
    assert_eq!((x.orders, x.orders_through_cycle), (6, 2));
    assert!(x.converges());
    assert_eq!(x.cycles, [vec![LAMP, TABLE]]);
    assert_eq!(
        x.finals[0].digest,
        l.network().replica(P1).unwrap().digest()
    );

    play_to(&mut l, 5);
    assert!(view(&l, P2).cycles().is_empty());
    play_to(&mut l, 6);
    assert_eq!(
        view(&l, P2).fallback_reason(LAMP),
        Fallback::Cycle(&[LAMP, TABLE])
    );
    play_to(&mut l, 7);
    assert_converged(l.network());
    let p2 = view(&l, P2);
    assert!(p2.cycles().is_empty());
    assert_eq!(p2.effective_parent_of(LAMP), Some(TABLE));
}

/// Lesson 7's claims, rule by rule: where each policy draws [Lamp, Table, Bulb] (`None` =
/// hidden) on a peer after a step.
#[test]
fn lesson_7_the_five_rules_disagree_and_ignore_cyclic_change_never_converges() {
    use scenetree_core::scene::policy::{PolicyBoard, TreePolicy, TreePolicy::*};
    const SHELF: Entity = Entity(514);
    const BULB: Entity = Entity(515);
    let root = Some(Entity::ROOT);
    let drawn = |board: &PolicyBoard, peer: PeerId, policy: TreePolicy| {
        [LAMP, TABLE, BULB].map(|e| board.placement(peer, policy, e).unwrap().parent())
    };
    let mut l = lesson("07-five-rules.scenario.json");
    let mut board = PolicyBoard::new();

    play_to(&mut l, 2);
    board.sync(l.network());
    for policy in TreePolicy::ALL {
        assert_eq!(drawn(&board, P1, policy), [Some(TABLE), root, Some(LAMP)]);
        assert_eq!(
            drawn(&board, P2, policy),
            [Some(SHELF), Some(LAMP), Some(LAMP)]
        );
    }

    play_to(&mut l, 3);
    board.sync(l.network());
    for (policy, want) in [
        (RootFallback, [root, root, Some(LAMP)]),
        (IgnoreCyclicChange, [Some(TABLE), root, Some(LAMP)]),
        (RevertToEarlierParent, [Some(SHELF), Some(LAMP), Some(LAMP)]),
        (MoveOpSkip, [Some(TABLE), root, Some(LAMP)]),
        (HideCycle, [None, None, None]),
    ] {
        assert_eq!(drawn(&board, P1, policy), want, "{policy:?} at step 3");
    }

    play_to(&mut l, 4);
    board.sync(l.network());
    assert_converged(l.network());
    assert_eq!(
        drawn(&board, P2, IgnoreCyclicChange),
        [Some(SHELF), Some(LAMP), Some(LAMP)]
    );
    for policy in TreePolicy::ALL {
        let agree = policy != IgnoreCyclicChange;
        assert_eq!(board.agreement(policy).agree, agree, "{policy:?} at step 4");
    }

    play_to(&mut l, 5);
    board.sync(l.network());
    assert_converged(l.network());
    for peer in [P1, P2] {
        for policy in [RootFallback, RevertToEarlierParent, HideCycle] {
            assert_eq!(drawn(&board, peer, policy), [root, Some(LAMP), Some(LAMP)]);
        }
        assert_eq!(drawn(&board, peer, MoveOpSkip), [root, root, Some(LAMP)]);
    }
    assert_eq!(
        drawn(&board, P1, IgnoreCyclicChange),
        [root, root, Some(LAMP)]
    );
    assert_eq!(
        drawn(&board, P2, IgnoreCyclicChange),
        [root, Some(LAMP), Some(LAMP)]
    );
    for policy in TreePolicy::ALL {
        let agree = policy != IgnoreCyclicChange;
        assert_eq!(
            board.agreement(policy).agree,
            agree,
            "{policy:?} at the end"
        );
    }
}

/// The peers lessons (the multiplayer ones, `scenetree-net-scenario/1`, are tested in
/// `tests/net/lessons.rs`).
fn lesson_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scenes())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".scenario.json"))
        .filter(|n| {
            let text = std::fs::read_to_string(scenes().join(n)).unwrap();
            !scenetree_core::net::lesson::is_net_scenario(&text)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn the_lessons_are_numbered_with_the_concurrent_reparent_first() {
    let names = lesson_files();
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(names[0], "01-concurrent-reparent.scenario.json");
    for (i, name) in names.iter().enumerate() {
        assert!(name.starts_with(&format!("{:02}-", i + 1)), "{name}");
    }
}

#[test]
fn every_lesson_explains_every_step_and_ends_converged() {
    for name in lesson_files() {
        let l = lesson(&name);
        let s = l.scenario();
        assert!(!s.title.is_empty() && !s.explanation.is_empty(), "{name}");
        assert!(
            s.steps
                .iter()
                .all(|st| st.text.as_deref().is_some_and(|t| t.len() > 20)),
            "{name}: every step says what to look at"
        );
        let done = s.run().unwrap();
        assert_converged(done.network());
    }
}

/// Per-peer digests after every event of a run.
fn digests_per_event(net: &Network) -> Vec<Vec<u128>> {
    let mut replay = net.clone();
    replay.seek(0).unwrap();
    let mut out = vec![replay.replicas().iter().map(Replica::digest).collect()];
    while replay.step_forward() {
        out.push(replay.replicas().iter().map(Replica::digest).collect());
    }
    out
}

#[test]
fn every_lesson_replays_and_saves_to_identical_states_at_every_step() {
    for name in lesson_files() {
        let run = lesson(&name).scenario().run().unwrap();
        let net = run.network();
        // Played step by step, the digests after each step's last event are those of a replay.
        let per_event = digests_per_event(net);
        let mut player = lesson(&name);
        while player.next_step().unwrap() {
            let now: Vec<u128> = player
                .network()
                .replicas()
                .iter()
                .map(Replica::digest)
                .collect();
            assert_eq!(now, per_event[player.network().cursor()], "{name}");
        }
        // Saved as a run and loaded back, it replays to the same states event by event.
        let saved = net.to_scenario("saved", "");
        let reloaded = parse(&saved.to_json()).unwrap();
        assert_eq!(reloaded, saved, "{name}: the JSON round trip is exact");
        // Written a step at a time (as a live session records), it reads back the same.
        let mut streamed = ScenarioWriter::start(&saved, Vec::new()).unwrap();
        for step in &saved.steps {
            streamed.step(step).unwrap();
        }
        let streamed = String::from_utf8(streamed.finish().unwrap()).unwrap();
        assert_eq!(parse(&streamed).unwrap(), saved, "{name}: streamed");
        let again = reloaded.run().unwrap();
        assert_eq!(digests_per_event(again.network()), per_event, "{name}");
        assert_eq!(again.network().events(), net.events(), "{name}");
    }
}

#[test]
fn a_rewound_lesson_shows_the_earlier_step_and_next_step_replays_it_until_a_change_replaces_it() {
    let mut l = lesson("01-concurrent-reparent.scenario.json");
    let steps = l.scenario().steps.len();
    play_to(&mut l, steps);
    assert!(l.is_finished() && !l.is_rewound());
    let ends = l.step_ends().to_vec();
    let recorded = l.network().events().len();
    let text_of = |l: &ScenarioPlayer, step: usize| {
        l.scenario().steps[step - 1]
            .text
            .clone()
            .unwrap_or_default()
    };

    // Scrubbed back to the end of step 2: the header and text are step 2's, not the last.
    l.network_mut().seek(ends[1]).unwrap();
    assert_eq!((l.steps_shown(), l.steps_played()), (2, steps));
    assert!(l.is_rewound() && !l.is_finished());
    assert_eq!(l.text(), text_of(&l, 2));
    // Inside a step of several events, the step last completed is shown.
    let long = (1..ends.len())
        .find(|&i| ends[i] - ends[i - 1] >= 2)
        .expect("a step with several events");
    l.network_mut().seek(ends[long - 1] + 1).unwrap();
    assert_eq!(l.steps_shown(), long);
    l.network_mut().seek(ends[1]).unwrap();

    // Next step replays step 3 from the timeline: nothing new is recorded.
    assert_eq!(l.next_step_lenient(), Some(Vec::new()));
    assert_eq!(l.network().cursor(), ends[2]);
    assert_eq!(l.steps_shown(), 3);
    assert_eq!(l.network().events().len(), recorded);
    assert_eq!(l.text(), text_of(&l, 3));

    // A change of the user's own after a rewind replaces the later steps: they can be
    // played again.
    l.network_mut().seek(ends[0]).unwrap();
    l.network_mut().tick(1);
    l.forget_replaced_steps();
    assert_eq!(l.steps_played(), 1);
    assert!(!l.is_rewound());
    assert!(l.next_step_lenient().is_some());
    assert_eq!(l.steps_played(), 2);
    assert!(
        l.network().events().len() > ends[0] + 1,
        "step 2 was played anew"
    );
}

#[test]
fn a_run_without_replies_sends_none_and_its_saved_run_says_so() {
    // Lesson 3: an equal-timestamp write loses and its sender gets a reply.
    let run = lesson("03-equal-timestamps.scenario.json")
        .scenario()
        .run()
        .unwrap();
    let replies = |net: &Network| {
        (net.events().iter())
            .filter(|e| matches!(&e.kind, EventKind::Deliver { sent, .. } if !sent.is_empty()))
            .count()
    };
    assert!(
        replies(run.network()) > 0,
        "the lesson answers an outdated sender"
    );
    let mut quiet = lesson("03-equal-timestamps.scenario.json")
        .scenario()
        .clone();
    quiet.replies = false;
    let quiet_run = quiet.run().unwrap();
    assert_eq!(replies(quiet_run.network()), 0);
    let saved = quiet_run.network().to_scenario("quiet", "");
    assert!(!saved.replies);
    assert!(saved.to_json().contains("\"replies\": false"));
    assert_eq!(parse(&saved.to_json()).unwrap(), saved);
    let plain = parse(r#"{"format": "scenetree-scenario/1", "peers": 2, "steps": []}"#).unwrap();
    assert!(plain.replies && !plain.to_json().contains("replies"));
}

#[test]
fn peer_names_round_trip_and_must_name_every_peer() {
    let text = r#"{"format": "scenetree-scenario/1", "peers": 2,
        "peer_names": ["This editor (peer 1)", "Host (peer 2)"], "steps": []}"#;
    let named = parse(text).unwrap();
    assert_eq!(named.peer_names, ["This editor (peer 1)", "Host (peer 2)"]);
    assert_eq!(parse(&named.to_json()).unwrap(), named);
    let short = parse(&text.replace(r#", "Host (peer 2)""#, "")).unwrap_err();
    assert!(short.to_string().contains("peer_names"), "{short}");
    let plain = parse(r#"{"format": "scenetree-scenario/1", "peers": 2, "steps": []}"#).unwrap();
    assert!(plain.peer_names.is_empty());
    assert!(
        !plain.to_json().contains("peer_names"),
        "files without names stay as they were"
    );
}

#[test]
fn a_lesson_knows_when_the_learner_took_it_off_its_script() {
    let mut player = lesson("01-concurrent-reparent.scenario.json");
    assert!(!player.off_script(), "at the start");
    play_to(&mut player, 2);
    assert!(!player.off_script(), "the lesson's own steps");
    // The learner delivers peer 1's message by hand, before the step that would.
    let first = player.network().in_flight()[0].id;
    (player.network_mut())
        .deliver(first)
        .expect("a message in flight");
    assert!(player.off_script(), "a change made by hand");
    assert!(player.next_step_lenient().is_some());
    assert!(
        player.off_script(),
        "the next step played on the learner's state, not the one its text describes"
    );
    // Back at a step the lesson played on its own, the text matches again.
    let end = player.step_ends()[1];
    player.network_mut().seek(end).unwrap();
    assert!(!player.off_script());
}

#[test]
fn a_timeline_rewound_into_the_middle_of_a_step_is_still_the_lessons_own_run() {
    let mut player = lesson("08-inspector-tree-loses-an-edit.scenario.json");
    play_to(&mut player, 4);
    let (second, third) = (player.step_ends()[1], player.step_ends()[2]);
    assert!(third - second >= 2, "step 3 holds several events");
    player.network_mut().seek(second + 1).unwrap();
    assert!(
        !player.off_script(),
        "between two of the lesson's own steps"
    );
    // An operation made there replaces the rest of the run: now it is the learner's.
    let first = player.network().in_flight()[0].id;
    player.network_mut().drop_message(first).unwrap();
    assert!(player.off_script(), "a drop made by hand while rewound");
}
