//! The HTTP API: request/response types (with OpenAPI schemas), handlers, and the router.

pub mod batch;
pub mod common;
pub mod error;
pub mod events;
pub mod explain;
pub mod fast_json;
pub mod jobs;
pub mod json;
pub mod max_welter;
pub mod nat;
pub mod numbers;
pub mod octal;
pub mod ops;
pub mod pages;
pub mod params;
pub mod position;
pub mod problems;
pub mod related;
pub mod respond;
pub mod responses;
pub mod schema_rules;
pub mod transfinite;
pub mod values;
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
        (name = "operations", description = "Health, readiness and metrics."),
        (name = "problems", description = "One page per problem type: every error is an RFC 9457 problem document whose `type` (`/problems/invalid-value`, `/problems/budget-exceeded`, …) is served here.")
    ),
    components(
        schemas(error::Problem, problems::ProblemTypeName),
        responses(
            responses::BadRequest,
            responses::PayloadTooLarge,
            responses::UnsupportedMediaType,
            responses::JobNotFound,
            responses::StoreUnavailable
        )
    )
)]
struct ApiDoc;

/// Every documented route, with its OpenAPI description.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(welter::router())
        .merge(batch::router())
        .merge(explain::router())
        .merge(transfinite::router())
        .merge(max_welter::router())
        .merge(related::router())
        .merge(octal::router())
        .merge(values::router())
        .merge(jobs::router())
        .merge(events::router())
        .merge(ops::router())
        .merge(problems::router())
}

/// The OpenAPI document generated from the code (the committed `openapi/openapi.json`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    fix_formats(router().split_for_parts().1)
}

/// Fixes what utoipa writes and tools reject:
///
/// * utoipa names unsigned formats in kebab case (`u-int64`); tools know them as `uint64`.
///   Unsigned fields matter here: squares and heaps go up to 2^64−1, past `int64`.
/// * A path parameter documented by hand (`params(...)`, with its pattern) is also derived
///   from the handler's `Path` extractor, so it appears twice; OpenAPI forbids duplicates
///   (a `name` and `in` pair is unique per operation) and generators drop the operation.
///   The first — the hand-written one — is kept.
pub fn fix_formats(doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    fn dedupe_parameters(doc: &mut serde_json::Value) {
        let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) else {
            return;
        };
        for ops in paths.values_mut().filter_map(|o| o.as_object_mut()) {
            for op in ops.values_mut() {
                if let Some(serde_json::Value::Array(params)) = op.get_mut("parameters") {
                    let mut seen = std::collections::HashSet::new();
                    params.retain(|p| seen.insert((p.get("name").cloned(), p.get("in").cloned())));
                }
            }
        }
    }
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(f)) = map.get_mut("format") {
                    if let Some(rest) = f.strip_prefix("u-int") {
                        *f = format!("uint{rest}");
                    }
                }
                map.values_mut().for_each(walk);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(&doc) else {
        return doc;
    };
    walk(&mut value);
    dedupe_parameters(&mut value);
    serde_json::from_value(value).unwrap_or(doc)
}

/// The OpenAPI document as pretty JSON with a trailing newline, exactly as committed.
pub fn openapi_json() -> String {
    let mut s = openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    s.push('\n');
    s
}
