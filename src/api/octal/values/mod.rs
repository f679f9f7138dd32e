//! `GET /v1/octal/{code}/values?start=S&count=C`: the values g(S..S+C−1) of an octal (or
//! other take-and-break, subtraction, Grundy's) game, streamed as JSON, CSV or little-endian
//! binary.
//!
//! A range is served when every heap in it is *available*: below the length of the prefix
//! computed in memory (the solver cache) or in the store (by requests or jobs — a window-mode
//! job's values too: it keeps every value it computed on disk), or anywhere once periodicity is
//! proved (see `source`). A range that is not yet available, but ends
//! within the synchronous limit (`GRUNDY_OCTAL_MAX_N`), is computed first, as the other octal
//! endpoints do; otherwise the answer is a 409 problem saying how far the values go and which
//! job would extend them. The body is produced block by block (64 Ki values, one store chunk)
//! by a task feeding a small channel, so the server holds a few blocks, never the body.

mod format;
mod source;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use self::format::{negotiate, width_for, Encoder, Format};
use self::source::{runs, Chunks, Period, Prefix, Run};
use crate::api::octal::parse_code;
use crate::api::wire::doc_responses::BadQuery;
use crate::api::wire::error::ApiError;
use crate::core::octal::Game;
use crate::problem::Problem;
use crate::service::octal::{Need, OctalServiceError};
use crate::service::AppState;
use crate::store::CHUNK;

/// The response header giving the width of each binary value, in bytes.
pub const VALUE_BYTES_HEADER: &str = "x-grundy-value-bytes";

/// Values per streamed block (one store chunk).
const BLOCK: u64 = CHUNK as u64;

/// Encoded blocks waiting for the socket.
const IN_FLIGHT: usize = 4;

/// g(start..start+count−1) as JSON (the `application/json` format of the download).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"code": "0.07", "start": 1000000000000u64, "count": 8, "values": [1, 1, 2, 0, 3, 1, 1, 0]}))]
pub struct ValuesResponse {
    /// The canonical code.
    pub code: String,
    pub start: u64,
    pub count: u64,
    /// g(start), g(start+1), …
    pub values: Vec<u64>,
}

