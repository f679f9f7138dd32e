//! `/v1/welter/value/batch` and `/v1/welter/winning-moves/batch`: many positions in one
//! request, for bots that would otherwise pay the HTTP round trip and the middleware per
//! position.
//!
//! Each result is exactly the body the single endpoint returns for that position, or — for a
//! bad item — the problem document the single endpoint would have answered with, naming the
//! field as `positions[i]` or `positions[i][j]`; the other items are still answered. Only a
//! request that is bad as a whole (not JSON, `positions` missing or not an array, a bad `play`,
//! more than `GRUNDY_BATCH_MAX_ITEMS` positions or `GRUNDY_BATCH_MAX_COINS` coins) gets one
//! problem for the whole request.
//!
//! Items are captured as raw JSON first and parsed one by one, so that a bad number inside one
//! position does not spoil the parse of the others. Big batches (more coins in total than
//! `GRUNDY_INLINE_COINS`) are computed on the compute pool, as big single positions are.
//! Batches are not cached: the response cache pays only for positions of 256+ coins, and a
//! batch rarely repeats.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond;
use crate::api::welter::{ValueResponse, WinningMovesResponse};
use crate::api::wire::doc_responses::BodyProblems;
use crate::api::wire::error::ApiError;
use crate::api::wire::game::Play;
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::api::wire::position::distinct_sorted;
use crate::problem::Problem;
use crate::service::AppState;

/// Many positions of Welter's game, all under the same rules.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"positions": [[1, 3, 7, 8, 11, 19], [1, 2]], "play": "normal"}))]
pub struct BatchRequest {
    /// The positions (each as in the single endpoint: distinct non-negative squares, any
    /// order). At most `GRUNDY_BATCH_MAX_ITEMS` positions and `GRUNDY_BATCH_MAX_COINS` coins.
    #[schema(value_type = Vec<Vec<u64>>, max_items = 10000)]
    pub positions: Vec<Box<RawValue>>,
    /// `normal` (default) or `misere`, for every position.
    #[serde(default)]
    pub play: Play,
}

/// One result: the single endpoint's answer, or the problem with that position.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ValueResult {
    Value(ValueResponse),
    Problem(Problem),
}

/// One result: the single endpoint's answer, or the problem with that position.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum WinningMovesResult {
    WinningMoves(WinningMovesResponse),
    Problem(Problem),
}

impl ValueResult {
    /// The result for one item: its answer, or its problem.
    fn of(item: Result<Vec<u64>, ApiError>, play: Play) -> Self {
        match item {
            Ok(position) => ValueResult::Value(ValueResponse::of(position, play)),
            Err(e) => ValueResult::Problem(e.problem()),
        }
    }
}

impl WinningMovesResult {
    /// The result for one item: its answer, or its problem.
    fn of(item: Result<Vec<u64>, ApiError>, play: Play) -> Self {
        match item {
            Ok(position) => {
                WinningMovesResult::WinningMoves(WinningMovesResponse::of(position, play))
            }
            Err(e) => WinningMovesResult::Problem(e.problem()),
        }
    }
}

/// The results, in request order.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"results": [
    {"position": [1, 3, 7, 8, 11, 19], "coins": 6, "value": 12, "outcome": "N", "play": "normal"},
    {"type": "/problems/invalid-value", "title": "Invalid value", "status": 422,
     "detail": "positions[1]: square 2 appears more than once (coins must be on distinct squares)",
     "field": "positions[1]"}
]}))]
pub struct ValueBatchResponse {
    pub results: Vec<ValueResult>,
}

/// The results, in request order.
#[derive(Debug, Serialize, ToSchema)]
pub struct WinningMovesBatchResponse {
    pub results: Vec<WinningMovesResult>,
}

/// Each position sorted, or the problem with it.
type Items = Vec<Result<Vec<u64>, ApiError>>;

