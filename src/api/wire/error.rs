//! The one error type of the HTTP API, rendered as an RFC 9457 problem document in one place.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::problem::catalogue::{self as p, ProblemType};
use crate::problem::{Extra, Problem};
use crate::service::misere::MisereServiceError;
use crate::service::OctalServiceError;
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
    /// Well-formed and valid, but answering needs more than a configured compute budget (422):
    /// a search or a synchronous computation that no schema rule can foresee.
    #[error("{detail}")]
    BudgetExceeded { field: String, detail: String },
    /// The body is not declared as JSON (415).
    #[error("{detail}")]
    UnsupportedMediaType { detail: String },
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
    /// The store has no space left for this write (507 + Retry-After).
    #[error("{detail}")]
    InsufficientStorage {
        detail: String,
        retry_after_secs: u64,
    },
    /// A bug: never caused by input. Logged with the request id.
    #[error("internal error: {0}")]
    Internal(String),
    /// No key, or an unknown one, where the server needs one (401 + `WWW-Authenticate`).
    #[error("{detail}")]
    Unauthorized { detail: String, challenge: String },
    /// The key lacks the scope the operation needs (403 + `WWW-Authenticate`).
    #[error("{detail}")]
    InsufficientScope { detail: String, challenge: String },
    /// No keys on a non-loopback address: job writes are refused (403).
    #[error("{detail}")]
    ApiKeysRequired { detail: String },
    /// A submission past a quota of its key (429 + Retry-After; the problem names the quota).
    #[error("{detail}")]
    QuotaExceeded {
        detail: String,
        quota: String,
        limit: u64,
        retry_after_secs: u64,
    },
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

    /// The misère service's failure, naming `field`: a time limit or compute budget that ran
    /// out (or a heap beyond what the engine enumerates) is a 422 budget problem, a bug a 500.
    pub fn misere(field: &str, e: MisereServiceError) -> Self {
        match e {
            MisereServiceError::TooSlow {
                bound,
                reached,
                limit,
            } => ApiError::BudgetExceeded {
                field: field.into(),
                detail: format!(
                    "{field}: the misère answer needs the quotient Q_{bound} or an exact search, which take longer \
                     than the time limit of {} ms (GRUNDY_OCTAL_SYNC_MS; GRUNDY_MISERE_JOB_SECS in the background); \
                     the quotient was verified up to Q_{reached}",
                    limit.as_millis()
                ),
            },
            MisereServiceError::Engine {
                error: crate::core::misere::MisereError::Internal { what },
                ..
            } => ApiError::Internal(format!("misère quotient: {what}")),
            MisereServiceError::Engine { error, reached } => ApiError::BudgetExceeded {
                field: field.into(),
                detail: if field == "heaps" {
                    format!(
                        "{field}: {error} (the misère quotient was verified up to Q_{reached}; the exact \
                         search's budget is GRUNDY_SEARCH_MAX_STEPS and GRUNDY_SEARCH_MAX_ENTRIES)"
                    )
                } else {
                    format!(
                        "{field}: {error} (the misère quotient was verified up to Q_{reached}; \
                         \"async\": true computes in the background with a larger budget)"
                    )
                },
            },
            MisereServiceError::Internal(msg) => ApiError::Internal(msg),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Invalid { .. } | ApiError::BudgetExceeded { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable { .. } => StatusCode::NOT_ACCEPTABLE,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::InsufficientStorage { .. } => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::InsufficientScope { .. } | ApiError::ApiKeysRequired { .. } => {
                StatusCode::FORBIDDEN
            }
            ApiError::QuotaExceeded { .. } => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    /// The problem type (its page is served at `/problems/{slug}`, see [`super::problems`]).
    pub fn kind(&self) -> &'static ProblemType {
        match self {
            ApiError::BadRequest { .. } => &p::BAD_REQUEST,
            ApiError::Invalid { .. } => &p::INVALID_VALUE,
            ApiError::BudgetExceeded { .. } => &p::BUDGET_EXCEEDED,
            ApiError::UnsupportedMediaType { .. } => &p::UNSUPPORTED_MEDIA_TYPE,
            ApiError::NotFound { .. } => &p::NOT_FOUND,
            ApiError::MethodNotAllowed => &p::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable { .. } => &p::NOT_ACCEPTABLE,
            ApiError::Conflict { .. } => &p::NOT_AVAILABLE,
            ApiError::Unavailable { .. } => &p::UNAVAILABLE,
            ApiError::InsufficientStorage { .. } => &p::INSUFFICIENT_STORAGE,
            ApiError::Internal(_) => &p::INTERNAL,
            ApiError::Unauthorized { .. } => &p::UNAUTHORIZED,
            ApiError::InsufficientScope { .. } => &p::INSUFFICIENT_SCOPE,
            ApiError::ApiKeysRequired { .. } => &p::API_KEYS_REQUIRED,
            ApiError::QuotaExceeded { .. } => &p::QUOTA_EXCEEDED,
        }
    }

    /// The problem document for this error.
    pub fn problem(&self) -> Problem {
        let field = match self {
            ApiError::Invalid { field, .. }
            | ApiError::BudgetExceeded { field, .. }
            | ApiError::Conflict { field, .. } => Some(field.clone()),
            ApiError::BadRequest { field, .. } => field.clone(),
            _ => None,
        };
        let mut problem = Problem::new(self.kind(), self.to_string(), field);
        if let ApiError::QuotaExceeded { quota, limit, .. } = self {
            problem.quota = Some(quota.clone());
            problem.limit = Some(*limit);
        }
        problem
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let problem = self.problem();
        let extra = match self {
            ApiError::Unavailable {
                retry_after_secs, ..
            }
            | ApiError::InsufficientStorage {
                retry_after_secs, ..
            } => Extra {
                retry_after_secs: Some(retry_after_secs),
                ..Extra::default()
            },
            ApiError::Internal(msg) => Extra {
                internal: Some(msg),
                ..Extra::default()
            },
            ApiError::Unauthorized { challenge, .. }
            | ApiError::InsufficientScope { challenge, .. } => Extra {
                www_authenticate: Some(challenge),
                ..Extra::default()
            },
            ApiError::QuotaExceeded {
                retry_after_secs, ..
            } => Extra {
                retry_after_secs: Some(retry_after_secs),
                ..Extra::default()
            },
            _ => Extra::default(),
        };
        crate::problem::respond(&problem, extra)
    }
}

/// The octal service's failures: a computation too slow for a request or a game the engine
/// refuses are the request's fault (422); a failing store is a dependency (503); the rest are
/// bugs (500).
impl From<OctalServiceError> for ApiError {
    fn from(e: OctalServiceError) -> Self {
        match e {
            OctalServiceError::TooSlow { computed, limit } => ApiError::BudgetExceeded {
                field: "n".into(),
                detail: format!(
                    "n: computing this game beyond {computed} values takes longer than the synchronous limit of {} ms \
                     (GRUNDY_OCTAL_SYNC_MS); submit a job with POST /v1/octal/jobs",
                    limit.as_millis()
                ),
            },
            OctalServiceError::Game(e) => ApiError::invalid("code", format!("code: {e}")),
            OctalServiceError::Store(e) => e.into(),
            OctalServiceError::Internal(msg) => ApiError::Internal(msg),
        }
    }
}

/// The store is a dependency, not the input: its failures are 503s (logged here, once).
/// A store error as an answer: 507 when the store is full, otherwise 503, both with
/// Retry-After. (Logged by the store's health: once when a fault starts, not per request.)
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        use crate::store::FaultKind;
        let kind = e.kind();
        let why = match kind {
            FaultKind::Full => "the job store is full (no space left for writes)",
            FaultKind::Unavailable => "the job store is unavailable",
            FaultKind::Schema => "the job store's schema is missing (being re-created)",
            FaultKind::Busy => "the job store is busy (locked or timed out)",
            FaultKind::Permission => "the job store refuses access",
            FaultKind::Io => "the job store reports an I/O error",
            FaultKind::Other => "the job store failed",
        };
        let detail = format!(
            "{why}: {e}; compute endpoints still work ({})",
            kind.reason()
        );
        if kind == FaultKind::Other {
            tracing::error!(error = %e, "store error");
        }
        match kind {
            FaultKind::Full => ApiError::InsufficientStorage {
                detail,
                retry_after_secs: 30,
            },
            FaultKind::Unavailable | FaultKind::Schema => ApiError::Unavailable {
                detail,
                retry_after_secs: 5,
            },
            _ => ApiError::Unavailable {
                detail,
                retry_after_secs: 2,
            },
        }
    }
}
