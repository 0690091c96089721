//! Names for new entities and copies, numbered as the Decentraland Inspector numbers them, so
//! that a scene edited in both tools reads one way: the first "Entity", then "Entity_2",
//! "Entity_3"; a copy of "Lamp" is "Lamp_2", a copy of "Lamp_2" is "Lamp_3".
//!
//! The rule (creator-hub, `inspector/src/lib/sdk/operations/add-child.ts`,
//! `generateUniqueName`): strip a trailing `_<digits>` from the wanted name to get its base;
//! if no entity is called the base or `base_<digits>` (ignoring case), the name is the base;
//! otherwise it is `base_<n + 1>`, with `n` the largest number in use (at least 1). The
//! Inspector matches with a regular expression built from the base; here the base is compared
//! literally, so a name holding `.` or `(` is numbered like any other.

use rustc_hash::FxHashMap;

use scenetree_core::model::{Entity, decode_name, ids, present};

use super::document::Document;

impl Document {
    /// The entity's `core-schema::Name`, if it has a valid one.
    pub fn name_of(&self, entity: Entity) -> Option<String> {
        self.replica()
            .component_data(entity, ids::NAME)
            .and_then(decode_name)
    }

    /// What the UI calls an entity: its name, or "Root"/"Player"/"Camera", or "Entity 512".
    pub fn display_name(&self, entity: Entity) -> String {
        present::entity_name(entity, self.name_of(entity).as_deref())
    }

    /// A component's name: the runtime's, the Inspector's or a smart item's, else the one
    /// the scene's composite gives, else its id.
    pub fn component_label(&self, id: u32) -> String {
        scenetree_core::model::component::known_component_name(id)
            .map(str::to_owned)
            .or_else(|| {
                let composite = self.save_context.composite.as_ref()?;
                composite.name_of(id).map(str::to_owned)
            })
            .unwrap_or_else(|| id.to_string())
    }

    /// A parenting cycle as people read it: "Lamp → Table → Lamp".
    pub fn cycle_ring(&self, members: &[Entity]) -> String {
        present::cycle_ring(members, |m| self.display_name(m))
    }

    /// The names in use in the scene, ready to number new ones (see [`SceneNames::take`]).
    /// Built once per edit: one pass over the scene's names, however many entities the edit
    /// names.
    pub(super) fn scene_names(&self) -> SceneNames {
        let replica = self.replica();
        SceneNames::of(replica.live_entities().filter_map(|e| {
            let bytes = replica.component_data(e, ids::NAME)?;
            // A core-schema::Name: a 4-byte length, then the text, read in place.
            let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
            let text = bytes.get(4..).filter(|t| t.len() == len)?;
            std::str::from_utf8(text).ok()
        }))
    }
}

/// The names in use, by numbering base: for each lower-cased base, the largest number taken
/// (`base_<n>`; the bare base counts as 1).
#[derive(Debug, Default)]
pub(super) struct SceneNames {
    largest: FxHashMap<String, u64>,
}

impl SceneNames {
    /// The numbering state of a list of names in use.
    pub(super) fn of<'a>(in_use: impl Iterator<Item = &'a str>) -> Self {
        let mut names = SceneNames::default();
        for name in in_use {
            names.record(name);
        }
        names
    }

    /// A name from `wanted` that no name in use has, recorded as in use for the next call.
    /// (Callers keep an empty name empty: an unnamed entity's copy is unnamed too.)
    pub(super) fn take(&mut self, wanted: &str) -> String {
        let base = number_suffix(wanted).map_or(wanted, |(base, _)| base);
        let name = match self.largest.get(&base.to_lowercase()) {
            None => base.to_string(),
            Some(&n) => format!("{base}_{}", n.max(1).saturating_add(1)),
        };
        self.record(&name);
        name
    }

    fn record(&mut self, name: &str) {
        let name = name.to_lowercase();
        if let Some((stem, n)) = number_suffix(&name) {
            let largest = self.largest.entry(stem.to_string()).or_insert(n);
            *largest = (*largest).max(n);
        }
        self.largest.entry(name).or_insert(1);
    }
}

/// Splits `name_<digits>` into the name and the number (saturated to `u64::MAX`); `None` when
/// the name does not end in an underscore and ASCII digits.
fn number_suffix(name: &str) -> Option<(&str, u64)> {
    let (stem, digits) = name.rsplit_once('_')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((stem, digits.parse().unwrap_or(u64::MAX)))
}

#[cfg(test)]
mod tests {
    use super::SceneNames;

    fn named(wanted: &str, in_use: &[&str]) -> String {
        SceneNames::of(in_use.iter().copied()).take(wanted)
    }

    // The cases of the Inspector's own tests (add-child.spec.ts), with its answers.
    #[test]
    fn numbers_names_as_the_inspector_does() {
        assert_eq!(named("SomeName", &[]), "SomeName");
        assert_eq!(named("SomeName", &["SomeName"]), "SomeName_2");
        assert_eq!(
            named("SomeName", &["SomeName", "SomeName_1", "SomeName_2"]),
            "SomeName_3"
        );
        assert_eq!(named("SomeName", &["SomeName_123_1"]), "SomeName");
        assert_eq!(named("SomeName", &["someName", "SomeName_1"]), "SomeName_2");
        assert_eq!(named("SomeName", &["SomeName", "SOMENAME_1"]), "SomeName_2");
        assert_eq!(
            named("SomeName", &["SomeName_1", "SomeName_2", "SomeName_3"]),
            "SomeName_4"
        );
        assert_eq!(
            named("SomeName", &["SomeName", "SomeName_10"]),
            "SomeName_11"
        );
        assert_eq!(named("SomeName", &["SomeName_"]), "SomeName");
    }

    #[test]
    fn a_numbered_name_is_numbered_from_its_base() {
        assert_eq!(named("Lamp_2", &["Lamp", "Lamp_2"]), "Lamp_3");
        assert_eq!(named("Lamp_7", &[]), "Lamp");
        assert_eq!(named("Lamp", &["Lamp shade"]), "Lamp");
    }

    #[test]
    fn odd_names_are_compared_literally_and_never_overflow() {
        assert_eq!(named("a.b (1)", &["a.b (1)", "axb (1)_5"]), "a.b (1)_2");
        assert_eq!(
            named("Big", &["Big", "Big_99999999999999999999999"]),
            format!("Big_{}", u64::MAX)
        );
        assert_eq!(named("Ünï", &["ÜNÏ"]), "Ünï_2");
        assert_eq!(
            named("", &["", "_2"]),
            "_3",
            "the pure function numbers anything"
        );
    }
}