/// Parses and validates every item; returns the items and the total number of coins.
fn positions(req: &BatchRequest, app: &AppState) -> Result<(Items, usize), ApiError> {
    let max_items = app.config.batch_max_items;
    if req.positions.len() > max_items {
        return Err(ApiError::invalid(
            "positions",
            format!(
                "positions: {} positions exceed the limit of {max_items} (GRUNDY_BATCH_MAX_ITEMS)",
                req.positions.len()
            ),
        ));
    }
    let mut coins = 0usize;
    let items = req
        .positions
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let field = format!("positions[{i}]");
            let squares = parse_item(&field, raw)?;
            coins += squares.len();
            distinct_sorted(&field, &squares, app.config.max_coins)
        })
        .collect();
    let max_coins = app.config.batch_max_coins;
    if coins > max_coins {
        return Err(ApiError::invalid(
            "positions",
            format!(
                "positions: {coins} coins in all exceed the limit of {max_coins} (GRUNDY_BATCH_MAX_COINS)"
            ),
        ));
    }
    Ok((items, coins))
}

/// One position, with errors named `positions[i]…` as the single endpoint names `position…`.
fn parse_item(field: &str, raw: &RawValue) -> Result<Vec<Nat>, ApiError> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let field = if path == "." {
            field.to_owned()
        } else {
            format!("{field}{path}")
        };
        let inner = err.into_inner();
        let message = inner.to_string();
        // As in the single endpoint: a bad value is 422; a wrong JSON type, or a number JSON
        // cannot represent (`1e400`), is 400.
        if inner.classify() == serde_json::error::Category::Data
            && !message.starts_with("invalid type")
        {
            ApiError::invalid(field.clone(), format!("{field}: {message}"))
        } else {
            ApiError::BadRequest {
                detail: format!("{field}: {message}"),
                field: Some(field),
            }
        }
    })
}

/// Welter values of many positions.
#[utoipa::path(
    post, path = "/v1/welter/value/batch", operation_id = "welter_value_batch", tag = "welter",
    request_body = BatchRequest,
    responses(
        (status = 200, description = "One result per position, in request order: the body of `POST /v1/welter/value`, or a problem document naming `positions[i]` for a bad position", body = ValueBatchResponse),
        BodyProblems,
        (status = 422, description = "Too many positions or coins (GRUNDY_BATCH_MAX_ITEMS, GRUNDY_BATCH_MAX_COINS), or a bad `play`", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn value_batch(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<BatchRequest>,
) -> Result<Response, ApiError> {
    answer_all(&app, req, ValueResult::of, |results| ValueBatchResponse {
        results,
    })
    .await
}

/// Every winning move of many positions.
#[utoipa::path(
    post, path = "/v1/welter/winning-moves/batch", operation_id = "welter_winning_moves_batch", tag = "welter",
    request_body = BatchRequest,
    responses(
        (status = 200, description = "One result per position, in request order: the body of `POST /v1/welter/winning-moves`, or a problem document naming `positions[i]` for a bad position", body = WinningMovesBatchResponse),
        BodyProblems,
        (status = 422, description = "Too many positions or coins (GRUNDY_BATCH_MAX_ITEMS, GRUNDY_BATCH_MAX_COINS), or a bad `play`", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn winning_moves_batch(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<BatchRequest>,
) -> Result<Response, ApiError> {
    let all = |results| WinningMovesBatchResponse { results };
    answer_all(&app, req, WinningMovesResult::of, all).await
}

/// The one path of both batches: every item checked ([`positions`]), each answered `of` its
/// sorted position under the batch's rules (or by its problem), all in request order as one
/// computation — on the compute pool when the coins in all are many, as for one big position.
async fn answer_all<R: Send + 'static, B: Serialize + Send + 'static>(
    app: &AppState,
    req: BatchRequest,
    of: fn(Result<Vec<u64>, ApiError>, Play) -> R,
    all: impl FnOnce(Vec<R>) -> B + Send + 'static,
) -> Result<Response, ApiError> {
    let (items, coins) = positions(&req, app)?;
    let play = req.play;
    respond(app, None, coins, move || {
        Ok(all(items.into_iter().map(|item| of(item, play)).collect()))
    })
    .await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(value_batch))
        .routes(routes!(winning_moves_batch))
}
