//! `/v1/welter/*`: value, every winning move, and the Unique Prime Lemma primes.

pub mod batch; // POST /v1/welter/{value,winning-moves}/batch
pub mod explain; // POST /v1/welter/explain

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::{respond, respond_written};
use crate::api::wire::doc_responses::{BodyProblems, InvalidPosition};
use crate::api::wire::error::ApiError;
use crate::api::wire::fast_json::{self, WriteJson};
use crate::api::wire::game::{Move, Outcome, Play};
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::api::wire::position::distinct_sorted;
use crate::core::welter as core;
use crate::problem::Problem;
use crate::service::cache;
use crate::service::AppState;

/// A position of Welter's game and the rules to play it under.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": [1, 3, 7, 8, 11, 19], "play": "normal"}))]
pub struct PositionRequest {
    /// The occupied squares (distinct non-negative integers, any order).
    #[schema(schema_with = crate::api::wire::schema_rules::distinct_squares)]
    pub position: Vec<Nat>,
    /// `normal` (default) or `misere`.
    #[serde(default)]
    pub play: Play,
}

/// The Welter value and the outcome under the requested play.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [1, 3, 7, 8, 11, 19], "coins": 6, "value": 12, "outcome": "N", "play": "normal"}))]
pub struct ValueResponse {
    /// The position, sorted ascending.
    pub position: Vec<u64>,
    /// Number of coins.
    pub coins: usize,
    /// The normal-play Sprague–Grundy value (the Welter function), whatever `play` is.
    pub value: u64,
    /// The outcome under `play`.
    pub outcome: Outcome,
    /// The play the outcome refers to.
    pub play: Play,
}

/// Every winning move: each leaves the opponent a P-position under the requested play.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [1, 3, 7, 8, 11, 19], "value": 12, "outcome": "N", "play": "normal", "moves": [{"from": 8, "to": 4}]}))]
pub struct WinningMovesResponse {
    /// The position, sorted ascending.
    pub position: Vec<u64>,
    /// The normal-play value (Welter function).
    pub value: u64,
    /// The outcome under `play`.
    pub outcome: Outcome,
    pub play: Play,
    /// Every winning move, ordered by `from` ascending; empty for a P-position.
    pub moves: Vec<Move>,
}

/// A position and a target value for the Unique Prime Lemma.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": [1, 5, 7], "target": 0}))]
pub struct PrimesRequest {
    /// The occupied squares (distinct; the response keeps this order).
    #[schema(schema_with = crate::api::wire::schema_rules::distinct_squares)]
    pub position: Vec<Nat>,
    /// The target value k'.
    #[schema(schema_with = crate::api::wire::schema_rules::nat)]
    pub target: Nat,
}

/// The primes x'_i: replacing coin i by x'_i (alone) gives the target value.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [1, 5, 7], "value": 4, "target": 0, "primes": [13, 9, 3], "moves": [{"from": 7, "to": 3}]}))]
pub struct PrimesResponse {
    /// The position in request order.
    pub position: Vec<u64>,
    /// The current value k.
    pub value: u64,
    /// The target value k'.
    pub target: u64,
    /// x'_1..x'_n in request order. A prime can exceed 2^64−1 (by at most one bit: primes are
    /// below 2^65) when the target is close to 2^64; it is given exactly.
    #[schema(value_type = Vec<u64>)]
    pub primes: Vec<u128>,
    /// The primes that are legal moves (x'_i < x_i), in request order: exactly the moves to
    /// the target value.
    pub moves: Vec<Move>,
}

impl ValueResponse {
    /// The answer for a valid (distinct, sorted) position: also each result of the batch.
    pub(super) fn of(position: Vec<u64>, play: Play) -> Self {
        let (value, outcome) = core::evaluate(&position, play.into());
        ValueResponse {
            coins: position.len(),
            position,
            value,
            outcome: outcome.into(),
            play,
        }
    }
}

impl WinningMovesResponse {
    /// The answer for a valid (distinct, sorted) position: also each result of the batch.
    pub(super) fn of(position: Vec<u64>, play: Play) -> Self {
        let a = core::analyse(&position, play.into());
        WinningMovesResponse {
            position,
            value: a.value,
            outcome: a.outcome.into(),
            play,
            moves: a.moves.into_iter().map(Move::from).collect(),
        }
    }
}

