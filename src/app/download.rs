//! The values of a run as the download endpoint serves them (`GET /v1/octal/{code}/values`:
//! CSV, JSON, or binary with its width in `x-grundy-value-bytes`): its handler, in this
//! process, streamed to a file (`--values`), to stdout (`--from`/`--count`) or read for the
//! rare heaps (`--rare`). Through the router, so that a file written here is byte for byte
//! the download; no request body is built.

use std::io::Write;
use std::path::Path;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use super::cli::Fail;

/// `GET /v1/octal/{code}/values?start=A&count=K` of `canonical` through the router, asking
/// for `accept`; a refusal is said with its detail.
async fn values(
    router: &axum::Router,
    canonical: &str,
    start: u64,
    count: u64,
    accept: &str,
) -> Result<axum::response::Response, Fail> {
    let path = format!(
        "/v1/octal/{}/values?start={start}&count={count}",
        crate::core::octal::code::percent_encode(canonical)
    );
    let req = Request::builder()
        .method(Method::GET)
        .uri(&path)
        .header(header::ACCEPT, accept)
        .body(Body::empty())
        .map_err(|e| Fail::Other(format!("{path}: {e}")))?;
    let resp = router
        .clone()
        .oneshot(req)
        .await
        .unwrap_or_else(|never| match never {});
    if resp.status() != StatusCode::OK {
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        return Err(Fail::Other(format!(
            "the values: {status} {}",
            v["detail"].as_str().unwrap_or_default()
        )));
    }
    Ok(resp)
}

/// Heaps A … A+K−1 to stdout, as `accept` (CSV or the download's JSON).
pub(super) async fn print_range(
    router: &axum::Router,
    canonical: &str,
    start: u64,
    count: u64,
    accept: &str,
) -> Result<(), Fail> {
    let resp = values(router, canonical, start, count, accept).await?;
    let mut out = std::io::stdout().lock();
    let mut body = resp.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
        if let Ok(data) = frame.into_data() {
            out.write_all(&data)
                .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
        }
    }
    out.flush().map_err(|e| Fail::Other(format!("stdout: {e}")))
}

/// `GET /v1/octal/{code}/values?start=0&count=N` into `file`, as `accept`; the bytes a value
/// of the binary form (`x-grundy-value-bytes`).
pub(super) async fn write_values(
    router: &axum::Router,
    canonical: &str,
    n: u64,
    file: &Path,
    accept: &str,
) -> Result<Option<u64>, Fail> {
    let resp = values(router, canonical, 0, n, accept).await?;
    let width = resp
        .headers()
        .get("x-grundy-value-bytes")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let io = |e: std::io::Error| Fail::Other(format!("--values {}: {e}", file.display()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).map_err(io)?);
    let mut body = resp.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
        if let Ok(data) = frame.into_data() {
            out.write_all(&data).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(width)
}

/// The rare heaps of heaps 0 … N−1 and their values, under the mask of the statistics of the
/// whole run (`statistics.current.rare_mask`): every value read back as the values download
/// serves it (binary), a value rare when `popcount(value & mask)` is even.
pub(super) async fn rare_values(
    router: &axum::Router,
    canonical: &str,
    n: u64,
    statistics: &Value,
) -> Result<(u32, Vec<(u64, u32)>), Fail> {
    let mask = statistics["current"]["rare_mask"]
        .as_str()
        .and_then(|m| u32::from_str_radix(m, 16).ok())
        .ok_or_else(|| Fail::Other("the run's statistics give no rare mask".to_owned()))?;
    let resp = values(router, canonical, 0, n, "application/octet-stream").await?;
    let width: usize = resp
        .headers()
        .get("x-grundy-value-bytes")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .filter(|w| matches!(w, 1 | 2 | 4))
        .ok_or_else(|| Fail::Other("the values: no x-grundy-value-bytes".to_owned()))?;
    let mut rare = Vec::new();
    let (mut heap, mut carry) = (0u64, Vec::with_capacity(4));
    let mut body = resp.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        for &byte in data.iter() {
            carry.push(byte);
            if carry.len() == width {
                let mut le = [0u8; 4];
                le[..width].copy_from_slice(&carry);
                let value = u32::from_le_bytes(le);
                if crate::core::octal::statistics::is_rare(value, mask) {
                    rare.push((heap, value));
                }
                heap += 1;
                carry.clear();
            }
        }
    }
    if heap != n {
        return Err(Fail::Other(format!("the values: {heap} read of {n}")));
    }
    Ok((mask, rare))
}
