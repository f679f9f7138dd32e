//! The web pages at `/` (play Welter, plot G-sequences, watch jobs), served from the binary.
//!
//! The files under `web/` are embedded with `include_bytes!`: no CDN, no build step, nothing
//! read from disk at run time. `index.html` links its script and style sheet under
//! `/assets/{version}/…`, where `version` is a hash of every embedded file, so those URLs can be
//! cached for a year (`immutable`); the page itself is `no-cache`. A request naming another
//! version (a page loaded before an upgrade) still gets the current file, but `no-cache`. Every
//! response carries a strong `ETag` and `If-None-Match` answers 304.
//!
//! The pages set their own strict policy ([`PAGE_CSP`]: `script-src 'self'`, `style-src
//! 'self'`, no inline code of any kind); the headers every response carries are added by
//! `crate::http::headers`.
//!
//! The pages are not API endpoints and are not in the OpenAPI document.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::api::wire::error::ApiError;

/// The policy of the pages: only same-origin scripts, styles, images and fetches; no inline
/// script or style, no `eval`, no plugins, no framing, no `<base>` tricks.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// One embedded file of `web/`.
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $type:expr) => {
        Asset {
            name: $name,
            content_type: $type,
            bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/web/", $name)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Every file under `web/` (a test checks that none is missing). `index.html` is served at `/`.
pub const ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("style.css", CSS),
    asset!("favicon.svg", "image/svg+xml"),
    asset!("app.js", JS),
    asset!("route.js", JS),
    asset!("api.js", JS),
    asset!("auth.js", JS),
    asset!("dom.js", JS),
    asset!("play.js", JS),
    asset!("rules.js", JS),
    asset!("explain.js", JS),
    asset!("explorer.js", JS),
    asset!("quotient.js", JS),
    asset!("plot.js", JS),
    asset!("jobs.js", JS),
    asset!("census.js", JS),
];

/// The placeholder in `index.html` replaced by [`version`].
const VERSION_PLACEHOLDER: &str = "{{version}}";

/// FNV-1a, 64 bits: a stable content hash without another dependency (not for security).
fn fnv1a(bytes: impl IntoIterator<Item = u8>, mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The asset version: a hash over every embedded file's name and content.
pub fn version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let h = ASSETS.iter().fold(FNV_OFFSET, |h, a| {
            fnv1a(a.bytes.iter().copied(), fnv1a(a.name.bytes(), h))
        });
        format!("{:012x}", h >> 16)
    });
    &VERSION
}

/// `index.html` with the asset version filled in.
fn index_html() -> &'static str {
    static INDEX: LazyLock<String> = LazyLock::new(|| {
        let raw = ASSETS
            .iter()
            .find(|a| a.name == "index.html")
            .map_or("", |a| std::str::from_utf8(a.bytes).unwrap_or(""));
        raw.replace(VERSION_PLACEHOLDER, version())
    });
    &INDEX
}

fn etag(bytes: &[u8]) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "\"{:016x}\"",
        fnv1a(bytes.iter().copied(), FNV_OFFSET)
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("\"0\""))
}

/// A 200 (or 304 when `If-None-Match` names the same entity) with caching headers.
fn respond(
    req_headers: &HeaderMap,
    content_type: &'static str,
    body: &'static [u8],
    cache: &'static str,
    csp: Option<&'static str>,
) -> Response {
    let tag = etag(body);
    let fresh = req_headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim() == tag));
    let mut resp = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = body.into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        r
    };
    let h = resp.headers_mut();
    h.insert(header::ETAG, tag);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Some(csp) = csp {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        );
    }
    resp
}

async fn index(headers: HeaderMap) -> Response {
    respond(
        &headers,
        HTML,
        index_html().as_bytes(),
        "no-cache",
        Some(PAGE_CSP),
    )
}

