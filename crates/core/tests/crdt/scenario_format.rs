//! The scenario format: its writer and reader are one schema (any scenario written is read
//! back equal, and writing what was read gives the same bytes); errors say where and what the
//! file should hold; one action reads alone, as `scenetree live run` reads them.

use glam::{Quat, Vec3};
use proptest::prelude::*;
use scenetree_core::crdt::network::{AutoDelivery, DeliveryOrder, MessageFilter, MessageId};
use scenetree_core::crdt::scenario::{
    ErrorAt, InitialEntity, InitialState, Scenario, ScenarioAction, ScenarioStep, ScenarioWriter,
    Selector, parse, parse_action,
};
use scenetree_core::crdt::{CrdtMessage, PeerId};
use scenetree_core::model::{Entity, Transform};

/// Any 32-bit float a file can hold: finite (JSON has no NaN or infinity), signed, subnormal.
fn finite() -> impl Strategy<Value = f32> {
    use prop::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

fn vec3() -> impl Strategy<Value = Vec3> {
    [finite(), finite(), finite()].prop_map(Vec3::from_array)
}

fn quat() -> impl Strategy<Value = Quat> {
    [finite(), finite(), finite(), finite()].prop_map(Quat::from_array)
}

fn entity() -> impl Strategy<Value = Entity> + Clone {
    any::<u32>().prop_map(Entity)
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..50)
}

fn message() -> impl Strategy<Value = CrdtMessage> {
    let (e, c, t, n) = (entity(), any::<u32>(), any::<u32>(), any::<u32>());
    prop_oneof![
        (e.clone(), c, t, bytes()).prop_map(|(entity, component, timestamp, data)| {
            CrdtMessage::PutComponent {
                entity,
                component,
                timestamp,
                data,
            }
        }),
        (e.clone(), c, t).prop_map(|(entity, component, timestamp)| {
            CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp,
            }
        }),
        e.clone()
            .prop_map(|entity| CrdtMessage::DeleteEntity { entity }),
        (e.clone(), c, t, bytes()).prop_map(|(entity, component, timestamp, data)| {
            CrdtMessage::AppendValue {
                entity,
                component,
                timestamp,
                data,
            }
        }),
        (e.clone(), c, t, n, bytes()).prop_map(
            |(entity, component, timestamp, network_id, data)| CrdtMessage::PutComponentNetwork {
                entity,
                component,
                timestamp,
                network_id,
                data,
            }
        ),
        (e.clone(), c, t, n).prop_map(|(entity, component, timestamp, network_id)| {
            CrdtMessage::DeleteComponentNetwork {
                entity,
                component,
                timestamp,
                network_id,
            }
        }),
        (e, n).prop_map(|(entity, network_id)| CrdtMessage::DeleteEntityNetwork {
            entity,
            network_id
        }),
    ]
}

fn transform() -> impl Strategy<Value = Transform> {
    (entity(), vec3(), quat(), vec3()).prop_map(|(parent, position, rotation, scale)| Transform {
        parent,
        position,
        rotation,
        scale,
    })
}

/// Hand-declared entities; names are unique (the reader refuses a name used twice).
fn initial() -> impl Strategy<Value = InitialState> {
    let one = (
        entity(),
        prop::option::of(".{0,8}"),
        prop::option::of(transform()),
        any::<u32>(),
    );
    (
        prop::collection::vec(one, 0..4),
        prop::collection::vec(message(), 0..6),
    )
        .prop_map(|(entities, stream)| InitialState {
            entities: (entities.into_iter().enumerate())
                .map(|(i, (entity, name, transform, timestamp))| InitialEntity {
                    entity,
                    name: name.map(|n| format!("{n}#{i}")),
                    transform,
                    timestamp,
                })
                .collect(),
            stream,
        })
}

fn selector(peer: BoxedStrategy<PeerId>) -> impl Strategy<Value = Selector> {
    let route = (
        prop::option::of(peer.clone()),
        prop::option::of(peer),
        1usize..100,
    )
        .prop_filter(
            "a route names its sender or its receiver",
            |(from, to, _)| from.is_some() || to.is_some(),
        )
        .prop_map(|(from, to, nth)| Selector::Route { from, to, nth });
    prop_oneof![
        any::<u64>().prop_map(|id| Selector::Id(MessageId(id))),
        route
    ]
}

