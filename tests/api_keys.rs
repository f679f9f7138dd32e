//! Jobs belong to the API key that submitted them (issue 24): every job operation refused
//! without a key, with a wrong one, with another owner's (404: existence not revealed) and
//! with a key lacking the scope — each with its status and problem, and nothing changed in the
//! store; `admin` keys act on every job; the quotas at their edges; the three access modes;
//! `grundy keys new`; and a real run whose logs, metrics and answers never contain the key.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{header, Method, Request};
use grundy::config::Config;
use grundy::service::keys::{key_file_line, new_key, KeyRing, Scope};
use grundy::service::AppState;
use grundy::store::Job;
use serde_json::{json, Value};
use sqlx::Row;

use common::Reply;

/// The application in-process with keys, and the store behind it.
struct Keyed {
    state: AppState,
    router: axum::Router,
    keys: HashMap<&'static str, String>,
}

/// alice and bob: `jobs`; reader: `jobs:read`; idle: no scope (suspended); root: `admin`;
/// carol: `jobs` with her own quota of one active job.
fn key_file() -> (String, HashMap<&'static str, String>) {
    common::key_file(&[
        ("alice", &[Scope::Jobs], ""),
        ("bob", &[Scope::Jobs], ""),
        ("reader", &[Scope::JobsRead], ""),
        ("idle", &[], ""),
        ("root", &[Scope::Admin], ""),
        ("carol", &[Scope::Jobs], " active_jobs=1"),
    ])
}

async fn keyed(config: Config) -> Keyed {
    let (file, keys) = key_file();
    let ring = KeyRing::parse(&file).unwrap();
    let config = Config {
        api_keys: Some(Arc::new(ring)),
        database_url: Some(common::temp_sqlite_url()),
        ..config
    };
    in_process(config, keys).await
}

async fn in_process(config: Config, keys: HashMap<&'static str, String>) -> Keyed {
    let config = Config {
        database_url: config
            .database_url
            .clone()
            .filter(|u| u != "sqlite://data/grundy.db")
            .or_else(|| Some(common::temp_sqlite_url())),
        ..config
    };
    let state = AppState::new(config);
    state.connect_store().await.unwrap();
    Keyed {
        router: grundy::app::build(state.clone()),
        state,
        keys,
    }
}

impl Keyed {
    /// One request with `authorization` as the header's value (none: no header).
    async fn raw(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        authorization: Option<&str>,
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(a) = authorization {
            req = req.header(header::AUTHORIZATION, a);
        }
        let resp = common::oneshot_json(&self.router, req, body).await;
        let status = resp.status();
        let headers = resp.headers().clone();
        // An event stream that is open stays open: only its head is read.
        let bytes = if headers
            .get(header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"))
        {
            Default::default()
        } else {
            axum::body::to_bytes(resp.into_body(), usize::MAX)
                .await
                .unwrap()
        };
        Reply::new(status, headers, &bytes)
    }

    /// A request as the key named `who` (`None`: no key).
    async fn call(
        &self,
        who: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        let auth = who.map(|w| format!("Bearer {}", self.keys[w]));
        self.raw(method, path, body, auth.as_deref()).await
    }

    async fn submit(&self, who: &str, max_n: u64) -> Reply {
        self.call(
            Some(who),
            Method::POST,
            "/v1/octal/jobs",
            Some(json!({"code": "0.6", "max_n": max_n})),
        )
        .await
    }

    /// Everything the store holds about jobs: every job row and every usage row.
    async fn snapshot(&self) -> (Vec<Job>, Vec<(String, i64, i64)>) {
        let store = self.state.store().unwrap();
        let jobs = store.list_jobs(1000, None).await.unwrap();
        let usage = sqlx::query("SELECT owner, day, heaps FROM job_usage ORDER BY owner, day")
            .fetch_all(&store.raw_pool_for_tests())
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get("owner"), r.get("day"), r.get("heaps")))
            .collect();
        (jobs, usage)
    }
}

fn assert_problem_type(r: &Reply, status: u16, slug: &str, what: &str) {
    assert_eq!(r.status.as_u16(), status, "{what}: {}", r.text);
    assert_eq!(r.content_type, "application/problem+json", "{what}");
    assert_eq!(
        r.body["type"],
        format!("/problems/{slug}"),
        "{what}: {}",
        r.text
    );
    assert_eq!(r.body["status"], status, "{what}");
}

