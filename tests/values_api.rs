//! `GET /v1/octal/{code}/values` (JSON, CSV, binary; memory, store, proof; problems) and
//! `GET /v1/octal/jobs/{id}/events` (Server-Sent Events).

mod common;

use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use grundy::config::Config;
use grundy::core::octal::{Game, Solver};
use serde_json::{json, Value};
use std::time::Duration;

/// The router over a fresh state (as `common::app_with`, but requests may carry headers and
/// the body is kept as bytes).
struct App(axum::Router);

struct Got {
    status: StatusCode,
    headers: HeaderMap,
    bytes: Vec<u8>,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or(Value::Null)
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map_or("", |v| v.to_str().unwrap_or(""))
    }
    /// An RFC 9457 problem with this status, naming `field` (when given).
    fn problem(&self, status: u16, field: Option<&str>) -> Value {
        assert_eq!(self.status.as_u16(), status, "{}", self.text());
        assert_eq!(self.header("content-type"), "application/problem+json");
        let p = self.json();
        assert_eq!(p["status"], status);
        if let Some(f) = field {
            assert_eq!(p["field"], f, "{p}");
        }
        p
    }
}

async fn app_with(mut config: Config) -> App {
    if config.database_url.as_deref() == Config::default().database_url.as_deref() {
        config.database_url = Some(common::temp_sqlite_url());
    }
    let state = grundy::service::AppState::new(config);
    state.connect_store().await.expect("store");
    App(grundy::app::build(state))
}

impl App {
    async fn send(
        &self,
        method: Method,
        path: &str,
        accept: Option<&str>,
        body: Option<Value>,
    ) -> Got {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(a) = accept {
            req = req.header(header::ACCEPT, a);
        }
        let resp = common::oneshot_json(&self.0, req, body).await;
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .expect("the whole body")
            .to_vec();
        Got {
            status,
            headers,
            bytes,
        }
    }
    async fn get(&self, path: &str, accept: Option<&str>) -> Got {
        self.send(Method::GET, path, accept, None).await
    }
    /// g(0..n) through /v1/octal/sequence.
    async fn sequence(&self, code: &str, n: u64) -> Vec<u64> {
        let r = self
            .send(
                Method::POST,
                "/v1/octal/sequence",
                None,
                Some(json!({"code": code, "n": n})),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text());
        serde_json::from_value(r.json()["values"].clone()).unwrap()
    }
}

/// The values of a download in any of the three formats, checked against its framing.
fn decode(got: &Got, start: u64, count: u64) -> Vec<u64> {
    assert_eq!(got.status, StatusCode::OK, "{}", got.text());
    match got.header("content-type") {
        "application/json" => {
            let v = got.json();
            assert_eq!(v["start"], start);
            assert_eq!(v["count"], count);
            serde_json::from_value(v["values"].clone()).unwrap()
        }
        "text/csv" => {
            let text = got.text();
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some("heap,value"));
            lines
                .enumerate()
                .map(|(i, l)| {
                    let (h, v) = l.split_once(',').unwrap();
                    assert_eq!(h.parse::<u64>().unwrap(), start + i as u64);
                    v.parse().unwrap()
                })
                .collect()
        }
        "application/octet-stream" => {
            let w: usize = got.header("x-grundy-value-bytes").parse().unwrap();
            assert!([1, 2, 4, 8].contains(&w));
            assert_eq!(got.bytes.len() as u64, count * w as u64);
            assert_eq!(got.header("content-length"), (count * w as u64).to_string());
            got.bytes
                .chunks_exact(w)
                .map(|b| {
                    let mut le = [0u8; 8];
                    le[..w].copy_from_slice(b);
                    u64::from_le_bytes(le)
                })
                .collect()
        }
        other => panic!("unexpected content type {other}"),
    }
}

const FORMATS: [&str; 3] = ["application/json", "text/csv", "application/octet-stream"];

