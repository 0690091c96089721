//! The message table's rows: what each in-flight message would change on its receiver, field
//! by field, so a rotation reads as a rotation and a reparent as a reparent.

use glam::{Quat, Vec3};
use scenetree_core::crdt::network::{FieldChange, MessageEffect, MessageRow};
use scenetree_core::crdt::{LocalWrite, MessageId, MessageKind, Network, PeerId};
use scenetree_core::model::{Entity, EulerOrder, Transform};

use crate::furnished::*;

fn row(net: &Network, id: u64) -> MessageRow {
    net.message_row(net.message(MessageId(id)).unwrap())
}

fn text(net: &Network, row: &MessageRow) -> String {
    row.effect
        .text(EulerOrder::Xyz, &|e| net.entity_label(e, row.to))
}

#[test]
fn a_reparent_reads_as_a_new_parent_and_nothing_else() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    let r = row(&net, 1);
    assert_eq!((r.from, r.to, r.kind), (P1, P2, MessageKind::Write));
    assert_eq!(
        (r.entity, r.component.as_deref()),
        (LAMP, Some("Transform"))
    );
    assert_eq!(r.timestamp, Some(2));
    assert!(!r.stale);
    assert_eq!(
        r.effect,
        MessageEffect::Transform {
            new: false,
            changes: vec![FieldChange::Parent {
                before: Entity::ROOT,
                after: TABLE
            }]
        }
    );
    assert_eq!(text(&net, &r), "parent Root → Table");
}

#[test]
fn a_rotation_reads_as_euler_angles_and_only_the_ones_that_changed() {
    let mut net = furnished(2, 0);
    let turned = Transform {
        rotation: Quat::from_rotation_y(90f32.to_radians()),
        ..at(1.0, Entity::ROOT)
    };
    net.write(P1, LocalWrite::transform(LAMP, &turned)).unwrap();
    let r = row(&net, 1);
    assert_eq!(text(&net, &r), "rotation Y 0° → 90°");
    // In another order the axis labels follow the order.
    let yxz = r.effect.text(EulerOrder::Yxz, &|e| net.entity_label(e, P2));
    assert_eq!(yxz, "rotation Y 0° → 90°");
}

#[test]
fn position_and_scale_read_with_short_numbers_and_no_negative_zero() {
    let mut net = furnished(2, 0);
    let moved = Transform {
        position: Vec3::new(-0.0001, 1.25, 2.0 / 3.0),
        scale: Vec3::new(2.0, 2.0, 2.0),
        ..at(1.0, Entity::ROOT)
    };
    net.write(P1, LocalWrite::transform(LAMP, &moved)).unwrap();
    let r = row(&net, 1);
    assert_eq!(
        text(&net, &r),
        "position (1, 0, 0) → (0, 1.25, 0.667); scale (1, 1, 1) → (2, 2, 2)"
    );
}

#[test]
fn a_transform_the_receiver_lacks_is_new_and_names_and_deletions_read_plainly() {
    let mut net = furnished(2, 0);
    let lamp2 = Entity(600);
    net.write(P1, move_to(lamp2, 0.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(Entity(601), 2.0, LAMP)).unwrap();
    net.write(P1, LocalWrite::name(LAMP, "Desk lamp")).unwrap();
    net.write(P1, LocalWrite::DeleteEntity { entity: TABLE })
        .unwrap();
    assert_eq!(
        text(&net, &row(&net, 1)),
        "new Transform (identity at the root)"
    );
    assert_eq!(
        text(&net, &row(&net, 2)),
        "new Transform: parent Root → Lamp; position (0, 0, 0) → (2, 0, 0)"
    );
    let name = row(&net, 3);
    assert_eq!(name.component.as_deref(), Some("Name"));
    assert_eq!(text(&net, &name), "name \"Lamp\" → \"Desk lamp\"");
    let last = net.in_flight().back().unwrap();
    let deleted = net.message_row(last);
    assert_eq!((deleted.component, deleted.timestamp), (None, None));
    assert_eq!(deleted.effect, MessageEffect::EntityDeleted);
    let removed: Vec<String> = net
        .in_flight()
        .iter()
        .filter(|m| m.message.entity() == TABLE)
        .map(|m| text(&net, &net.message_row(m)))
        .collect();
    assert!(removed.contains(&"removed".to_string()), "{removed:?}");
}

#[test]
fn a_message_the_receiver_already_outdid_is_stale() {
    let mut net = furnished(2, 0);
    net.set_one_message_per_tick(false);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(LAMP, 4.0, Entity::ROOT)).unwrap();
    net.deliver(MessageId(2)).unwrap();
    let old = row(&net, 1);
    assert!(old.stale, "peer 2 holds timestamp 3 already");
    assert!(!old.already_held, "peer 2 holds another write");
    // Against the receiver's value, the old message would move Lamp back.
    assert_eq!(text(&net, &old), "position (4, 0, 0) → (2, 0, 0)");
    // A message that only repeats what the receiver holds changes nothing.
    net.duplicate(MessageId(1)).unwrap();
    net.deliver(MessageId(1)).unwrap();
    let reply = net
        .in_flight()
        .iter()
        .find(|m| m.kind == MessageKind::Reply)
        .unwrap();
    let r = net.message_row(reply);
    assert_eq!((r.from, r.to), (P2, PeerId(1)));
    assert!(r.stale);
    assert!(r.already_held, "peer 1 made that very write");
    assert_eq!(text(&net, &r), "no change");
}

