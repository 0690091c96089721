//! Where to connect: a `ws://host:port/path` URL, resolved, with the loopback rule applied.
//! The data layer has no authentication and its file procedures take absolute paths, so a
//! host that is not this machine is refused unless the caller allows it explicitly; the rule
//! is checked on the resolved addresses, so a name that resolves elsewhere is refused too.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use tungstenite::http::Uri;

use crate::error::ConnectError;

/// A parsed and resolved data-layer URL.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The URL as given.
    pub url: String,
    /// The addresses to try, in resolver order (only loopback ones unless remote is allowed).
    pub addrs: Vec<SocketAddr>,
}

/// Parses `url` and resolves its host; with `allow_remote` off, keeps only loopback addresses
/// and refuses a host that has none.
pub(crate) fn resolve(url: &str, allow_remote: bool) -> Result<Target, ConnectError> {
    let invalid = |reason| ConnectError::InvalidUrl {
        url: url.to_owned(),
        reason,
    };
    let uri: Uri = url
        .parse()
        .map_err(|_| invalid("it does not parse as a URL"))?;
    match uri.scheme_str() {
        Some("ws") => {}
        Some("wss") => {
            return Err(invalid(
                "wss:// (TLS) is not supported; the data layer serves ws://",
            ));
        }
        _ => return Err(invalid("the scheme must be ws://")),
    }
    let host = uri.host().ok_or_else(|| invalid("it names no host"))?;
    // A port that is not a number from 1 to 65535 (65536, -1, 8000abc) is refused: the URL
    // parser accepts the URL but reads no port from it, which would mean port 80.
    let port = match port_text(uri.authority().map_or("", |a| a.as_str())) {
        None | Some("") => 80,
        Some(text) => match text.parse::<u16>() {
            Ok(0) => return Err(invalid("port 0 is not a port a host listens on")),
            Ok(number) if text.bytes().all(|b| b.is_ascii_digit()) => number,
            _ => return Err(invalid("its port is not a number from 1 to 65535")),
        },
    };
    // An IPv6 literal comes with its brackets.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => (bare, port)
            .to_socket_addrs()
            .map_err(|source| ConnectError::Resolve {
                host: host.to_owned(),
                source,
            })?
            .collect(),
    };
    // An IPv4-mapped IPv6 address is connected to as the IPv4 one it maps (which works on a
    // system without IPv6 too).
    let addrs = addrs
        .into_iter()
        .map(|a| SocketAddr::new(a.ip().to_canonical(), a.port()));
    let addrs: Vec<SocketAddr> = if allow_remote {
        addrs.collect()
    } else {
        addrs.filter(|a| a.ip().is_loopback()).collect()
    };
    if addrs.is_empty() {
        return Err(ConnectError::RemoteNotAllowed {
            host: host.to_owned(),
        });
    }
    Ok(Target {
        url: url.to_owned(),
        addrs,
    })
}

/// The text after the host in a URL's authority (`user@host:port`, `[::1]:port`): the port
/// as written, `None` when there is no `:` after the host.
fn port_text(authority: &str) -> Option<&str> {
    let host_and_port = authority.rsplit('@').next().unwrap_or(authority);
    let after_host = match host_and_port.rfind(']') {
        Some(end) => &host_and_port[end + 1..],
        None => host_and_port,
    };
    after_host.find(':').map(|at| &after_host[at + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_resolve_to_loopback_addresses() {
        let t = resolve("ws://127.0.0.1:8000/data-layer", false).unwrap();
        assert_eq!(t.addrs, ["127.0.0.1:8000".parse().unwrap()]);
        let t = resolve("ws://[::1]:8123/data-layer", false).unwrap();
        assert_eq!(t.addrs, ["[::1]:8123".parse().unwrap()]);
        // IPv4-mapped: the same machine.
        let t = resolve("ws://[::ffff:127.0.0.1]:8123/data-layer", false).unwrap();
        assert_eq!(t.addrs, ["127.0.0.1:8123".parse().unwrap()]);
        let t = resolve("ws://localhost/data-layer", false).unwrap();
        assert!(
            t.addrs
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 80)
        );
    }

    #[test]
    fn other_hosts_need_allow_remote() {
        for url in [
            "ws://192.0.2.7:8000/data-layer",
            "ws://0.0.0.0:8000/data-layer",
            "ws://[2001:db8::1]:8000/data-layer",
            "ws://[::ffff:192.0.2.7]:8000/data-layer",
        ] {
            let err = resolve(url, false).unwrap_err();
            assert!(
                matches!(err, ConnectError::RemoteNotAllowed { .. }),
                "{url}: {err:?}"
            );
            assert!(err.to_string().contains("no authentication"), "{err}");
            assert!(resolve(url, true).is_ok(), "{url}");
        }
    }

    #[test]
    fn urls_that_are_not_ws_are_refused() {
        for (url, reason) in [
            ("wss://127.0.0.1:8000/data-layer", "TLS"),
            ("http://127.0.0.1:8000/data-layer", "ws://"),
            ("127.0.0.1:8000", "ws://"),
            ("ws://", "URL"),
            ("not a url", "URL"),
            ("ws://127.0.0.1:65536/data-layer", "1 to 65535"),
            ("ws://127.0.0.1:70000/data-layer", "1 to 65535"),
            ("ws://127.0.0.1:-1/data-layer", "1 to 65535"),
            ("ws://127.0.0.1:8000abc/data-layer", "1 to 65535"),
            ("ws://127.0.0.1:0/data-layer", "port 0"),
        ] {
            match resolve(url, false) {
                Err(ConnectError::InvalidUrl { reason: why, .. }) => {
                    assert!(why.contains(reason), "{url}: {why}")
                }
                other => panic!("{url}: {other:?}"),
            }
        }
    }
}
