//! API keys at the HTTP API: the extractors that name the caller of a job operation
//! ([`JobReader`], [`JobWriter`]), the refusals as problems (401 with `WWW-Authenticate`, 403,
//! 429), and the bearer security scheme of the OpenAPI document. Who may do what is
//! [`crate::service::auth`]; the key file is [`crate::config::keys`].

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

use crate::api::wire::error::ApiError;
use crate::service::auth::{Action, Caller, Denied, QuotaExceeded};
use crate::service::AppState;

/// The name of the security scheme in the OpenAPI document (the operations' `security(("api_key"
/// = []))` spell it out: utoipa takes only a literal there).
pub const SCHEME: &str = "api_key";

/// The caller of an operation that reads jobs (list, read, follow): any key with a jobs scope.
pub struct JobReader(pub Caller);

/// The caller of an operation that writes jobs (submit, cancel, delete): a key with `jobs` or
/// `admin`.
pub struct JobWriter(pub Caller);

fn authorize(parts: &Parts, app: &AppState, action: Action) -> Result<Caller, ApiError> {
    let header = parts.headers.get(AUTHORIZATION).map(|v| v.as_bytes());
    Ok(app.auth.authorize(header, action)?)
}

impl FromRequestParts<AppState> for JobReader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        authorize(parts, app, Action::Read).map(JobReader)
    }
}

impl FromRequestParts<AppState> for JobWriter {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        authorize(parts, app, Action::Write).map(JobWriter)
    }
}

const REALM: &str = "Bearer realm=\"grundy\"";

/// A refusal as its problem. No detail repeats what the client sent in its header.
impl From<Denied> for ApiError {
    fn from(d: Denied) -> Self {
        let how = "send `Authorization: Bearer <key>` with a key from the server's operator \
                   (`grundy keys new --name NAME --scope jobs` creates one)";
        match d {
            Denied::Missing => ApiError::Unauthorized {
                detail: format!("this server needs an API key for job operations: {how}"),
                challenge: REALM.to_owned(),
            },
            Denied::NotBearer => ApiError::Unauthorized {
                detail: format!("the Authorization header is not a bearer token: {how}"),
                challenge: format!("{REALM}, error=\"invalid_request\""),
            },
            Denied::Unknown => ApiError::Unauthorized {
                detail: "the API key sent is not one of this server's keys (mistyped, or \
                         removed from its key file)"
                    .into(),
                challenge: format!("{REALM}, error=\"invalid_token\""),
            },
            Denied::Scope { key, needed } => {
                let scopes = match needed {
                    crate::config::keys::Scope::JobsRead => "jobs:read, jobs or admin",
                    _ => "jobs or admin",
                };
                ApiError::InsufficientScope {
                    detail: format!(
                        "key {key:?} lacks the scope this operation needs: one of {scopes}"
                    ),
                    challenge: format!(
                        "{REALM}, error=\"insufficient_scope\", scope=\"{}\"",
                        needed.as_str()
                    ),
                }
            }
            Denied::WritesRefused => ApiError::ApiKeysRequired {
                detail: "this server listens on a non-loopback address without API keys, so \
                         jobs cannot be submitted, cancelled or deleted; its operator sets \
                         GRUNDY_API_KEYS_FILE (or GRUNDY_AUTH=off to open them to anyone)"
                    .into(),
            },
        }
    }
}

impl From<QuotaExceeded> for ApiError {
    fn from(q: QuotaExceeded) -> Self {
        ApiError::QuotaExceeded {
            detail: q.detail,
            quota: q.quota.to_owned(),
            limit: q.limit,
            retry_after_secs: q.retry_after_secs,
        }
    }
}

/// Adds the bearer scheme that the job operations name (`security(("api_key" = []))`).
pub struct BearerScheme;

impl utoipa::Modify for BearerScheme {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An API key from the server's operator (`grundy keys new`), sent as \
                         `Authorization: Bearer <key>`. Needed for the job operations when the \
                         server has keys (GRUNDY_API_KEYS_FILE); a server on a loopback address \
                         without keys (the embedded default) needs none. Compute operations \
                         never need one.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The OpenAPI document as a server in this access mode serves it at `/openapi.json`.
///
/// With keys (`keyed`), the document as generated — the committed `openapi/openapi.json`: the
/// job operations need a bearer key. Without keys (the open mode on a loopback address, or
/// `GRUNDY_AUTH=off`; or an exposed server that refuses job writes to everyone), no operation
/// needs one, so none declares security and the bearer scheme is left out: a client generated
/// from the served document asks for no token, and a contract test does not expect a 401.
pub fn for_access(mut doc: utoipa::openapi::OpenApi, keyed: bool) -> utoipa::openapi::OpenApi {
    if keyed {
        return doc;
    }
    for item in doc.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for op in operations.into_iter().flatten() {
            op.security = None;
        }
    }
    doc.security = None;
    if let Some(components) = doc.components.as_mut() {
        components.security_schemes.remove(SCHEME);
    }
    doc
}