#[test]
fn the_second_copy_of_a_duplicated_message_is_already_held() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    let copy = net.duplicate(MessageId(1)).unwrap();
    let fresh = net.message_row(net.message(copy).unwrap());
    assert!(!fresh.stale && !fresh.already_held, "nothing delivered yet");
    net.deliver(MessageId(1)).unwrap();
    let repeat = net.message_row(net.message(copy).unwrap());
    assert!(repeat.stale && repeat.already_held);
    assert_eq!(text(&net, &repeat), "no change");
}

#[test]
fn a_value_or_name_the_receiver_already_holds_reads_as_the_same() {
    let mut net = furnished(2, 0);
    // Written and written back within one tick: one message, carrying what peer 2 still has.
    net.write(P1, LocalWrite::name(LAMP, "Desk lamp")).unwrap();
    net.write(P1, LocalWrite::name(LAMP, "Lamp")).unwrap();
    let first = net.in_flight()[0].id;
    assert_eq!(text(&net, &row(&net, first.0)), "same name \"Lamp\"");
    net.deliver(first).unwrap();
    let put = |data: Vec<u8>| LocalWrite::Put {
        entity: LAMP,
        component: 4321,
        data,
    };
    net.write(P1, put(vec![1, 2, 3])).unwrap();
    let id = net.in_flight()[0].id;
    assert_eq!(text(&net, &row(&net, id.0)), "new value (3 bytes)");
    net.deliver(id).unwrap();
    net.write(P1, put(vec![9, 9])).unwrap();
    net.write(P1, put(vec![1, 2, 3])).unwrap();
    let id = net.in_flight()[0].id;
    assert_eq!(text(&net, &row(&net, id.0)), "same value (3 bytes)");
}

#[test]
fn an_inspector_component_is_named_in_the_table() {
    let mut net = furnished(2, 0);
    let config = scenetree_core::model::component_id_from_name("inspector::TransformConfig");
    net.write(
        P1,
        LocalWrite::Put {
            entity: LAMP,
            component: config,
            data: vec![1],
        },
    )
    .unwrap();
    let id = net.in_flight()[0].id;
    let r = row(&net, id.0);
    assert_eq!(r.component.as_deref(), Some("inspector::TransformConfig"));
    assert_eq!(r.component_id, Some(config));
}

#[test]
fn message_texts_name_the_inspectors_components() {
    use scenetree_core::crdt::CrdtMessage;
    use scenetree_core::crdt::network::describe_message;
    use scenetree_core::model::component::component_id_from_name;
    for name in ["inspector::Selection", "inspector::TransformConfig"] {
        let put = CrdtMessage::PutComponent {
            entity: Entity(512),
            component: component_id_from_name(name),
            timestamp: 1,
            data: vec![0],
        };
        let text = describe_message(&put, &|_| None);
        assert!(text.contains(name), "{text}");
    }
}
