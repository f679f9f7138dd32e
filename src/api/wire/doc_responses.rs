//! The fixed problem responses that many operations share, as reusable OpenAPI response
//! components (`#/components/responses/…`): each is documented once here and referenced by
//! `(status = …, response = …)` in the operations. Responses whose wording depends on the
//! operation (most 422s) stay with the operation.

use utoipa::ToResponse;

use crate::problem::Problem;

/// 400: the body is not JSON, or a field has the wrong JSON type.
#[derive(ToResponse)]
#[response(
    description = "Malformed JSON or wrong JSON type",
    content_type = "application/problem+json"
)]
pub struct BadRequest(pub Problem);

/// 413: the body exceeds `GRUNDY_MAX_BODY_BYTES`.
#[derive(ToResponse)]
#[response(
    description = "Body too large",
    content_type = "application/problem+json"
)]
pub struct PayloadTooLarge(pub Problem);

/// 415: the body is not declared as JSON.
#[derive(ToResponse)]
#[response(
    description = "The body is not declared as JSON (Content-Type application/json or application/*+json)",
    content_type = "application/problem+json"
)]
pub struct UnsupportedMediaType(pub Problem);

/// 404: no job has this id.
#[derive(ToResponse)]
#[response(description = "No such job", content_type = "application/problem+json")]
pub struct JobNotFound(pub Problem);

/// 503: the job store is not connected or failed (with `Retry-After`).
#[derive(ToResponse)]
#[response(
    description = "The store is unavailable",
    content_type = "application/problem+json"
)]
pub struct StoreUnavailable(pub Problem);

/// The three problems of every operation that reads a JSON body — 400, 413 and 415 — as one
/// entry of an operation's `responses(...)`, each a reference to its component above.
#[derive(utoipa::IntoResponses)]
pub enum BodyProblems {
    #[response(status = 400)]
    BadRequest(#[ref_response] BadRequest),
    #[response(status = 413)]
    PayloadTooLarge(#[ref_response] PayloadTooLarge),
    #[response(status = 415)]
    UnsupportedMediaType(#[ref_response] UnsupportedMediaType),
}

/// The store's refusals of a write — 503 (unavailable, a reference to its component above)
/// and 507 (full, with `Retry-After`) — as one entry of an operation's `responses(...)`.
#[derive(utoipa::IntoResponses)]
pub enum StoreWriteProblems {
    #[response(status = 503)]
    Unavailable(#[ref_response] StoreUnavailable),
    #[response(
        status = 507,
        description = "The store is full (Retry-After)",
        content_type = "application/problem+json"
    )]
    Full(Problem),
}

/// 401: no API key, or an unknown one, where the server has keys.
#[derive(ToResponse)]
#[response(
    description = "No API key, or an unknown one (the server has keys: send `Authorization: Bearer <key>`)",
    content_type = "application/problem+json",
    headers(("WWW-Authenticate" = String, description = "`Bearer realm=\"grundy\"`, with `error=\"invalid_token\"` for an unknown key"))
)]
pub struct Unauthorized(pub Problem);

/// 403: the key lacks the scope, or job writes are refused on a server without keys.
#[derive(ToResponse)]
#[response(
    description = "The key lacks the scope (`/problems/insufficient-scope`), or the server refuses job writes without keys (`/problems/api-keys-required`)",
    content_type = "application/problem+json"
)]
pub struct Forbidden(pub Problem);

/// The refusals of every job operation — 401 and 403 — as one entry of its `responses(...)`.
#[derive(utoipa::IntoResponses)]
pub enum AuthProblems {
    #[response(status = 401)]
    Unauthorized(#[ref_response] Unauthorized),
    #[response(status = 403)]
    Forbidden(#[ref_response] Forbidden),
}

/// The 422 of the searched games (Antonim, Antimatter): an invalid position, or one beyond the
/// compute budget (`GRUNDY_SEARCH_MAX_STEPS`, `GRUNDY_SEARCH_MAX_ENTRIES`).
#[derive(utoipa::IntoResponses)]
pub enum SearchProblems {
    #[response(
        status = 422,
        description = "Invalid position, or beyond the compute budget",
        content_type = "application/problem+json"
    )]
    Invalid(Problem),
}

/// The 422 of an operation that reads a position of coins: an invalid position.
#[derive(utoipa::IntoResponses)]
pub enum InvalidPosition {
    #[response(
        status = 422,
        description = "Invalid position",
        content_type = "application/problem+json"
    )]
    Invalid(Problem),
}

/// The 400 of an operation whose path names a job or a census by id: the id is not UTF-8.
#[derive(utoipa::IntoResponses)]
pub enum BadId {
    #[response(
        status = 400,
        description = "The id is not valid UTF-8 once percent-decoded",
        content_type = "application/problem+json"
    )]
    NotUtf8(Problem),
}

/// The 400 of an operation that reads a query string: it does not parse.
#[derive(utoipa::IntoResponses)]
pub enum BadQuery {
    #[response(
        status = 400,
        description = "Malformed query string",
        content_type = "application/problem+json"
    )]
    Malformed(Problem),
}
