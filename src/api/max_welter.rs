//! `/v1/max-welter/*`: Max-Welter (only the rightmost coin moves). Outcomes and winning moves
//! are exact for any position (Ho's Theorems 1, 2, 7–9); the value needs a search and is given
//! within the compute budget, else `null`.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond_search;
use crate::api::welter::PositionRequest;
use crate::api::wire::doc_responses::{BodyProblems, InvalidPosition};
use crate::api::wire::error::ApiError;
use crate::api::wire::game::{Outcome, Play};
use crate::api::wire::json::ApiJson;
use crate::api::wire::position::distinct_sorted;
use crate::core::max_welter as core;
use crate::service::cache;
use crate::service::AppState;

/// Max-Welter value and outcome.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [2, 5, 6, 8, 10], "coins": 5, "value": 3, "value_computed": true, "outcome": "N", "play": "normal"}))]
pub struct MaxWelterValueResponse {
    /// The position, sorted ascending.
    pub position: Vec<u64>,
    pub coins: usize,
    /// The normal-play Sprague–Grundy value, or `null` when it needs more than the compute
    /// budget (`GRUNDY_SEARCH_MAX_STEPS`, `GRUNDY_SEARCH_MAX_ENTRIES`); `outcome` is exact anyway.
    pub value: Option<u64>,
    /// Whether `value` was computed (false: beyond the budget).
    pub value_computed: bool,
    /// The outcome under `play` (always exact).
    pub outcome: Outcome,
    pub play: Play,
}

/// Moving the top coin `from` to **every empty square** `s` with `to_start ≤ s ≤ to_end` wins.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
pub struct MoveRange {
    pub from: u64,
    pub to_start: u64,
    pub to_end: u64,
}

/// Every winning move of a Max-Welter position, as ranges of target squares.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [2, 5, 6, 8, 10], "value": 3, "value_computed": true, "outcome": "N", "play": "normal",
    "moves": [{"from": 10, "to_start": 7, "to_end": 7}]}))]
pub struct MaxWelterMovesResponse {
    pub position: Vec<u64>,
    /// As in the value response: `null` beyond the compute budget.
    pub value: Option<u64>,
    pub value_computed: bool,
    pub outcome: Outcome,
    pub play: Play,
    /// Disjoint ascending ranges, each containing at least one empty square; empty for a
    /// P-position.
    pub moves: Vec<MoveRange>,
}

fn analyse(app: &AppState, req: PositionRequest) -> Result<(Vec<u64>, core::Analysis), ApiError> {
    let position = distinct_sorted("position", &req.position, app.config.max_coins)?;
    let a = core::analyse(&position, req.play.into(), app.config.search_budget())
        .map_err(|e| ApiError::invalid_field("position", e))?;
    // The misère value is the normal one with 0 and 1 swapped (Theorem 9); `value` is always
    // the normal-play value, as for Welter.
    Ok((position, a))
}

/// Max-Welter value (within the compute budget) and exact outcome.
#[utoipa::path(
    post, path = "/v1/max-welter/value", operation_id = "max_welter_value", tag = "max-welter",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "The value (or null beyond the budget) and the exact outcome", body = MaxWelterValueResponse),
        BodyProblems,
        InvalidPosition,
    )
)]
async fn value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<PositionRequest>,
) -> Result<Response, ApiError> {
    let position = distinct_sorted("position", &req.position, app.config.max_coins)?;
    let key = cache::key("max-welter/value", req.play.as_str(), &position);
    let play = req.play;
    let app2 = app.clone();
    respond_search(&app, key, move || {
        let (position, a) = analyse(&app2, req)?;
        Ok(MaxWelterValueResponse {
            coins: position.len(),
            position,
            value_computed: a.value.is_some(),
            value: a.value,
            outcome: a.outcome.into(),
            play,
        })
    })
    .await
}

/// Every Max-Welter winning move (exact), as ranges of target squares.
#[utoipa::path(
    post, path = "/v1/max-welter/winning-moves", operation_id = "max_welter_winning_moves", tag = "max-welter",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "Every winning move as ranges", body = MaxWelterMovesResponse),
        BodyProblems,
        InvalidPosition,
    )
)]
async fn winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<PositionRequest>,
) -> Result<Response, ApiError> {
    let position = distinct_sorted("position", &req.position, app.config.max_coins)?;
    let key = cache::key("max-welter/winning-moves", req.play.as_str(), &position);
    let play = req.play;
    let app2 = app.clone();
    respond_search(&app, key, move || {
        let (position, a) = analyse(&app2, req)?;
        Ok(MaxWelterMovesResponse {
            position,
            value_computed: a.value.is_some(),
            value: a.value,
            outcome: a.outcome.into(),
            play,
            moves: a
                .moves
                .into_iter()
                .map(|m| MoveRange {
                    from: m.from,
                    to_start: m.to_start,
                    to_end: m.to_end,
                })
                .collect(),
        })
    })
    .await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(value))
        .routes(routes!(winning_moves))
}
