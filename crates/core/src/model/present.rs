//! The text people read about entities, parenting cycles and re-rooted entities, built in one
//! place so the hierarchy, inspector, peers panel, status bar, message descriptions and the CLI
//! say the same thing the same way. It lives in `model` (not `scene`) because the peers
//! simulation's message descriptions (`crdt`) use it too.
//!
//! It also holds the one rule for how the inspector prints numbers ([`Quantity`], [`fixed`]),
//! and how a JSON syntax error is said ([`json_syntax_problem`]) by every reader of JSON files.

use super::Entity;

/// A kind of number the inspector shows; each has one fixed number of decimals, so a column of
/// them lines up on the decimal point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// A position or distance, in meters: millimetres (3 decimals).
    Meters,
    /// An angle in degrees: hundredths (2 decimals).
    Degrees,
    /// A component of a unit quaternion (−1 to 1): 4 decimals, 1e-4 of a turn's half-sine.
    QuaternionComponent,
    /// A scale factor (no unit): 3 decimals.
    Scale,
}

impl Quantity {
    /// How many decimals every number of this kind shows.
    pub const fn decimals(self) -> usize {
        match self {
            Quantity::Meters | Quantity::Scale => 3,
            Quantity::Degrees => 2,
            Quantity::QuaternionComponent => 4,
        }
    }
}

/// `value` with the fixed decimals of its quantity: `1.5` m is `1.500`, never `1.5` or
/// `1.50000`. A value that rounds to zero prints without a sign (`-0.0001` m is `0.000`, not
/// `-0.000`); NaN prints `NaN`, infinities `inf` and `-inf`.
pub fn fixed(value: f64, quantity: Quantity) -> String {
    let decimals = quantity.decimals();
    let text = format!("{value:.decimals$}");
    match text.strip_prefix('-') {
        // Only digits 0 and the point left: a negative zero after rounding.
        Some(magnitude) if magnitude.bytes().all(|b| b == b'0' || b == b'.') => {
            magnitude.to_string()
        }
        _ => text,
    }
}

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
/// name (the name is [`quoted`]: a Rust string literal, so any name stays on one line, cut to
/// a readable length).
pub fn entity_tag(entity: Entity, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{entity} {}", quoted(name)),
        None => entity.to_string(),
    }
}

/// The most characters of one value from input (a name, a key, a component's name) that a
/// message or a description quotes: see [`excerpt`].
pub const VALUE_CHARS: usize = 80;

/// The most characters of a whole message that holds input it did not cut itself (a JSON
/// parser's "invalid type: string \"…\""): see [`excerpt`].
pub const MESSAGE_CHARS: usize = 600;

/// `text` cut to at most about `max_chars` characters, for a message that echoes input
/// (a file, the network, a command line): whole when it fits; else its start (three quarters
/// of the budget) and its end (the rest), with what was left out said between them:
/// `5555…[8,388,480 bytes left out]…5555`. The end is kept because a message says what was
/// expected there. Costs `max_chars` whatever the text's length. Every error, note and step
/// text that repeats input goes through here (or [`quoted`]), so an 8 MB key or name gives
/// a line a person can read, not 8 MB of it.
pub fn excerpt(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    let head_chars = max_chars - max_chars / 4;
    let tail_chars = max_chars / 4;
    // Byte offsets: `head` after the first `head_chars` characters, `tail` before the last
    // `tail_chars`; if the text is no longer than the budget, neither is past the other.
    let Some((head, _)) = text.char_indices().nth(head_chars) else {
        return std::borrow::Cow::Borrowed(text);
    };
    let tail = (text.char_indices().rev())
        .take(tail_chars)
        .last()
        .map_or(text.len(), |(at, _)| at);
    if tail <= head || text[head..tail].chars().nth(2).is_none() {
        // Two characters or fewer would be left out: say them instead.
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!(
        "{}…[{} bytes left out]…{}",
        &text[..head],
        thousands(tail - head),
        &text[tail..]
    ))
}

/// A value from input as a message quotes it: a Rust string literal (one line, whatever it
/// holds) of its [`excerpt`] of [`VALUE_CHARS`].
pub fn quoted(text: &str) -> String {
    format!("{:?}", excerpt(text, VALUE_CHARS))
}

