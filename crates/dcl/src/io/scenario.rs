//! Scenario files (`*.scenario.json`): read, check that they play, and save.

use std::path::Path;

use super::atomic::write_atomic;
use super::error::{LoadError, Location};
use scenetree_core::crdt::scenario::{self, ErrorAt, Scenario, ScenarioError, ScenarioPlayer};
use scenetree_core::net::lesson::{NetLesson, NetScenario, is_net_scenario};

/// Reads a scenario file and plays it once to the end, so a scenario that cannot play (a
/// delivery with nothing in flight, say) is refused at load with the path of the action.
pub fn read_scenario(path: &Path) -> Result<Scenario, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    let scenario = scenario::parse(&text).map_err(|e| load_error(path, e))?;
    scenario.run().map_err(|e| load_error(path, e))?;
    Ok(scenario)
}

/// Reads a scenario file and plays it to the end: the player, for a caller that replays the
/// run (`scenario run`), so that it is played once, not once to check and once more.
pub fn read_played(path: &Path) -> Result<ScenarioPlayer, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    let scenario = scenario::parse(&text).map_err(|e| load_error(path, e))?;
    drop(text);
    scenario.into_run().map_err(|e| load_error(path, e))
}

/// Reads a multiplayer lesson (`scenetree-net-scenario/1`) and plays it once to the end, so
/// a lesson whose steps cannot play is refused at load with the path of the action.
pub fn read_net_scenario(path: &Path) -> Result<NetScenario, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    let scenario = NetScenario::parse(&text).map_err(|e| load_error(path, e))?;
    NetLesson::play_all(scenario.clone()).map_err(|e| load_error(path, e))?;
    Ok(scenario)
}

/// True when the file at `path` is a multiplayer lesson (its `format` says so); false when it
/// cannot be read or is another kind.
pub fn is_net_scenario_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| is_net_scenario(&text))
}

/// Saves a scenario atomically.
pub fn save_scenario(scenario: &Scenario, path: &Path) -> Result<(), LoadError> {
    write_atomic(path, scenario.to_json().as_bytes())
        .map_err(|e| LoadError::file(path, format!("cannot save: {}", e.reason())))
}

fn load_error(path: &Path, e: ScenarioError) -> LoadError {
    let location = match e.at {
        ErrorAt::Syntax { line, column } => Location::LineColumn { line, column },
        ErrorAt::Path(p) if p.is_empty() => Location::File,
        ErrorAt::Path(p) => Location::JsonPath(p),
    };
    LoadError {
        path: path.to_path_buf(),
        location,
        message: e.message,
    }
}
