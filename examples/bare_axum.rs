//! A bare axum JSON endpoint, the baseline for load tests: same request shape as
//! `/v1/welter/value`, deserialised with `axum::Json`, answered with a constant-shaped body —
//! no validation, no cache, no middleware. `cargo run --release --example bare_axum -- 127.0.0.1:8090`

use axum::{routing::post, Json, Router};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Req {
    position: Vec<u64>,
}

#[derive(Serialize)]
struct Resp {
    coins: usize,
    value: u64,
}

async fn handler(Json(r): Json<Req>) -> Json<Resp> {
    Json(Resp {
        coins: r.position.len(),
        value: r.position.iter().fold(0, |a, b| a ^ b),
    })
}

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8090".into());
    let app = Router::new().route("/v1/welter/value", post(handler));
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("bind");
    axum::serve(listener, app).await.expect("serve");
}
