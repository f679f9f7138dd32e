//! The one error type of the HTTP API, rendered as an RFC 9457 problem document in one place.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::octal_service::OctalServiceError;
use crate::store::StoreError;

/// Everything a request can fail with. Each variant knows its status and problem type; the
/// `detail` always names the offending field and value so that a client can fix the request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The body is not JSON, or a field has the wrong JSON type (400).
    #[error("{detail}")]
    BadRequest {
        field: Option<String>,
        detail: String,
    },
    /// Well-formed but invalid: a value out of range, a duplicate coin, a limit exceeded (422).
    #[error("{detail}")]
    Invalid { field: String, detail: String },
    /// The body is larger than the configured limit (413).
    #[error("request body exceeds the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// No such route or resource (404).
    #[error("{detail}")]
    NotFound { detail: String },
    /// The method is not allowed on this path (405).
    #[error("method not allowed on this path")]
    MethodNotAllowed,
    /// The `Accept` header names no format the operation produces (406).
    #[error("{detail}")]
    NotAcceptable { detail: String },
    /// Valid, but what the service holds cannot answer it yet, e.g. values not computed (409).
    #[error("{detail}")]
    Conflict { field: String, detail: String },
    /// The server is at capacity or the request ran out of time (503 + Retry-After).
    #[error("{detail}")]
    Unavailable {
        detail: String,
        retry_after_secs: u64,
    },
    /// A bug: never caused by input. Logged with the request id.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// A 422 naming `field`.
    pub fn invalid(field: impl Into<String>, detail: impl Into<String>) -> Self {
        ApiError::Invalid {
            field: field.into(),
            detail: detail.into(),
        }
    }

    /// A 422 naming `field`, its detail `field: reason`.
    pub fn invalid_field(field: &str, reason: impl std::fmt::Display) -> Self {
        ApiError::invalid(field, format!("{field}: {reason}"))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable { .. } => StatusCode::NOT_ACCEPTABLE,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn slug_and_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::BadRequest { .. } => ("bad-request", "Malformed request"),
            ApiError::Invalid { .. } => ("invalid-value", "Invalid value"),
            ApiError::PayloadTooLarge { .. } => ("payload-too-large", "Request body too large"),
            ApiError::NotFound { .. } => ("not-found", "Not found"),
            ApiError::MethodNotAllowed => ("method-not-allowed", "Method not allowed"),
            ApiError::NotAcceptable { .. } => ("not-acceptable", "Not acceptable"),
            ApiError::Conflict { .. } => ("not-available", "Not available yet"),
            ApiError::Unavailable { .. } => ("unavailable", "Service unavailable"),
            ApiError::Internal(_) => ("internal", "Internal server error"),
        }
    }

    /// The problem document for this error.
    pub fn problem(&self) -> Problem {
        let (slug, title) = self.slug_and_title();
        Problem {
            r#type: format!("https://grundy.dev/problems/{slug}"),
            title: title.to_owned(),
            status: self.status().as_u16(),
            detail: self.to_string(),
            field: match self {
                ApiError::Invalid { field, .. } | ApiError::Conflict { field, .. } => {
                    Some(field.clone())
                }
                ApiError::BadRequest { field, .. } => field.clone(),
                _ => None,
            },
        }
    }
}

/// An RFC 9457 problem document (`application/problem+json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "https://grundy.dev/problems/invalid-value",
    "title": "Invalid value",
    "status": 422,
    "detail": "position: square 7 appears twice (coins must be on distinct squares)",
    "field": "position"
}))]
pub struct Problem {
    /// A URI identifying the problem type.
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
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(msg) = &self {
            tracing::error!(error = %msg, "internal error");
        }
        let status = self.status();
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut resp = (status, body).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let ApiError::Unavailable {
            retry_after_secs, ..
        } = self
        {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        resp
    }
}

/// The octal service's failures: a computation too slow for a request or a game the engine
/// refuses are the request's fault (422); a failing store is a dependency (503); the rest are
/// bugs (500).
impl From<OctalServiceError> for ApiError {
    fn from(e: OctalServiceError) -> Self {
        match e {
            OctalServiceError::TooSlow { computed, limit } => ApiError::invalid(
                "n",
                format!(
                    "n: computing this game beyond {computed} values takes longer than the synchronous limit of {} ms \
                     (GRUNDY_OCTAL_SYNC_MS); submit a job with POST /v1/octal/jobs",
                    limit.as_millis()
                ),
            ),
            OctalServiceError::Game(e) => ApiError::invalid("code", format!("code: {e}")),
            OctalServiceError::Store(e) => e.into(),
            OctalServiceError::Internal(msg) => ApiError::Internal(msg),
        }
    }
}

/// The store is a dependency, not the input: its failures are 503s (logged here, once).
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store error");
        ApiError::Unavailable {
            detail: format!("the job store failed: {e}"),
            retry_after_secs: 2,
        }
    }
}
