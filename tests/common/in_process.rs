//! The application in-process: the router that `grundy::app::build` returns, called with
//! `tower::ServiceExt::oneshot` — the whole middleware stack (body limit, overload protection,
//! request id, fallbacks) and the handlers, without a socket.

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use grundy::config::Config;
use serde_json::Value;
use tower::ServiceExt;

use super::Reply;

pub struct App {
    router: axum::Router,
}

/// `req` through `router`, with `body` as JSON (`content-type: application/json`) or none: the
/// request of a test that sets its own headers (keys, `accept`).
pub async fn oneshot_json(
    router: &axum::Router,
    mut req: axum::http::request::Builder,
    body: Option<Value>,
) -> axum::response::Response {
    let body = match body {
        Some(v) => {
            req = req.header(header::CONTENT_TYPE, "application/json");
            Body::from(serde_json::to_vec(&v).unwrap())
        }
        None => Body::empty(),
    };
    router
        .clone()
        .oneshot(req.body(body).unwrap())
        .await
        .unwrap()
}

/// The application with the tests' configuration ([`super::config`]) and a private temporary
/// SQLite store.
pub async fn app() -> App {
    app_with(super::config()).await
}

/// The application with `config`; a default database URL is replaced by a private temporary
/// SQLite file, as for [`super::start_with`], so that both see the same service. No job
/// workers run: job tests use the real server.
pub async fn app_with(mut config: Config) -> App {
    if config.database_url.as_deref() == Config::default().database_url.as_deref() {
        config.database_url = Some(super::temp_sqlite_url());
    }
    let state = grundy::service::AppState::new(config);
    if let Err(e) = state.connect_store().await {
        eprintln!("store not connected: {e}");
    }
    App {
        router: grundy::app::build(state),
    }
}

impl App {
    /// One request through the router; `body` with `content-type: application/json` (and its
    /// content length) as reqwest sends it.
    pub async fn request(&self, method: Method, path: &str, body: Option<Vec<u8>>) -> Reply {
        self.request_with(method, path, &[], body).await
    }

    /// As [`App::request`], with the request headers `headers` too.
    pub async fn request_with(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let body = match body {
            Some(bytes) => {
                req = req
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::CONTENT_LENGTH, bytes.len());
                Body::from(bytes)
            }
            None => Body::empty(),
        };
        let resp = self
            .router
            .clone()
            .oneshot(req.body(body).expect("a valid request"))
            .await
            .expect("the router is infallible");
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .expect("the body is read");
        Reply::new(status, headers, &bytes)
    }

    pub async fn post_raw(&self, path: &str, body: impl Into<Vec<u8>>) -> Reply {
        self.request(Method::POST, path, Some(body.into())).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.post_raw(path, serde_json::to_vec(body).unwrap()).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, None).await
    }

    /// POST and expect 200; returns the JSON body.
    pub async fn ok(&self, path: &str, body: &Value) -> Value {
        let r = self.post(path, body).await;
        assert_eq!(r.status, StatusCode::OK, "{path} {body} -> {}", r.text);
        r.body
    }
}
