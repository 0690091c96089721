//! The bundled lessons (`scenes/*.scenario.json`), built into the binary so the Peers panel
//! offers them wherever the app runs: lessons about simulated peers (`scenetree-scenario/1`)
//! and multiplayer lessons (`scenetree-net-scenario/1`, players with their own numbering).

use scenetree_core::net::lesson::{NetLesson, NetScenario, is_net_scenario};

/// (file name, contents) of every lesson, in teaching order.
pub const LESSONS: &[(&str, &str)] = &[
    (
        "01-concurrent-reparent.scenario.json",
        include_str!("../../scenes/01-concurrent-reparent.scenario.json"),
    ),
    (
        "02-three-cycle.scenario.json",
        include_str!("../../scenes/02-three-cycle.scenario.json"),
    ),
    (
        "03-equal-timestamps.scenario.json",
        include_str!("../../scenes/03-equal-timestamps.scenario.json"),
    ),
    (
        "04-delete-parent-transform.scenario.json",
        include_str!("../../scenes/04-delete-parent-transform.scenario.json"),
    ),
    (
        "05-delete-while-moving.scenario.json",
        include_str!("../../scenes/05-delete-while-moving.scenario.json"),
    ),
    (
        "06-transient-cycle.scenario.json",
        include_str!("../../scenes/06-transient-cycle.scenario.json"),
    ),
    (
        "07-five-rules.scenario.json",
        include_str!("../../scenes/07-five-rules.scenario.json"),
    ),
    (
        "08-inspector-tree-loses-an-edit.scenario.json",
        include_str!("../../scenes/08-inspector-tree-loses-an-edit.scenario.json"),
    ),
    (
        "09-mp-child-before-parent.scenario.json",
        include_str!("../../scenes/09-mp-child-before-parent.scenario.json"),
    ),
    (
        "10-mp-raw-parent.scenario.json",
        include_str!("../../scenes/10-mp-raw-parent.scenario.json"),
    ),
    (
        "11-mp-late-join.scenario.json",
        include_str!("../../scenes/11-mp-late-join.scenario.json"),
    ),
    (
        "12-mp-remote-delete.scenario.json",
        include_str!("../../scenes/12-mp-remote-delete.scenario.json"),
    ),
];

/// Every bundled lesson's title, in order (its file name when it does not parse).
pub fn titles() -> Vec<String> {
    LESSONS
        .iter()
        .map(|(name, text)| {
            let title = if is_net_scenario(text) {
                NetScenario::parse(text).map(|s| s.title)
            } else {
                scenetree_core::crdt::scenario::parse(text).map(|s| s.title)
            };
            title.unwrap_or_else(|_| (*name).to_string())
        })
        .collect()
}

/// A bundled lesson, opened.
pub enum BundledLesson {
    /// Simulated peers editing one scene: a document of its own, and its title.
    Peers(Box<scenetree_editor::Document>, String),
    /// Players with their own numbering (`scenetree-net-scenario/1`), at the lesson's start.
    Multiplayer(Box<NetLesson>),
}

/// Opens lesson `index` (from 0), of either kind.
pub fn open_lesson(index: usize) -> Result<BundledLesson, LessonError> {
    let &(file, text) = LESSONS.get(index).ok_or(LessonError::NoSuchLesson(index))?;
    if !is_net_scenario(text) {
        let (doc, title) = lesson_document(index)?;
        return Ok(BundledLesson::Peers(Box::new(doc), title));
    }
    let broken = |message: String| LessonError::Broken { file, message };
    let scenario = NetScenario::parse(text).map_err(|e| broken(e.to_string()))?;
    let lesson = NetLesson::new(scenario).map_err(|e| broken(e.to_string()))?;
    Ok(BundledLesson::Multiplayer(Box::new(lesson)))
}

/// Why a bundled lesson could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LessonError {
    /// No lesson has this number (from 0).
    #[error("there is no lesson {}", .0 + 1)]
    NoSuchLesson(usize),
    /// A multiplayer lesson, which opens as a run rather than a document ([`open_lesson`]).
    #[error("lesson {} is a multiplayer lesson, not a document", .0 + 1)]
    Multiplayer(usize),
    /// The lesson's file does not parse, or its steps cannot play.
    #[error("{file}: {message}")]
    Broken {
        /// The lesson's file name in `scenes/`.
        file: &'static str,
        /// What is wrong, with the JSON path where there is one.
        message: String,
    },
}

/// Lesson `index` (from 0) as a document of its own: untitled, its peers at the lesson's
/// start, unmodified. Returns it with the lesson's title.
pub fn lesson_document(index: usize) -> Result<(scenetree_editor::Document, String), LessonError> {
    let &(file, text) = LESSONS.get(index).ok_or(LessonError::NoSuchLesson(index))?;
    if is_net_scenario(text) {
        return Err(LessonError::Multiplayer(index));
    }
    let broken = |message: String| LessonError::Broken { file, message };
    let scenario = scenetree_core::crdt::scenario::parse(text).map_err(|e| broken(e.message))?;
    let title = scenario.title.clone();
    let mut doc = scenetree_editor::Document::default();
    doc.open_lesson(scenario).map_err(|e| broken(e.message))?;
    Ok((doc, title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_past_the_last_is_named_by_its_number() {
        let err = lesson_document(LESSONS.len()).unwrap_err();
        assert_eq!(err, LessonError::NoSuchLesson(LESSONS.len()));
        assert_eq!(
            err.to_string(),
            format!("there is no lesson {}", LESSONS.len() + 1)
        );
    }

    #[test]
    fn every_lesson_in_scenes_is_bundled_and_parses() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".scenario.json"))
            .collect();
        on_disk.sort();
        let bundled: Vec<&str> = LESSONS.iter().map(|(n, _)| *n).collect();
        assert_eq!(bundled, on_disk);
        for (index, (name, _)) in LESSONS.iter().enumerate() {
            open_lesson(index).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
