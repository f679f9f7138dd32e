//! The HTTP API: request/response types (with OpenAPI schemas), handlers, and the router.

pub mod error;
pub mod explain;
pub mod jobs;
pub mod json;
pub mod max_welter;
pub mod nat;
pub mod octal;
pub mod ops;
pub mod position;
pub mod related;
pub mod transfinite;
pub mod welter;

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "grundy",
        description = "Exact combinatorial-game answers over HTTP/JSON: Welter's game (values, every winning move, Unique Prime Lemma primes, misère play, worked explanations) Max-Welter, Antonim and Antimatter, octal and take-and-break games with proved periodicity and durable jobs, and transfinite Nim and Welter on ordinals below epsilon_0. Errors are RFC 9457 problem documents.",
        license(name = "MIT OR Apache-2.0")
    ),
    tags(
        (name = "welter", description = "Welter's game: coins on distinct squares, a move slides one coin to a lower empty square."),
        (name = "max-welter", description = "Max-Welter: only the rightmost coin may move. Exact outcomes and winning moves for any position; values within a compute budget."),
        (name = "related-games", description = "Antonim and Antimatter (van Splunder §5.2): exact values by bounded memoised search."),
        (name = "octal", description = "Octal, hexadecimal and take-and-break games (Austin's codes) and subtraction games: G-sequences, proved periodicity, values for any heap, winning moves."),
        (name = "octal-jobs", description = "Durable long-running octal computations (SQLite or PostgreSQL store)."),
        (name = "transfinite", description = "Transfinite Nim and Welter's game on ordinals below epsilon_0 (Cantor normal form strings)."),
        (name = "operations", description = "Health, readiness and metrics.")
    ),
    components(schemas(error::Problem))
)]
struct ApiDoc;

/// Every documented route, with its OpenAPI description.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(welter::router())
        .merge(explain::router())
        .merge(transfinite::router())
        .merge(max_welter::router())
        .merge(related::router())
        .merge(octal::router())
        .merge(jobs::router())
        .merge(ops::router())
}

/// The OpenAPI document generated from the code (the committed `openapi/openapi.json`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    router().split_for_parts().1
}

/// The OpenAPI document as pretty JSON with a trailing newline, exactly as committed.
pub fn openapi_json() -> String {
    let mut s = openapi().to_pretty_json().expect("the OpenAPI document serializes");
    s.push('\n');
    s
}
