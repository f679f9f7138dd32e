//! `/v1/octal/census` (issue 27, item 3): a census of a few codes runs to done and its table
//! is each job's own statistics, in JSON and in CSV; the default census is the 83 games of the
//! unsolved table; every request shape is checked field by field; another key's census does
//! not exist for a key; the quotas count a census's jobs all at once (all or nothing); a proved
//! periodicity gets a verification job from scratch and is reported verified only once it
//! proved the same — and disputed when it did not.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, Method, Request};
use common::Reply;
use grundy::config::Config;
use grundy::service::keys::{KeyRing, Scope};
use grundy::service::AppState;
use serde_json::{json, Value};
use sqlx::Row;

fn fast_jobs() -> Config {
    Config {
        job_threads: grundy::config::JobThreads::Fixed(1),
        ..common::fast_jobs()
    }
}

/// The application in-process (no job workers), with keys when `keyed`.
struct App {
    state: AppState,
    router: axum::Router,
    keys: HashMap<&'static str, String>,
}

/// alice and bob: `jobs`; reader: `jobs:read`; root: `admin`; carol: `jobs`, one active job.
async fn app(config: Config, keyed: bool) -> App {
    let mut keys = HashMap::new();
    let mut config = Config {
        database_url: Some(common::temp_sqlite_url()),
        ..config
    };
    if keyed {
        let (file, k) = common::key_file(&[
            ("alice", &[Scope::Jobs], ""),
            ("bob", &[Scope::Jobs], ""),
            ("reader", &[Scope::JobsRead], ""),
            ("root", &[Scope::Admin], ""),
            ("carol", &[Scope::Jobs], " active_jobs=1"),
        ]);
        keys = k;
        config.api_keys = Some(Arc::new(KeyRing::parse(&file).unwrap()));
    }
    let state = AppState::new(config);
    state.connect_store().await.unwrap();
    App {
        router: grundy::app::build(state.clone()),
        state,
        keys,
    }
}

impl App {
    async fn call(
        &self,
        who: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Value>,
        accept: Option<&str>,
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(w) = who {
            req = req.header(header::AUTHORIZATION, format!("Bearer {}", self.keys[w]));
        }
        if let Some(a) = accept {
            req = req.header(header::ACCEPT, a);
        }
        let resp = common::oneshot_json(&self.router, req, body).await;
        let (status, headers) = (resp.status(), resp.headers().clone());
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap();
        Reply::new(status, headers, &bytes)
    }

    async fn post(&self, who: Option<&str>, body: Value) -> Reply {
        self.call(who, Method::POST, "/v1/octal/census", Some(body), None)
            .await
    }

    async fn count(&self, sql: &str) -> i64 {
        sqlx::query(sql)
            .fetch_one(&self.state.store().unwrap().raw_pool_for_tests())
            .await
            .unwrap()
            .get::<i64, _>(0)
    }

    async fn exec(&self, sql: &str, binds: &[&str]) {
        let pool = self.state.store().unwrap().raw_pool_for_tests();
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(*b);
        }
        q.execute(&pool).await.unwrap();
    }
}

/// A census request over HTTP, as a client sends it.
async fn census(s: &common::Server, id: &str, accept: &str) -> Reply {
    let resp = s
        .client
        .get(format!("{}/v1/octal/census/{id}", s.base))
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    Reply::new(status, headers, &resp.bytes().await.unwrap())
}

