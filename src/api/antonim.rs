//! `/v1/antonim/*`: Antonim, one of the related games of van Splunder §5.2. No formula is
//! known, so values come from a memoised search bounded by the compute budget
//! (`GRUNDY_SEARCH_MAX_STEPS`, `GRUNDY_SEARCH_MAX_ENTRIES`); beyond it, a 422 says so.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::{respond_search, search_budget_problem};
use crate::api::wire::doc_responses::{BodyProblems, SearchProblems};
use crate::api::wire::error::ApiError;
use crate::api::wire::game::{Move, Outcome, Play};
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::{nats, Nat};
use crate::api::wire::position::check_len;
use crate::core::antonim::{self, AntonimError};
use crate::service::cache;
use crate::service::AppState;

/// An Antonim position: Nim where no two non-empty heaps are equal (= Welter where square 0 may
/// hold any number of coins).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": [0, 0, 3, 5], "play": "normal"}))]
pub struct AntonimRequest {
    /// Squares; only 0 may repeat.
    #[schema(schema_with = crate::api::wire::schema_rules::antonim_squares)]
    pub position: Vec<Nat>,
    #[serde(default)]
    pub play: Play,
}

/// Antonim value, outcome and (for winning-moves) every winning move.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": [0, 0, 3, 5], "value": 6, "outcome": "N", "play": "normal", "moves": [{"from": 5, "to": 4}]}))]
pub struct AntonimResponse {
    /// The position, sorted ascending (zeros kept).
    pub position: Vec<u64>,
    /// The normal-play Sprague–Grundy value.
    pub value: u64,
    /// The outcome under `play`.
    pub outcome: Outcome,
    pub play: Play,
    /// Every winning move (winning-moves only), by `from` then `to`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<Move>>,
}

async fn antonim_answer(
    app: AppState,
    req: AntonimRequest,
    with_moves: bool,
) -> Result<Response, ApiError> {
    check_len("position", req.position.len(), app.config.max_coins)?;
    let mut position = nats(&req.position);
    position.sort_unstable();
    let tag = if with_moves {
        "antonim/winning-moves"
    } else {
        "antonim/value"
    };
    let key = cache::key(tag, req.play.as_str(), &position);
    let play = req.play;
    let app2 = app.clone();
    respond_search(&app, key, move || {
        let a =
            antonim::analyse(&position, play.into(), app2.config.search_budget()).map_err(|e| {
                match e {
                    AntonimError::BudgetExceeded => {
                        search_budget_problem(&app2, "position", "Antonim")
                    }
                    other @ AntonimError::Squares(_) => ApiError::invalid_field("position", other),
                }
            })?;
        Ok(AntonimResponse {
            position,
            value: a.value,
            outcome: a.outcome.into(),
            play,
            moves: with_moves.then(|| a.moves.into_iter().map(Move::from).collect()),
        })
    })
    .await
}

/// Antonim value and outcome.
#[utoipa::path(
    post, path = "/v1/antonim/value", operation_id = "antonim_value", tag = "related-games",
    request_body = AntonimRequest,
    responses(
        (status = 200, description = "Value and outcome", body = AntonimResponse),
        BodyProblems,
        SearchProblems,
    )
)]
async fn antonim_value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<AntonimRequest>,
) -> Result<Response, ApiError> {
    antonim_answer(app, req, false).await
}

/// Every Antonim winning move.
#[utoipa::path(
    post, path = "/v1/antonim/winning-moves", operation_id = "antonim_winning_moves", tag = "related-games",
    request_body = AntonimRequest,
    responses(
        (status = 200, description = "Every winning move", body = AntonimResponse),
        BodyProblems,
        SearchProblems,
    )
)]
async fn antonim_winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<AntonimRequest>,
) -> Result<Response, ApiError> {
    antonim_answer(app, req, true).await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(antonim_value))
        .routes(routes!(antonim_winning_moves))
}
