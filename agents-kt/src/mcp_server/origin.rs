//! Which browser `Origin`s may reach the HTTP server. A web page of another origin must not reach a
//! local server (DNS rebinding, CSRF); a page served from the same machine may, when the server
//! itself listens only there. Clients that are not browsers send no `Origin` and are not judged.

use std::net::SocketAddr;

/// The hosts of a loopback origin, as an origin spells them.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The origins a server accepts: the listed ones, and — when it is bound to a loopback address —
/// every loopback origin (`http` or `https`, `localhost`, `127.0.0.1` or `[::1]`, any port).
#[derive(Debug, Clone)]
pub(crate) struct Origins {
    listed: Vec<String>,
    loopback: bool,
}

impl Origins {
    /// The origins a server bound to `address` accepts besides `listed`.
    pub(crate) fn new(listed: Vec<String>, address: SocketAddr) -> Self {
        Origins {
            listed,
            loopback: address.ip().is_loopback(),
        }
    }

    /// Whether a request carrying `origin` may be served.
    pub(crate) fn allow(&self, origin: &str) -> bool {
        self.listed.iter().any(|listed| listed == origin)
            || (self.loopback && is_loopback_origin(origin))
    }

    /// The same list in rmcp's allow-list syntax (which also judges `Origin`s when its list is not
    /// empty): the listed origins, and the loopback ones with any port.
    pub(crate) fn for_rmcp(&self) -> Vec<String> {
        let mut origins = self.listed.clone();
        if self.loopback {
            for scheme in ["http", "https"] {
                for host in LOOPBACK_HOSTS {
                    origins.push(format!("{scheme}://{host}:*"));
                }
            }
        }
        origins
    }
}

/// Whether `origin` is `http(s)://<loopback host>[:port]` and nothing else (no user, no path).
fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    let host = match rest.rsplit_once(':') {
        // A port, unless the colon is inside an IPv6 literal (`[::1]` has no port after it).
        Some((host, port)) if !port.ends_with(']') => {
            if port.is_empty() || !port.bytes().all(|byte| byte.is_ascii_digit()) {
                return false;
            }
            host
        }
        _ => rest,
    };
    LOOPBACK_HOSTS
        .iter()
        .any(|loopback| host.eq_ignore_ascii_case(loopback))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(address: &str) -> Origins {
        Origins::new(vec!["https://app.example".into()], address.parse().unwrap())
    }

    #[test]
    fn a_loopback_server_accepts_loopback_origins_on_any_port() {
        let origins = at("127.0.0.1:8080");
        for origin in [
            "http://localhost:6274",
            "http://localhost",
            "https://127.0.0.1:1",
            "http://[::1]:8080",
            "http://[::1]",
            "HTTP://LOCALHOST:3000",
            "https://app.example",
        ] {
            assert!(origins.allow(origin), "{origin}");
        }
    }

    #[test]
    fn foreign_and_look_alike_origins_are_refused() {
        let origins = at("127.0.0.1:8080");
        for origin in [
            "http://evil.com",
            "null",
            "http://localhost.evil.com",
            "http://localhost@evil.com",
            "http://evil.com/localhost",
            "http://127.0.0.1.nip.io",
            "http://localhost:80/path",
            "http://localhost:",
            "file://localhost",
            "ws://localhost:80",
            "http://[::2]:80",
            "https://app.example:444",
        ] {
            assert!(!origins.allow(origin), "{origin}");
        }
    }

    #[test]
    fn a_server_on_every_interface_accepts_only_the_listed_origins() {
        let origins = at("0.0.0.0:8080");
        assert!(!origins.allow("http://localhost:6274"));
        assert!(origins.allow("https://app.example"));
        assert_eq!(origins.for_rmcp(), vec!["https://app.example".to_string()]);
    }
}
