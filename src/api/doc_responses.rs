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
