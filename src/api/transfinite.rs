//! `/v1/transfinite/*`: Nim and Welter's game on ordinals below ε0, written as strings in
//! Cantor normal form (`"w^2*3+w+9"`, `"ω^(ω+1)·2+5"`); answers in canonical ASCII CNF.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond;
use crate::api::wire::doc_responses::BodyProblems;
use crate::api::wire::error::ApiError;
use crate::api::wire::game::Outcome;
use crate::api::wire::json::ApiJson;
use crate::core::ordinal::Ordinal;
use crate::core::transfinite as core;
use crate::problem::Problem;
use crate::service::AppState;

/// A transfinite Nim position: heap sizes as ordinal strings.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"]}))]
pub struct OrdinalPositionRequest {
    /// Ordinals below ε0: `w`/`ω`, `^`, `*`/`·`, `+`, parentheses, natural numbers.
    #[schema(schema_with = crate::api::wire::schema_rules::nim_ordinals)]
    pub position: Vec<String>,
}

/// A transfinite Welter position: occupied squares, distinct ordinals.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"]}))]
pub struct WelterOrdinalPositionRequest {
    #[schema(schema_with = crate::api::wire::schema_rules::welter_ordinals)]
    pub position: Vec<String>,
}

/// The value and outcome of a transfinite position.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"], "value": "w+4", "outcome": "N"}))]
pub struct OrdinalValueResponse {
    /// The position in canonical ASCII Cantor normal form, sorted ascending.
    pub position: Vec<String>,
    /// The Sprague–Grundy value (an ordinal).
    pub value: String,
    /// `P` iff the value is 0 (normal play).
    pub outcome: Outcome,
}

/// A move from one ordinal to a smaller one.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OrdinalMove {
    pub from: String,
    pub to: String,
}

/// Every winning move of a transfinite position.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"], "value": "w+4", "outcome": "N",
    "moves": [{"from": "w^2+w*5+25", "to": "w^2+w*4+30"}]}))]
pub struct OrdinalMovesResponse {
    /// The position in canonical ASCII Cantor normal form, sorted ascending.
    pub position: Vec<String>,
    pub value: String,
    pub outcome: Outcome,
    /// Every move to a position of value 0, ordered by `from` then `to` (ordinal order).
    pub moves: Vec<OrdinalMove>,
}

/// Parses and bounds a position: each entry parses (422 naming `position[i]` and the
/// character), at most `GRUNDY_MAX_ORDINALS` entries and `GRUNDY_MAX_ORDINAL_TERMS` terms.
fn parse_position(app: &AppState, raw: &[String]) -> Result<Vec<Ordinal>, ApiError> {
    let cfg = &app.config;
    if raw.len() > cfg.max_ordinals {
        return Err(ApiError::invalid(
            "position",
            format!(
                "position: {} ordinals exceed the limit of {} (GRUNDY_MAX_ORDINALS)",
                raw.len(),
                cfg.max_ordinals
            ),
        ));
    }
    let mut terms = 0usize;
    let mut out = Vec::with_capacity(raw.len());
    for (i, s) in raw.iter().enumerate() {
        let field = format!("position[{i}]");
        let o = Ordinal::parse(s).map_err(|e| {
            let shown: String = s.chars().take(80).collect();
            let ellipsis = if s.chars().count() > 80 { "…" } else { "" };
            ApiError::invalid(
                field.clone(),
                format!("{field}: {e} in {shown:?}{ellipsis}"),
            )
        })?;
        terms += o.node_count();
        if terms > cfg.max_ordinal_terms {
            return Err(ApiError::invalid(
                "position",
                format!(
                    "position: the ordinals have more than {} Cantor-normal-form terms in total (GRUNDY_MAX_ORDINAL_TERMS)",
                    cfg.max_ordinal_terms
                ),
            ));
        }
        out.push(o);
    }
    Ok(out)
}

fn outcome(value: &Ordinal) -> Outcome {
    if value.is_zero() {
        Outcome::P
    } else {
        Outcome::N
    }
}

fn sorted_strings(position: &[Ordinal]) -> Vec<String> {
    let mut sorted: Vec<&Ordinal> = position.iter().collect();
    sorted.sort();
    sorted.into_iter().map(|o| o.to_string()).collect()
}

/// Refuses answers too large to send (each move can carry most terms of the nim-sum).
fn check_output(app: &AppState, moves: &[core::Move]) -> Result<(), ApiError> {
    let terms: usize = moves
        .iter()
        .map(|m| m.from.node_count() + m.to.node_count())
        .sum();
    if terms > app.config.max_ordinal_terms.saturating_mul(16) {
        return Err(ApiError::invalid(
            "position",
            format!("position: the answer would have {terms} Cantor-normal-form terms, over the response limit (16 × GRUNDY_MAX_ORDINAL_TERMS)"),
        ));
    }
    Ok(())
}

fn moves_to_api(moves: Vec<core::Move>) -> Vec<OrdinalMove> {
    moves
        .into_iter()
        .map(|m| OrdinalMove {
            from: m.from.to_string(),
            to: m.to.to_string(),
        })
        .collect()
}