/// `/assets/{version}/{name}` (or `/assets/{name}`): an embedded file.
async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let (tag, name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
    let found = ASSETS
        .iter()
        .find(|a| a.name == name && a.name != "index.html")
        .filter(|_| !tag.contains('/'))
        .ok_or_else(|| ApiError::NotFound {
            detail: format!("no asset /assets/{path}"),
        })?;
    let cache = if tag == version() {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    Ok(respond(
        &headers,
        found.content_type,
        found.bytes,
        cache,
        None,
    ))
}

async fn favicon(headers: HeaderMap) -> Result<Response, ApiError> {
    asset(Path("favicon.svg".to_owned()), headers).await
}

/// `/`, `/index.html`, `/favicon.ico` and `/assets/…`.
pub fn router() -> Router {
    Router::new()
        .route(ROUTES[0], get(index))
        .route(ROUTES[1], get(index))
        .route(ROUTES[2], get(favicon))
        .route(ROUTES[3], get(asset))
}

/// The pages' route templates (also the metrics' route labels).
pub const ROUTES: [&str; 4] = ["/", "/index.html", "/favicon.ico", "/assets/{*path}"];

#[cfg(test)]
mod tests {
    use super::*;

    fn web_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
    }

    #[test]
    fn every_file_under_web_is_embedded_and_typed() {
        let mut on_disk: Vec<String> = std::fs::read_dir(web_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.name.to_owned()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "web/ and pages::ASSETS differ");
        for a in ASSETS {
            let ext = a.name.rsplit('.').next().unwrap();
            let want = match ext {
                "js" => JS,
                "css" => CSS,
                "html" => HTML,
                "svg" => "image/svg+xml",
                other => panic!("no content type known for .{other}"),
            };
            assert_eq!(a.content_type, want, "{}", a.name);
        }
    }

    #[test]
    fn version_is_filled_in_and_stable() {
        assert_eq!(version().len(), 12);
        assert!(index_html().contains(&format!("/assets/{}/app.js", version())));
        assert!(!index_html().contains(VERSION_PLACEHOLDER));
        assert_eq!(version(), version());
    }

    /// The pages' own guarantee against injected markup: no sink that parses HTML or code from
    /// a string, no inline script or style, no event-handler attributes.
    #[test]
    fn pages_use_no_html_or_code_sinks() {
        for a in ASSETS {
            let text = std::str::from_utf8(a.bytes).unwrap();
            if a.name.ends_with(".js") {
                for sink in [
                    "innerHTML",
                    "outerHTML",
                    "insertAdjacentHTML",
                    "document.write",
                    "eval(",
                    "new Function",
                    "setAttribute('on",
                    "setAttribute(\"on",
                    "createContextualFragment",
                    "DOMParser",
                ] {
                    assert!(!text.contains(sink), "{} uses {sink}", a.name);
                }
                // setTimeout/setInterval with a string argument evaluate code.
                assert!(!text.contains("setTimeout('") && !text.contains("setTimeout(\""));
            }
            if a.name.ends_with(".html") || a.name.ends_with(".svg") {
                let lower = text.to_ascii_lowercase();
                assert!(
                    !lower.contains(" style="),
                    "{} has a style attribute",
                    a.name
                );
                assert!(!lower.contains("<style"), "{} has an inline style", a.name);
                assert!(!lower.contains("javascript:"), "{}", a.name);
                for (i, _) in lower.match_indices("<script") {
                    let tag = &lower[i..i + lower[i..].find('>').unwrap()];
                    assert!(tag.contains(" src="), "{}: inline <script>", a.name);
                }
                for attr in [
                    " onclick=",
                    " onload=",
                    " onerror=",
                    " oninput=",
                    " onsubmit=",
                ] {
                    assert!(!lower.contains(attr), "{} has {attr}", a.name);
                }
            }
        }
    }

    #[test]
    fn policies_forbid_inline_scripts() {
        for csp in [PAGE_CSP, crate::http::headers::HTML_CSP] {
            let script = csp
                .split(';')
                .find(|d| d.trim().starts_with("script-src"))
                .unwrap();
            assert!(!script.contains("unsafe"), "{script}");
            assert!(csp.contains("frame-ancestors 'none'"));
        }
        assert!(!PAGE_CSP.contains("unsafe"));
    }
}