/// Every job operation, as (name, method, path, body).
fn operations(own: &str, finished: &str) -> Vec<(&'static str, Method, String, Option<Value>)> {
    vec![
        (
            "submit",
            Method::POST,
            "/v1/octal/jobs".into(),
            Some(json!({"code": "0.6", "max_n": 10})),
        ),
        ("list", Method::GET, "/v1/octal/jobs".into(), None),
        ("read", Method::GET, format!("/v1/octal/jobs/{own}"), None),
        (
            "events",
            Method::GET,
            format!("/v1/octal/jobs/{own}/events"),
            None,
        ),
        (
            "statistics",
            Method::GET,
            format!("/v1/octal/jobs/{own}/statistics"),
            None,
        ),
        (
            "cancel",
            Method::DELETE,
            format!("/v1/octal/jobs/{own}"),
            None,
        ),
        (
            "delete",
            Method::DELETE,
            format!("/v1/octal/jobs/{finished}"),
            None,
        ),
    ]
}

#[tokio::test]
async fn every_job_operation_refuses_a_stranger_and_changes_nothing() {
    let app = keyed(common::config()).await;
    // alice's jobs: one queued (no workers run in-process), one cancelled (final).
    let r = app.submit("alice", 1000).await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["owner"], "alice");
    let own = r.body["id"].as_str().unwrap().to_owned();
    let r = app.submit("alice", 1000).await;
    let finished = r.body["id"].as_str().unwrap().to_owned();
    let r = app
        .call(
            Some("alice"),
            Method::DELETE,
            &format!("/v1/octal/jobs/{finished}"),
            None,
        )
        .await;
    assert_eq!(r.body["status"], "cancelled", "{}", r.text);
    let before = app.snapshot().await;
    let wrong = format!("Bearer {}x", app.keys["alice"]);
    let unknown = format!("Bearer {}", new_key().unwrap());

    for (op, method, path, body) in operations(&own, &finished) {
        let what = |who: &str| format!("{op} {method} {path} with {who}");
        // No key, a key no one was given, a malformed header: 401 and a bearer challenge.
        for (who, auth, error) in [
            ("no key", None, None),
            ("a wrong key", Some(wrong.as_str()), Some("invalid_token")),
            (
                "an unknown key",
                Some(unknown.as_str()),
                Some("invalid_token"),
            ),
            (
                "a Basic header",
                Some("Basic YWxpY2U6c2VjcmV0"),
                Some("invalid_request"),
            ),
            ("a bare Bearer", Some("Bearer"), Some("invalid_request")),
        ] {
            let r = app.raw(method.clone(), &path, body.clone(), auth).await;
            assert_problem_type(&r, 401, "unauthorized", &what(who));
            let challenge = r.headers[header::WWW_AUTHENTICATE].to_str().unwrap();
            assert!(
                challenge.starts_with("Bearer realm=\"grundy\""),
                "{challenge}"
            );
            if let Some(e) = error {
                assert!(challenge.contains(e), "{}: {challenge}", what(who));
            }
            assert!(!r.text.contains(&app.keys["alice"]), "{}", what(who));
            assert_eq!(
                app.snapshot().await,
                before,
                "{} changed the store",
                what(who)
            );
        }
        // A key without any scope: 403 naming the scope needed.
        let r = app
            .call(Some("idle"), method.clone(), &path, body.clone())
            .await;
        assert_problem_type(&r, 403, "insufficient-scope", &what("a key without scope"));
        let challenge = r.headers[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert!(
            challenge.contains("error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert_eq!(app.snapshot().await, before, "{}", what("no scope"));
        // A read-only key may not write.
        let r = app
            .call(Some("reader"), method.clone(), &path, body.clone())
            .await;
        if method == Method::GET {
            assert!(
                r.status.is_success() || r.status.as_u16() == 404,
                "{}: {}",
                what("reader"),
                r.text
            );
        } else {
            assert_problem_type(&r, 403, "insufficient-scope", &what("a jobs:read key"));
            assert!(r.body["detail"].as_str().unwrap().contains("jobs or admin"));
        }
        assert_eq!(app.snapshot().await, before, "{}", what("reader"));
        // Another owner's key: the job does not exist for bob.
        if op != "submit" && op != "list" {
            let r = app
                .call(Some("bob"), method.clone(), &path, body.clone())
                .await;
            assert_problem_type(&r, 404, "not-found", &what("another owner's key"));
            // The same answer as for an id that exists nowhere.
            let nowhere = path
                .replace(&own, "no-such-job")
                .replace(&finished, "no-such-job");
            let r2 = app
                .call(Some("bob"), method.clone(), &nowhere, body.clone())
                .await;
            assert_eq!(
                r.body["detail"]
                    .as_str()
                    .unwrap()
                    .replace(&own, "X")
                    .replace(&finished, "X"),
                r2.body["detail"]
                    .as_str()
                    .unwrap()
                    .replace("no-such-job", "X"),
            );
            assert_eq!(app.snapshot().await, before, "{}", what("bob"));
        }
    }
    // bob's list holds none of alice's jobs, and says whose jobs it lists.
    let r = app
        .call(Some("bob"), Method::GET, "/v1/octal/jobs", None)
        .await;
    assert_eq!(r.status.as_u16(), 200);
    assert_eq!(r.body["jobs"], json!([]), "{}", r.text);
    assert_eq!(r.body["key_name"], "bob");
    assert_eq!(r.body["owner"], "bob");
    // ... even when he asks for alice's by name.
    let r = app
        .call(Some("bob"), Method::GET, "/v1/octal/jobs?owner=alice", None)
        .await;
    assert_eq!(r.body["jobs"], json!([]), "{}", r.text);
    // The reader's list is its own (none), with 200.
    let r = app
        .call(Some("reader"), Method::GET, "/v1/octal/jobs", None)
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["jobs"].clone()),
        (200, json!([]))
    );
    assert_eq!(app.snapshot().await, before);

    // alice does everything with her own jobs.
    let r = app
        .call(Some("alice"), Method::GET, "/v1/octal/jobs", None)
        .await;
    let ids: Vec<&str> = r.body["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{}", r.text);
    assert!(ids.contains(&own.as_str()) && ids.contains(&finished.as_str()));
    let r = app
        .call(
            Some("alice"),
            Method::GET,
            &format!("/v1/octal/jobs/{own}"),
            None,
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["owner"].clone()),
        (200, json!("alice"))
    );
    let r = app
        .call(
            Some("alice"),
            Method::GET,
            &format!("/v1/octal/jobs/{own}/events"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200);
    assert!(r.content_type.starts_with("text/event-stream"));
    // The reader key sees jobs of its own name only: none of alice's.
    let r = app
        .call(
            Some("reader"),
            Method::GET,
            &format!("/v1/octal/jobs/{own}"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 404);

    // admin: every job, filterable by owner; may cancel and delete anyone's.
    let r = app.submit("bob", 10).await;
    let bobs = r.body["id"].as_str().unwrap().to_owned();
    let r = app
        .call(Some("root"), Method::GET, "/v1/octal/jobs", None)
        .await;
    assert_eq!(r.body["jobs"].as_array().unwrap().len(), 3, "{}", r.text);
    assert_eq!(
        (r.body["key_name"].clone(), r.body["owner"].clone()),
        (json!("root"), Value::Null)
    );
    let r = app
        .call(Some("root"), Method::GET, "/v1/octal/jobs?owner=bob", None)
        .await;
    assert_eq!(r.body["jobs"].as_array().unwrap().len(), 1, "{}", r.text);
    assert_eq!(r.body["jobs"][0]["id"], bobs.as_str());
    assert_eq!(r.body["owner"], "bob");
    let r = app
        .call(Some("root"), Method::GET, "/v1/octal/jobs?owner=-x", None)
        .await;
    assert_problem_type(&r, 422, "invalid-value", "owner not a key name");
    assert_eq!(r.body["field"], "owner");
    let r = app
        .call(
            Some("root"),
            Method::GET,
            &format!("/v1/octal/jobs/{own}/events"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200);
    let r = app
        .call(
            Some("root"),
            Method::DELETE,
            &format!("/v1/octal/jobs/{own}"),
            None,
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), r.body["status"].clone()),
        (200, json!("cancelled")),
        "{}",
        r.text
    );
    let r = app
        .call(
            Some("root"),
            Method::DELETE,
            &format!("/v1/octal/jobs/{finished}"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    let r = app
        .call(
            Some("alice"),
            Method::GET,
            &format!("/v1/octal/jobs/{finished}"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 404, "deleted by admin");
    // An admin's own submissions are its own.
    let r = app.submit("root", 10).await;
    assert_eq!(
        (r.status.as_u16(), r.body["owner"].clone()),
        (202, json!("root"))
    );

    // Compute endpoints need no key.
    let r = app
        .raw(
            Method::POST,
            "/v1/welter/value",
            Some(json!({"position": [1, 3, 7]})),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
}

#[tokio::test]
async fn quotas_at_their_edges() {
    let app = keyed(Config {
        quota_active_jobs: 2,
        quota_heaps_per_day: 1000,
        ..common::config()
    })
    .await;
    let a = app.submit("alice", 400).await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.text);
    let b = app.submit("alice", 400).await;
    assert_eq!(b.status.as_u16(), 202, "{}", b.text);
    // A third active job: 429, the quota and its limit named, nothing written.
    let before = app.snapshot().await;
    let r = app.submit("alice", 1).await;
    assert_problem_type(&r, 429, "quota-exceeded", "third active job");
    assert_eq!(r.body["quota"], "active_jobs");
    assert_eq!(r.body["limit"], 2);
    let retry: u64 = r.headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    assert_eq!(
        app.snapshot().await,
        before,
        "a refused submission changed the store"
    );
    // Quotas are per key: bob is not held to alice's.
    assert_eq!(app.submit("bob", 1000).await.status.as_u16(), 202);
    // A cancelled job no longer counts as active...
    let id = a.body["id"].as_str().unwrap();
    app.call(
        Some("alice"),
        Method::DELETE,
        &format!("/v1/octal/jobs/{id}"),
        None,
    )
    .await;
    let c = app.submit("alice", 100).await;
    assert_eq!(c.status.as_u16(), 202, "{}", c.text);
    // ... but its heaps stay requested, and deleting it gives none back.
    app.call(
        Some("alice"),
        Method::DELETE,
        &format!("/v1/octal/jobs/{id}"),
        None,
    )
    .await;
    let id = c.body["id"].as_str().unwrap();
    app.call(
        Some("alice"),
        Method::DELETE,
        &format!("/v1/octal/jobs/{id}"),
        None,
    )
    .await;
    // 900 heaps requested today: 101 more is one too many...
    let before = app.snapshot().await;
    let r = app.submit("alice", 101).await;
    assert_problem_type(&r, 429, "quota-exceeded", "heaps of the day");
    assert_eq!(r.body["quota"], "heaps_per_day");
    assert_eq!(r.body["limit"], 1000);
    assert!(
        r.body["detail"].as_str().unwrap().contains("900"),
        "{}",
        r.text
    );
    let retry: u64 = r.headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&retry), "{retry}");
    assert_eq!(app.snapshot().await, before);
    // ... and exactly 100 reaches the limit.
    assert_eq!(app.submit("alice", 100).await.status.as_u16(), 202);
    let r = app.submit("alice", 1).await;
    assert_eq!(r.body["quota"], "heaps_per_day", "{}", r.text);
    // One job larger than the whole day's quota is refused as well.
    let r = app.submit("root", 1001).await;
    assert_eq!(
        (r.status.as_u16(), r.body["quota"].clone()),
        (429, json!("heaps_per_day"))
    );
    // A key's own quota in the key file overrides the server's.
    assert_eq!(app.submit("carol", 1).await.status.as_u16(), 202);
    let r = app.submit("carol", 1).await;
    assert_eq!(
        (r.body["quota"].clone(), r.body["limit"].clone()),
        (json!("active_jobs"), json!(1))
    );

    // Metrics are labelled with key names (the recorder is the process's: other tests of this
    // file count too, so only the series are checked).
    // (A scrape gives the store a second to count the active jobs: on a busy machine a scrape
    // may go without them, the next one has them.)
    let lines = [
        "grundy_jobs_submitted_total{owner=\"alice\"} ",
        "grundy_job_heaps_requested_total{owner=\"alice\"} ",
        "grundy_quota_refusals_total{owner=\"alice\",quota=\"active_jobs\"} ",
        "grundy_quota_refusals_total{owner=\"alice\",quota=\"heaps_per_day\"} ",
        "grundy_jobs_active{owner=\"carol\"} ",
        "grundy_jobs_active{owner=\"idle\"} 0",
    ];
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    let m = loop {
        let m = app.raw(Method::GET, "/metrics", None, None).await.text;
        if lines.iter().all(|line| m.contains(line)) || std::time::Instant::now() > deadline {
            break m;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    for line in lines {
        assert!(m.contains(line), "metrics lack {line}");
    }
    for key in app.keys.values() {
        assert!(!m.contains(key.as_str()));
    }
}

/// Misère-quotient jobs (`POST /v1/octal/misere/quotient` with `"async": true`) belong to
/// their key like every job: a stranger's read, cancel and events are 404s, the list shows
/// one's own (filtered by kind too), the admin sees all; the same key asking again joins its
/// job, another key gets its own; the quotas count them; a key without the `jobs` scope may
/// not submit one, and without a key it is a 401 — with nothing written.
#[tokio::test]
async fn misere_quotient_jobs_are_owned_and_within_quotas() {
    let app = keyed(Config {
        quota_active_jobs: 2,
        ..common::config()
    })
    .await;
    let ask = |who: Option<&'static str>, code: &'static str, max_heap: u64| {
        let app = &app;
        async move {
            app.call(
                who,
                Method::POST,
                "/v1/octal/misere/quotient",
                Some(json!({"code": code, "max_heap": max_heap, "async": true})),
            )
            .await
        }
    };
    let before = app.snapshot().await;
    assert_problem_type(&ask(None, "0.07", 40).await, 401, "unauthorized", "no key");
    assert_problem_type(
        &ask(Some("reader"), "0.07", 40).await,
        403,
        "insufficient-scope",
        "read-only key",
    );
    assert_eq!(
        app.snapshot().await,
        before,
        "a refused submission changed the store"
    );
    let a = ask(Some("alice"), "0.07", 40).await;
    assert_eq!(a.status.as_u16(), 202, "{}", a.text);
    let id = a.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        a.headers[header::LOCATION],
        format!("/v1/octal/jobs/{id}").as_str()
    );
    assert_eq!(
        (
            &a.body["kind"],
            &a.body["owner"],
            &a.body["max_heap"],
            &a.body["status"]
        ),
        (
            &json!("misere_quotient"),
            &json!("alice"),
            &json!(40),
            &json!("queued")
        )
    );
    let again = ask(Some("alice"), "0.07", 40).await;
    assert_eq!(again.status.as_u16(), 202, "{}", again.text);
    assert_eq!(again.body["id"], id.as_str(), "the same key joins its job");
    let b = ask(Some("bob"), "0.07", 40).await;
    assert_eq!(b.status.as_u16(), 202, "{}", b.text);
    let b_id = b.body["id"].as_str().unwrap().to_owned();
    assert_ne!(b_id, id, "another key gets its own job");
    // A stranger: 404 for the job, its events and its cancel; nothing changed.
    let before = app.snapshot().await;
    for (method, path) in [
        (Method::GET, format!("/v1/octal/jobs/{id}")),
        (Method::GET, format!("/v1/octal/jobs/{id}/events")),
        (Method::DELETE, format!("/v1/octal/jobs/{id}")),
    ] {
        let r = app.call(Some("bob"), method.clone(), &path, None).await;
        assert_problem_type(&r, 404, "not-found", &format!("bob {method} {path}"));
    }
    assert_eq!(app.snapshot().await, before);
    // Lists: one's own (by kind too); the admin's: every owner's.
    let ids = |r: &Reply| -> Vec<String> {
        r.body["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["id"].as_str().unwrap().to_owned())
            .collect()
    };
    app.submit("alice", 10).await;
    let mine = app
        .call(
            Some("alice"),
            Method::GET,
            "/v1/octal/jobs?kind=misere_quotient",
            None,
        )
        .await;
    assert_eq!(ids(&mine), std::slice::from_ref(&id));
    let seq = app
        .call(
            Some("alice"),
            Method::GET,
            "/v1/octal/jobs?kind=sequence",
            None,
        )
        .await;
    assert_eq!(seq.body["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(seq.body["jobs"][0]["kind"], "sequence");
    let bobs = app
        .call(Some("bob"), Method::GET, "/v1/octal/jobs", None)
        .await;
    assert_eq!(ids(&bobs), std::slice::from_ref(&b_id));
    let all = app
        .call(
            Some("root"),
            Method::GET,
            "/v1/octal/jobs?kind=misere_quotient",
            None,
        )
        .await;
    assert_eq!(
        all.body["jobs"].as_array().unwrap().len(),
        2,
        "{}",
        all.text
    );
    // Quotas: alice has two active jobs (the quotient and a sequence); a third is refused,
    // but asking again for her quotient still joins it.
    let r = ask(Some("alice"), "0.77", 40).await;
    assert_problem_type(&r, 429, "quota-exceeded", "third active job");
    assert_eq!(r.body["quota"], "active_jobs");
    assert_eq!(ask(Some("alice"), "0.07", 40).await.body["id"], id.as_str());
    // Her own cancel works; a cancelled job is not joined: a new one is made.
    let r = app
        .call(
            Some("alice"),
            Method::DELETE,
            &format!("/v1/octal/jobs/{id}"),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert_eq!(r.body["status"], "cancelled");
    let fresh = ask(Some("alice"), "0.07", 40).await;
    assert_eq!(fresh.status.as_u16(), 202, "{}", fresh.text);
    assert_ne!(fresh.body["id"], id.as_str());
    // The root may cancel anyone's.
    let r = app
        .call(
            Some("root"),
            Method::DELETE,
            &format!("/v1/octal/jobs/{b_id}"),
            None,
        )
        .await;
    assert_eq!(r.body["status"], "cancelled", "{}", r.text);
}

#[tokio::test]
async fn modes_open_on_loopback_refused_when_exposed_off_when_told() {
    let submit = json!({"code": "0.6", "max_n": 10});
    // The embedded default: loopback, no key file — open as before, keys ignored.
    let open = in_process(common::config(), HashMap::new()).await;
    let r = open
        .raw(Method::POST, "/v1/octal/jobs", Some(submit.clone()), None)
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["owner"], Value::Null);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let r = open
        .raw(Method::GET, "/v1/octal/jobs", None, Some("Bearer whatever"))
        .await;
    assert_eq!(r.status.as_u16(), 200);
    assert_eq!(
        (r.body["key_name"].clone(), r.body["owner"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(r.body["jobs"][0]["id"], id.as_str());
    let r = open
        .raw(Method::DELETE, &format!("/v1/octal/jobs/{id}"), None, None)
        .await;
    assert_eq!(r.status.as_u16(), 200);

    // A non-loopback address without keys: job writes refused, reads and compute open.
    let exposed = in_process(
        Config {
            addr: "0.0.0.0:8080".parse().unwrap(),
            ..common::config()
        },
        HashMap::new(),
    )
    .await;
    let before = exposed.snapshot().await;
    let r = exposed
        .raw(Method::POST, "/v1/octal/jobs", Some(submit.clone()), None)
        .await;
    assert_problem_type(&r, 403, "api-keys-required", "submit on an exposed server");
    assert!(r.body["detail"]
        .as_str()
        .unwrap()
        .contains("GRUNDY_AUTH=off"));
    let r = exposed
        .raw(Method::DELETE, "/v1/octal/jobs/x", None, None)
        .await;
    assert_problem_type(&r, 403, "api-keys-required", "cancel on an exposed server");
    assert_eq!(exposed.snapshot().await, before);
    assert_eq!(
        exposed
            .raw(Method::GET, "/v1/octal/jobs", None, None)
            .await
            .status
            .as_u16(),
        200
    );
    let r = exposed
        .raw(
            Method::POST,
            "/v1/welter/value",
            Some(json!({"position": [1, 2]})),
            None,
        )
        .await;
    assert_eq!(r.status.as_u16(), 200);

    // GRUNDY_AUTH=off: the operator opened it on purpose.
    let off = in_process(
        Config {
            addr: "0.0.0.0:8080".parse().unwrap(),
            auth_off: true,
            ..common::config()
        },
        HashMap::new(),
    )
    .await;
    let r = off
        .raw(Method::POST, "/v1/octal/jobs", Some(submit), None)
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
}

/// The binary with `env`, its exit status and output (for start-up failures).
fn run_binary(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"));
    cmd.args(args)
        .env("GRUNDY_DATABASE_URL", "none")
        .env("GRUNDY_ADDR", "127.0.0.1:0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn keys_new_prints_a_key_then_its_line() {
    let (code, out, err) = run_binary(&["keys", "new", "--name", "ci-bot", "--scope", "jobs"], &[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let (key, line) = (lines[0], lines[1]);
    assert!(
        key.starts_with("grundy_") && key.len() >= 7 + 22,
        "{key}: at least 128 bits"
    );
    assert!(!line.contains(key), "the key-file line holds only the hash");
    let ring = KeyRing::parse(line).unwrap();
    let found = ring.find(key).unwrap();
    assert_eq!(
        (found.name.as_str(), found.scopes.clone()),
        ("ci-bot", vec![Scope::Jobs])
    );
    let (_, again, _) = run_binary(&["keys", "new", "--name=x", "--scope=jobs,admin"], &[]);
    assert_ne!(again.lines().next(), Some(key), "a fresh key each time");
    assert!(
        again
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("x jobs,admin sha256:"),
        "{again}"
    );
    for bad in [
        &["keys"][..],
        &["keys", "new", "--scope", "jobs"],
        &["keys", "new", "--name", "a b", "--scope", "jobs"],
        &["keys", "new", "--name", "a", "--scope", "root"],
        &["keys", "new", "--name", "a"],
        &["keys", "new", "--name"],
    ] {
        let (code, out, err) = run_binary(bad, &[]);
        assert_eq!(code, 2, "{bad:?}: {out}");
        assert!(
            out.is_empty() && err.contains("Usage:") || err.contains("--help"),
            "{bad:?}: {err}"
        );
    }
}

#[test]
fn bad_auth_settings_stop_the_start() {
    let dir = std::env::temp_dir().join(format!("grundy-keys-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good");
    let key = new_key().unwrap();
    std::fs::write(&good, key_file_line("a", &[Scope::Jobs], &key)).unwrap();
    let bad = dir.join("bad");
    // A key pasted where its hash belongs: refused, and the error does not repeat it.
    std::fs::write(&bad, format!("# comment\na jobs {key}\n")).unwrap();
    let empty = dir.join("empty");
    std::fs::write(&empty, "# no keys yet\n").unwrap();
    for (env, needle) in [
        (vec![("GRUNDY_AUTH", "maybe")], "GRUNDY_AUTH"),
        (
            vec![("GRUNDY_API_KEYS_FILE", "/nonexistent/keys")],
            "cannot read",
        ),
        (
            vec![("GRUNDY_API_KEYS_FILE", bad.to_str().unwrap())],
            "line 2",
        ),
        (
            vec![("GRUNDY_API_KEYS_FILE", empty.to_str().unwrap())],
            "no key",
        ),
        (
            vec![
                ("GRUNDY_API_KEYS_FILE", good.to_str().unwrap()),
                ("GRUNDY_AUTH", "off"),
            ],
            "contradicts",
        ),
        (
            vec![("GRUNDY_QUOTA_ACTIVE_JOBS", "many")],
            "GRUNDY_QUOTA_ACTIVE_JOBS",
        ),
    ] {
        let (code, out, err) = run_binary(&[], &env);
        assert_eq!(code, 2, "{env:?}: {out}{err}");
        assert!(err.contains(needle), "{env:?}: {err}");
        assert!(
            !err.contains(&key) && !out.contains(&key),
            "{env:?} printed the key"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A real process with a key file (made by `grundy keys new`), logging at the most verbose
/// level into a file: its logs, metrics and answers never hold the key, and the start-up log
/// says which mode it runs in.
#[tokio::test]
async fn the_key_never_reaches_logs_metrics_or_answers() {
    let dir = std::env::temp_dir().join(format!("grundy-keys-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut file = String::new();
    let mut keys = Vec::new();
    for (name, scope) in [("alice", "jobs"), ("viewer", "jobs:read")] {
        let (code, out, err) = run_binary(&["keys", "new", "--name", name, "--scope", scope], &[]);
        assert_eq!(code, 0, "{err}");
        let mut lines = out.lines();
        keys.push(lines.next().unwrap().to_owned());
        file.push_str(lines.next().unwrap());
        file.push('\n');
    }
    let key_file = dir.join("keys");
    std::fs::write(&key_file, &file).unwrap();
    let log = dir.join("log");
    let port = common::child_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"))
        .env("GRUNDY_ADDR", format!("127.0.0.1:{port}"))
        .env(
            "GRUNDY_DATABASE_URL",
            format!("sqlite://{}/s.db", dir.display()),
        )
        .env("GRUNDY_API_KEYS_FILE", &key_file)
        .env("GRUNDY_JOB_CHECKPOINT_MS", "100")
        .env("GRUNDY_JOB_LEASE_MS", "2000")
        .env("RUST_LOG", "trace")
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::options().append(true).open(&log).unwrap())
        .spawn()
        .unwrap();
    // Only a hang's end: a debug binary logging at trace starts slowly on a busy machine.
    common::wait_ready(&mut child, &base).await;
    let client = reqwest::Client::new();
    let (alice, viewer) = (&keys[0], &keys[1]);
    let wrong = format!("{alice}0");
    let mut answers = String::new();
    let send = |req: reqwest::RequestBuilder| {
        let req = req.build().unwrap();
        let client = client.clone();
        async move {
            let r = client.execute(req).await.unwrap();
            let status = r.status().as_u16();
            let headers = format!("{:?}", r.headers());
            let text = r.text().await.unwrap();
            (status, format!("{headers}\n{text}\n"))
        }
    };
    let jobs = format!("{base}/v1/octal/jobs");
    let (s, t) = send(
        client
            .post(&jobs)
            .bearer_auth(alice)
            .json(&json!({"code": "0.07", "max_n": 1000})),
    )
    .await;
    assert_eq!(s, 202, "{t}");
    answers.push_str(&t);
    let id = serde_json::from_str::<Value>(t.lines().last().unwrap()).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The event stream of alice's job runs to its end.
    let (s, t) = send(client.get(format!("{jobs}/{id}/events")).bearer_auth(alice)).await;
    assert_eq!(s, 200);
    assert!(t.contains("event: done"), "{t}");
    answers.push_str(&t);
    for (req, want) in [
        (client.get(&jobs).bearer_auth(alice), 200),
        (client.get(format!("{jobs}/{id}")).bearer_auth(viewer), 404),
        (
            client.delete(format!("{jobs}/{id}")).bearer_auth(viewer),
            403,
        ),
        (client.get(&jobs).bearer_auth(&wrong), 401),
        (
            client
                .post(&jobs)
                .bearer_auth(&wrong)
                .json(&json!({"code": "0.6", "max_n": 5})),
            401,
        ),
        (
            client
                .get(format!("{jobs}/{id}/events"))
                .bearer_auth(&wrong),
            401,
        ),
        (
            client
                .get(format!("{jobs}/{id}"))
                .header("authorization", format!("Basic {alice}")),
            401,
        ),
        (
            client
                .get(format!("{jobs}/{id}"))
                .header("authorization", alice.as_str()),
            401,
        ),
        (
            client.delete(format!("{jobs}/{id}")).bearer_auth(alice),
            200,
        ),
        (client.get(format!("{base}/metrics")), 200),
    ] {
        let (s, t) = send(req).await;
        assert_eq!(s, want, "{t}");
        answers.push_str(&t);
    }
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
    let logs = std::fs::read_to_string(&log).unwrap();
    assert!(
        logs.contains("API keys: 2 key(s)"),
        "the start-up log names the mode"
    );
    assert!(logs.lines().count() > 50, "trace logging ran");
    let db = std::fs::read(dir.join("s.db")).unwrap_or_default();
    for secret in [alice.as_str(), viewer.as_str(), wrong.as_str(), &alice[7..]] {
        assert!(!logs.contains(secret), "a key is in the logs");
        assert!(!answers.contains(secret), "a key is in an answer");
        assert!(!file.contains(secret), "a key is in the key file");
        assert!(
            !db.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "a key is in the store"
        );
    }
    assert!(
        answers.contains("grundy_jobs_submitted_total{owner=\"alice\"} 1"),
        "metrics by key name"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The start-up log of a server on a non-loopback address without keys says that job writes
/// are refused and how to allow them; and the process refuses them.
#[tokio::test]
async fn an_exposed_server_without_keys_says_so_at_start_up() {
    let dir = std::env::temp_dir().join(format!("grundy-keys-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log");
    let port = common::child_port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"))
        .env("GRUNDY_ADDR", format!("0.0.0.0:{port}"))
        .env("GRUNDY_DATABASE_URL", "none")
        .env("RUST_LOG", "info")
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let mut status = 0;
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    while std::time::Instant::now() < deadline {
        if let Ok(r) = client
            .post(format!("{base}/v1/octal/jobs"))
            .json(&json!({"code": "0.6", "max_n": 5}))
            .send()
            .await
        {
            status = r.status().as_u16();
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
    assert_eq!(status, 403);
    let logs = std::fs::read_to_string(&log).unwrap();
    assert!(logs.contains("job writes refused"), "{logs}");
    assert!(
        logs.contains("GRUNDY_AUTH=off") && logs.contains("GRUNDY_API_KEYS_FILE"),
        "{logs}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The operations of `doc` that declare security, as (method, path, security).
fn secured(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            if let Some(s) = op.get("security") {
                out.push((method.clone(), path.clone(), s.clone()));
            }
        }
    }
    out
}

/// `/openapi.json` describes the mode the server runs in (issue 31): with keys it is the
/// committed document (`openapi/openapi.json`), bearer security on every job operation; in the
/// open mode of the quick start (loopback, no key file), with `GRUNDY_AUTH=off` and on an
/// exposed server that refuses job writes, no operation declares security and the bearer scheme
/// is left out — and nothing else differs.
#[tokio::test]
async fn the_served_document_describes_the_running_mode() {
    let committed: Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    let job_ops = secured(&committed);
    assert!(job_ops.len() >= 10, "{job_ops:?}");
    for (method, path, security) in &job_ops {
        // A key, or (the misère quotient: synchronous for anyone, `"async"` a job) none or a key.
        let optional = json!([{}, {"api_key": []}]);
        assert!(
            security == &json!([{"api_key": []}])
                || (security == &optional && path == "/v1/octal/misere/quotient"),
            "{method} {path} in the committed document: {security}"
        );
    }

    let keyed = keyed(common::config()).await;
    let served = keyed.raw(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(served.status.as_u16(), 200);
    assert_eq!(served.body, committed, "with keys: the committed document");

    let open = in_process(common::config(), HashMap::new()).await;
    let exposed = in_process(
        Config {
            addr: "0.0.0.0:8080".parse().unwrap(),
            ..common::config()
        },
        HashMap::new(),
    )
    .await;
    let off = in_process(
        Config {
            addr: "0.0.0.0:8080".parse().unwrap(),
            auth_off: true,
            ..common::config()
        },
        HashMap::new(),
    )
    .await;
    let mut expected = committed.clone();
    for ops in expected["paths"].as_object_mut().unwrap().values_mut() {
        for op in ops.as_object_mut().unwrap().values_mut() {
            op.as_object_mut().unwrap().remove("security");
        }
    }
    expected["components"]["securitySchemes"]
        .as_object_mut()
        .unwrap()
        .remove("api_key");
    if expected["components"]["securitySchemes"]
        .as_object()
        .unwrap()
        .is_empty()
    {
        expected["components"]
            .as_object_mut()
            .unwrap()
            .remove("securitySchemes");
    }
    for (mode, app) in [("open", &open), ("exposed", &exposed), ("auth off", &off)] {
        let served = app.raw(Method::GET, "/openapi.json", None, None).await;
        assert_eq!(served.status.as_u16(), 200);
        assert_eq!(secured(&served.body), vec![], "{mode}: no security");
        assert!(
            served.body["components"]["securitySchemes"]["api_key"].is_null(),
            "{mode}: no bearer scheme"
        );
        assert_eq!(served.body, expected, "{mode}: nothing else differs");
    }
    // And the open server does answer a job operation without a key, as its document says.
    let r = open.raw(Method::GET, "/v1/octal/jobs", None, None).await;
    assert_eq!(r.status.as_u16(), 200);
}