/// Size used to decide whether to compute off the async workers.
fn weight(position: &[Ordinal]) -> usize {
    position.iter().map(|o| o.node_count()).sum()
}

/// The two transfinite games: their handlers differ only in how value and moves are found.
#[derive(Debug, Clone, Copy)]
enum Rules {
    /// Heaps; the value is the ordinal nim-sum.
    Nim,
    /// Coins on distinct squares; the value is Abuku's transfinite Welter function.
    Welter,
}

impl Rules {
    fn value(self, position: &[Ordinal]) -> Result<Ordinal, ApiError> {
        match self {
            Rules::Nim => Ok(core::nim_value(position)),
            Rules::Welter => {
                core::welter_value(position).map_err(|e| ApiError::invalid_field("position", e))
            }
        }
    }

    fn winning_moves(self, position: &[Ordinal]) -> Result<Vec<core::Move>, ApiError> {
        match self {
            Rules::Nim => Ok(core::nim_winning_moves(position)),
            Rules::Welter => core::welter_winning_moves(position)
                .map_err(|e| ApiError::invalid_field("position", e)),
        }
    }
}

async fn answer_value(app: AppState, raw: Vec<String>, rules: Rules) -> Result<Response, ApiError> {
    let position = parse_position(&app, &raw)?;
    respond(&app, None, weight(&position), move || {
        let value = rules.value(&position)?;
        Ok(OrdinalValueResponse {
            position: sorted_strings(&position),
            outcome: outcome(&value),
            value: value.to_string(),
        })
    })
    .await
}

async fn answer_winning_moves(
    app: AppState,
    raw: Vec<String>,
    rules: Rules,
) -> Result<Response, ApiError> {
    let position = parse_position(&app, &raw)?;
    let app2 = app.clone();
    respond(&app, None, weight(&position), move || {
        let value = rules.value(&position)?;
        let moves = rules.winning_moves(&position)?;
        check_output(&app2, &moves)?;
        Ok(OrdinalMovesResponse {
            position: sorted_strings(&position),
            outcome: outcome(&value),
            value: value.to_string(),
            moves: moves_to_api(moves),
        })
    })
    .await
}

/// Transfinite Nim: the value is the ordinal nim-sum of the heaps.
#[utoipa::path(
    post, path = "/v1/transfinite/nim/value", operation_id = "transfinite_nim_value", tag = "transfinite",
    request_body = OrdinalPositionRequest,
    responses(
        (status = 200, description = "The nim-sum and outcome", body = OrdinalValueResponse),
        BodyProblems,
        (status = 422, description = "An ordinal does not parse, or a limit is exceeded", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn nim_value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<OrdinalPositionRequest>,
) -> Result<Response, ApiError> {
    answer_value(app, req.position, Rules::Nim).await
}

/// Transfinite Nim: every winning move.
#[utoipa::path(
    post, path = "/v1/transfinite/nim/winning-moves", operation_id = "transfinite_nim_winning_moves", tag = "transfinite",
    request_body = OrdinalPositionRequest,
    responses(
        (status = 200, description = "Every winning move", body = OrdinalMovesResponse),
        BodyProblems,
        (status = 422, description = "An ordinal does not parse, or a limit is exceeded", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn nim_winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<OrdinalPositionRequest>,
) -> Result<Response, ApiError> {
    answer_winning_moves(app, req.position, Rules::Nim).await
}

/// Transfinite Welter: [α1|…|αn] = ω·(λ1 ⊕ … ⊕ λn) + ⊕_λ [S_λ] with αi = ω·λi + mi (Abuku).
#[utoipa::path(
    post, path = "/v1/transfinite/welter/value", operation_id = "transfinite_welter_value", tag = "transfinite",
    request_body = WelterOrdinalPositionRequest,
    responses(
        (status = 200, description = "The value and outcome", body = OrdinalValueResponse),
        BodyProblems,
        (status = 422, description = "An ordinal does not parse, squares repeat, or a limit is exceeded", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn welter_value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<WelterOrdinalPositionRequest>,
) -> Result<Response, ApiError> {
    answer_value(app, req.position, Rules::Welter).await
}

/// Transfinite Welter: every winning move.
#[utoipa::path(
    post, path = "/v1/transfinite/welter/winning-moves", operation_id = "transfinite_welter_winning_moves", tag = "transfinite",
    request_body = WelterOrdinalPositionRequest,
    responses(
        (status = 200, description = "Every winning move", body = OrdinalMovesResponse),
        BodyProblems,
        (status = 422, description = "An ordinal does not parse, squares repeat, a target is not representable, or a limit is exceeded", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn welter_winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<WelterOrdinalPositionRequest>,
) -> Result<Response, ApiError> {
    answer_winning_moves(app, req.position, Rules::Welter).await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(nim_value))
        .routes(routes!(nim_winning_moves))
        .routes(routes!(welter_value))
        .routes(routes!(welter_winning_moves))
}
