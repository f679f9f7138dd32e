//! `/v1/octal/*`: G-sequences, proved periodicity, values for any heap and every winning move
//! of octal, hexadecimal and other take-and-break games (Austin's codes) and subtraction games.

pub mod jobs; // /v1/octal/jobs (and their events and statistics), /v1/octal/census: durable jobs
pub mod misere; // /v1/octal/misere/quotient: verified misère quotients (by a job when async)
pub mod values; // GET /v1/octal/{code}/values: JSON, CSV, binary downloads

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond;
use crate::api::wire::doc_responses::BodyProblems;
use crate::api::wire::error::ApiError;
use crate::api::wire::game::{Outcome, Play};
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::{nats, Nat};
use crate::api::wire::params::ApiPath;
use crate::core::octal::{self as core, Game, Periodicity};
use crate::problem::Problem;
use crate::service::octal::Need;
use crate::service::AppState;
use crate::store::PeriodicityRecord;

/// The periodicity verdict. `status` is `periodic` or `arithmetic-periodic` only when proved
/// by a theorem (Austin Thm 4.1 and its take-and-break generalisations, Thms 6.8–6.10) from
/// computed values; otherwise `unknown` and the other fields are null.
//
// Two types for one verdict, on purpose: this is the wire form (an OpenAPI schema with its
// example and field docs; `unknown` with null fields; `computed` in job answers), the store's
// `PeriodicityRecord` (`store/sequences.rs`) is the recorded form (JSON in the `periodicity`
// columns, only ever a proof). One type would put the document's schema into the store or
// the stored format at the mercy of the document; `From<PeriodicityRecord>` below is the one
// crossing, and it takes the record apart field by field, so a field the record gains does not
// compile until the wire form says what becomes of it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"status": "periodic", "preperiod": 53, "period": 34, "saltus": 0, "proved_at": 175, "theorem": "Austin Thm 4.1 (Guy-Smith periodicity)"}))]
pub struct PeriodicityInfo {
    /// `periodic`, `arithmetic-periodic` or `unknown`.
    pub status: String,
    /// Least n0 with g(n+p) = g(n) + saltus for all n ≥ n0.
    pub preperiod: Option<u64>,
    /// Least period p.
    pub period: Option<u64>,
    /// s in g(n+p) = g(n) + s (0 for ordinary periodicity).
    pub saltus: Option<u64>,
    /// Number of values g(0..proved_at) the proof reads.
    pub proved_at: Option<u64>,
    /// The theorem that proves it.
    pub theorem: Option<String>,
    /// How many values are computed (job responses only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computed: Option<u64>,
}

impl PeriodicityInfo {
    /// The verdict on `p`: the proof's record when proved, else `unknown` with null fields.
    pub fn from_core(p: &Periodicity, computed: Option<u64>) -> Self {
        let mut info = PeriodicityRecord::of(p).map_or_else(Self::unknown, Self::from);
        info.computed = computed;
        info
    }

    fn unknown() -> Self {
        PeriodicityInfo {
            status: "unknown".into(),
            preperiod: None,
            period: None,
            saltus: None,
            proved_at: None,
            theorem: None,
            computed: None,
        }
    }
}

impl From<PeriodicityRecord> for PeriodicityInfo {
    fn from(r: PeriodicityRecord) -> Self {
        let PeriodicityRecord {
            status,
            preperiod,
            period,
            saltus,
            proved_at,
            theorem,
        } = r;
        PeriodicityInfo {
            status,
            preperiod,
            period,
            saltus,
            proved_at,
            theorem,
            computed: None,
        }
    }
}

/// Parses a code into a game, as a 422 naming `field`.
pub fn parse_code(field: &str, code: &str) -> Result<Game, ApiError> {
    Game::parse(code).map_err(|e| ApiError::invalid(field, format!("{field}: {e} (in {code:?})")))
}

/// The verdict as established from the first `within` values: a proof that needs more values
/// is reported as `unknown`. Responses then depend only on the request, never on how much of
/// the sequence earlier requests happened to compute.
fn verdict_within(p: &Periodicity, within: u64) -> PeriodicityInfo {
    match p.proof() {
        Some(proof) if proof.proved_at <= within => PeriodicityInfo::from_core(p, None),
        _ => PeriodicityInfo::from_core(&Periodicity::Unknown, None),
    }
}