#[tokio::test]
async fn computed_ranges_match_the_sequence_in_every_format() {
    // A debug build computes .6 slowly: allow the longest range below time enough.
    let app = app_with(Config {
        octal_sync_time: Duration::from_secs(300),
        ..common::config()
    })
    .await;
    let want = app.sequence("0.6", 5000).await;
    for accept in FORMATS {
        let got = app
            .get("/v1/octal/0.6/values?start=100&count=4900", Some(accept))
            .await;
        assert_eq!(decode(&got, 100, 4900), want[100..], "{accept}");
    }
    // No Accept (or */*) is JSON; a small-valued game is one byte per value.
    let got = app.get("/v1/octal/.6/values?count=3", None).await;
    assert_eq!(
        got.json(),
        json!({"code": "0.6", "start": 0, "count": 3, "values": want[..3]})
    );
    let got = app
        .get(
            "/v1/octal/0.6/values?start=0&count=5000",
            Some("application/octet-stream"),
        )
        .await;
    assert_eq!(got.header("x-grundy-value-bytes"), "1");
    assert_eq!(decode(&got, 0, 5000), want);
    // A range that spans several 64 Ki blocks comes back in order.
    let big = app.sequence("0.6", 140_000).await;
    let got = app
        .get(
            "/v1/octal/0.6/values?start=60000&count=80000",
            Some("text/csv"),
        )
        .await;
    assert_eq!(decode(&got, 60000, 80_000), big[60000..]);
}

/// Beyond the computed values a proof supplies them: `.07` is periodic with preperiod 53 and
/// period 34 (Guy–Smith), Nim (`0.(3)`, g(n) = n) arithmetic-periodic with saltus 1.
#[tokio::test]
async fn proved_ranges_follow_the_periodic_formula() {
    let app = app_with(common::config()).await;
    let g = app.sequence("0.07", 200).await;
    let start = 1_000_000_000_000u64;
    for accept in FORMATS {
        let got = app
            .get(
                &format!("/v1/octal/0.07/values?start={start}&count=3000"),
                Some(accept),
            )
            .await;
        let values = decode(&got, start, 3000);
        for (i, v) in values.iter().enumerate() {
            let h = start + i as u64;
            assert_eq!(*v, g[(53 + (h - 53) % 34) as usize], "{accept} g({h})");
        }
    }
    // The last heaps there are.
    let got = app
        .get(
            "/v1/octal/0.07/values?start=18446744073709551610&count=6",
            Some("text/csv"),
        )
        .await;
    let values = decode(&got, u64::MAX - 5, 6);
    for (i, v) in values.iter().enumerate() {
        let h = u64::MAX - 5 + i as u64;
        assert_eq!(*v, g[(53 + (h - 53) % 34) as usize]);
    }
    // Widths follow the largest value: Nim's g(n) = n.
    for (start, width) in [(0u64, 1), (200, 2), (70_000, 4), (1 << 40, 8)] {
        let got = app
            .get(
                &format!("/v1/octal/0.(3)/values?start={start}&count=100"),
                Some("application/octet-stream"),
            )
            .await;
        assert_eq!(
            got.header("x-grundy-value-bytes"),
            width.to_string(),
            "start {start}"
        );
        let want: Vec<u64> = (start..start + 100).collect();
        assert_eq!(decode(&got, start, 100), want);
    }
}

#[tokio::test]
async fn unavailable_ranges_say_how_far_values_go_and_how_to_extend_them() {
    let config = Config {
        octal_max_n: 1000,
        ..common::config()
    };
    let app = app_with(config).await;
    // .6 is not proved periodic anywhere near 1000 heaps.
    let r = app
        .get("/v1/octal/0.6/values?start=5000&count=10", None)
        .await;
    let p = r.problem(409, Some("start"));
    let detail = p["detail"].as_str().unwrap();
    assert!(detail.contains("0..=999"), "{detail}");
    assert!(detail.contains("POST /v1/octal/jobs"), "{detail}");
    assert!(detail.contains("\"max_n\": 5010"), "{detail}");
    let r = app
        .get("/v1/octal/0.6/values?start=500&count=1000", None)
        .await;
    let p = r.problem(409, Some("count"));
    assert!(
        p["detail"].as_str().unwrap().contains("\"max_n\": 1500"),
        "{p}"
    );
    // Beyond the largest job there is nothing to submit.
    let r = app
        .get("/v1/octal/0.6/values?start=10000000000&count=1", None)
        .await;
    let p = r.problem(409, Some("start"));
    assert!(
        p["detail"].as_str().unwrap().contains("GRUNDY_JOB_MAX_N"),
        "{p}"
    );
    // The available part is still served.
    let got = app
        .get("/v1/octal/0.6/values?start=990&count=10", None)
        .await;
    assert_eq!(decode(&got, 990, 10).len(), 10);
}

