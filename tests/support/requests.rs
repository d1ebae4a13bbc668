//! Requests to the in-process server as a browser sends them: shared by the `it` tests and the
//! server benchmark.

use axum::body::Body;
use axum::http::Request;
use serde_json::Value;

/// A request with the bearer `token`, if any, and `body`, if any, as JSON.
pub fn json_request(
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Request<Body> {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap(),
        None => request.body(Body::empty()).unwrap(),
    }
}