/// Austin's standard form (§4.4): `g_std(n) = g(n + shift)`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StandardFormInfo {
    pub code: String,
    pub shift: u32,
}

fn standard_form(game: &Game) -> StandardFormInfo {
    let sf = game.standard_form();
    StandardFormInfo {
        code: sf.game.canonical(),
        shift: sf.shift,
    }
}

/// A G-sequence request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "0.07", "n": 100}))]
pub struct SequenceRequest {
    /// A game code: octal `0.07` / `.137` / `4.07`, hexadecimal digits 8–F, digits before the
    /// point (`44.3`), a repeating block in parentheses (`0.(3)` = Nim, `4.(3)` = Lasker's Nim),
    /// or a subtraction game `S(1,2,5)`.
    #[schema(schema_with = crate::api::wire::schema_rules::game_code)]
    pub code: String,
    /// How many values: g(0..n−1). At most `GRUNDY_OCTAL_MAX_N` (default 1,000,000) unless
    /// periodicity is proved, which supplies any number of values up to that same limit.
    #[schema(schema_with = crate::api::wire::schema_rules::sequence_n)]
    pub n: Nat,
}

/// The G-sequence g(0..n−1) and the periodicity verdict.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"code": "0.07", "standard_form": {"code": "0.137", "shift": 1}, "n": 16,
    "values": [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0],
    "periodicity": {"status": "unknown", "preperiod": null, "period": null, "saltus": null, "proved_at": null, "theorem": null}}))]
pub struct SequenceResponse {
    /// The canonical code.
    pub code: String,
    pub standard_form: StandardFormInfo,
    pub n: u64,
    pub values: Vec<u64>,
    pub periodicity: PeriodicityInfo,
}

/// g(heap) for one heap.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"code": "0.07", "heap": 1000000000000000000u64, "value": 3, "source": "periodicity",
    "periodicity": {"status": "periodic", "preperiod": 53, "period": 34, "saltus": 0, "proved_at": 175, "theorem": "Austin Thm 4.1 (Guy-Smith periodicity)"}}))]
pub struct HeapValueResponse {
    pub code: String,
    pub heap: u64,
    /// The Sprague–Grundy value of one heap of this size.
    pub value: u64,
    /// `periodicity` when the heap lies beyond the values its proof reads (the value follows
    /// from the proved period), else `computed`.
    pub source: String,
    pub periodicity: PeriodicityInfo,
}

/// Winning moves of a sum of heaps.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = OctalWinningMovesRequest)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "0.07", "heaps": [5, 9, 20], "limit": 100, "cursor": null, "play": "normal"}))]
pub struct WinningMovesRequest {
    #[schema(schema_with = crate::api::wire::schema_rules::game_code)]
    pub code: String,
    /// Heap sizes (any, up to 2^64−1, when periodicity is proved).
    #[schema(schema_with = crate::api::wire::schema_rules::octal_heaps)]
    pub heaps: Vec<Nat>,
    /// Moves per page (default 1000, at most 10000).
    #[serde(default)]
    #[schema(schema_with = crate::api::wire::schema_rules::moves_limit)]
    pub limit: Option<Nat>,
    /// `next_cursor` of the previous page.
    #[serde(default)]
    #[schema(schema_with = crate::api::wire::schema_rules::moves_cursor)]
    pub cursor: Option<String>,
    /// `normal` (default: whoever cannot move loses) or `misere` (whoever cannot move wins):
    /// in misère play the outcome and moves come from the game's misère quotient when every
    /// heap is within it, else from a budgeted exact search, and there is no `value`.
    #[serde(default)]
    pub play: Play,
}

/// One winning move: replace one heap of size `heap` by the heaps `leave`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OctalMove {
    /// The size of the heap moved in (the first heap of that size in the request).
    pub heap: u64,
    /// Its index in the request.
    pub heap_index: usize,
    /// Tokens removed (negative: tokens added before splitting, digits before the point).
    #[schema(value_type = i64)]
    pub take: i128,
    /// The heaps left in its place, ascending (empty when the heap is removed).
    pub leave: Vec<u64>,
}