/// g(start..start+count−1) for any computed or proved range, streamed.
///
/// The format follows `Accept`: `application/json` (the default) gives `{"code", "start",
/// "count", "values"}`; `text/csv` a `heap,value` header line and one line per heap;
/// `application/octet-stream` little-endian unsigned integers of the width in the
/// `x-grundy-value-bytes` header (the narrowest of 1, 2 or 4 holding the range's largest
/// value — or an upper bound on it —, 8 only for arithmetic-periodic values beyond 2^32−1).
/// A range is available when it lies within the values computed so far (in memory or in the
/// store, by requests or jobs) or when periodicity is proved; a range ending within
/// `GRUNDY_OCTAL_MAX_N` is computed on demand. At most `GRUNDY_VALUES_MAX_COUNT` values
/// (default 10^9) per request.
#[utoipa::path(
    get, path = "/v1/octal/{code}/values", operation_id = "octal_values", tag = "octal",
    params(
        crate::api::wire::schema_rules::CodePath,
        ("start" = Option<u64>, Query, description = "First heap (default 0)"),
        ("count" = u64, Query, minimum = 1, maximum = 1000000000, description = "How many values: 1..=GRUNDY_VALUES_MAX_COUNT (default 1,000,000,000, the maximum stated here)"),
    ),
    responses(
        (status = 200, description = "The values, streamed in the format `Accept` asks for",
            content(
                (ValuesResponse = "application/json"),
                (String = "text/csv", example = "heap,value\n0,0\n1,0\n2,1\n"),
                ("application/octet-stream")
            ),
            headers(("x-grundy-value-bytes" = u8, description = "Binary only: bytes per value (1, 2, 4; 8 only for arithmetic-periodic values beyond 2^32−1)"))),
        BadQuery,
        (status = 406, description = "`Accept` names none of application/json, text/csv, application/octet-stream", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The range is not available: not computed and periodicity not proved. The detail says how far the values go and which job (POST /v1/octal/jobs with max_n ≥ start+count) would compute it; `field` is `start` or `count`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad code, start or count (the field is named)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The store failed while the range needed it", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn values(
    State(app): State<AppState>,
    Path(code): Path<String>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::BadRequest {
        field: None,
        detail: format!("query string: {}", e.body_text()),
    })?;
    let game = parse_code("code", &code)?;
    let (start, count) = range(&query, app.config.values_max_count)?;
    let format = negotiate(headers.get(header::ACCEPT))?;
    let canonical = game.canonical();
    let (mut prefix, period) = available(&app, &game, start, count).await?;
    let len = prefix.len();
    let last = start + (count - 1);

    // The largest value, bounded: values must fit u64 (only an arithmetic periodicity far out
    // can exceed it), and the binary width must be known before the first byte.
    if let Some(p) = period.filter(|p| last >= len && p.saltus > 0) {
        let base = prefix
            .max(p.preperiod, p.preperiod + p.period)
            .await?
            .unwrap_or(u64::from(u32::MAX));
        if p.bound(base, last) > u128::from(u64::MAX) {
            return Err(ApiError::invalid(
                "count",
                format!("count: g({last}) of {canonical} exceeds 2^64−1; ask for a range of smaller heaps"),
            ));
        }
    }
    let width = match format {
        Format::Binary => width_for(max_bound(&mut prefix, period.as_ref(), start, last).await?),
        Format::Json | Format::Csv => 0,
    };

    let mut encoder = Encoder::new(format, width, start);
    let head = encoder.head(&canonical, start, count);
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(IN_FLIGHT);
    tokio::spawn(async move {
        let produced = produce(&mut prefix, period, start, count, &mut encoder, head, &tx).await;
        if let Err(e) = produced {
            // The status line is gone: abort the body so the client sees a truncated download.
            tracing::error!(error = %e, code = canonical, "values download failed mid-stream");
            let _ = tx.send(Err(std::io::Error::other(e.to_string()))).await;
        }
    });
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    }));
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    if format == Format::Binary {
        h.insert(VALUE_BYTES_HEADER, HeaderValue::from(width));
        h.insert(
            header::CONTENT_LENGTH,
            HeaderValue::from(count.saturating_mul(width as u64)),
        );
    }
    Ok(resp)
}

/// `start` (default 0) and `count` from the query, as 422s naming the field.
fn range(query: &HashMap<String, String>, max_count: u64) -> Result<(u64, u64), ApiError> {
    // A parameter the operation does not take is a mistake worth naming (a misspelt `cuont`
    // would otherwise be silently ignored, and the default range served).
    if let Some(unknown) = query
        .keys()
        .find(|k| !matches!(k.as_str(), "start" | "count"))
    {
        let shown: String = unknown.chars().take(64).collect();
        return Err(ApiError::invalid(
            shown.clone(),
            format!("{shown}: unknown query parameter; this operation takes start and count"),
        ));
    }
    let int = |field: &str, text: &str| -> Result<u64, ApiError> {
        text.trim().parse::<u64>().map_err(|_| {
            ApiError::invalid(
                field,
                format!("{field}: {text:?} is not an integer in 0..=18446744073709551615"),
            )
        })
    };
    let start = query.get("start").map_or(Ok(0), |s| int("start", s))?;
    let count = query
        .get("count")
        .ok_or_else(|| {
            ApiError::invalid(
                "count",
                "count: required (how many values, 1..=GRUNDY_VALUES_MAX_COUNT)",
            )
        })
        .and_then(|c| int("count", c))?;
    if count == 0 || count > max_count {
        return Err(ApiError::invalid(
            "count",
            format!("count: {count} is outside 1..={max_count} (GRUNDY_VALUES_MAX_COUNT)"),
        ));
    }
    if start.checked_add(count - 1).is_none() {
        return Err(ApiError::invalid(
            "count",
            format!("count: the range {start}+{count} ends beyond heap 18446744073709551615"),
        ));
    }
    Ok((start, count))
}

