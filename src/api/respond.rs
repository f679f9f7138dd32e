//! The one helper every compute endpoint goes through: cache lookup, off-runtime computation
//! for big inputs, serialization, cache fill.

use axum::response::Response;
use bytes::Bytes;
use serde::Serialize;

use super::error::ApiError;
use crate::state::AppState;

/// A handler's computation: run once, inline or on the blocking pool.
pub trait Compute<T>: FnOnce() -> Result<T, ApiError> + Send + 'static {}

impl<T, F: FnOnce() -> Result<T, ApiError> + Send + 'static> Compute<T> for F {}

/// Answers a pure computation: from the cache when `key` is given and present (and `size`
/// is within `GRUNDY_CACHE_MIN_COINS..=GRUNDY_CACHE_MAX_COINS`), otherwise
/// by running `compute` — inline for small inputs (`size ≤ GRUNDY_INLINE_COINS`), on the
/// blocking pool for large ones so the async workers stay responsive.
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
    let key =
        key.filter(|_| (app.config.cache_min_coins..=app.config.cache_max_coins).contains(&size));
    let inline = size <= app.config.inline_coins;
    respond_with(app, key, inline, compute).await
}

/// For searches whose cost does not follow the input size (budgeted memoised searches):
/// always computed on the blocking pool, always cached (the key is small).
pub async fn respond_search<T, F>(
    app: &AppState,
    key: String,
    compute: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: Compute<T>,
{
    respond_with(app, Some(key), false, compute).await
}

async fn respond_with<T, F>(
    app: &AppState,
    key: Option<String>,
    inline: bool,
    compute: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: Compute<T>,
{
    if let Some(k) = &key {
        if let Some(body) = app.cache.get(k) {
            return Ok(json_response(body));
        }
    }
    let run = move || -> Result<Bytes, ApiError> {
        let value = compute()?;
        serde_json::to_vec(&value)
            .map(Bytes::from)
            .map_err(|e| ApiError::Internal(format!("serializing the response: {e}")))
    };
    let body = if inline {
        run()?
    } else {
        tokio::task::spawn_blocking(run)
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
/// Its headers, security headers included, come from one prepared map
/// ([`super::pages::json_headers`]).
pub fn json_response(body: Bytes) -> Response {
    let mut resp = Response::new(axum::body::Body::from(body));
    *resp.headers_mut() = super::pages::json_headers();
    resp
}
