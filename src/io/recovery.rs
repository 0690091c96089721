//! Crash recovery: the editor periodically writes unsaved work beside its settings, and offers
//! it back at the next start if the previous session did not end cleanly.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{LoadError, native, write_atomic};
use crate::crdt::Replica;

const SCENE: &str = "autosave.json";
const META: &str = "autosave.meta.json";

/// What the recovery folder says about the saved work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryInfo {
    /// The file the work belonged to, if it had one.
    pub original: Option<PathBuf>,
    /// When it was written (seconds since the Unix epoch).
    pub saved_at_unix: u64,
}

/// Writes the current state for recovery (native JSON, atomically).
pub fn write_recovery(
    dir: &Path,
    replica: &Replica,
    original: Option<&Path>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    write_atomic(&dir.join(SCENE), native::to_native_json(replica).as_bytes())?;
    let info = RecoveryInfo {
        original: original.map(Path::to_path_buf),
        saved_at_unix: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let meta = serde_json::to_vec_pretty(&info).expect("plain data serializes");
    write_atomic(&dir.join(META), &meta)
}

/// The recoverable work in `dir`, if any.
pub fn find_recovery(dir: &Path) -> Option<RecoveryInfo> {
    if !dir.join(SCENE).exists() {
        return None;
    }
    let meta = std::fs::read(dir.join(META)).ok()?;
    serde_json::from_slice(&meta).ok()
}

/// Reads the recoverable work back.
pub fn read_recovery(dir: &Path) -> Result<Replica, LoadError> {
    native::read_native(&dir.join(SCENE))
}

/// Forgets the recoverable work (after a save, a clean exit, or when the user declines it).
pub fn clear_recovery(dir: &Path) {
    std::fs::remove_file(dir.join(SCENE)).ok();
    std::fs::remove_file(dir.join(META)).ok();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entity, encode_name, ids};

    #[test]
    fn unsaved_work_survives_until_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let recovery = dir.path().join("recovery");
        assert_eq!(find_recovery(&recovery), None);
        let mut r = Replica::new();
        r.put(Entity(512), ids::NAME, encode_name("Unsaved"))
            .unwrap();
        write_recovery(&recovery, &r, Some(Path::new("/scenes/room.json"))).unwrap();
        let info = find_recovery(&recovery).unwrap();
        assert_eq!(
            info.original.as_deref(),
            Some(Path::new("/scenes/room.json"))
        );
        assert!(info.saved_at_unix > 0);
        assert_eq!(read_recovery(&recovery).unwrap().digest(), r.digest());
        clear_recovery(&recovery);
        assert_eq!(find_recovery(&recovery), None);
    }
}