/// The fields both answers share, in their order: `,"value":…,"outcome":…,"play":…`.
#[inline]
fn verdict(out: &mut Vec<u8>, value: u64, outcome: Outcome, play: Play) {
    out.extend_from_slice(b",\"value\":");
    fast_json::number(out, value);
    out.extend_from_slice(b",\"outcome\":");
    out.extend_from_slice(fast_json::outcome(outcome));
    out.extend_from_slice(b",\"play\":");
    out.extend_from_slice(fast_json::play(play));
}

/// Hand-written JSON, byte for byte serde_json's (tested in `fast_json.rs`): the hottest answers.
impl WriteJson for ValueResponse {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"position\":");
        fast_json::numbers(out, &self.position);
        out.extend_from_slice(b",\"coins\":");
        fast_json::number(out, self.coins);
        verdict(out, self.value, self.outcome, self.play);
        out.push(b'}');
    }
}

impl WriteJson for WinningMovesResponse {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"position\":");
        fast_json::numbers(out, &self.position);
        verdict(out, self.value, self.outcome, self.play);
        out.extend_from_slice(b",\"moves\":");
        fast_json::moves(out, &self.moves);
        out.push(b'}');
    }
}

/// Welter value and outcome.
#[utoipa::path(
    post, path = "/v1/welter/value", operation_id = "welter_value", tag = "welter",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "The value and outcome", body = ValueResponse),
        BodyProblems,
        (status = 422, description = "Invalid position (duplicate, negative, too large, too many coins)", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<PositionRequest>,
) -> Result<Response, ApiError> {
    answer(&app, req, "welter/value", ValueResponse::of).await
}

/// The one path of the position answers: the position checked (distinct, within
/// `GRUNDY_MAX_COINS`), the cache under `route`, the answer `of` the sorted position written.
async fn answer<T: WriteJson + Send + 'static>(
    app: &AppState,
    req: PositionRequest,
    route: &str,
    of: impl FnOnce(Vec<u64>, Play) -> T + Send + 'static,
) -> Result<Response, ApiError> {
    let position = distinct_sorted("position", &req.position, app.config.max_coins)?;
    let (size, play) = (position.len(), req.play);
    let key = app.cache_key(size, || cache::key(route, play.as_str(), &position));
    respond_written(app, key, size, move || Ok(of(position, play))).await
}

/// Every winning move (normal or misère play).
#[utoipa::path(
    post, path = "/v1/welter/winning-moves", operation_id = "welter_winning_moves", tag = "welter",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "Every winning move", body = WinningMovesResponse),
        BodyProblems,
        InvalidPosition,
    )
)]
async fn winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<PositionRequest>,
) -> Result<Response, ApiError> {
    answer(&app, req, "welter/winning-moves", WinningMovesResponse::of).await
}

/// The Unique Prime Lemma primes for a target value.
#[utoipa::path(
    post, path = "/v1/welter/primes", operation_id = "welter_primes", tag = "welter",
    request_body = PrimesRequest,
    responses(
        (status = 200, description = "The primes, in request order", body = PrimesResponse),
        BodyProblems,
        (status = 422, description = "Invalid position or target", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn primes(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<PrimesRequest>,
) -> Result<Response, ApiError> {
    distinct_sorted("position", &req.position, app.config.max_coins)?;
    let position: Vec<u64> = req.position.iter().map(|n| n.0).collect();
    let target = req.target.0;
    // Request order matters here, so the key keeps it.
    let size = position.len();
    let key = app.cache_key(size, || {
        cache::key("welter/primes", &target.to_string(), &position)
    });
    respond(&app, key, size, move || {
        let (value, primes) = core::value_and_primes(&position, target);
        let moves = position
            .iter()
            .zip(&primes)
            .filter(|&(&x, &p)| p < x as u128)
            .map(|(&x, &p)| Move {
                from: x,
                to: p as u64,
            })
            .collect();
        Ok(PrimesResponse {
            position,
            value,
            target,
            primes,
            moves,
        })
    })
    .await
}

/// `/v1/welter/*`: these routes, the batches' and the explanation's.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(value))
        .routes(routes!(winning_moves))
        .routes(routes!(primes))
        .merge(batch::router())
        .merge(explain::router())
}
