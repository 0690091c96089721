//! Whether a document holds unsaved changes, in terms of replica states: the saved state may
//! live on in clones (simulated peers, timeline replays), which a journal position alone cannot
//! tell apart.

use scenetree_core::crdt::{Replica, ReplicaVersion};

/// What was last loaded or saved, in terms of replica states, so that "unsaved changes" stays
/// true across clones (simulated peers, timeline replays) without hashing every frame.
#[derive(Debug, Default)]
pub(super) struct SavedState {
    /// Replica states known to hold exactly what was saved.
    pub(super) clean: Vec<ReplicaVersion>,
    /// Replica states of other instances found (by digest) to differ from it.
    pub(super) differ: Vec<ReplicaVersion>,
    /// The saved state's digest, taken from a clean replica before its instance is replaced;
    /// `None` before that, or when no replica ever held the saved state (recovered work).
    pub(super) digest: Option<u128>,
}

/// States remembered per list; peers are at most 8, so older entries can be forgotten.
const SAVED_STATES_KEPT: usize = 16;

impl SavedState {
    pub(super) fn at(versions: impl IntoIterator<Item = ReplicaVersion>) -> Self {
        SavedState {
            clean: versions.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Takes the saved state's digest from a replica that still holds it, if not known yet
    /// (called before replicas are replaced: a simulation starts or stops, a timeline seek).
    pub(super) fn remember_digest<'a>(&mut self, replicas: impl IntoIterator<Item = &'a Replica>) {
        if self.digest.is_none()
            && let Some(clean) = replicas
                .into_iter()
                .find(|r| self.clean.contains(&r.version()))
        {
            self.digest = Some(clean.digest());
        }
    }

    /// True when `replica` holds what was saved. A later state of a clean instance has changed
    /// (journals only grow); another instance is compared by digest, once per state.
    pub(super) fn holds(&mut self, replica: &Replica) -> bool {
        let version = replica.version();
        if self.clean.contains(&version) {
            return true;
        }
        if self.differ.contains(&version)
            || self.clean.iter().any(|c| c.instance == version.instance)
        {
            return false;
        }
        let same = self.digest == Some(replica.digest());
        let list = if same {
            &mut self.clean
        } else {
            &mut self.differ
        };
        if list.len() >= SAVED_STATES_KEPT {
            list.remove(0);
        }
        list.push(version);
        same
    }
}
