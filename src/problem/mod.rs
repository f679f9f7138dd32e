//! RFC 9457 problem documents: the document ([`Problem`]), the catalogue of problem types
//! ([`catalogue`]), and the one function that turns a problem into a response ([`respond`]).
//!
//! Both the HTTP edge (`crate::http`: a body too large or too slow, overload) and the API's
//! error type (`crate::api::wire::error::ApiError`) answer through here, so every error of the
//! service has the same shape, headers and `type` URIs.

pub mod catalogue; // ProblemType, one constant per problem type, ALL, ProblemTypeName

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

pub use catalogue::{ProblemType, ProblemTypeName};

/// An RFC 9457 problem document (`application/problem+json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/invalid-value",
    "title": "Invalid value",
    "status": 422,
    "detail": "position: square 7 appears twice (coins must be on distinct squares)",
    "field": "position"
}))]
pub struct Problem {
    /// The problem type: a URI reference resolved against the service's own address, where a
    /// page (`GET /problems/{type}`) explains it — `/problems/invalid-value`,
    /// `/problems/budget-exceeded`, …
    pub r#type: String,
    /// A short summary of the problem type.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// A sentence naming the offending field and value.
    pub detail: String,
    /// The request field at fault (JSON path), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The quota exceeded (`/problems/quota-exceeded`): `active_jobs` or `heaps_per_day`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<String>,
    /// The limit of that quota (jobs, or heaps a day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

impl Problem {
    /// A problem of type `kind` (its URI, title and status) with `detail` and `field`.
    pub fn new(kind: &ProblemType, detail: impl Into<String>, field: Option<String>) -> Self {
        Problem {
            r#type: kind.uri(),
            title: kind.title.to_owned(),
            status: kind.status,
            detail: detail.into(),
            field,
            quota: None,
            limit: None,
        }
    }
}

/// The detail of an internal error, left in the response's extensions for the metrics layer
/// (`crate::http::metrics`) to log with the request's route and id: the response itself says
/// only that something failed.
#[derive(Debug, Clone)]
pub struct InternalErrorDetail(pub String);

/// How a problem is answered beyond its document.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// `Retry-After` in seconds (503, 507, 429).
    pub retry_after_secs: Option<u64>,
    /// `Connection: close`: the connection is not reused after this answer (408).
    pub close: bool,
    /// A 500's detail for the log (see [`InternalErrorDetail`]).
    pub internal: Option<String>,
    /// `WWW-Authenticate` (401, and 403 for a missing scope: RFC 6750's bearer challenge).
    pub www_authenticate: Option<String>,
}

/// `problem` as an `application/problem+json` response with its status and `extra` headers.
pub fn respond(problem: &Problem, extra: Extra) -> Response {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(problem).unwrap_or_default();
    let mut resp = (status, body).into_response();
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if let Some(secs) = extra.retry_after_secs {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    if let Some(challenge) = extra
        .www_authenticate
        .and_then(|c| HeaderValue::try_from(c).ok())
    {
        headers.insert(header::WWW_AUTHENTICATE, challenge);
    }
    if extra.close {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    if let Some(detail) = extra.internal {
        // Logged once, with the route, method and request id, by the metrics layer, which
        // sees every response.
        resp.extensions_mut().insert(InternalErrorDetail(detail));
    }
    resp
}

/// A 503 problem with `Retry-After` (load shedding, timeouts, a store that is down).
pub fn unavailable(detail: impl Into<String>, retry_after_secs: u64) -> Response {
    respond(
        &Problem::new(&catalogue::UNAVAILABLE, detail, None),
        Extra {
            retry_after_secs: Some(retry_after_secs),
            ..Extra::default()
        },
    )
}

/// A 500 problem: the response says only that something failed; `detail` goes to the log.
pub fn internal(detail: impl Into<String>) -> Response {
    let detail = detail.into();
    respond(
        &Problem::new(
            &catalogue::INTERNAL,
            format!("internal error: {detail}"),
            None,
        ),
        Extra {
            internal: Some(detail),
            ..Extra::default()
        },
    )
}
