//! `/v1/antimatter/*`: Antimatter (Fraenkel), one of the related games of van Splunder §5.2. No
//! formula is known, so values come from a memoised search bounded by the compute budget
//! (`GRUNDY_SEARCH_MAX_STEPS`, `GRUNDY_SEARCH_MAX_ENTRIES`); beyond it, a 422 says so.

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::{respond_search, search_budget_problem};
use crate::api::wire::doc_responses::{BodyProblems, SearchProblems};
use crate::api::wire::error::ApiError;
use crate::api::wire::game::{Outcome, Play};
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::{nats, Nat};
use crate::api::wire::position::check_len;
use crate::core::antimatter::{self, AntimatterError, Particle};
use crate::service::cache;
use crate::service::AppState;

/// An Antimatter position (Fraenkel): positrons and electrons on squares; particles of one
/// kind never share a square; a positron and an electron meeting annihilate.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"positrons": [1, 4], "electrons": [2], "play": "normal"}))]
pub struct AntimatterRequest {
    /// Positron squares (distinct).
    #[schema(schema_with = crate::api::wire::schema_rules::distinct_squares)]
    pub positrons: Vec<Nat>,
    /// Electron squares (distinct). A square given for both kinds annihilates both.
    #[schema(schema_with = crate::api::wire::schema_rules::distinct_squares)]
    pub electrons: Vec<Nat>,
    #[serde(default)]
    pub play: Play,
}

/// `positron` or `electron`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParticleKind {
    Positron,
    Electron,
}

/// Move `particle` from `from` down to `to`; if `to` holds the opposite kind, both vanish.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
pub struct ParticleMove {
    pub particle: ParticleKind,
    pub from: u64,
    pub to: u64,
}

/// Antimatter value, outcome and (for winning-moves) every winning move.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"positrons": [1, 4], "electrons": [2], "value": 6, "outcome": "N", "play": "normal",
    "moves": [{"particle": "positron", "from": 4, "to": 3}]}))]
pub struct AntimatterResponse {
    /// Canonical positrons (sorted; pairs given on one square already annihilated).
    pub positrons: Vec<u64>,
    /// Canonical electrons.
    pub electrons: Vec<u64>,
    pub value: u64,
    pub outcome: Outcome,
    pub play: Play,
    /// Every winning move (winning-moves only), by `from`, `to`, particle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<ParticleMove>>,
}

/// 422 naming `field` when `squares` lists a square twice.
fn distinct_squares(field: &'static str, squares: &[Nat]) -> Result<(), ApiError> {
    let mut sorted = nats(squares);
    sorted.sort_unstable();
    match sorted.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(ApiError::invalid_field(
            field,
            format!(
                "square {} appears twice (particles of one kind are on distinct squares)",
                w[0]
            ),
        )),
        None => Ok(()),
    }
}

async fn antimatter_answer(
    app: AppState,
    req: AntimatterRequest,
    with_moves: bool,
) -> Result<Response, ApiError> {
    check_len("positrons", req.positrons.len(), app.config.max_coins)?;
    check_len("electrons", req.electrons.len(), app.config.max_coins)?;
    // Particles of one kind are on distinct squares (the schema's `uniqueItems`): a square
    // listed twice in one list is refused, never merged. (The engine only annihilates a
    // positron and an electron given on the same square.)
    distinct_squares("positrons", &req.positrons)?;
    distinct_squares("electrons", &req.electrons)?;
    let pos = antimatter::Position::new(&nats(&req.positrons), &nats(&req.electrons)).map_err(
        |e| match e {
            AntimatterError::SharedSquare {
                particle: Particle::Positron,
                ..
            } => ApiError::invalid_field("positrons", e),
            AntimatterError::SharedSquare { .. } => ApiError::invalid_field("electrons", e),
            other => ApiError::invalid_field("positrons", other),
        },
    )?;
    let (positrons, electrons) = (pos.positrons().to_vec(), pos.electrons().to_vec());
    let tag = if with_moves {
        "antimatter/winning-moves"
    } else {
        "antimatter/value"
    };
    let mut numbers = positrons.clone();
    numbers.push(u64::MAX); // separator (squares can be u64::MAX too, so add the count)
    numbers.push(positrons.len() as u64);
    numbers.extend(&electrons);
    let key = cache::key(tag, req.play.as_str(), &numbers);
    let play = req.play;
    let app2 = app.clone();
    respond_search(&app, key, move || {
        let a = antimatter::analyse(
            &positrons,
            &electrons,
            play.into(),
            app2.config.search_budget(),
        )
        .map_err(|e| match e {
            AntimatterError::BudgetExceeded => {
                search_budget_problem(&app2, "positrons", "Antimatter")
            }
            other => ApiError::invalid_field("positrons", other),
        })?;
        Ok(AntimatterResponse {
            positrons,
            electrons,
            value: a.value,
            outcome: a.outcome.into(),
            play,
            moves: with_moves.then(|| {
                a.moves
                    .into_iter()
                    .map(|m| ParticleMove {
                        particle: match m.particle {
                            Particle::Positron => ParticleKind::Positron,
                            Particle::Electron => ParticleKind::Electron,
                        },
                        from: m.from,
                        to: m.to,
                    })
                    .collect()
            }),
        })
    })
    .await
}

/// Antimatter value and outcome.
#[utoipa::path(
    post, path = "/v1/antimatter/value", operation_id = "antimatter_value", tag = "related-games",
    request_body = AntimatterRequest,
    responses(
        (status = 200, description = "Value and outcome", body = AntimatterResponse),
        BodyProblems,
        SearchProblems,
    )
)]
async fn antimatter_value(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<AntimatterRequest>,
) -> Result<Response, ApiError> {
    antimatter_answer(app, req, false).await
}

/// Every Antimatter winning move.
#[utoipa::path(
    post, path = "/v1/antimatter/winning-moves", operation_id = "antimatter_winning_moves", tag = "related-games",
    request_body = AntimatterRequest,
    responses(
        (status = 200, description = "Every winning move", body = AntimatterResponse),
        BodyProblems,
        SearchProblems,
    )
)]
async fn antimatter_winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<AntimatterRequest>,
) -> Result<Response, ApiError> {
    antimatter_answer(app, req, true).await
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(antimatter_value))
        .routes(routes!(antimatter_winning_moves))
}
