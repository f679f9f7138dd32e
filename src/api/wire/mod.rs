//! The wire vocabulary every resource of the API speaks: one error type rendered as RFC 9457
//! problems (the `/problems/*` pages that explain them are a route: `api/problems.rs`), the JSON body, query and path
//! extractors whose problems name the field, exact numbers (no rounding through floats), content
//! negotiation, the JSON Schema rules and shared responses of the OpenAPI document, and the wire
//! forms of `core::game`.

pub mod accept; // content negotiation: JSON, CSV or binary by Accept
pub mod doc_responses; // shared OpenAPI response components (400/413/415, 404 job, 503 store)
pub mod error; // ApiError: every failure of a handler, rendered as a problem in one place
pub mod fast_json; // hand-written JSON for the hottest answers: the trait and its pieces
pub mod game; // Play, Outcome, Move: the wire forms of core::game
pub mod json; // ApiJson: the JSON body extractor whose problems name the field
pub mod nat; // Nat: exact non-negative integers from JSON
pub mod numbers; // exact JSON numbers (no rounding through floats)
pub mod params; // ApiQuery, ApiPath: query and path extractors whose problems name the parameter
pub mod position; // shared position checks (distinct squares, lengths)
pub mod schema_rules; // the JSON Schema rules of the OpenAPI document (patterns, limits)
mod serde_error; // a serde error as the problem naming its field