/// What is known of the sequence in one place: its computed prefix and proof.
struct Extent {
    len: u64,
    period: Option<Period>,
}

impl Extent {
    /// Whether it supplies every heap up to `last`.
    fn covers(&self, last: u64) -> bool {
        last < self.len || self.period.is_some()
    }
}

/// The prefix (and proof) to read `start..=start+count−1` from: the cached solver when it
/// covers the range, else the store, else (within the synchronous limit) a computation; a
/// 409 problem when none can.
async fn available(
    app: &AppState,
    game: &Game,
    start: u64,
    count: u64,
) -> Result<(Prefix, Option<Period>), ApiError> {
    let last = start + (count - 1);
    let code = game.canonical();
    let memory = |solver: crate::service::octal::CachedSolver| async move {
        let s = solver.clone();
        let extent = tokio::task::spawn_blocking(move || {
            s.read(|s| Extent {
                len: s.values().len() as u64,
                period: Period::of(s.periodicity()),
            })
        })
        .await
        .map_err(|e| ApiError::Internal(format!("reading a solver failed: {e}")))?
        .ok_or_else(|| ApiError::Internal("solver lock poisoned".into()))?;
        Ok::<_, ApiError>((solver, extent))
    };
    let mut known = 0;
    if let Some(cached) = app.octal.cached(game) {
        let (solver, e) = memory(cached).await?;
        if e.covers(last) {
            return Ok((Prefix::Memory { solver, len: e.len }, e.period));
        }
        known = e.len;
    }
    let mut store_error = None;
    if let Some(store) = app.store() {
        match store.sequence_extent(&code).await {
            Ok(Some(s)) => {
                let len = s.computed as u64;
                let e = Extent {
                    len,
                    period: Period::of_record(s.periodicity.as_deref(), len),
                };
                if e.covers(last) {
                    return Ok((
                        Prefix::store(store.clone(), Chunks::Sequence(code.clone()), len),
                        e.period,
                    ));
                }
                known = known.max(len);
            }
            Ok(None) => {}
            Err(e) => store_error = Some(ApiError::from(e)),
        }
        // A window-mode job keeps every value it computed on disk: read them from its chunks.
        match store.window_values(&code).await {
            Ok(Some(w)) => {
                let e = Extent {
                    len: w.computed,
                    period: Period::of_record(w.periodicity.as_deref(), w.computed),
                };
                if e.covers(last) {
                    return Ok((
                        Prefix::store(store, Chunks::WindowJob(w.job_id), e.len),
                        e.period,
                    ));
                }
                known = known.max(e.len);
            }
            Ok(None) => {}
            Err(e) => store_error = store_error.or(Some(ApiError::from(e))),
        }
    }
    // Not available yet: compute within the synchronous limit, as the other octal endpoints do.
    let max = app.config.octal_max_n as u64;
    let target = last.saturating_add(1).min(max);
    let mut too_slow = false;
    if known < target {
        let need = Need {
            n: target as usize,
            until_proved: true,
        };
        match app.octal.ensure(game, need).await {
            Ok(solver) => {
                let (solver, e) = memory(solver).await?;
                if e.covers(last) {
                    return Ok((Prefix::Memory { solver, len: e.len }, e.period));
                }
                known = known.max(e.len);
            }
            Err(OctalServiceError::TooSlow { computed, .. }) => {
                known = known.max(computed as u64);
                too_slow = true;
            }
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(e) = store_error {
        return Err(e);
    }
    Err(not_available(app, &code, start, last, known, too_slow))
}

/// The 409 for a range beyond the available values: how far they go and how to extend them.
fn not_available(
    app: &AppState,
    code: &str,
    start: u64,
    last: u64,
    known: u64,
    too_slow: bool,
) -> ApiError {
    let field = if start >= known { "start" } else { "count" };
    let have = match known {
        0 => "no values are computed".to_owned(),
        n => format!("values are computed for heaps 0..={}", n - 1),
    };
    let slow = if too_slow {
        format!(
            " (computing further takes longer than the synchronous limit of {} ms, GRUNDY_OCTAL_SYNC_MS)",
            app.config.octal_sync_time.as_millis()
        )
    } else {
        String::new()
    };
    let end = u128::from(last) + 1;
    let job_max = app.config.job_max_n;
    let extend = if end <= u128::from(job_max) {
        format!(
            "submit a job to compute them: POST /v1/octal/jobs with {{\"code\": \"{code}\", \"max_n\": {end}}} \
             (max_n ≥ start+count), then ask again"
        )
    } else {
        format!(
            "they lie beyond the largest job (GRUNDY_JOB_MAX_N = {job_max}): only a proof of periodicity, \
             which a job (POST /v1/octal/jobs) may find, can supply them"
        )
    };
    ApiError::Conflict {
        field: field.to_owned(),
        detail: format!(
            "{field}: g({start}..={last}) of {code} is not available: {have}{slow} and periodicity is not proved; {extend}"
        ),
    }
}

/// An upper bound on the values of heaps `start..=last` (exact for a computed range read from
/// memory): the maximum over the computed part, and beyond it the largest value of one period
/// plus the saltus times the last cycle. Stored ranges too long to scan
/// ([`source::STORE_SCAN_MAX`]) are bounded by their chunks' widths (the largest u32 if a
/// chunk is missing).
async fn max_bound(
    prefix: &mut Prefix,
    period: Option<&Period>,
    start: u64,
    last: u64,
) -> Result<u128, ApiError> {
    let len = prefix.len();
    let unknown = u64::from(u32::MAX);
    let mut max = 0u128;
    if start < len {
        let to = len.min(last.saturating_add(1));
        max = u128::from(prefix.max(start, to).await?.unwrap_or(unknown));
    }
    if last >= len {
        let p = period.ok_or_else(|| {
            ApiError::Internal("a range beyond the values without a proof".into())
        })?;
        let base = prefix
            .max(p.preperiod, p.preperiod + p.period)
            .await?
            .unwrap_or(unknown);
        max = max.max(p.bound(base, last));
    }
    Ok(max)
}

/// Streams the download into `tx`, block by block; stops quietly when the client is gone.
async fn produce(
    prefix: &mut Prefix,
    period: Option<Period>,
    start: u64,
    count: u64,
    encoder: &mut Encoder,
    head: Vec<u8>,
    tx: &tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>,
) -> Result<(), ApiError> {
    let len = prefix.len();
    let mut pending = head;
    let mut plan: Vec<Run> = Vec::new();
    let mut values = Vec::with_capacity(BLOCK as usize);
    let mut h = start;
    let mut left = count;
    while left > 0 {
        // Blocks end on chunk boundaries, so a stored range reads each chunk once.
        let n = left.min(BLOCK - h % BLOCK);
        runs(len, period.as_ref(), h, n as usize, &mut plan);
        values.clear();
        prefix.fill(&plan, &mut values).await?;
        encoder.block(&values, &mut pending);
        if tx
            .send(Ok(Bytes::from(std::mem::take(&mut pending))))
            .await
            .is_err()
        {
            return Ok(()); // the client went away
        }
        left -= n;
        h = h.wrapping_add(n);
    }
    pending.extend(encoder.tail());
    if !pending.is_empty() {
        let _ = tx.send(Ok(Bytes::from(pending))).await;
    }
    Ok(())
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(values))
}
