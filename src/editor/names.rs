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

use crate::model::ids;

use super::document::Document;

impl Document {
    /// A name for a new entity or a copy, from `wanted`, not used by any entity of the scene
    /// nor by `also_taken` (names chosen earlier in the same edit). An empty name stays empty:
    /// an unnamed entity's copy is unnamed too.
    pub fn unique_name(&self, wanted: &str, also_taken: &[String]) -> String {
        if wanted.is_empty() {
            return String::new();
        }
        let replica = self.replica();
        let scene_names = replica.live_entities().filter_map(|e| {
            let bytes = replica.component_data(e, ids::NAME)?;
            // The 4-byte length prefix of a core-schema::Name; the text is read in place.
            std::str::from_utf8(bytes.get(4..)?).ok()
        });
        unique_name(
            wanted,
            scene_names.chain(also_taken.iter().map(String::as_str)),
        )
    }
}

/// [`Document::unique_name`] over a list of names in use.
pub fn unique_name<'a>(wanted: &str, in_use: impl Iterator<Item = &'a str>) -> String {
    let base = match number_suffix(wanted) {
        Some((base, _)) => base,
        None => wanted,
    };
    let base_lower = base.to_lowercase();
    let mut largest: Option<u64> = None;
    for name in in_use {
        let name = name.to_lowercase();
        let number = match number_suffix(&name) {
            Some((stem, n)) if stem == base_lower => Some(n),
            _ if name == base_lower => Some(1), // the bare base counts as number 1
            _ => None,
        };
        if let Some(n) = number {
            largest = Some(largest.map_or(n, |l| l.max(n)));
        }
    }
    match largest {
        None => base.to_string(),
        Some(n) => format!("{base}_{}", n.max(1).saturating_add(1)),
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
    use super::unique_name;

    fn named(wanted: &str, in_use: &[&str]) -> String {
        unique_name(wanted, in_use.iter().copied())
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
