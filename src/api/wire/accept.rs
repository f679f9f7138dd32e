//! Content negotiation: the format an `Accept` header asks for among those a resource offers
//! (JSON, CSV, little-endian binary), or a 406 problem naming them.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue};

use crate::api::wire::error::ApiError;

/// A download format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{"code", "start", "count", "values": [...]}`.
    Json,
    /// A `heap,value` header line, then one line per heap.
    Csv,
    /// Little-endian unsigned integers, all of one width (`x-grundy-value-bytes`).
    Binary,
}

impl Format {
    /// In the server's order of preference (for equal `q`).
    pub const ALL: [Format; 3] = [Format::Json, Format::Csv, Format::Binary];

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv",
            Format::Binary => "application/octet-stream",
        }
    }

    /// How specifically the media range `range` (lower case, no parameters) names this
    /// format: 3 exactly, 2 by `type/*`, 1 by `*/*`, 0 not at all.
    fn specificity(self, range: &str) -> u8 {
        let ct = self.content_type();
        let major = ct.split('/').next().unwrap_or_default();
        if range == ct {
            3
        } else if range.strip_suffix("/*") == Some(major) {
            2
        } else if range == "*/*" {
            1
        } else {
            0
        }
    }
}

/// The format of a table that is answered as JSON (the default) or CSV, negotiated from
/// `Accept` (406 for neither) — an extractor, after the caller's and the path's.
pub struct JsonOrCsv(pub Format);

impl<S: Send + Sync> FromRequestParts<S> for JsonOrCsv {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let accept = parts.headers.get(header::ACCEPT);
        negotiate_among(accept, &[Format::Json, Format::Csv]).map(JsonOrCsv)
    }
}

/// The format an `Accept` header asks for among all three (RFC 9110 §12.5.1): each format
/// gets the `q` of the most specific media range that names it; the highest positive `q`
/// wins, ties going to JSON, then CSV, then binary. No header (or an empty one) means JSON.
pub fn negotiate(accept: Option<&HeaderValue>) -> Result<Format, ApiError> {
    negotiate_among(accept, &Format::ALL)
}

/// [`negotiate`] among the formats a resource `offers` (JSON first).
pub fn negotiate_among(
    accept: Option<&HeaderValue>,
    offers: &[Format],
) -> Result<Format, ApiError> {
    let not_acceptable = |accept: &str| not_acceptable(accept, offers);
    let Some(accept) = accept else {
        return Ok(Format::Json);
    };
    let text = accept.to_str().map_err(|_| not_acceptable("(not ASCII)"))?;
    if text.trim().is_empty() {
        return Ok(Format::Json);
    }
    let mut ranges = Vec::new();
    for item in text.split(',') {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        if range.is_empty() {
            continue;
        }
        let mut q = 1.0f64;
        for param in parts {
            if let Some((k, v)) = param.split_once('=') {
                if k.trim().eq_ignore_ascii_case("q") {
                    q = v.trim().parse().unwrap_or(0.0);
                }
            }
        }
        ranges.push((range, q));
    }
    let mut best: Option<(Format, f64)> = None;
    for &f in offers {
        let q = ranges
            .iter()
            .filter_map(|(r, q)| Some((f.specificity(r), *q)).filter(|(s, _)| *s > 0))
            .max_by_key(|(s, _)| *s)
            .map(|(_, q)| q);
        if let Some(q) = q.filter(|q| *q > 0.0) {
            if !matches!(best, Some((_, b)) if b >= q) {
                best = Some((f, q));
            }
        }
    }
    best.map(|(f, _)| f).ok_or_else(|| not_acceptable(text))
}

fn not_acceptable(accept: &str, offers: &[Format]) -> ApiError {
    let names: Vec<&str> = offers
        .iter()
        .map(|f| match f {
            Format::Json => "application/json (the default)",
            other => other.content_type(),
        })
        .collect();
    ApiError::NotAcceptable {
        detail: format!(
            "Accept: {accept:?} names none of the formats of this resource: {}",
            names.join(", ")
        ),
    }
}
