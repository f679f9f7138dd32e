//! `/v1/welter/explain`: how the Welter value is obtained, as data a page can render.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond_search;
use crate::api::wire::doc_responses::BodyProblems;
use crate::api::wire::error::ApiError;
use crate::api::wire::game::{Move, Outcome};
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::api::wire::position::distinct_sorted_limit;
use crate::core::explain as core;
use crate::problem::Problem;
use crate::service::cache;
use crate::service::AppState;

/// A position to explain.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": [1, 3, 7, 8, 11, 19]}))]
pub struct ExplainRequest {
    /// The occupied squares (distinct; at most `GRUNDY_EXPLAIN_MAX_COINS`, default 256).
    #[schema(schema_with = crate::api::wire::schema_rules::explain_squares)]
    pub position: Vec<Nat>,
}

/// One step of the Mating method: a pair of coins or the spinster.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum MatingStep {
    /// Coins `a < b` congruent modulo `2^depth` (and no higher power): contributes `a ⊕ b − 1`.
    Pair {
        pair: [u64; 2],
        depth: u32,
        value: u64,
    },
    /// The coin left over when the number of coins is odd: contributes itself.
    Single { single: u64 },
}

/// Sprague's renumbering for 5 coins on squares 0..15 (Theorem 6.28).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SpragueMethod {
    /// `r(x) = (16 − x) mod 16` for each coin of the sorted position.
    pub renumbered: Vec<u64>,
    /// The nim-sum of the renumbered coins: P iff 0.
    pub nim_sum: u64,
    /// The winning moves given by the renumbered Nim rule (all of them).
    pub moves: Vec<Move>,
}

/// The Abacus test (Chapter 8) and its meaning for misère play.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AbacusInfo {
    /// One coin on each rod `{i, 2n−1−i}`, i < n.
    pub is_abacus: bool,
    /// The misère outcome.
    pub misere_outcome: Outcome,
    /// A sentence explaining the misère rule that applies.
    pub meaning: String,
}

/// How the value is obtained.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "position": [1, 3, 7, 8, 11, 19], "value": 12,
    "mating": [{"pair": [3, 19], "depth": 4, "value": 15}, {"pair": [7, 11], "depth": 2, "value": 11}, {"pair": [1, 8], "depth": 0, "value": 8}],
    "triangle": [[0, 0, 0, 0, 0, 0, 0], [1, 3, 7, 8, 11, 19], [1, 3, 14, 2, 23], [2, 11, 3, 31], [11, 9, 25], [10, 12], [12]],
    "sprague": null,
    "abacus": {"is_abacus": false, "misere_outcome": "N", "meaning": "Not an Abacus position: misère play has the same outcome as normal play."}
}))]
pub struct ExplainResponse {
    /// The position, sorted ascending.
    pub position: Vec<u64>,
    /// The Welter value.
    pub value: u64,
    /// The Mating method: pairs in the order they are mated, then the spinster (if n is odd).
    /// The value is the nim-sum of the step values.
    pub mating: Vec<MatingStep>,
    /// The Triangle method: row 0 is n+1 zeros, row r entry j is the value of the window of r
    /// consecutive coins starting at the j-th; the last row is the value.
    pub triangle: Vec<Vec<u64>>,
    /// Sprague's method, present for 5 coins on squares 0..15.
    pub sprague: Option<SpragueMethod>,
    pub abacus: AbacusInfo,
}

fn to_api(e: core::Explanation) -> ExplainResponse {
    let meaning = if e.abacus.is_abacus {
        "Abacus position: its value is 0 or 1, and misère play swaps them — misère P iff the value is 1."
    } else {
        "Not an Abacus position: misère play has the same outcome as normal play."
    };
    ExplainResponse {
        position: e.position,
        value: e.value,
        mating: e
            .mating
            .into_iter()
            .map(|s| match s {
                core::MatingStep::Pair { a, b, depth, value } => MatingStep::Pair {
                    pair: [a, b],
                    depth,
                    value,
                },
                core::MatingStep::Single { coin } => MatingStep::Single { single: coin },
            })
            .collect(),
        triangle: e.triangle,
        sprague: e.sprague.map(|s| SpragueMethod {
            renumbered: s.renumbered,
            nim_sum: s.nim_sum,
            moves: s.moves.into_iter().map(Move::from).collect(),
        }),
        abacus: AbacusInfo {
            is_abacus: e.abacus.is_abacus,
            misere_outcome: e.abacus.misere_outcome.into(),
            meaning: meaning.to_owned(),
        },
    }
}

/// Show your work: the Mating method, the Triangle method, Sprague's renumbering and the
/// Abacus test for a Welter position.
#[utoipa::path(
    post, path = "/v1/welter/explain", operation_id = "welter_explain", tag = "welter",
    request_body = ExplainRequest,
    responses(
        (status = 200, description = "The worked computation", body = ExplainResponse),
        BodyProblems,
        (status = 422, description = "Invalid position or more coins than GRUNDY_EXPLAIN_MAX_COINS", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn explain(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<ExplainRequest>,
) -> Result<Response, ApiError> {
    let max = app.config.explain_max_coins.min(app.config.max_coins);
    let position =
        distinct_sorted_limit("position", &req.position, max, "GRUNDY_EXPLAIN_MAX_COINS")?;
    let key = cache::key("welter/explain", "", &position);
    // Quadratic work and output: worth caching at every size.
    respond_search(&app, key, move || Ok(to_api(core::explain(&position)))).await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(explain))
}
