//! The JSON body extractor: every way a body can be wrong becomes an [`ApiError`] that names
//! the field (as a JSON path such as `position[3]`) — 415 for a body that is not declared as
//! JSON, 400 for malformed JSON or a wrong JSON type, 422 for well-formed but invalid values
//! (an oversized body never gets here: the body layer answers it with a 413). Numbers are read exactly (see [`super::numbers`]).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::api::wire::error::ApiError;
use crate::api::wire::serde_error::field_name;
use crate::service::AppState;

/// Like `axum::Json`, but with problem+json errors that name the field.
pub struct ApiJson<T>(pub T);

/// Bodies larger than this are parsed on the compute pool ([`crate::service::compute_pool`]),
/// as large computations run: a 1.5 MB position of 200,000 coins takes 5–12 ms to parse
/// (release build), which held an async worker — and every connection waiting on it — for as
/// long (BENCHMARKS.md, "Large uploads under load"). Smaller bodies (all of the hot path's)
/// parse in place, in microseconds.
pub const PARSE_INLINE_BYTES: usize = 64 * 1024;

impl<T> FromRequest<AppState> for ApiJson<T>
where
    T: DeserializeOwned + Send + 'static,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, app: &AppState) -> Result<Self, Self::Rejection> {
        check_content_type(req.headers())?;
        let bytes = read_all(req.into_body()).await?;
        if bytes.len() <= PARSE_INLINE_BYTES {
            return parse(&bytes).map(ApiJson);
        }
        app.compute
            .run(move || parse(&bytes))
            .await
            .map_err(|e| ApiError::Internal(format!("parsing the request body failed: {e}")))?
            .map(ApiJson)
    }
}

/// The whole body. The service's body layer (`crate::http::body_read`) has read it into
/// memory already, under the size limit, the deadline and the rate rule, so this finds one
/// frame and returns it without copying (axum's `Bytes` extractor wraps the body in a limit
/// and a buffer list first, which cost about a twentieth of a request's instructions).
async fn read_all(mut body: axum::body::Body) -> Result<Bytes, ApiError> {
    use http_body_util::BodyExt;
    let mut first: Option<Bytes> = None;
    let mut more: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::BadRequest {
            field: None,
            detail: format!("could not read the request body: {e}"),
        })?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        match first.take() {
            None if more.is_empty() => first = Some(data),
            f => {
                if let Some(f) = f {
                    more.extend_from_slice(&f);
                }
                more.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(more)))
}

/// Like axum's `Json`: the body must be declared as `application/json` or `application/*+json`
/// (parameters such as `charset` allowed); anything else, or no `Content-Type`, is a 415.
pub fn check_content_type(headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(axum::http::header::CONTENT_TYPE) else {
        return Err(ApiError::UnsupportedMediaType {
            detail: "the request has no Content-Type; send the body as application/json".into(),
        });
    };
    if value.as_bytes() == b"application/json" {
        return Ok(()); // what nearly every client sends, decided with one comparison
    }
    let text = value.to_str().unwrap_or("");
    let essence = text.split(';').next().unwrap_or("").trim();
    // Compared without allocating (this runs on every request with a body).
    let is_json = essence.split_once('/').is_some_and(|(kind, sub)| {
        let sub = sub.as_bytes();
        kind.eq_ignore_ascii_case("application")
            && (sub.eq_ignore_ascii_case(b"json")
                || (sub.len() > 5 && sub[sub.len() - 5..].eq_ignore_ascii_case(b"+json")))
    });
    if is_json {
        Ok(())
    } else {
        let shown: String = String::from_utf8_lossy(value.as_bytes())
            .chars()
            .take(80)
            .collect();
        Err(ApiError::UnsupportedMediaType {
            detail: format!(
                "Content-Type {shown:?} is not JSON; send the body as application/json"
            ),
        })
    }
}

/// Deserialises `bytes`, classifying failures (see the module docs).
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ApiError::BadRequest {
            field: None,
            detail: "the request body is empty; expected a JSON object".into(),
        });
    }
    // Structs would also accept a JSON array (serde maps it field by field); we do not.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        let value: Result<serde_json::Value, _> = serde_json::from_slice(bytes);
        return Err(ApiError::BadRequest {
            field: None,
            detail: match value {
                Ok(_) => "the request body must be a JSON object".into(),
                Err(e) => format!("the request body is not valid JSON: {e}"),
            },
        });
    }
    let bytes = crate::api::wire::numbers::normalize(bytes);
    // Fast path: a valid body parses once without path tracking; only a failing body is
    // parsed again to name the field (same result, the tracking costs on every request).
    if let Ok(value) = serde_json::from_slice(&bytes) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(classify)?;
    de.end().map_err(|e| ApiError::BadRequest {
        field: None,
        detail: format!("the request body is not valid JSON: {e}"),
    })?;
    Ok(value)
}

fn classify(err: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let message = err.inner().to_string();
    let field = field_name(err.path(), &message, "request body");
    let inner = err.into_inner();
    match inner.classify() {
        serde_json::error::Category::Data if !message.starts_with("invalid type") => {
            ApiError::invalid(field.clone(), format!("{field}: {message}"))
        }
        serde_json::error::Category::Data => ApiError::BadRequest {
            detail: format!("{field}: {message}"),
            field: Some(field),
        },
        _ => ApiError::BadRequest {
            field: None,
            detail: format!("the request body is not valid JSON: {message}"),
        },
    }
}
