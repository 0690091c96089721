//! The capture format: what the writer writes the reader reads, bad lines are named by line
//! and field, and a session the model ran, written as a capture, replays to the same bytes.

use scenetree_core::crdt::stream::Dialect;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::net::capture::{Base64, Capture, CaptureTick, SentItem, replay_with};
use scenetree_core::net::{EntityRef, SceneOp, Session};

use super::session::{ALICE, BOB, spawn_parent_and_child};

const CAROL: &str = "0xCAROL0000000000000000000000000000000003";

fn sample() -> Capture {
    let mut capture = Capture::new([ALICE, BOB]);
    capture.ticks.push((
        0,
        CaptureTick {
            player: ALICE.to_string(),
            tick: 0,
            received: vec![Base64(vec![3, b'0', b'x', b'b', 2])],
            sent: vec![SentItem {
                to: vec![BOB.to_string()],
                data: Base64(vec![2]),
            }],
            renderer: Some(Base64(vec![0xFF; 5])),
            t: Some(serde_json::Number::from_f64(16.5).unwrap()),
        },
    ));
    capture.ticks.push((
        0,
        CaptureTick {
            player: BOB.to_string(),
            tick: 0,
            received: vec![],
            sent: vec![],
            renderer: None,
            t: None,
        },
    ));
    capture
}

