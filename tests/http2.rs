//! HTTP/2 (prior knowledge, `h2c`) through the real accept loop: many concurrent streams on one
//! connection, each answered exactly as over HTTP/1.1. The connection calls its one copy of
//! the middleware stack for every stream (`server::ConnectionService`), so this checks that
//! concurrent streams neither interfere nor wait for each other.

mod common;

use grundy::config::Config;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_streams_on_one_connection_are_each_answered() {
    let server = common::start_with(Config {
        database_url: None,
        ..common::config()
    })
    .await;
    let addr: std::net::SocketAddr = server
        .base
        .strip_prefix("http://")
        .unwrap()
        .parse()
        .unwrap();
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (sender, conn) = hyper::client::conn::http2::handshake::<_, _, Full<Bytes>>(
        TokioExecutor::new(),
        TokioIo::new(stream),
    )
    .await
    .expect("h2c handshake");
    tokio::spawn(conn);

    // 200 streams at once: Welter values of distinct positions (checked against the closed
    // form), a 404 and a field-naming 422 among them, and value downloads.
    let mut tasks = Vec::new();
    for i in 0..200u64 {
        let mut sender = sender.clone();
        tasks.push(tokio::spawn(async move {
            let (req, expect) = match i % 10 {
                7 => (
                    hyper::Request::get(format!("http://{addr}/v1/no-such-route"))
                        .body(Full::default())
                        .unwrap(),
                    Expect::Status(404),
                ),
                8 => (
                    hyper::Request::post(format!("http://{addr}/v1/welter/value"))
                        .header("content-type", "application/json")
                        .body(Full::from(r#"{"position":[3,3]}"#))
                        .unwrap(),
                    Expect::Status(422),
                ),
                9 => (
                    hyper::Request::get(format!(
                        "http://{addr}/v1/octal/0.07/values?start=0&count=50000"
                    ))
                    .header("accept", "application/octet-stream")
                    .body(Full::default())
                    .unwrap(),
                    Expect::Bytes(50_000),
                ),
                _ => {
                    let position = [i, i + 1 + i % 5, 2 * i + 7, 3 * i + 100];
                    let value = grundy::core::welter::value(&position);
                    (
                        hyper::Request::post(format!("http://{addr}/v1/welter/value"))
                            .header("content-type", "application/json")
                            .body(Full::from(format!(
                                r#"{{"position":[{},{},{},{}]}}"#,
                                position[0], position[1], position[2], position[3]
                            )))
                            .unwrap(),
                        Expect::Value(value),
                    )
                }
            };
            let resp = sender.send_request(req).await.expect("stream answered");
            assert_eq!(resp.version(), hyper::Version::HTTP_2);
            let status = resp.status().as_u16();
            let body = resp.into_body().collect().await.unwrap().to_bytes();
            match expect {
                Expect::Status(s) => assert_eq!(status, s, "stream {i}"),
                Expect::Bytes(n) => {
                    assert_eq!(status, 200, "stream {i}");
                    assert_eq!(body.len(), n, "stream {i}");
                }
                Expect::Value(v) => {
                    assert_eq!(status, 200, "stream {i}");
                    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    assert_eq!(json["value"], serde_json::json!(v), "stream {i}: {json}");
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

enum Expect {
    Status(u16),
    Bytes(usize),
    Value(u64),
}
