//! Helpers for the app's reconnect policy: which connect failures are worth retrying, and
//! how long to wait between tries. The app owns the loop (it keeps editing offline meanwhile);
//! this crate only reconnects when asked, by `connect` again.

use std::time::Duration;

use crate::error::ConnectError;

impl ConnectError {
    /// Whether trying again later may succeed: the host is not there yet, is restarting, or
    /// dropped the handshake. Not for a bad URL, a refused remote host, a server that is not
    /// a data layer, or a host that broke the protocol or refused the handshake (trying again
    /// gives the same answer).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ConnectError::Unreachable { .. }
                | ConnectError::Timeout { .. }
                | ConnectError::Stalled { .. }
                | ConnectError::Closed { .. }
                | ConnectError::WebSocket { .. }
                | ConnectError::Resolve { .. }
        )
    }
}

/// Exponential backoff: the waits between reconnect tries, doubling from `first` up to
/// `max` and staying there. An iterator that never ends; `reset` after a success.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// Waits of `first`, 2 × `first`, … up to `max`.
    pub fn new(first: Duration, max: Duration) -> Backoff {
        Backoff {
            first,
            max,
            next: first.min(max),
        }
    }

    /// Starts again from `first` (after a successful reconnect).
    pub fn reset(&mut self) {
        self.next = self.first.min(self.max);
    }
}

impl Default for Backoff {
    /// 250 ms, doubling up to 10 s: a restarted `sdk-commands` listens again within about
    /// a second, and a host that is gone for good costs one try every 10 s.
    fn default() -> Self {
        Backoff::new(Duration::from_millis(250), Duration::from_secs(10))
    }
}

impl Iterator for Backoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let wait = self.next;
        self.next = (self.next * 2).min(self.max);
        Some(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ConnectStage;
    use crate::phase::Phase;

    #[test]
    fn backoff_doubles_to_its_cap_and_resets() {
        let mut backoff = Backoff::default();
        let waits: Vec<u64> = backoff
            .by_ref()
            .take(8)
            .map(|d| d.as_millis() as u64)
            .collect();
        assert_eq!(
            waits,
            [250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]
        );
        backoff.reset();
        assert_eq!(backoff.next(), Some(Duration::from_millis(250)));
    }

    #[test]
    fn only_failures_that_may_pass_are_transient() {
        let url = String::from("ws://127.0.0.1:8000/data-layer");
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(
            ConnectError::Unreachable {
                url: url.clone(),
                source: refused
            }
            .is_transient()
        );
        let timeout = ConnectError::Timeout {
            url: url.clone(),
            stage: ConnectStage::Rpc(Phase::AwaitingServerReady),
            waited: Duration::from_secs(5),
        };
        assert!(timeout.is_transient());
        assert!(
            !ConnectError::NotADataLayer {
                url: url.clone(),
                status: 404
            }
            .is_transient()
        );
        assert!(
            !ConnectError::RemoteNotAllowed {
                host: "192.0.2.1".into()
            }
            .is_transient()
        );
        let invalid = ConnectError::InvalidUrl {
            url,
            reason: "the scheme must be ws://",
        };
        assert!(!invalid.is_transient());
    }
}
