//! The headers every response of the service carries, and the prepared headers of a JSON
//! answer.
//!
//! [`security_headers`] is a middleware for the whole service: `nosniff`, no framing, no
//! referrer, and a Content-Security-Policy on every response that has none. The pages set their
//! own strict policy (`crate::api::pages::PAGE_CSP`); the interactive API docs at `/docs`
//! (Swagger UI sets inline styles) get one that still forbids inline scripts ([`HTML_CSP`]);
//! JSON and other non-HTML responses get `default-src 'none'` ([`DATA_CSP`]).

use std::sync::LazyLock;

use axum::http::{header, HeaderMap, HeaderName, HeaderValue};

/// The policy of other HTML (Swagger UI at `/docs`): same-origin scripts only (no inline
/// script), inline styles and `data:` images allowed because Swagger UI renders with them.
pub const HTML_CSP: &str =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The policy of everything that is not HTML (JSON, problem documents, metrics, assets): such a
/// response, opened as a document, may load nothing and run nothing.
pub const DATA_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// The request id's header (set on every response by the metrics layer, [`super::metrics`]).
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The headers of a JSON response whose body is `content_length` bytes: `Content-Type:
/// application/json`, the security headers [`security_headers`] would add (`DATA_CSP`), the
/// length, and a place for the request id.
///
/// Built once; a response clones the template, which copies the entries without hashing a
/// name (inserting the six one by one cost about a twentieth of a request's instructions).
/// A clone has no spare room, so the headers added later are already in the template and
/// are replaced in place, never appended (an append grew the map, a reallocation per
/// request): `content-length` here, `x-request-id` by the metrics layer, which replaces
/// the placeholder on every response ([`super::metrics`]). hyper adds `date` itself.
pub fn json_headers(content_length: usize) -> HeaderMap {
    static TEMPLATE: LazyLock<HeaderMap> = LazyLock::new(|| {
        let mut h = HeaderMap::with_capacity(8);
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        h.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        h.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        h.insert(
            HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        );
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DATA_CSP),
        );
        h.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
        h.insert(X_REQUEST_ID, HeaderValue::from_static("-"));
        h
    });
    let mut h = TEMPLATE.clone();
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(content_length));
    h
}

/// Adds the security headers every response of the service carries (see the module docs).
///
/// A plain function of the response (applied with `ServiceBuilder::map_response`): no boxed
/// future or service per request, as an `axum::middleware::from_fn` would cost.
///
/// A response built from [`json_headers`] already carries the whole set (it is recognised by
/// its `nosniff`, which nothing else sets) and passes through untouched.
pub fn security_headers<B>(mut resp: axum::http::Response<B>) -> axum::http::Response<B> {
    let h = resp.headers_mut();
    if h.get(header::X_CONTENT_TYPE_OPTIONS) == Some(&NOSNIFF) {
        return resp;
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    h.entry(header::X_FRAME_OPTIONS)
        .or_insert(HeaderValue::from_static("DENY"));
    h.entry(header::REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("no-referrer"));
    h.entry(HeaderName::from_static("cross-origin-opener-policy"))
        .or_insert(HeaderValue::from_static("same-origin"));
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        let html = h
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/html"));
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(if html { HTML_CSP } else { DATA_CSP }),
        );
    }
    resp
}
