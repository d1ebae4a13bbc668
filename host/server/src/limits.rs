//! Rate limits: how fast one client may call the API, act for one seat, and create games.
//!
//! A client is its address (an IPv6 client by its /64, the block one household or server gets, so
//! rotating addresses within it does not help); a seat by its token. The limits are GCRA buckets
//! from the `governor` crate: a steady rate plus a burst, refilled continuously. A request over a
//! limit is answered 429 with `Retry-After` and changes nothing. A move on the move socket counts
//! as a request of its address and an action of its seat ([`Limiter::admit_move`]).

use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::error::AppError;

/// The limits of `tenka serve`; 0 turns a limit off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// API requests per second from one address, on average.
    pub requests_per_second: u32,
    /// API requests one address may make at once above the average.
    pub request_burst: u32,
    /// Actions per second for one seat's token.
    pub actions_per_second: u32,
    /// Games one address may create per minute (a burst of as many is allowed).
    pub games_per_minute: u32,
}

impl RateLimits {
    /// No limit at all (in-process servers of tests and tools).
    pub const OFF: RateLimits = RateLimits {
        requests_per_second: 0,
        request_burst: 0,
        actions_per_second: 0,
        games_per_minute: 0,
    };
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            requests_per_second: 50,
            request_burst: 200,
            actions_per_second: 10,
            games_per_minute: 20,
        }
    }
}

/// Who a bucket belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Client {
    /// An IPv4 address, or the /64 network of an IPv6 one.
    Address(IpAddr),
    /// A seat, by the SHA-256 of its token.
    Token(String),
}

/// Rate buckets kept per key (a client here, an address or an account name for sign-ins).
pub(crate) type KeyedBuckets<K> = RateLimiter<K, DefaultKeyedStateStore<K>, DefaultClock>;

type Buckets = KeyedBuckets<Client>;

/// The buckets of one server.
pub struct Limiter {
    requests: Option<Buckets>,
    actions: Option<Buckets>,
    games: Option<Buckets>,
}

/// `count` tokens every `per`, refilled continuously, up to `burst` (at least `count`) at once;
/// none (no limit) when `count` is 0.
pub(crate) fn buckets<K: Hash + Eq + Clone>(
    per: Duration,
    count: u32,
    burst: u32,
) -> Option<KeyedBuckets<K>> {
    let count = NonZeroU32::new(count)?;
    let burst = NonZeroU32::new(burst.max(count.get()))?;
    let quota = Quota::with_period(per / count.get())?.allow_burst(burst);
    Some(RateLimiter::keyed(quota))
}

impl Limiter {
    /// Buckets for these limits.
    pub fn new(limits: &RateLimits) -> Limiter {
        Limiter {
            requests: buckets(
                Duration::from_secs(1),
                limits.requests_per_second,
                limits.request_burst,
            ),
            actions: buckets(
                Duration::from_secs(1),
                limits.actions_per_second,
                limits.actions_per_second * 2,
            ),
            games: buckets(
                Duration::from_secs(60),
                limits.games_per_minute,
                limits.games_per_minute,
            ),
        }
    }

    /// Forgets buckets that are full again, so memory follows the clients of the last minutes.
    pub fn forget_idle(&self) {
        for buckets in [&self.requests, &self.actions, &self.games]
            .into_iter()
            .flatten()
        {
            buckets.retain_recent();
        }
    }
}

/// The address a request comes from; in-process callers (tests, tools) have none and share
/// one bucket.
pub(crate) fn peer_address(extensions: &axum::http::Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |info| info.0.ip())
}

/// The client a bucket is kept for: the address, an IPv6 one by its /64.
fn client_of(address: IpAddr) -> Client {
    Client::Address(client_address(address))
}

/// The address that stands for a client: an IPv4 address as it is (an IPv4-mapped IPv6 one as
/// IPv4), an IPv6 one as its /64.
pub(crate) fn client_address(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
        v4 => v4,
    }
}

impl Limiter {
    /// Counts one move sent on the move socket, as `POST .../actions` is counted: a request of
    /// the address (none for an in-process caller) and an action of the seat whose token has the
    /// digest `token_hash`. Over a limit: how long to wait.
    pub fn admit_move(&self, address: Option<IpAddr>, token_hash: &str) -> Result<(), AppError> {
        let client = client_of(address.unwrap_or(IpAddr::from([0, 0, 0, 0])));
        take(self.requests.as_ref(), &client)
            .and_then(|()| take(self.actions.as_ref(), &Client::Token(token_hash.to_owned())))
            .map_err(over_the_limit)
    }
}

/// The refusal of a request that must `wait` (answered with whole seconds, at least one).
pub(crate) fn over_the_limit(wait: Duration) -> AppError {
    AppError::RateLimited {
        retry_after: wait.as_secs().max(1),
    }
}

/// Takes one token from `buckets` for `key`, or says how long to wait.
pub(crate) fn take<K: Hash + Eq + Clone>(
    buckets: Option<&KeyedBuckets<K>>,
    key: &K,
) -> Result<(), Duration> {
    let Some(buckets) = buckets else {
        return Ok(());
    };
    buckets
        .check_key(key)
        .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
}

/// Middleware of the API: counts the request against its address, an action against its seat's
/// token, and a new game against the address's games per minute.
pub async fn limit(State(limiter): State<Arc<Limiter>>, request: Request, next: Next) -> Response {
    let client = client_of(peer_address(request.extensions()));
    let mut verdict = take(limiter.requests.as_ref(), &client);
    let path = request.uri().path();
    if verdict.is_ok() && request.method() == Method::POST {
        if path == "/games" || path == "/api/games" {
            verdict = take(limiter.games.as_ref(), &client);
        } else if path.ends_with("/actions")
            && let Some(token) = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
        {
            verdict = take(
                limiter.actions.as_ref(),
                &Client::Token(super::tokens::token_hash(token.trim())),
            );
        }
    }
    match verdict {
        Ok(()) => next.run(request).await,
        Err(wait) => over_the_limit(wait).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_one_client_across_its_slash_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_of(a), client_of(b));
        assert_ne!(client_of(a), client_of(other));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(
            client_of(mapped),
            Client::Address("192.0.2.7".parse().unwrap())
        );
    }

    #[test]
    fn a_client_over_its_burst_waits_and_others_do_not() {
        let limiter = Limiter::new(&RateLimits {
            requests_per_second: 1,
            request_burst: 3,
            actions_per_second: 0,
            games_per_minute: 0,
        });
        let one = client_of("192.0.2.1".parse().unwrap());
        let two = client_of("192.0.2.2".parse().unwrap());
        for _ in 0..3 {
            assert!(take(limiter.requests.as_ref(), &one).is_ok());
        }
        let wait = take(limiter.requests.as_ref(), &one).unwrap_err();
        assert!(wait <= Duration::from_secs(1), "{wait:?}");
        assert!(take(limiter.requests.as_ref(), &two).is_ok());
        // A limit of 0 is no limit.
        for _ in 0..100 {
            assert!(take(limiter.actions.as_ref(), &one).is_ok());
        }
    }
}
