//! The one helper every compute endpoint goes through: cache lookup, off-runtime computation
//! for big inputs (on the compute pool, [`crate::service::compute_pool`]), serialization, cache
//! fill.
//!
//! Whether an answer is cached is decided once, by the caller, through
//! [`AppState::cache_key`] (the size rule) or by passing a key always (budgeted searches).

use axum::response::Response;
use bytes::Bytes;
use serde::Serialize;

use crate::api::wire::error::ApiError;
use crate::api::wire::fast_json::WriteJson;
use crate::http::headers::json_headers;
use crate::service::AppState;

/// A handler's computation: run once, inline or on the compute pool.
pub trait Compute<T>: FnOnce() -> Result<T, ApiError> + Send + 'static {}

impl<T, F: FnOnce() -> Result<T, ApiError> + Send + 'static> Compute<T> for F {}

/// Answers a pure computation: from the cache when `key` is given and present, otherwise by
/// running `compute` — inline for small inputs (`size ≤ GRUNDY_INLINE_COINS`), on the
/// compute pool for large ones so the async workers stay responsive.
pub async fn respond<T, F>(
    app: &AppState,
    key: Option<String>,
    size: usize,
    compute: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: Compute<T>,
{
    let inline = size <= app.config.inline_coins;
    respond_with(app, key, inline, compute, write_serde).await
}

/// [`respond`] for the answers that write their own JSON ([`WriteJson`]: the hottest ones).
pub async fn respond_written<T: WriteJson + Send + 'static>(
    app: &AppState,
    key: Option<String>,
    size: usize,
    compute: impl Compute<T>,
) -> Result<Response, ApiError> {
    let write = |v: &T, out: &mut Vec<u8>| {
        v.write_json(out);
        Ok(())
    };
    respond_with(app, key, size <= app.config.inline_coins, compute, write).await
}

/// Writes `value` with serde_json.
fn write_serde<T: Serialize>(value: &T, out: &mut Vec<u8>) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

/// For searches whose cost does not follow the input size (budgeted memoised searches):
/// always computed on the compute pool, always cached (the key is small).
pub async fn respond_search<T, F>(
    app: &AppState,
    key: String,
    compute: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: Compute<T>,
{
    respond_with(app, Some(key), false, compute, write_serde).await
}

async fn respond_with<T, F, W>(
    app: &AppState,
    key: Option<String>,
    inline: bool,
    compute: F,
    write: W,
) -> Result<Response, ApiError>
where
    T: Send + 'static,
    F: Compute<T>,
    W: FnOnce(&T, &mut Vec<u8>) -> serde_json::Result<()> + Send + 'static,
{
    if let Some(k) = &key {
        if let Some(body) = app.cache.get(k) {
            return Ok(json_response(body));
        }
    }
    let run = move || -> Result<Bytes, ApiError> {
        let value = compute()?;
        // Room for a typical small answer up front: `to_vec` starts empty and grew the buffer
        // four or five times per response.
        let mut out = Vec::with_capacity(256);
        write(&value, &mut out)
            .map(|()| Bytes::from(out))
            .map_err(|e| ApiError::Internal(format!("serializing the response: {e}")))
    };
    let body = if inline {
        run()?
    } else {
        app.compute
            .run(run)
            .await
            .map_err(|e| ApiError::Internal(format!("computation task failed: {e}")))??
    };
    if let Some(k) = key {
        app.cache.insert(k, body.clone());
    }
    Ok(json_response(body))
}

/// A JSON body as an `application/json` response.
///
/// Its headers, security headers included, come from one prepared map ([`json_headers`]).
pub fn json_response(body: Bytes) -> Response {
    let headers = json_headers(body.len());
    let mut resp = Response::new(axum::body::Body::from(body));
    *resp.headers_mut() = headers;
    resp
}

/// The 422 of a searched game (Antonim, Antimatter) whose position needs more than the
/// compute budget, naming `field` and the budget's settings.
pub(crate) fn search_budget_problem(app: &AppState, field: &str, game: &str) -> ApiError {
    ApiError::BudgetExceeded {
        field: field.to_owned(),
        detail: format!(
            "{field}: this {game} position needs more than the compute budget ({} steps, {} memo entries: \
             GRUNDY_SEARCH_MAX_STEPS, GRUNDY_SEARCH_MAX_ENTRIES); no closed form is known, so only smaller positions are answered",
            app.config.search_max_steps, app.config.search_max_entries
        ),
    }
}
