//! The text people read about entities, parenting cycles and re-rooted entities, built in one
//! place so the hierarchy, inspector, peers panel, status bar, message descriptions and the CLI
//! say the same thing the same way. It lives in `model` (not `scene`) because the peers
//! simulation's message descriptions (`crdt`) use it too.

use super::Entity;

/// What the editor calls an entity: its name when it has one, else the reserved entity's name
/// (`Root`, `Player`, `Camera`), else `Entity 512` (`Entity 512v3` for a reused number).
pub fn entity_name(entity: Entity, name: Option<&str>) -> String {
    match (name, entity.reserved_name()) {
        (Some(name), _) => name.to_string(),
        (None, Some(reserved)) => reserved.to_string(),
        (None, None) => format!("Entity {entity}"),
    }
}

/// An entity in logs and one-line descriptions, id first: `512 "Lamp"`, or `512` without a
/// name (the name is quoted as a Rust string literal, so any name stays on one line).
pub fn entity_tag(entity: Entity, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{entity} {name:?}"),
        None => entity.to_string(),
    }
}

/// A parenting cycle as people read it, back to where it started: `Lamp → Table → Lamp`.
/// `label` says how to write each member (see [`entity_name`], [`entity_tag`]).
pub fn cycle_ring(members: &[Entity], mut label: impl FnMut(Entity) -> String) -> String {
    let names: Vec<String> = members
        .iter()
        .chain(members.first())
        .map(|&m| label(m))
        .collect();
    names.join(" → ")
}

/// Why an entity on a parenting cycle is drawn at the root, in one sentence; `ring` is its
/// [`cycle_ring`].
pub fn cycle_note(ring: &str) -> String {
    format!(
        "Re-rooted: on the parenting cycle {ring}, so it is drawn at the root until a later \
         write breaks the cycle."
    )
}

/// Why an entity's parent is drawn as the identity at the origin, in one sentence; `declared`
/// is the label of the parent its Transform names.
pub fn missing_parent_note(declared: &str) -> String {
    format!(
        "Missing parent: {declared} has no Transform, so it is drawn as the identity at the origin."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fall_back_to_reserved_names_then_numbers() {
        assert_eq!(entity_name(Entity(512), Some("Lamp")), "Lamp");
        assert_eq!(entity_name(Entity::CAMERA, None), "Camera");
        assert_eq!(
            entity_name(Entity::from_parts(513, 2), None),
            "Entity 513v2"
        );
        assert_eq!(entity_tag(Entity(512), Some("a \"b\"")), r#"512 "a \"b\"""#);
        assert_eq!(entity_tag(Entity(512), None), "512");
    }

    #[test]
    fn a_ring_returns_to_its_first_member() {
        let ring = cycle_ring(&[Entity(600), Entity(601)], |e| e.to_string());
        assert_eq!(ring, "600 → 601 → 600");
        assert_eq!(cycle_ring(&[], |e| e.to_string()), "");
    }
}