/// How many members a ring, or items a list, names before it counts the rest.
const NAMED: usize = 10;

/// A parenting cycle as people read it, back to where it started: `Lamp → Table → Lamp`.
/// `label` says how to write each member (see [`entity_name`], [`entity_tag`]). A cycle of
/// more than a dozen members names its first ten and counts the rest
/// (`A → B → … → J → … 65,525 more … → A`), so a row, a badge or a tooltip costs the same
/// whatever the cycle's size; [`cycle_ring_full`] names them all.
pub fn cycle_ring(members: &[Entity], mut label: impl FnMut(Entity) -> String) -> String {
    if members.len() <= NAMED + 2 {
        return cycle_ring_full(members, label);
    }
    let mut names: Vec<String> = members[..NAMED].iter().map(|&m| label(m)).collect();
    names.push(format!("… {} more …", thousands(members.len() - NAMED)));
    names.push(label(members[0]));
    names.join(" → ")
}

/// [`cycle_ring`] naming every member, however many: for output written once per cycle.
pub fn cycle_ring_full(members: &[Entity], mut label: impl FnMut(Entity) -> String) -> String {
    let names: Vec<String> = members
        .iter()
        .chain(members.first())
        .map(|&m| label(m))
        .collect();
    names.join(" → ")
}

/// A list as a status line writes it: the first ten of `items` (written by `label`), joined
/// by `separator`, then "and 65,014 more" when there are more, so the line costs the same
/// whatever the scene's size.
pub fn first_named<T>(items: &[T], separator: &str, label: impl FnMut(&T) -> String) -> String {
    let mut text: String = (items.iter().take(NAMED).map(label))
        .collect::<Vec<_>>()
        .join(separator);
    if items.len() > NAMED {
        text.push_str(&format!(" and {} more", thousands(items.len() - NAMED)));
    }
    text
}

/// A count with thousands separated by commas, as the rest of the UI writes them: `65,525`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What keeps an entity's Transform from giving a local matrix, in words that complete "its
/// Transform …": which value is not a finite number, or that the rotation cannot be
/// normalized.
pub fn transform_problem(problem: &crate::model::TransformProblem) -> String {
    use crate::model::TransformProblem as P;
    match problem {
        P::NotFinite { field, value } => {
            format!("holds {field} ({value}), which is not a finite number")
        }
        P::RotationNotNormalizable => "holds a rotation whose components are too large to \
             normalize (the quaternion's length overflows a 32-bit float)"
            .to_owned(),
        P::MatrixOverflow => "holds values so large that its local matrix overflows a 32-bit \
             float"
            .to_owned(),
    }
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

/// A count of entities as people read it: "1 entity", "3 entities" (found by hand: "1
/// entities").
pub fn entity_count(n: usize) -> String {
    match n {
        1 => "1 entity".to_string(),
        n => format!("{n} entities"),
    }
}

/// What is wrong with a JSON text, for people: serde_json's message without the line and
/// column (the caller shows them once, where it shows places), and a text that stops in the
/// middle said plainly, since that is what a truncated or half-written file looks like.
pub fn json_syntax_problem(error: &serde_json::Error) -> String {
    if error.is_eof() {
        return "the text ends in the middle of a value (is the file cut short?)".to_string();
    }
    let text = error.to_string();
    let place = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&place).unwrap_or(&text).to_string()
}