#[tokio::test]
async fn bad_requests_are_problems_naming_the_field() {
    let config = Config {
        values_max_count: 1000,
        ..common::config()
    };
    let app = app_with(config).await;
    let cases = [
        ("/v1/octal/0.9x/values?count=1", "code"),
        ("/v1/octal/0.07/values", "count"),
        ("/v1/octal/0.07/values?count=0", "count"),
        ("/v1/octal/0.07/values?count=1001", "count"),
        ("/v1/octal/0.07/values?count=-1", "count"),
        ("/v1/octal/0.07/values?count=ten", "count"),
        ("/v1/octal/0.07/values?start=-1&count=1", "start"),
        ("/v1/octal/0.07/values?start=1.5&count=1", "start"),
        (
            "/v1/octal/0.07/values?start=18446744073709551616&count=1",
            "start",
        ),
        (
            "/v1/octal/0.07/values?start=18446744073709551615&count=2",
            "count",
        ),
        ("/v1/octal/0.07/values?count=1&cuont=2", "cuont"),
    ];
    for (path, field) in cases {
        app.get(path, None).await.problem(422, Some(field));
    }
    for accept in [
        "image/png",
        "application/json;q=0",
        "text/html, application/xml",
    ] {
        let p = app
            .get("/v1/octal/0.07/values?count=1", Some(accept))
            .await
            .problem(406, None);
        assert!(p["detail"].as_str().unwrap().contains("text/csv"), "{p}");
    }
    let ok = app
        .get(
            "/v1/octal/0.07/values?count=1",
            Some("text/html, text/*;q=0.5"),
        )
        .await;
    assert_eq!(ok.header("content-type"), "text/csv");
}

fn fast_jobs() -> Config {
    Config {
        job_checkpoint: Duration::from_millis(100),
        job_lease: Duration::from_millis(2000),
        ..common::config()
    }
}

/// Values a job computed are read back from the store by a process whose solver cache is
/// empty and which may not compute them itself.
#[tokio::test]
async fn job_values_are_read_back_from_the_store() {
    let url = common::temp_sqlite_url();
    let n = 150_000u64; // three stored chunks
    {
        let s = common::start_with(Config {
            database_url: Some(url.clone()),
            ..fast_jobs()
        })
        .await;
        let r = s
            .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": n}))
            .await;
        assert_eq!(r.status.as_u16(), 202, "{}", r.text);
        let id = r.body["id"].as_str().unwrap().to_owned();
        let done = common::wait_job(&s, &id).await;
        assert_eq!(done["status"], "done", "{done}");
    }
    let fresh = app_with(Config {
        database_url: Some(url),
        octal_max_n: 1000,
        ..common::config()
    })
    .await;
    let mut solver = Solver::new(&Game::parse("0.6").unwrap());
    solver.run(n as usize, false, &mut || false).unwrap();
    let want: Vec<u64> = solver
        .values()
        .range_u32(..n as usize)
        .into_iter()
        .map(u64::from)
        .collect();
    for accept in FORMATS {
        let (start, count) = (60_000u64, 90_000u64);
        let got = fresh
            .get(
                &format!("/v1/octal/0.6/values?start={start}&count={count}"),
                Some(accept),
            )
            .await;
        assert_eq!(
            decode(&got, start, count),
            want[start as usize..],
            "{accept}"
        );
    }
    let got = fresh
        .get(
            "/v1/octal/0.6/values?start=0&count=150000",
            Some("application/octet-stream"),
        )
        .await;
    let max = *want.iter().max().unwrap();
    let width = if max < 256 { "1" } else { "2" };
    assert_eq!(got.header("x-grundy-value-bytes"), width);
    // One heap further is not stored, and this process may not compute it.
    let r = fresh
        .get("/v1/octal/0.6/values?start=149999&count=2", None)
        .await;
    let p = r.problem(409, Some("count"));
    assert!(p["detail"].as_str().unwrap().contains("0..=149999"), "{p}");
}

