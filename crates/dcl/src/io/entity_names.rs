//! `assets/scene/entity-names.ts`: the TypeScript enum of entity names that the Decentraland
//! Inspector writes beside main.composite on every save, so that scene code can say
//! `engine.getEntityOrNullByName(EntityNames.Front_Door)`. A rename or a new entity saved by
//! scenetree must reach that enum too, or the scene's code goes stale without a word.
//!
//! The text is the Inspector's, byte for byte (creator-hub, `packages/inspector`,
//! `generateEntityNamesType` in `data-layer/host/utils/engine-to-composite.ts`):
//! - every non-empty `core-schema::Name` value, sorted as JavaScript's `Array.prototype.sort`
//!   sorts strings (by UTF-16 code units), repeats dropped;
//! - the key replaces each UTF-16 code unit outside `[A-Za-z0-9_]` with `_`, puts `_` before a
//!   leading digit, and takes the first free `_1`, `_2`, … suffix when an earlier name already
//!   made the same key;
//! - the value is the name in double quotes.
//!
//! One deliberate difference: the Inspector writes the name between quotes as it is, which
//! breaks the file for a name holding `"`, `\` or a line break. Those names (and only those) are
//! escaped here as `JSON.stringify` escapes them, which is what the Inspector's own newer
//! generator (its UI-designer branch) does.

use rustc_hash::{FxHashMap, FxHashSet};

use scenetree_core::crdt::Replica;
use scenetree_core::model::component::{decode_name, ids};

/// Where a project keeps the file, relative to its root.
pub const ENTITY_NAMES_PATH: &str = "assets/scene/entity-names.ts";

/// The file's text for the names the replica holds.
pub fn entity_names_ts(replica: &Replica) -> String {
    let mut names: Vec<String> = replica
        .live_entities()
        .filter_map(|e| replica.component_data(e, ids::NAME))
        .filter_map(decode_name)
        .filter(|name| !name.is_empty())
        .collect();
    names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    names.dedup();

    let mut out = String::from(
        "// Auto-generated entity names from the scene\n\n\n/**\n * Object containing all entity \
         names in the scene for autocomplete support.\n */\nexport enum EntityNames {\n",
    );
    let mut keys: FxHashSet<String> = FxHashSet::default();
    // Per base key, the suffix to try first: every lower one was taken when last tried, and
    // keys are never given back, so the first free suffix is the Inspector's (which counts
    // from 1 each time: quadratic in the names that share a key, as same-length names in
    // Chinese or Japanese all do).
    let mut next_suffix: FxHashMap<String, usize> = FxHashMap::default();
    for name in &names {
        let base = enum_key(name);
        let key = if keys.contains(&base) {
            let suffix = next_suffix.entry(base.clone()).or_insert(1);
            loop {
                let candidate = format!("{base}_{suffix}");
                *suffix += 1;
                if !keys.contains(&candidate) {
                    break candidate;
                }
            }
        } else {
            base
        };
        out.push_str("  ");
        out.push_str(&key);
        out.push_str(" = ");
        out.push_str(&quoted(name));
        out.push_str(",\n");
        keys.insert(key);
    }
    out.push_str("} \n");
    out
}

/// The enum key the Inspector derives from a name (see the module docs). JavaScript's regular
/// expressions without the `u` flag see UTF-16 code units, so a character outside the Basic
/// Multilingual Plane (an emoji) becomes two underscores.
fn enum_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len() + 1);
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        key.push('_');
    }
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            key.push(c);
        } else {
            key.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    key
}

/// The name between double quotes: as the Inspector writes it, unless that would not be a
/// valid string literal, then escaped as `JSON.stringify` escapes it (serde_json's escaping is
/// the same for every string Rust can hold).
fn quoted(name: &str) -> String {
    let plain = !name
        .chars()
        .any(|c| matches!(c, '"' | '\\' | '\u{2028}' | '\u{2029}') || c.is_control());
    if plain {
        format!("\"{name}\"")
    } else {
        serde_json::to_string(name).expect("a string always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::Entity;
    use scenetree_core::model::component::encode_name;

    fn replica_named(names: &[&str]) -> Replica {
        let mut replica = Replica::new();
        for (i, name) in names.iter().enumerate() {
            replica
                .put(Entity(512 + i as u32), ids::NAME, encode_name(name))
                .unwrap();
        }
        replica
    }

    fn entries(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| l.starts_with("  "))
            .map(str::trim)
            .collect()
    }

    #[test]
    fn names_sort_and_turn_into_keys_as_the_inspector_does() {
        let text = entity_names_ts(&replica_named(&[
            "Front Door",
            "1st floor",
            "Lamp",
            "Lamp",
            "Lamp!",
            "Lamp?",
            "",
            "Fougère ✓",
            "🌲 Tree",
            "b",
            "B",
        ]));
        assert_eq!(
            entries(&text),
            [
                r#"_1st_floor = "1st floor","#,
                r#"B = "B","#,
                r#"Foug_re__ = "Fougère ✓","#,
                r#"Front_Door = "Front Door","#,
                r#"Lamp = "Lamp","#,
                r#"Lamp_ = "Lamp!","#,
                r#"Lamp__1 = "Lamp?","#,
                r#"b = "b","#,
                // An emoji is two UTF-16 code units: two underscores, and it sorts last.
                r#"___Tree = "🌲 Tree","#,
            ]
        );
        assert!(text.ends_with(",\n} \n"), "{text:?}");
    }

    #[test]
    fn a_name_that_would_break_the_string_literal_is_escaped() {
        let text = entity_names_ts(&replica_named(&["Say \"hi\"", "back\\slash", "two\nlines"]));
        assert_eq!(
            entries(&text),
            [
                r#"Say__hi_ = "Say \"hi\"","#,
                r#"back_slash = "back\\slash","#,
                r#"two_lines = "two\nlines","#,
            ]
        );
    }

    #[test]
    fn a_scene_without_names_gets_an_empty_enum() {
        assert_eq!(
            entity_names_ts(&Replica::new()),
            "// Auto-generated entity names from the scene\n\n\n/**\n * Object containing all \
             entity names in the scene for autocomplete support.\n */\nexport enum EntityNames \
             {\n} \n"
        );
    }

    #[test]
    fn keys_shared_by_many_names_take_the_first_free_suffix_each() {
        // Same-length names in another script all make one key; a name that is itself a
        // suffixed key takes that key first, so the next sharer skips it.
        let names = ["木", "林", "__1", "森", "_", "__2x", "火"];
        let text = entity_names_ts(&replica_named(&names));
        let mut sorted = names.to_vec();
        sorted.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        // The Inspector's rule, literally: from suffix 1 each time.
        let mut keys: Vec<String> = Vec::new();
        let mut expected = Vec::new();
        for name in sorted {
            let base = enum_key(name);
            let mut key = base.clone();
            let mut suffix = 1;
            while keys.contains(&key) {
                key = format!("{base}_{suffix}");
                suffix += 1;
            }
            expected.push(format!("{key} = {},", quoted(name)));
            keys.push(key);
        }
        assert_eq!(entries(&text), expected);
        assert!(entries(&text).contains(&"__2 = \"木\","), "{text}");
    }
}
