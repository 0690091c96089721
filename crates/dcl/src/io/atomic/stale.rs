//! Temporary files left by saves that were killed between writing and renaming: a save names
//! its temporary `.NAME.PID.tmp` after the file and its own process id, so one whose process is
//! gone can never be renamed into place and only takes room. They are removed at the next save
//! into their folder; another running process's temporary is never touched.

use std::fs;
use std::path::Path;

/// Removes the `.NAME.PID.tmp` files in `dir` whose process `PID` no longer runs; returns how
/// many. Best effort: a folder or file that cannot be read or removed is left alone.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else {
            continue;
        };
        // Only plain files: a folder or a link of that name is somebody else's business.
        let plain = entry.file_type().is_ok_and(|t| t.is_file());
        if plain && !process_is_live(pid) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process id in a temporary file's name `.NAME.PID.tmp`, if `name` is one.
pub(super) fn temporary_pid(name: &str) -> Option<u32> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (file, pid) = inner.rsplit_once('.')?;
    if file.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0)
}

/// Whether process `pid` exists (a process of another user counts). When that cannot be
/// known, it is taken as running, so its file stays.
#[cfg(unix)]
fn process_is_live(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true; // kill(0 or less) would name process groups, not a process
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_is_live(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_temporary_pattern_give_a_process_id() {
        assert_eq!(temporary_pid(".main.crdt.4242.tmp"), Some(4242));
        assert_eq!(temporary_pid(".a.1.tmp"), Some(1));
        for name in [
            "main.crdt.4242.tmp",
            ".main.crdt.tmp",
            "..4242.tmp",
            ".main.crdt.42a.tmp",
            ".main.crdt.0.tmp",
            ".main.crdt.-4.tmp",
            ".main.crdt.99999999999999999999.tmp",
            ".main.crdt.4242.tmp.bak",
        ] {
            assert_eq!(temporary_pid(name), None, "{name}");
        }
    }

    #[test]
    fn this_process_is_live() {
        assert!(process_is_live(std::process::id()));
    }
}
