//! The HTTP API: request/response types (with OpenAPI schemas), handlers, and the router.
//! Handlers and wire types only: the edge is `crate::http`, the services `crate::service`.

// A folder per resource: the handler of any path of the OpenAPI document is in the folder its
// path names (every `/v1/octal/*` in `octal/`: its jobs, censuses and misère quotients too;
// `/v1/octal/census` in `octal/jobs/`, the job kinds' shared resource); what every resource
// speaks — errors, JSON, numbers, parameters — is in `wire/`, and only routes are outside it.
pub mod antimatter; // /v1/antimatter/*: values by bounded memoised search
pub mod antonim; // /v1/antonim/*: values by bounded memoised search
pub mod auth; // API keys at the API: the job callers' extractors, 401/403/429 problems, the bearer scheme
pub mod compute; // the one path of every compute answer: cache, compute pool, serialization
pub mod max_welter; // /v1/max-welter/*: the rightmost coin moves
pub mod octal; // /v1/octal/*: sequence, value, winning-moves, values; jobs/ (jobs, census); misere (quotients)
pub mod ops; // /healthz, /readyz, /metrics
pub mod pages; // the web pages at / and their assets
pub mod problems; // /problems/*: one page per problem type
pub mod transfinite; // /v1/transfinite/*
pub mod welter; // /v1/welter/*: values, winning moves, primes, batches, explanations
pub mod wire; // the shared wire vocabulary: errors, JSON, exact numbers, parameters, schemas

// The paths the integration tests name, from before the folders.
pub use wire::{numbers, schema_rules};

use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::service::AppState;
use auth::BearerScheme;
use wire::doc_responses;

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
        (name = "octal-jobs", description = "Durable long-running octal computations (SQLite or PostgreSQL store). A job belongs to the API key that submitted it: with keys, each key sees and acts on its own jobs only (`admin`: on all), within its quotas."),
        (name = "transfinite", description = "Transfinite Nim and Welter's game on ordinals below epsilon_0 (Cantor normal form strings)."),
        (name = "operations", description = "Health, readiness and metrics."),
        (name = "problems", description = "One page per problem type: every error is an RFC 9457 problem document whose `type` (`/problems/invalid-value`, `/problems/budget-exceeded`, …) is served here.")
    ),
    components(
        schemas(crate::problem::Problem, crate::problem::ProblemTypeName),
        responses(
            doc_responses::BadRequest,
            doc_responses::PayloadTooLarge,
            doc_responses::UnsupportedMediaType,
            doc_responses::JobNotFound,
            doc_responses::StoreUnavailable,
            doc_responses::Unauthorized,
            doc_responses::Forbidden
        )
    ),
    modifiers(&BearerScheme)
)]
struct ApiDoc;

/// Every documented route, with its OpenAPI description.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(welter::router())
        .merge(transfinite::router())
        .merge(max_welter::router())
        .merge(antonim::router())
        .merge(antimatter::router())
        .merge(octal::router())
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
///
/// And adds what the derive cannot write: the rules between the fields of the job and census
/// requests ([`cross_field_rules`]).
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
    // A query or path parameter's unsigned integer states its largest value (u64: 2^64 − 1),
    // so that a client (or Schemathesis) sending 2^64 + 1 as `start` expects the 422 it gets.
    // Only parameters: response bodies carry exact integers beyond u64 where the maths does
    // (Welter primes), and request bodies are bounded by their own rules.
    fn parameter_maxima(doc: &mut serde_json::Value) {
        let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) else {
            return;
        };
        for ops in paths.values_mut().filter_map(|o| o.as_object_mut()) {
            for op in ops.values_mut() {
                let Some(serde_json::Value::Array(params)) = op.get_mut("parameters") else {
                    continue;
                };
                for schema in params.iter_mut().filter_map(|p| p.get_mut("schema")) {
                    let Some(map) = schema.as_object_mut() else {
                        continue;
                    };
                    let top = match map.get("format").and_then(|f| f.as_str()) {
                        Some("uint8") => u64::from(u8::MAX),
                        Some("uint16") => u64::from(u16::MAX),
                        Some("uint32") => u64::from(u32::MAX),
                        Some("uint64") => u64::MAX,
                        _ => continue,
                    };
                    map.entry("maximum").or_insert(serde_json::Value::from(top));
                }
            }
        }
    }
    let Ok(mut value) = serde_json::to_value(&doc) else {
        return doc;
    };
    walk(&mut value);
    dedupe_parameters(&mut value);
    parameter_maxima(&mut value);
    let mut doc = serde_json::from_value(value).unwrap_or(doc);
    cross_field_rules(&mut doc);
    doc
}

/// Adds to the request schemas the rules between their fields that utoipa's derive cannot
/// write ([`schema_rules::keep_rules`]), as JSON Schema keywords beside their properties.
/// After the JSON round trip of [`fix_formats`]: utoipa's `Object` keeps keywords it does not
/// model in its extensions, which it serializes as they are but reads back only when they
/// start with `x-`. One keyword per schema (`not`): the extensions are a hash map, so two
/// would be written in no fixed order.
fn cross_field_rules(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{RefOr, Schema};
    use utoipa::ToSchema;
    let Some(components) = doc.components.as_mut() else {
        return;
    };
    let rules = [
        (
            octal::jobs::JobRequest::name(),
            schema_rules::keep_rules(true),
        ),
        (
            octal::jobs::census::CensusRequest::name(),
            schema_rules::keep_rules(false),
        ),
    ];
    for (name, rule) in rules {
        if let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(name.as_ref()) {
            object
                .extensions
                .get_or_insert_with(Default::default)
                .insert("not".to_owned(), rule);
        }
    }
}

/// The OpenAPI document as pretty JSON with a trailing newline, exactly as committed.
pub fn openapi_json() -> String {
    let mut s = openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    s.push('\n');
    s
}