#[test]
fn what_the_writer_writes_the_reader_reads() {
    let capture = sample();
    let text = capture.to_jsonl();
    assert_eq!(text.lines().count(), 3);
    assert!(text.starts_with(
        r#"{"format":"scenetree-net-capture/1","sdk":"7.28.0","players":[{"address":"0xa11ce"#
    ));
    // Keys in the format's order; absent optional fields are left out.
    assert!(text.contains(r#"{"player":"0xb0b0000000000000000000000000000000000002","tick":0,"received":[],"sent":[]}"#));
    let read = Capture::parse(&text).unwrap();
    let strip = |c: &Capture| c.ticks.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>();
    assert_eq!(read.header, capture.header);
    assert_eq!(strip(&read), strip(&capture));
    assert_eq!(read.ticks[1].0, 3, "ticks remember their line");
    assert_eq!(read.to_jsonl(), text);
}

#[test]
fn bad_lines_are_named_by_line_and_field() {
    let text = sample().to_jsonl();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let with = |n: usize, line: &str| {
        let mut lines = lines.clone();
        lines[n] = line.to_string();
        lines.join("\n")
    };
    let err =
        Capture::parse(&with(1, &lines[1].replace("\"Ag==\"", "\"not base64!\""))).unwrap_err();
    assert_eq!((err.line, err.field.as_str()), (2, "sent[0].data"), "{err}");
    assert!(
        err.to_string()
            .starts_with("line 2, field sent[0].data: not base64"),
        "{err}"
    );
    let err = Capture::parse(&with(1, &lines[1].replace("\"tick\":0", "\"tick\":-1"))).unwrap_err();
    assert_eq!((err.line, err.field.as_str()), (2, "tick"));
    let err = Capture::parse(&with(
        2,
        r#"{"player":"0xnobody","tick":0,"received":[],"sent":[]}"#,
    ))
    .unwrap_err();
    assert_eq!((err.line, err.field.as_str()), (3, "player"));
    let err = Capture::parse(&with(2, r#"{"player":"#)).unwrap_err();
    assert_eq!(err.line, 3);
    assert!(err.message.contains("cut short"), "{err}");
    let err = Capture::parse(&with(
        0,
        &lines[0].replace("net-capture/1", "net-capture/9"),
    ))
    .unwrap_err();
    assert_eq!((err.line, err.field.as_str()), (1, "format"));
    let err = Capture::parse(&with(
        2,
        r#"{"player":"0xb0b0000000000000000000000000000000000002","tick":0,"sent":[]}"#,
    ))
    .unwrap_err();
    assert_eq!(err.line, 3);
    assert!(err.message.contains("received"), "{err}");
    lines.insert(1, String::new());
    assert_eq!(
        Capture::parse(&lines.join("\n")).unwrap().ticks.len(),
        2,
        "blank lines are skipped"
    );
    assert_eq!(Capture::parse("").unwrap_err().line, 1);
}

/// Runs a session of three players with late joins, delays and a deleted parent, recording
/// every tick as a capture line.
fn recorded_session() -> (Capture, Vec<Vec<u8>>) {
    let addresses = [ALICE, BOB, CAROL];
    let mut session = Session::new(addresses, Dialect::Mainline);
    let mut capture = Capture::new(addresses);
    let mut renderers = Vec::new();
    let mut step = |session: &mut Session, player: usize, ops: &[SceneOp]| {
        let out = session.step(player, ops).unwrap();
        renderers.push(out.renderer.clone());
        capture
            .ticks
            .push((0, CaptureTick::from_output(addresses[player], &out)));
    };
    // Alice's first tick makes the parent and child (nothing goes out yet); Bob joins.
    step(&mut session, 0, &spawn_parent_and_child(0, 1));
    step(&mut session, 1, &[]);
    for _ in 0..3 {
        step(&mut session, 0, &[]);
        step(&mut session, 1, &[]);
    }
    // Bob moves Alice's child; Carol joins late and gets two state answers.
    let child = session.players()[1].engine().network_map()[1].1;
    let moved = Transform {
        position: glam::Vec3::new(1.0, 2.0, 3.0),
        ..Transform::IDENTITY
    };
    step(
        &mut session,
        1,
        &[SceneOp::transform(EntityRef::Network(child), &moved)],
    );
    step(&mut session, 2, &[]);
    for _ in 0..3 {
        for player in 0..3 {
            step(&mut session, player, &[]);
        }
    }
    // Alice deletes the parent; one of Carol's frames is held back a while.
    step(
        &mut session,
        0,
        &[SceneOp::Remove {
            entity: EntityRef::Scene(0),
        }],
    );
    if let Some(frame) = session.frames().waiting_for(2).first().map(|f| f.id) {
        session.frames_mut().delay(frame, 4).unwrap();
    }
    for _ in 0..4 {
        for player in 0..3 {
            step(&mut session, player, &[]);
        }
    }
    (capture, renderers)
}

#[test]
fn a_session_written_as_a_capture_replays_to_the_same_bytes() {
    let (capture, renderers) = recorded_session();
    let text = capture.to_jsonl();
    let read = Capture::parse(&text).unwrap();
    let mut mismatched = Vec::new();
    let mut count = 0;
    let replay = replay_with(&read, |tick| {
        count += 1;
        if std::env::var_os("SCENETREE_NET_EXPLAIN").is_some() && !tick.matches() {
            let (_, line) = read.ticks.iter().find(|(l, _)| *l == tick.line).unwrap();
            let show = |b: &[u8]| {
                format!(
                    "{:?}",
                    scenetree_core::crdt::decode_stream_prefix(b).0.messages
                )
            };
            eprintln!(
                "line {} {} tick {} ops {:?}",
                tick.line, line.player, line.tick, tick.ops
            );
            eprintln!(" ours   {}", show(&tick.output.renderer));
            eprintln!(" theirs {}", show(&line.renderer.as_ref().unwrap().0));
            for s in &tick.output.sent {
                eprintln!(
                    " sent ours {:?} {:?}",
                    s.to,
                    &s.data[..s.data.len().min(60)]
                );
            }
            for s in &line.sent {
                eprintln!(
                    " sent theirs {:?} {:?}",
                    s.to,
                    &s.data.0[..s.data.0.len().min(60)]
                );
            }
        }
        if !tick.matches() || !tick.notes.is_empty() {
            mismatched.push((
                tick.line,
                tick.renderer_differs_at,
                tick.sent_differs.clone(),
                tick.notes.clone(),
            ));
        }
    });
    assert_eq!(count, renderers.len());
    assert!(mismatched.is_empty(), "{mismatched:?}");
    // The remote delete hit Bob's and Carol's renderers with Alice's own number.
    let kinds: Vec<_> = replay
        .hazards
        .iter()
        .flatten()
        .map(|h| h.kind.as_str())
        .collect();
    assert!(kinds.contains(&"wrong_entity_deleted"), "{kinds:?}");
    // Every player's own writes were recovered as the session's ops.
    assert!(matches!(
        replay.ops[1][4].1[..],
        [SceneOp::Put {
            entity: EntityRef::Network(_),
            ..
        }]
    ));
    // Bob's renderer lost the parent; the child, never sent again, still names it.
    assert_eq!(
        replay.players[1].renderer().tree(),
        [(Entity(513), Entity(512))]
    );
}