/// Any action, its peers among `peers`.
fn action(peers: usize) -> impl Strategy<Value = ScenarioAction> {
    let peer = (1..=peers as u8).prop_map(PeerId).boxed();
    let (p, e, c) = (peer.clone(), entity(), any::<u32>());
    let order = prop::sample::select(vec![
        DeliveryOrder::Send,
        DeliveryOrder::Reverse,
        DeliveryOrder::Random,
    ]);
    prop_oneof![
        (
            p.clone(),
            e.clone(),
            prop::option::of(entity()),
            prop::option::of(vec3()),
            prop::option::of(quat()),
            prop::option::of(vec3())
        )
            .prop_map(|(peer, entity, parent, position, rotation, scale)| {
                ScenarioAction::Move {
                    peer,
                    entity,
                    parent,
                    position,
                    rotation,
                    scale,
                }
            }),
        (p.clone(), e.clone(), ".{0,12}").prop_map(|(peer, entity, name)| ScenarioAction::Rename {
            peer,
            entity,
            name
        }),
        (p.clone(), e.clone(), c, bytes()).prop_map(|(peer, entity, component, data)| {
            ScenarioAction::Put {
                peer,
                entity,
                component,
                data,
            }
        }),
        (p.clone(), e.clone(), c, bytes()).prop_map(|(peer, entity, component, data)| {
            ScenarioAction::Append {
                peer,
                entity,
                component,
                data,
            }
        }),
        (p.clone(), e.clone(), c).prop_map(|(peer, entity, component)| {
            ScenarioAction::DeleteComponent {
                peer,
                entity,
                component,
            }
        }),
        (p.clone(), e).prop_map(|(peer, entity)| ScenarioAction::DeleteEntity { peer, entity }),
        (p.clone(), prop::collection::vec(message(), 0..4))
            .prop_map(|(peer, messages)| ScenarioAction::Authored { peer, messages }),
        selector(peer.clone()).prop_map(ScenarioAction::Deliver),
        selector(peer.clone()).prop_map(ScenarioAction::Drop),
        selector(peer.clone()).prop_map(ScenarioAction::Duplicate),
        (selector(peer.clone()), 0usize..1000)
            .prop_map(|(message, index)| ScenarioAction::Reorder { message, index }),
        (
            order,
            prop::option::of(peer.clone()),
            prop::option::of(peer.clone())
        )
            .prop_map(|(order, from, to)| ScenarioAction::DeliverAll {
                order,
                filter: MessageFilter { from, to }
            }),
        (p, any::<bool>()).prop_map(|(peer, online)| ScenarioAction::SetOnline { peer, online }),
        any::<u64>().prop_map(|ticks| ScenarioAction::Tick { ticks }),
        any::<u64>().prop_map(|ticks| ScenarioAction::Advance { ticks }),
        prop::option::of((any::<u64>(), any::<u64>())).prop_map(|a| {
            ScenarioAction::SetAutoDelivery(
                a.map(|(latency, jitter)| AutoDelivery { latency, jitter }),
            )
        }),
        any::<bool>().prop_map(ScenarioAction::SetOneMessagePerTick),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (2usize..=8).prop_flat_map(|peers| {
        let step = (
            prop::option::of(".{0,20}"),
            prop::collection::vec(action(peers), 0..6),
        )
            .prop_map(|(text, actions)| ScenarioStep { text, actions });
        (
            (
                ".{0,20}",
                ".{0,40}",
                any::<bool>(),
                prop::collection::vec(".{0,8}", peers),
            ),
            (
                any::<u64>(),
                (any::<bool>(), any::<bool>()),
                initial(),
                prop::collection::vec(step, 0..5),
            ),
        )
            .prop_map(
                move |(
                    (title, explanation, named, names),
                    (seed, (one, replies), initial, steps),
                )| {
                    Scenario {
                        title,
                        explanation,
                        peers,
                        peer_names: if named { names } else { Vec::new() },
                        seed,
                        one_message_per_tick: one,
                        replies,
                        initial,
                        steps,
                    }
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_written_scenario_reads_back_equal_and_writes_the_same_bytes(s in scenario()) {
        let text = s.to_json();
        let read = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&read, &s);
        prop_assert_eq!(read.to_json(), text);
    }

    /// Written a step at a time (as a live session records), it reads back the same.
    #[test]
    fn a_scenario_written_a_step_at_a_time_reads_back_equal(s in scenario()) {
        let mut writer = ScenarioWriter::start(&s, Vec::new()).unwrap();
        for step in &s.steps {
            writer.step(step).unwrap();
        }
        prop_assert_eq!(writer.steps(), s.steps.len() as u64);
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        let read = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&read, &s);
    }
}

/// The JSON path and message of the error `text` is read with.
fn refused(text: &str) -> (String, String) {
    let e = parse(text).expect_err(text);
    match e.at {
        ErrorAt::Path(path) => (path, e.message),
        ErrorAt::Syntax { .. } => panic!("a syntax error: {e}"),
    }
}

#[test]
fn errors_name_the_path_and_say_what_the_file_should_hold() {
    let file = |rest: &str| format!(r#"{{"format": "scenetree-scenario/1", {rest}}}"#);
    let cases = [
        (
            file(r#""peers": "two", "steps": []"#),
            "peers",
            "expected a whole number ≥ 0",
        ),
        (
            file(r#""peers": 2, "steps": {}"#),
            "steps",
            "expected a list",
        ),
        (
            file(r#""peers": 2, "seed": -1, "steps": []"#),
            "seed",
            "expected a whole number ≥ 0",
        ),
        (
            file(r#""peers": 2, "one_message_per_tick": 1, "steps": []"#),
            "one_message_per_tick",
            "expected true or false",
        ),
        (
            file(r#""peers": 2, "steps": [], "initial": []"#),
            "initial",
            "expected an object",
        ),
        (
            file(r#""peers": 2, "steps": [], "initial": {"entities": [{"entity": 4294967296}]}"#),
            "initial.entities[0].entity",
            "expected a whole number below 2^32",
        ),
        (
            file(
                r#""peers": 2, "steps": [], "initial": {"entities": [{"entity": 512, "scale": [1, 2]}]}"#,
            ),
            "initial.entities[0].scale",
            "expected a list of 3 numbers",
        ),
        (
            file(
                r#""peers": 2, "steps": [], "initial": {"entities": [{"entity": 512, "transform": false, "position": [1, 2, 3]}]}"#,
            ),
            "initial.entities[0].position",
            "this entity has \"transform\": false",
        ),
        (
            file(
                r#""peers": 2, "steps": [], "initial": {"entities": [{"entity": 512, "name": "A"}, {"entity": 513, "name": "A"}]}"#,
            ),
            "initial.entities[1].name",
            "names must be unique",
        ),
        (
            file(
                r#""peers": 2, "steps": [], "initial": {"entities": [{"entity": 512, "parent": "B"}]}"#,
            ),
            "initial.entities[0].parent",
            "no entity is named \"B\"",
        ),
        (
            file(r#""peers": 2, "steps": [], "initial": {"stream": "AAAA"}"#),
            "initial.stream",
            "at byte 0 of the stream",
        ),
        (
            file(r#""peers": 2, "peer_names": ["a"], "steps": []"#),
            "peer_names",
            "one name per peer",
        ),
        (
            file(r#""peers": 2, "sede": 1, "steps": []"#),
            "sede",
            "unknown field \"sede\"",
        ),
        (
            file(r#""peers": 2, "steps": [{"text": 5, "actions": []}]"#),
            "steps[0].text",
            "expected a string",
        ),
        (
            file(r#""peers": 2, "steps": [{"actions": [{"do": "tick", "ticks": -2}]}]"#),
            "steps[0].actions[0].ticks",
            "expected a whole number ≥ 0",
        ),
        (
            file(r#""peers": 2, "steps": [], "initial": {"entities": [[512]]}"#),
            "initial.entities[0]",
            "expected an object",
        ),
        (
            file(r#""peers": 2, "steps": [["hello", []]]"#),
            "steps[0]",
            "expected an object",
        ),
        (
            r#"{"peers": 2, "steps": []}"#.to_owned(),
            "",
            "missing \"format\"",
        ),
        ("[]".to_owned(), "", "expected an object"),
    ];
    for (text, path, message) in cases {
        let (at, said) = refused(&text);
        assert_eq!(at, path, "{text}: {said}");
        assert!(said.contains(message), "{text}: {said}");
    }
}

#[test]
fn one_action_reads_alone_as_one_peers_with_names_looked_up_and_paths_inside_it() {
    let named = |name: &str| match name {
        "Lamp" => Ok(Entity(600)),
        _ => Err(format!("no entity of the scene is named {name:?}")),
    };
    let moved = |peer| ScenarioAction::Move {
        peer,
        entity: Entity(600),
        parent: None,
        position: Some(Vec3::new(1.0, 2.0, 3.0)),
        rotation: None,
        scale: None,
    };
    // The action's own peer, if any, is not read: it is the given peer's.
    for action in [
        serde_json::json!({"do": "move", "peer": 3, "entity": "Lamp", "position": [1, 2, 3]}),
        serde_json::json!({"do": "move", "entity": "Lamp", "position": [1, 2, 3]}),
    ] {
        assert_eq!(
            parse_action(&action, PeerId(1), &named).unwrap(),
            moved(PeerId(1))
        );
    }
    let cases = [
        (
            serde_json::json!({"do": "rename", "entity": "Desk", "name": "x"}),
            "entity",
            "no entity of the scene is named \"Desk\"",
        ),
        (
            serde_json::json!({"do": "move", "entity": 512, "position": [1]}),
            "position",
            "3 numbers",
        ),
        (
            serde_json::json!({"do": "move", "entity": 512, "parnet": 0}),
            "parnet",
            "unknown field \"parnet\"",
        ),
        (
            serde_json::json!({"do": "teleport"}),
            "do",
            "unknown action \"teleport\"",
        ),
        (
            serde_json::json!({"do": "deliver", "from": 2}),
            "from",
            "peers are numbered 1 to 1",
        ),
        (serde_json::json!([1]), "", "expected an object"),
    ];
    for (action, path, message) in cases {
        let e = parse_action(&action, PeerId(1), &named).expect_err("refused");
        assert_eq!(e.at, ErrorAt::Path(path.into()), "{action}: {e}");
        assert!(e.message.contains(message), "{action}: {e}");
        // Under the action's place in a file, the path goes on from there.
        let placed = e.within("steps[2].actions[0]").to_string();
        let expected = match path {
            "" => "at steps[2].actions[0]: ".to_owned(),
            path => format!("at steps[2].actions[0].{path}: "),
        };
        assert!(placed.starts_with(&expected), "{placed}");
    }
}