/// A component's short name in message texts: `Transform`, `Name`, else its registered name
/// (the runtime's, the Inspector's, a smart item's) or `component <id>`.
pub fn component_label(id: u32) -> String {
    match id {
        crate::model::ids::TRANSFORM => "Transform".to_string(),
        crate::model::ids::NAME => "Name".to_string(),
        _ => crate::model::known_component_name(id)
            .map_or_else(|| format!("component {id}"), str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inspectors_components_are_named_in_message_texts() {
        use crate::model::component::component_id_from_name;
        for name in ["inspector::Selection", "inspector::TransformConfig"] {
            assert_eq!(component_label(component_id_from_name(name)), name);
        }
        assert_eq!(component_label(1), "Transform");
        assert_eq!(component_label(7), "component 7");
    }

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
    fn echoed_input_is_cut_to_a_readable_length_keeping_its_start_and_end() {
        assert_eq!(excerpt("short", VALUE_CHARS), "short");
        let fits = "x".repeat(VALUE_CHARS);
        assert_eq!(excerpt(&fits, VALUE_CHARS), fits);
        // An 8 MB key: 60 characters, what was left out, 20 characters.
        let key = format!("{}{}", "5".repeat(8 << 20), "end");
        let cut = excerpt(&key, VALUE_CHARS);
        assert!(cut.len() < 120, "{} bytes", cut.len());
        assert!(cut.starts_with(&"5".repeat(60)), "{cut}");
        assert!(cut.ends_with("555end"), "{cut}");
        assert!(cut.contains(&format!("…[{} bytes left out]…", thousands(key.len() - 80))));
        // Characters, not bytes: multi-byte text is cut between characters.
        let name = "é".repeat(1_000);
        let cut = excerpt(&name, VALUE_CHARS);
        assert_eq!(cut.chars().filter(|&c| c == 'é').count(), 80);
        // Quoted: one line, cut.
        let line = quoted(&"a\n".repeat(100_000));
        assert!(!line.contains('\n') && line.len() < 300, "{line}");
        assert_eq!(
            entity_tag(Entity(512), Some(&key)).len(),
            4 + quoted(&key).len()
        );
        // A whole message keeps its end, which says what was expected.
        let message = format!("invalid type: string {key:?}, expected u32");
        let cut = excerpt(&message, MESSAGE_CHARS);
        assert!(
            cut.len() < 700 && cut.ends_with("end\", expected u32"),
            "{cut}"
        );
    }

    #[test]
    fn every_quantity_has_fixed_decimals_and_no_negative_zero() {
        assert_eq!(fixed(1.5, Quantity::Meters), "1.500");
        assert_eq!(fixed(-6.16985, Quantity::Meters), "-6.170");
        assert_eq!(fixed(1.26, Quantity::Scale), "1.260");
        assert_eq!(fixed(90.0, Quantity::Degrees), "90.00");
        assert_eq!(
            fixed(
                std::f64::consts::FRAC_1_SQRT_2,
                Quantity::QuaternionComponent
            ),
            "0.7071"
        );
        assert_eq!(fixed(-0.0, Quantity::Meters), "0.000");
        assert_eq!(fixed(-0.0004, Quantity::Meters), "0.000");
        assert_eq!(fixed(-0.004, Quantity::Degrees), "0.00");
        assert_eq!(fixed(-0.00004, Quantity::QuaternionComponent), "0.0000");
        assert_eq!(fixed(-0.0005, Quantity::Meters), "-0.001"); // rounds away from zero: keeps its sign
        assert_eq!(fixed(-10.0, Quantity::Meters), "-10.000");
        assert_eq!(fixed(f64::NAN, Quantity::Degrees), "NaN");
        assert_eq!(fixed(f64::NEG_INFINITY, Quantity::Scale), "-inf");
    }

    #[test]
    fn a_ring_returns_to_its_first_member() {
        let ring = cycle_ring(&[Entity(600), Entity(601)], |e| e.to_string());
        assert_eq!(ring, "600 → 601 → 600");
        assert_eq!(cycle_ring(&[], |e| e.to_string()), "");
    }

    #[test]
    fn a_long_list_names_ten_and_counts_the_rest() {
        let label = |n: &u32| format!("E{n}");
        assert_eq!(first_named(&[1, 2], ", ", label), "E1, E2");
        let many: Vec<u32> = (0..65_024).collect();
        let text = first_named(&many, "; ", label);
        assert!(text.starts_with("E0; E1; "), "{text}");
        assert!(text.ends_with("E9 and 65,014 more"), "{text}");
        assert_eq!(first_named::<u32>(&[], ", ", label), "");
    }

    #[test]
    fn a_long_ring_names_ten_members_and_counts_the_rest() {
        let members: Vec<Entity> = (512..512 + 65_535).map(Entity).collect();
        let ring = cycle_ring(&members, |e| e.to_string());
        assert_eq!(
            ring,
            "512 → 513 → 514 → 515 → 516 → 517 → 518 → 519 → 520 → 521 → … 65,525 more … → 512"
        );
        let twelve: Vec<Entity> = (512..524).map(Entity).collect();
        assert_eq!(
            cycle_ring(&twelve, |e| e.to_string()),
            cycle_ring_full(&twelve, |e| e.to_string())
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