/// Polls a census until `done` (every job, verification jobs too, finished).
async fn wait_census(s: &common::Server, id: &str) -> Value {
    // Only a hang's end: how long a census takes depends on the machine.
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    loop {
        let r = census(s, id, "application/json").await;
        assert_eq!(r.status.as_u16(), 200, "{}", r.text);
        if r.body["status"] != "running" || std::time::Instant::now() > deadline {
            return r.body;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// RFC 4180 fields of one CSV line.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[tokio::test]
async fn a_census_runs_to_done_and_its_table_is_its_jobs_statistics_in_json_and_csv() {
    let s = common::start_with(fast_jobs()).await;
    let n = 5000u64;
    let r = s
        .post(
            "/v1/octal/census",
            &json!({"codes": ["0.167", ".6", "0.6", "grundy"], "max_n": n, "window": 65536}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        r.headers["location"].to_str().unwrap(),
        format!("/v1/octal/census/{id}")
    );
    assert_eq!(r.body["keep"], "window");
    assert_eq!(r.body["store_values"], false);
    let codes: Vec<&str> = r.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["0.167", "0.6", "grundy"],
        "two notations count once"
    );
    let doc = wait_census(&s, &id).await;
    assert_eq!(doc["status"], "done", "{doc}");
    let games = doc["games"].as_array().unwrap();
    for g in games {
        assert_eq!(g["status"], "done", "{g}");
        assert_eq!(g["computed"], n, "{g}");
        assert_eq!(g["verdict_kind"], "unknown", "{g}");
        assert_eq!(
            g["verdict"],
            format!("no periodicity proved in G(0..{n})"),
            "{g}"
        );
        assert_eq!(g["in_unsolved_table"], true);
        assert!(g["verification_job_id"].is_null());
        // The row is the job's own statistics at its last n.
        let job_id = g["job_id"].as_str().unwrap();
        let job = s.get(&format!("/v1/octal/jobs/{job_id}")).await.body;
        assert_eq!(job["code"], g["code"]);
        assert_eq!(job["keep"], "window");
        let stats = s
            .get(&format!("/v1/octal/jobs/{job_id}/statistics"))
            .await
            .body;
        assert_eq!(stats["computed"], n);
        assert_eq!(g["statistics"], stats["current"], "{g}");
        assert_eq!(g["statistics"]["n"], n);
    }
    // What is published about 0.6 (T. Czajka's row) and 0.167 (A. Rogalski's record).
    assert_eq!(games[1]["published"]["statistics"]["n"], 1u64 << 21);
    assert_eq!(games[1]["published"]["statistics"]["rare_mask"], "1ee");
    assert_eq!(games[0]["published"]["record"]["n"], 1u64 << 40);
    // CSV: one row per game, the same numbers as the JSON.
    let r = census(&s, &id, "text/csv").await;
    assert_eq!(r.status.as_u16(), 200);
    assert_eq!(r.content_type, "text/csv");
    let mut lines = r.text.lines();
    let header = csv_fields(lines.next().unwrap());
    assert_eq!(
        header[..10],
        [
            "code",
            "status",
            "n",
            "largest_value",
            "first_heap",
            "rare_mask",
            "rare_count",
            "last_rare_heap",
            "verdict",
            "job_id"
        ]
    );
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(rows.len(), games.len());
    for (row, g) in rows.iter().zip(games) {
        assert_eq!(row.len(), header.len(), "{row:?}");
        let st = &g["statistics"];
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            v => v.to_string(),
        };
        let want = [
            text(&g["code"]),
            text(&g["status"]),
            text(&g["computed"]),
            text(&st["max_value"]),
            text(&st["max_value_first_heap"]),
            text(&st["rare_mask"]),
            text(&st["rare_count"]),
            text(&st["last_rare_heap"]),
            text(&g["verdict"]),
            text(&g["job_id"]),
        ];
        assert_eq!(row[..10], want);
    }
    assert_eq!(rows[1][12], (1u64 << 21).to_string(), "published n beside");
    let r = census(&s, &id, "image/png").await;
    common::assert_problem(&r, 406, "text/csv");
    // Listed, and deleted once done (its jobs stay).
    let list = s.get("/v1/octal/census").await.body;
    assert_eq!(list["censuses"][0]["id"], id.as_str());
    assert_eq!(list["censuses"][0]["games"], 3);
    assert_eq!(list["censuses"][0]["games_done"], 3, "{list}");
    assert_eq!(list["censuses"][0]["status"], "done", "{list}");
    assert_eq!(list["censuses"][0]["created_at_ms"], doc["created_at_ms"]);
    let d = s
        .client
        .delete(format!("{}/v1/octal/census/{id}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(d.status().as_u16(), 200);
    assert_eq!(
        census(&s, &id, "application/json").await.status.as_u16(),
        404
    );
    let job_id = games[0]["job_id"].as_str().unwrap();
    assert_eq!(
        s.get(&format!("/v1/octal/jobs/{job_id}"))
            .await
            .status
            .as_u16(),
        200
    );
}

/// The status, games done and games of the newest census in the list, which must be `id`.
async fn listed(a: &App, id: &str) -> (Value, Value, Value) {
    let l = a
        .call(None, Method::GET, "/v1/octal/census", None, None)
        .await;
    assert_eq!(l.status.as_u16(), 200, "{}", l.text);
    let c = &l.body["censuses"][0];
    assert_eq!(c["id"], id, "{}", l.text);
    (
        c["status"].clone(),
        c["games_done"].clone(),
        c["games"].clone(),
    )
}

/// Issue 46: the list of censuses says each one's status and how many of its games are done,
/// as its jobs stand (in-process, no workers: the jobs stay queued until the test moves them).
#[tokio::test]
async fn the_list_says_each_census_status_and_games_done() {
    let a = app(common::config(), false).await;
    let r = a
        .post(None, json!({"codes": ["0.6", "0.07"], "max_n": 1000}))
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let first = r.body["games"][0]["job_id"].as_str().unwrap().to_owned();
    assert_eq!(
        listed(&a, &id).await,
        (json!("running"), json!(0), json!(2))
    );
    a.exec("UPDATE jobs SET status = 'done' WHERE id = $1", &[&first])
        .await;
    assert_eq!(
        listed(&a, &id).await,
        (json!("running"), json!(1), json!(2))
    );
    // Cancelled: its queued job at once; the game done stays done.
    let d = a
        .call(
            None,
            Method::DELETE,
            &format!("/v1/octal/census/{id}"),
            None,
            None,
        )
        .await;
    assert_eq!(d.status.as_u16(), 200, "{}", d.text);
    assert_eq!(
        listed(&a, &id).await,
        (json!("cancelled"), json!(1), json!(2))
    );
    // The table says the same.
    let t = a
        .call(
            None,
            Method::GET,
            &format!("/v1/octal/census/{id}"),
            None,
            None,
        )
        .await;
    assert_eq!(t.body["status"], "cancelled", "{}", t.text);
}

#[tokio::test]
async fn a_proved_periodicity_is_verified_by_a_second_run_from_scratch() {
    let s = common::start_with(fast_jobs()).await;
    let r = s
        .post(
            "/v1/octal/census",
            &json!({"codes": ["0.07", "0.137"], "max_n": 4096, "window": 65536}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let doc = wait_census(&s, &id).await;
    assert_eq!(doc["status"], "done", "{doc}");
    for g in doc["games"].as_array().unwrap() {
        assert_eq!(g["verdict_kind"], "verified", "{g}");
        let verdict = g["verdict"].as_str().unwrap();
        assert!(verdict.starts_with("periodic (verified)"), "{verdict}");
        let p = &g["periodicity"];
        for word in [
            format!("preperiod {}", p["preperiod"]),
            format!("period {}", p["period"]),
            p["theorem"].as_str().unwrap().to_owned(),
            format!("G(0..{})", p["proved_at"]),
        ] {
            assert!(verdict.contains(&word), "{verdict} lacks {word}");
        }
        assert_eq!(g["new_result"], false, "not a game of the unsolved table");
        let vid = g["verification_job_id"].as_str().unwrap();
        assert_ne!(vid, g["job_id"].as_str().unwrap());
        let v = s.get(&format!("/v1/octal/jobs/{vid}")).await.body;
        assert_eq!(v["code"], g["code"]);
        assert_eq!(v["status"], "done");
        assert_eq!(v["keep"], "window", "from scratch: its own window");
        assert_eq!(v["store_values"], false);
        assert_eq!(v["periodicity"]["preperiod"], p["preperiod"]);
        assert_eq!(v["periodicity"]["period"], p["period"]);
    }
    // The CSV quotes the verdicts' commas (RFC 4180).
    let csv = census(&s, &id, "text/csv").await.text;
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(csv_fields).collect();
    for (row, g) in rows.iter().zip(doc["games"].as_array().unwrap()) {
        assert_eq!(row[8], g["verdict"].as_str().unwrap(), "{csv}");
        assert_eq!(row[11], g["verification_job_id"].as_str().unwrap());
    }
    assert_eq!(doc["games"][0]["periodicity"]["preperiod"], 53, "0.07");
    assert_eq!(doc["games"][0]["periodicity"]["period"], 34, "0.07");
    // Reading again starts nothing more: 2 primary + 2 verification jobs.
    let again = wait_census(&s, &id).await;
    assert_eq!(again["games"], doc["games"]);
    let jobs = s.get("/v1/octal/jobs").await.body;
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 4, "{jobs}");
}

const P: &str = r#"{"status":"periodic","preperiod":53,"period":34,"saltus":0,"proved_at":175,"theorem":"Austin Thm 4.1 (Guy-Smith periodicity)"}"#;
const Q: &str = r#"{"status":"periodic","preperiod":52,"period":34,"saltus":0,"proved_at":175,"theorem":"Austin Thm 4.1 (Guy-Smith periodicity)"}"#;

#[tokio::test]
async fn verification_starts_once_and_a_mismatch_is_disputed() {
    let a = app(common::config(), false).await;
    let r = a
        .post(None, json!({"codes": ["0.07"], "max_n": 1000}))
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let primary = r.body["games"][0]["job_id"].as_str().unwrap().to_owned();
    let path = format!("/v1/octal/census/{id}");
    let done = "UPDATE jobs SET status = 'done', computed = 175, periodicity = $1 WHERE id = $2";
    a.exec(done, &[P, &primary]).await;
    // Eight readers at once: one verification job.
    let reads = futures_util::future::join_all(
        (0..8).map(|_| a.call(None, Method::GET, &path, None, None)),
    )
    .await;
    let vids: Vec<String> = reads
        .iter()
        .map(|r| {
            assert_eq!(r.status.as_u16(), 200, "{}", r.text);
            r.body["games"][0]["verification_job_id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(vids.iter().all(|v| *v == vids[0]), "{vids:?}");
    let vid = vids[0].clone();
    assert_eq!(a.count("SELECT COUNT(*) FROM jobs").await, 2);
    let g = &reads[0].body["games"][0];
    assert_eq!(g["verdict_kind"], "unverified");
    assert_eq!(
        g["verdict"].as_str().unwrap().split(':').next().unwrap(),
        format!("periodic (unverified, verification job {vid} queued)")
    );
    assert_eq!(reads[0].body["status"], "running");
    // The verification run finds another preperiod: disputed, loudly.
    a.exec(done, &[Q, &vid]).await;
    let g = a.call(None, Method::GET, &path, None, None).await.body["games"][0].clone();
    assert_eq!(g["verdict_kind"], "disputed", "{g}");
    let verdict = g["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("DISPUTED") && verdict.contains("preperiod 52"),
        "{verdict}"
    );
    // It proves the same: verified.
    a.exec(done, &[P, &vid]).await;
    let g = a.call(None, Method::GET, &path, None, None).await.body["games"][0].clone();
    assert_eq!(g["verdict_kind"], "verified", "{g}");
    // A game of the unsolved table proved periodic: what is known, nothing claimed as new.
    let r = a.post(None, json!({"codes": ["0.6"], "max_n": 1000})).await;
    let id6 = r.body["id"].as_str().unwrap().to_owned();
    let p6 = r.body["games"][0]["job_id"].as_str().unwrap().to_owned();
    a.exec(done, &[P, &p6]).await;
    let path6 = format!("/v1/octal/census/{id6}");
    let g = a.call(None, Method::GET, &path6, None, None).await.body["games"][0].clone();
    assert!(
        g["verdict"]
            .as_str()
            .unwrap()
            .contains("a game of Czajka's list of unsolved games"),
        "{g}"
    );
    assert_eq!(g["new_result"], false, "not before verification");
    let v6 = g["verification_job_id"].as_str().unwrap().to_owned();
    a.exec(done, &[P, &v6]).await;
    let g = a.call(None, Method::GET, &path6, None, None).await.body["games"][0].clone();
    assert_eq!(g["verdict_kind"], "verified", "{g}");
    assert_eq!(g["new_result"], false, "{g}");
    let verdict = g["verdict"].as_str().unwrap();
    assert!(
        !verdict.contains("NEW") && verdict.contains("not checked against A. Flammenkamp's tables"),
        "{g}"
    );
    // A cancelled census starts no verification.
    let r = a
        .post(None, json!({"codes": ["0.16"], "max_n": 1000}))
        .await;
    let idc = r.body["id"].as_str().unwrap().to_owned();
    let pc = r.body["games"][0]["job_id"].as_str().unwrap().to_owned();
    let pathc = format!("/v1/octal/census/{idc}");
    let c = a.call(None, Method::DELETE, &pathc, None, None).await;
    assert_eq!(c.status.as_u16(), 200);
    assert_eq!(c.body["games"][0]["status"], "cancelled");
    a.exec(done, &[P, &pc]).await;
    let g = a.call(None, Method::GET, &pathc, None, None).await.body["games"][0].clone();
    assert!(g["verification_job_id"].is_null(), "{g}");
    assert_eq!(g["verdict_kind"], "unverified");
}

#[tokio::test]
async fn the_default_census_is_the_unsolved_table() {
    let a = app(common::config(), false).await;
    let r = a.post(None, json!({"max_n": 4096})).await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let games = r.body["games"].as_array().unwrap();
    assert_eq!(games.len(), 83);
    assert_eq!(games[0]["code"], "grundy");
    assert!(games.iter().all(|g| g["in_unsolved_table"] == true));
    assert!(games.iter().all(|g| g["status"] == "queued"));
    assert_eq!(r.body["window"], 1u64 << 24, "window mode by default");
    assert_eq!(a.count("SELECT COUNT(*) FROM jobs").await, 83);
    let id = r.body["id"].as_str().unwrap();
    let path = format!("/v1/octal/census/{id}");
    // DELETE cancels every job; a second DELETE deletes the census.
    let c = a.call(None, Method::DELETE, &path, None, None).await;
    assert_eq!(c.status.as_u16(), 200, "{}", c.text);
    assert_eq!(c.body["status"], "cancelled");
    assert!(c.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["status"] == "cancelled" && g["verdict"] == "cancelled at n = 0"));
    assert_eq!(
        a.count("SELECT COUNT(*) FROM jobs WHERE status = 'cancelled'")
            .await,
        83
    );
    let c = a.call(None, Method::DELETE, &path, None, None).await;
    assert_eq!(c.status.as_u16(), 200);
    let g = a.call(None, Method::GET, &path, None, None).await;
    common::assert_problem(&g, 404, "no census");
    // `null` codes are the table too.
    let r = a.post(None, json!({"codes": null, "max_n": 10})).await;
    assert_eq!(r.body["games"].as_array().unwrap().len(), 83, "{}", r.text);
}

#[tokio::test]
async fn census_requests_are_checked_field_by_field() {
    let a = app(common::config(), false).await;
    let bad = |body: Value, field: &'static str, needle: &'static str| {
        let a = &a;
        async move {
            let r = a.post(None, body.clone()).await;
            common::assert_problem(&r, 422, needle);
            assert_eq!(r.body["field"], field, "{body} -> {}", r.text);
        }
    };
    bad(
        json!({"codes": ["0.6", "0.07", "0.16", "0.x"], "max_n": 100}),
        "codes[3]",
        "codes[3]",
    )
    .await;
    bad(json!({"codes": [], "max_n": 100}), "codes", "empty").await;
    let many: Vec<String> = (1..=201).map(|i| format!("S({i})")).collect();
    bad(json!({"codes": many, "max_n": 100}), "codes", "at most 200").await;
    bad(json!({"codes": ["0.6"], "max_n": 0}), "max_n", "max_n").await;
    bad(
        json!({"codes": ["0.6"], "max_n": 1u64 << 49}),
        "max_n",
        "GRUNDY_JOB_WINDOW_MAX_N",
    )
    .await;
    bad(
        json!({"codes": ["0.6"], "max_n": 2_000_000_000u64, "keep": "all"}),
        "max_n",
        "GRUNDY_JOB_MAX_N",
    )
    .await;
    bad(
        json!({"codes": ["0.6"], "max_n": 100, "keep": "all", "window": 65536}),
        "window",
        "only a job with",
    )
    .await;
    bad(
        json!({"codes": ["0.6"], "max_n": 100, "window": 1000}),
        "window",
        "multiple of",
    )
    .await;
    bad(
        json!({"codes": ["0.6", "0.8F"], "max_n": 1u64 << 25}),
        "codes[1]",
        "digit d1 = 8 leaves three heaps",
    )
    .await;
    bad(
        json!({"codes": ["0.(B)"], "max_n": 1u64 << 17, "window": 65536}),
        "codes[0]",
        "recurring digit B",
    )
    .await;
    for body in [
        json!({"codes": "0.6", "max_n": 100}),
        json!({"codes": [6], "max_n": 100}),
        json!({"codes": ["0.6"]}),
        json!({"codes": ["0.6"], "max_n": 100, "colour": "red"}),
        json!({"codes": ["0.6"], "max_n": -1}),
    ] {
        let r = a.post(None, body.clone()).await;
        assert!(
            [400, 422].contains(&r.status.as_u16()),
            "{body} -> {}",
            r.text
        );
        assert_eq!(r.content_type, "application/problem+json");
    }
    let r = a
        .call(None, Method::GET, "/v1/octal/census/nope", None, None)
        .await;
    common::assert_problem(&r, 404, "no census");
    // Nothing of all that was written; keep "all" is accepted where it applies.
    assert_eq!(a.count("SELECT COUNT(*) FROM census").await, 0);
    assert_eq!(a.count("SELECT COUNT(*) FROM jobs").await, 0);
    let r = a
        .post(
            None,
            json!({"codes": ["0.8F"], "max_n": 100, "keep": "all"}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    assert_eq!(r.body["keep"], "all");
    assert_eq!(r.body["store_values"], true);
    // A window holding every value (the default 2^24 ≥ max_n) computes them: the census's jobs
    // keep all (issue 46).
    let r = a
        .post(None, json!({"codes": ["0.6", "0.(B)"], "max_n": 100}))
        .await;
    assert!(r.status.is_success(), "{}", r.text);
    assert_eq!(r.body["keep"], "all", "{}", r.text);
    assert_eq!(r.body["store_values"], true);
}

#[tokio::test]
async fn another_keys_census_does_not_exist_and_quotas_are_all_or_nothing() {
    let a = app(
        Config {
            quota_heaps_per_day: 1_000_000,
            ..common::config()
        },
        true,
    )
    .await;
    let r = a
        .post(
            Some("alice"),
            json!({"codes": ["0.6", "0.07"], "max_n": 1000}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    assert_eq!(r.body["owner"], "alice");
    let id = r.body["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/octal/census/{id}");
    let job = r.body["games"][0]["job_id"].as_str().unwrap().to_owned();
    let j = a
        .call(
            Some("alice"),
            Method::GET,
            &format!("/v1/octal/jobs/{job}"),
            None,
            None,
        )
        .await;
    assert_eq!(j.body["owner"], "alice", "the census's jobs are the key's");
    for who in ["bob", "reader"] {
        let g = a.call(Some(who), Method::GET, &path, None, None).await;
        common::assert_problem(&g, 404, "no census");
        let l = a
            .call(Some(who), Method::GET, "/v1/octal/census", None, None)
            .await;
        assert_eq!(l.body["censuses"], json!([]), "{}", l.text);
    }
    let d = a.call(Some("bob"), Method::DELETE, &path, None, None).await;
    common::assert_problem(&d, 404, "no census");
    let c = a
        .call(Some("alice"), Method::GET, &path, None, Some("text/csv"))
        .await;
    assert_eq!(c.status.as_u16(), 200);
    let root = a.call(Some("root"), Method::GET, &path, None, None).await;
    assert_eq!(root.status.as_u16(), 200);
    assert_eq!(
        a.post(None, json!({"max_n": 10})).await.status.as_u16(),
        401
    );
    assert_eq!(
        a.post(Some("reader"), json!({"max_n": 10}))
            .await
            .status
            .as_u16(),
        403
    );
    assert_eq!(
        a.call(None, Method::GET, &path, None, None)
            .await
            .status
            .as_u16(),
        401
    );
    // Nothing changed by any of that.
    assert_eq!(
        a.count("SELECT COUNT(*) FROM jobs WHERE status = 'queued'")
            .await,
        2
    );
    // Quotas: carol may have one active job; a census of two is refused whole.
    let r = a
        .post(
            Some("carol"),
            json!({"codes": ["0.6", "0.07"], "max_n": 10}),
        )
        .await;
    common::assert_problem(&r, 429, "census's 2 jobs");
    assert_eq!(r.body["quota"], "active_jobs");
    assert_eq!(r.body["limit"], 1);
    assert!(r.headers.contains_key("retry-after"));
    let r = a
        .post(Some("carol"), json!({"codes": ["0.6"], "max_n": 10}))
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    // alice (default quota, 100 active jobs): the table of 83 fits beside her 2 jobs... (a
    // millisecond after her first census at least: the list's order is by creation time, and
    // a fast machine could create both in one millisecond)
    tokio::time::sleep(Duration::from_millis(5)).await;
    let r = a.post(Some("alice"), json!({"max_n": 10})).await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let before = (
        a.count("SELECT COUNT(*) FROM jobs").await,
        a.count("SELECT COUNT(*) FROM census").await,
    );
    assert_eq!(before, (2 + 1 + 83, 3));
    // ...a second one does not (85 + 83 > 100): nothing of it is written.
    let r = a.post(Some("alice"), json!({"max_n": 10})).await;
    common::assert_problem(&r, 429, "100");
    assert_eq!(r.body["quota"], "active_jobs");
    // Heaps of the day (1,000,000 a key): 83 × 13,000 would pass it.
    let r = a.post(Some("bob"), json!({"max_n": 13_000})).await;
    common::assert_problem(&r, 429, "heaps");
    assert_eq!(r.body["quota"], "heaps_per_day");
    assert_eq!(
        (
            a.count("SELECT COUNT(*) FROM jobs").await,
            a.count("SELECT COUNT(*) FROM census").await,
        ),
        before
    );
    // alice's list: her two censuses, newest first; root sees carol's too.
    let l = a
        .call(Some("alice"), Method::GET, "/v1/octal/census", None, None)
        .await;
    assert_eq!(
        l.body["censuses"].as_array().unwrap().len(),
        2,
        "{}",
        l.text
    );
    assert_eq!(l.body["censuses"][1]["id"], id.as_str());
    assert_eq!(l.body["key_name"], "alice");
    let l = a
        .call(Some("root"), Method::GET, "/v1/octal/census", None, None)
        .await;
    assert_eq!(l.body["censuses"].as_array().unwrap().len(), 3);
}