/// Parses an event stream into (event, data) pairs.
fn sse(text: &str) -> Vec<(String, String)> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut event = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(e) = line.strip_prefix("event:") {
                    event = Some(e.trim().to_owned());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim_start());
                }
            }
            event.map(|e| (e, data))
        })
        .collect()
}

#[tokio::test]
async fn job_events_stream_progress_then_the_finished_job() {
    let s = common::start_with(fast_jobs()).await;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": 120000}))
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    let resp = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/events", s.base))
        .timeout(Duration::from_secs(300))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let text = resp
        .text()
        .await
        .expect("the stream ends after the terminal event");
    let events = sse(&text);
    let (last, data) = events.last().expect("events");
    assert_eq!(last, "done", "{text}");
    let job: Value = serde_json::from_str(data).unwrap();
    assert_eq!(job["status"], "done");
    assert_eq!(job["id"], id.as_str());
    assert_eq!(job["progress"]["computed"], 120000);
    let progress: Vec<Value> = events
        .iter()
        .filter(|(e, _)| e == "progress")
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    assert!(!progress.is_empty(), "{text}");
    assert_eq!(
        events.len(),
        progress.len() + 1,
        "only progress before the end: {text}"
    );
    let mut previous = 0;
    for p in &progress {
        for key in ["computed", "max_n", "heaps_per_second", "eta_seconds"] {
            assert!(p.get(key).is_some(), "{key} in {p}");
        }
        assert_eq!(p["max_n"], 120000);
        let c = p["computed"].as_u64().unwrap();
        assert!(c > previous || previous == 0, "computed grows: {text}");
        previous = c;
    }
    assert_eq!(previous, 120000, "the last progress is the final count");

    // A finished job's stream: its count, then the job.
    let again = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/events", s.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let names: Vec<String> = sse(&again).into_iter().map(|(e, _)| e).collect();
    assert_eq!(names, ["progress", "done"]);

    let r = s.get("/v1/octal/jobs/no-such-job/events").await;
    common::assert_problem(&r, 404, "no-such-job");
}

#[tokio::test]
async fn job_events_need_the_store() {
    let app = app_with(Config {
        database_url: None,
        ..common::config()
    })
    .await;
    app.get("/v1/octal/jobs/x/events", None)
        .await
        .problem(503, None);
}

#[test]
fn both_operations_are_documented() {
    let doc: Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    let values = &doc["paths"]["/v1/octal/{code}/values"]["get"];
    let ok = &values["responses"]["200"];
    for ct in FORMATS {
        assert!(ok["content"][ct].is_object(), "{ct}");
    }
    assert!(ok["headers"]["x-grundy-value-bytes"].is_object());
    for status in ["400", "406", "409", "422", "503"] {
        assert!(values["responses"][status].is_object(), "values {status}");
    }
    let events = &doc["paths"]["/v1/octal/jobs/{id}/events"]["get"];
    assert!(events["responses"]["200"]["content"]["text/event-stream"].is_object());
    for status in ["404", "503"] {
        assert!(events["responses"][status].is_object(), "events {status}");
    }
}

#[tokio::test]
async fn a_cancelled_job_ends_its_stream_with_cancelled() {
    let s = common::start_with(fast_jobs()).await;
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 100000000}),
        )
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    let stream = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/events", s.base))
        .timeout(Duration::from_secs(120))
        .send();
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(700)).await;
        s.client
            .delete(format!("{}/v1/octal/jobs/{id}", s.base))
            .send()
            .await
            .unwrap()
    };
    let (resp, cancelled) = tokio::join!(stream, cancel);
    assert_eq!(cancelled.status(), 200);
    let text = resp.unwrap().text().await.unwrap();
    let events = sse(&text);
    let (last, data) = events.last().expect("events");
    assert_eq!(last, "cancelled", "{text}");
    let job: Value = serde_json::from_str(data).unwrap();
    assert_eq!(job["status"], "cancelled");
    assert!(events[..events.len() - 1]
        .iter()
        .all(|(e, _)| e == "progress"));
}