/// A page of winning moves.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(as = OctalWinningMovesResponse)]
#[schema(example = json!({"code": "0.07", "heaps": [5, 9, 20], "play": "normal", "value": 1, "outcome": "N",
    "moves": [{"heap": 5, "heap_index": 0, "take": 2, "leave": [1, 2]}], "next_cursor": null}))]
pub struct WinningMovesResponse {
    pub code: String,
    pub heaps: Vec<u64>,
    /// The play the outcome and moves refer to.
    pub play: Play,
    /// The nim-sum of the heaps' values (normal play only; absent in misère play, where no
    /// value decides the outcome).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    /// In misère play: `quotient` when the misère quotient answered, `search` when the
    /// exact search did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The outcome of the sum under `play` (P: the player to move loses).
    pub outcome: Outcome,
    /// Every winning move, in a deterministic order, one page at a time.
    pub moves: Vec<OctalMove>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

fn too_big(field: &str, n: u64, max: usize) -> ApiError {
    ApiError::invalid(
        field,
        format!("{field}: {n} is above the synchronous limit of {max} values (GRUNDY_OCTAL_MAX_N); submit a job with POST /v1/octal/jobs"),
    )
}

/// G-sequence g(0..n−1) with the periodicity verdict.
#[utoipa::path(
    post, path = "/v1/octal/sequence", operation_id = "octal_sequence", tag = "octal",
    request_body = SequenceRequest,
    responses(
        (status = 200, description = "The values and the periodicity verdict", body = SequenceResponse),
        BodyProblems,
        (status = 422, description = "Bad game code, n above the synchronous limit, or too slow to compute synchronously", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn sequence(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<SequenceRequest>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &req.code)?;
    let n = req.n.0;
    let max = app.config.octal_max_n;
    if n > max as u64 {
        return Err(too_big("n", n, max));
    }
    let n = n as usize;
    // A proof supplies every value past it, so stop computing once periodicity is proved.
    let need = Need {
        n,
        until_proved: true,
    };
    let code = game.canonical();
    let sf = standard_form(&game);
    let resp = app
        .octal
        .with_solver(&game, need, move |solver| -> Result<_, ApiError> {
            let values = solver
                .sequence(n)
                .map_err(|e| ApiError::invalid_field("n", e))?;
            Ok(SequenceResponse {
                code,
                standard_form: sf,
                n: n as u64,
                values,
                periodicity: verdict_within(solver.periodicity(), n as u64),
            })
        })
        .await??;
    respond(&app, None, 0, move || Ok(resp)).await
}

/// g(heap) for any heap size up to 2^64−1 once periodicity is proved.
#[utoipa::path(
    get, path = "/v1/octal/{code}/value/{heap}", operation_id = "octal_heap_value", tag = "octal",
    params(crate::api::wire::schema_rules::HeapValuePath),
    responses(
        (status = 200, description = "The value", body = HeapValueResponse),
        (status = 400, description = "A path segment is not valid UTF-8 once percent-decoded", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad code, heap not an integer in 0..=2^64-1, or periodicity not proved and the heap beyond the computable range", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn heap_value(
    State(app): State<AppState>,
    ApiPath((code, heap)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &code)?;
    let heap: u64 = heap.trim().parse().map_err(|_| {
        ApiError::invalid(
            "heap",
            format!("heap: {heap:?} is not an integer in 0..=18446744073709551615"),
        )
    })?;
    let max = app.config.octal_max_n;
    let need = Need {
        n: usize::try_from(heap).map_or(max, |h| h.saturating_add(1).min(max)),
        until_proved: true,
    };
    let canonical = game.canonical();
    let resp = app
        .octal
        .with_solver(&game, need, move |solver| {
            let computed = solver.values().len();
            heap_value_of(solver, heap).map_err(|e| match e {
                core::OctalError::HeapBeyondRange { .. } => ApiError::BudgetExceeded {
                    field: "heap".into(),
                    detail: format!(
                        "heap: g({heap}) is unknown: periodicity of {canonical} is not proved within the first {computed} values \
                         (the synchronous limit, GRUNDY_OCTAL_MAX_N); a job (POST /v1/octal/jobs) can compute further"
                    ),
                },
                other => ApiError::invalid_field("heap", other),
            })
        })
        .await??;
    respond(&app, None, 0, move || Ok(resp)).await
}

/// g(`heap`) from `solver` as `GET /v1/octal/{code}/value/{heap}` answers it (and `grundy
/// value`): a heap beyond what the solver computed needs a proved period
/// (`OctalError::HeapBeyondRange` otherwise).
pub fn heap_value_of(
    solver: &core::Solver,
    heap: u64,
) -> Result<HeapValueResponse, core::OctalError> {
    let value = solver.value_at(heap)?;
    // Deterministic reporting: a proof counts when the heap needed it (heap beyond the
    // values a request for this heap computes) or when it fits within g(0..=heap).
    let proof = solver.periodicity().proof().copied();
    let by_period = proof.is_some_and(|p| heap >= p.proved_at);
    let within = if by_period {
        u64::MAX
    } else {
        heap.saturating_add(1)
    };
    Ok(HeapValueResponse {
        code: solver.game().canonical(),
        heap,
        value,
        source: if by_period { "periodicity" } else { "computed" }.into(),
        periodicity: verdict_within(solver.periodicity(), within),
    })
}

/// Nim-sum and every winning move of a sum of heaps, paginated; with `"play": "misere"` the
/// misère outcome and winning moves (from the misère quotient when every heap is within it,
/// else from a budgeted exact search; no `value`).
#[utoipa::path(
    post, path = "/v1/octal/winning-moves", operation_id = "octal_winning_moves", tag = "octal",
    request_body = WinningMovesRequest,
    responses(
        (status = 200, description = "A page of winning moves", body = WinningMovesResponse),
        BodyProblems,
        (status = 422, description = "Bad code, bad cursor, a heap whose value is unknown, or (misère) a quotient and search beyond the budget", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn winning_moves(
    State(app): State<AppState>,
    ApiJson(req): ApiJson<WinningMovesRequest>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &req.code)?;
    let heaps = nats(&req.heaps);
    if heaps.len() > core::MAX_HEAPS {
        return Err(ApiError::invalid(
            "heaps",
            format!(
                "heaps: {} heaps given; at most {} are allowed",
                heaps.len(),
                core::MAX_HEAPS
            ),
        ));
    }
    let limit = match req.limit {
        None => 1000,
        Some(Nat(l)) if (1..=10_000).contains(&l) => l as usize,
        Some(Nat(l)) => {
            return Err(ApiError::invalid(
                "limit",
                format!("limit: {l} is outside 1..=10000"),
            ))
        }
    };
    if req.play == Play::Misere {
        return misere_winning_moves(&app, &game, heaps, limit, req.cursor).await;
    }
    let max = app.config.octal_max_n;
    let top = heaps.iter().copied().max().unwrap_or(0);
    let need = Need {
        n: usize::try_from(top).map_or(max, |h| h.saturating_add(1).min(max)),
        until_proved: true,
    };
    let budget = app.config.octal_moves_budget;
    let canonical = game.canonical();
    let cursor = req.cursor;
    let resp = app.octal.with_solver(&game, need, move |solver| -> Result<_, ApiError> {
        let page = solver.winning_moves(&heaps, cursor.as_deref(), limit, budget).map_err(|e| match e {
            core::OctalError::BadCursor { .. } => ApiError::invalid_field("cursor", e),
            core::OctalError::HeapBeyondRange { .. } => ApiError::BudgetExceeded {
                field: "heaps".into(),
                detail: format!(
                    "heaps: {e}; periodicity of {canonical} is not proved within the synchronous limit (GRUNDY_OCTAL_MAX_N), \
                     a job (POST /v1/octal/jobs) can compute further"
                ),
            },
            other => ApiError::invalid_field("heaps", other),
        })?;
        Ok(WinningMovesResponse {
            code: canonical,
            heaps,
            play: Play::Normal,
            value: Some(page.value),
            source: None,
            outcome: if page.value == 0 { Outcome::P } else { Outcome::N },
            moves: page
                .moves
                .into_iter()
                .map(|m| OctalMove { heap: m.heap, heap_index: m.heap_index, take: m.take, leave: m.leave })
                .collect(),
            next_cursor: page.next_cursor,
        })
    })
    .await??;
    respond(&app, None, 0, move || Ok(resp)).await
}

/// The misère answer of [`winning_moves`]: every winning move found at once (through the
/// quotient or the search, see [`crate::service::misere::MisereService::winning_moves`]),
/// then one page of them. A cursor is `offset.0.0.0.0.fingerprint`: the shape of the
/// normal-play cursors (one schema pattern), with a fingerprint of the misère query, so
/// neither kind is accepted for the other.
async fn misere_winning_moves(
    app: &AppState,
    game: &Game,
    heaps: Vec<u64>,
    limit: usize,
    cursor: Option<String>,
) -> Result<Response, ApiError> {
    let code = game.canonical();
    let fp = misere_fingerprint(&code, &heaps);
    let start = match cursor.as_deref() {
        None => 0,
        Some(c) => parse_misere_cursor(c, fp)?,
    };
    let (answer, source) = app
        .misere
        .winning_moves(game, heaps.clone(), app.config.search_budget())
        .await
        .map_err(|e| ApiError::misere("heaps", e))?;
    let total = answer.moves.len();
    if start > total {
        return Err(ApiError::invalid(
            "cursor",
            "cursor: invalid cursor: past the last move",
        ));
    }
    let end = start.saturating_add(limit).min(total);
    let next_cursor = (end < total).then(|| format!("{end}.0.0.0.0.{fp:016x}"));
    let moves = answer.moves[start..end]
        .iter()
        .map(|m| OctalMove {
            heap: m.heap,
            heap_index: m.heap_index,
            take: m.take,
            leave: m.leave.clone(),
        })
        .collect();
    let resp = WinningMovesResponse {
        code,
        heaps,
        play: Play::Misere,
        value: None,
        source: Some(source.as_str().into()),
        outcome: answer.outcome.into(),
        moves,
        next_cursor,
    };
    respond(app, None, 0, move || Ok(resp)).await
}

/// FNV-1a of the misère query (code and heaps, in order).
fn misere_fingerprint(code: &str, heaps: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(b"misere|");
    eat(code.as_bytes());
    for x in heaps {
        eat(b"|");
        eat(&x.to_le_bytes());
    }
    h
}

fn parse_misere_cursor(c: &str, fp: u64) -> Result<usize, ApiError> {
    let bad = |why: &str| ApiError::invalid("cursor", format!("cursor: invalid cursor: {why}"));
    let parts: Vec<&str> = c.split('.').collect();
    let [offset, "0", "0", "0", "0", print] = parts[..] else {
        return Err(bad("not a cursor of a misère query"));
    };
    if u64::from_str_radix(print, 16).ok() != Some(fp) || print.len() != 16 {
        return Err(bad("it belongs to another query"));
    }
    offset.parse().map_err(|_| bad("bad offset"))
}

/// `/v1/octal/*`: these routes, the misère quotients', the values' and the jobs'.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sequence))
        .routes(routes!(heap_value))
        .routes(routes!(winning_moves))
        .merge(misere::router())
        .merge(values::router())
        .merge(jobs::router())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store records a proof in its own type; the text must stay what earlier versions
    /// wrote (the API's verdict object), and read back as the same verdict.
    #[test]
    fn stored_periodicity_record_matches_the_api_verdict() {
        let game = Game::parse("0.07").unwrap();
        let mut solver = core::Solver::new(&game);
        solver.run(100_000, true, &mut || false).unwrap();
        let p = solver.periodicity();
        let json = PeriodicityRecord::json_of(p).expect("0.07 is proved periodic");
        assert_eq!(
            json,
            r#"{"status":"periodic","preperiod":53,"period":34,"saltus":0,"proved_at":175,"theorem":"Austin Thm 4.1 (Guy-Smith periodicity)"}"#
        );
        let api = serde_json::to_string(&PeriodicityInfo::from_core(p, None)).unwrap();
        assert_eq!(json, api, "the earlier stored format");
        let back = PeriodicityInfo::from(PeriodicityRecord::from_json(&json).unwrap());
        assert_eq!(serde_json::to_string(&back).unwrap(), api);
        assert_eq!(PeriodicityRecord::json_of(&Periodicity::Unknown), None);
    }
}
