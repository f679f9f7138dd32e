//! The statistics of jobs, and jobs that keep a window (`"keep": "window"`): the statistics
//! equal a recount of independently computed values — after `kill -9` and a resume too —;
//! a window job whose rare checks and rare positions reach past its window reads the values
//! back from its archive on disk and ends with every value equal to keeping them all, also
//! when killed while reading back; a damaged archive is found on resume and rebuilt, never
//! used; the values a window job does not keep in the public sequence are refused with a 409
//! that says so, and every request shape is checked.

mod common;

use common::{wait_job, Process};
use grundy::config::Config;
use grundy::core::octal::{Engine, Game, Statistics};
use grundy::store::Store;
use serde_json::{json, Value};
use std::time::Duration;

/// G(0..n) keeping every value, counted from scratch.
fn recount(code: &str, n: usize) -> Statistics {
    let mut s = Statistics::new();
    s.observe_block(0, &keep_all(code, n)).unwrap();
    s
}

/// G(0..n) keeping every value.
fn keep_all(code: &str, n: usize) -> Vec<u32> {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(1);
    e.extend_to(n, &mut || false).unwrap();
    e.values().to_u32_vec()
}

/// Every value of a window job as its store holds them: the front and the tail it keeps, and
/// between them its archive, read back.
async fn window_values(url: &str, id: &str) -> Vec<u32> {
    let store = Store::connect(url).await.unwrap();
    let kept = store
        .load_window(id)
        .await
        .unwrap()
        .expect("a window state");
    let (front, base) = (kept.state.front, kept.state.base);
    let mut all = kept.front.to_u32_vec();
    if base > front {
        let mut archive = vec![0u16; (base - front) as usize];
        store.read_archive(id, front, &mut archive).await.unwrap();
        all.extend(archive.iter().map(|&v| u32::from(v)));
        all.extend(kept.tail.to_u32_vec());
    }
    all
}

/// Heaps a job of these tests computes per checkpoint at most (`GRUNDY_JOB_PACE`): a job of
/// 2^19 heaps lasts at least 32 checkpoints of 200 ms on any machine, so that a test can crash
/// it at a chosen point (a slow machine only makes it last longer).
const PACE: &str = "16384";

/// The environment of a job server on `url` that checkpoints often, its jobs paced.
fn job_env(url: &str) -> [(&'static str, String); 6] {
    [
        ("GRUNDY_DATABASE_URL", url.to_owned()),
        ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
        ("GRUNDY_JOB_LEASE_MS", "1500".to_owned()),
        ("GRUNDY_JOB_THREADS", "1".to_owned()),
        ("GRUNDY_JOB_PACE", PACE.to_owned()),
        // No synchronous computation covers the heaps the job dropped.
        ("GRUNDY_OCTAL_MAX_N", "1000".to_owned()),
    ]
}

/// Polls a job until `until` holds for its document (or it ends: a panic, unless `ok_done`).
async fn wait_until(
    s: &common::Server,
    id: &str,
    secs: u64,
    until: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let j = s.get(&format!("/v1/octal/jobs/{id}")).await.body;
        assert!(
            matches!(j["status"].as_str(), Some("queued" | "running")),
            "the job ended first: {j}"
        );
        if until(&j) {
            return j;
        }
        assert!(std::time::Instant::now() < deadline, "timed out: {j}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A statistics row of the API against a snapshot of the recount.
fn assert_row(row: &Value, want: &grundy::core::octal::Snapshot) {
    assert_eq!(row["n"], want.n, "{row}");
    assert_eq!(row["max_value"], want.max_value, "{row}");
    assert_eq!(
        row["max_value_first_heap"], want.max_value_first_heap,
        "{row}"
    );
    assert_eq!(row["rare_mask"], format!("{:x}", want.mask), "{row}");
    assert_eq!(row["rare_count"], want.rare_count, "{row}");
    assert_eq!(row["last_rare_heap"], json!(want.last_rare_heap), "{row}");
    assert_eq!(row["histogram"], json!(want.histogram), "{row}");
}

/// The whole statistics document against a recount of the same values.
fn assert_statistics(doc: &Value, want: &Statistics) {
    assert_eq!(doc["computed"], want.len(), "{doc}");
    assert_row(&doc["current"], &want.current().unwrap());
    let powers = doc["powers_of_two"].as_array().unwrap();
    assert_eq!(powers.len(), want.snapshots().len());
    for (row, snap) in powers.iter().zip(want.snapshots()) {
        assert_row(row, snap);
    }
}

/// Submits to `p` a window-mode job of 0.167 up to `n`, keeping `window` values.
async fn window_job(p: &Process, n: u64, window: u64) -> common::Reply {
    p.server()
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.167", "max_n": n, "keep": "window", "window": window}),
        )
        .await
}

/// A second process on the store of `env` after a crash: job `id` is done there, all `n`
/// values, claimed twice at least. Returns the process and the job.
async fn resumed_after_crash(env: &[(&str, String)], id: &str, n: u64) -> (Process, Value) {
    let b = Process::spawn(env).await;
    let done = wait_job(&b.server(), id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["progress"]["computed"], n);
    assert!(done["attempts"].as_u64().unwrap() >= 2, "{done}");
    (b, done)
}

/// Cancels the job that the answer `r` to a submission names (200).
async fn cancel_submitted(s: &common::Server, r: &common::Reply) {
    let id = r.body["id"].as_str().unwrap();
    let c = s.delete(&format!("/v1/octal/jobs/{id}")).await;
    assert_eq!(c.status.as_u16(), 200, "{}", c.text);
}

fn fast_jobs() -> Config {
    Config {
        job_threads: grundy::config::JobThreads::Fixed(1),
        ..common::fast_jobs()
    }
}

#[tokio::test]
async fn a_jobs_statistics_equal_a_recount_in_json_and_csv() {
    let s = common::start_with(fast_jobs()).await;
    let n = 1usize << 17;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.167", "max_n": n}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["keep"], "all");
    assert_eq!(r.body["window"], Value::Null);
    assert_eq!(r.body["store_values"], true);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let done = wait_job(&s, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    assert_eq!(doc.status.as_u16(), 200, "{}", doc.text);
    assert_eq!(doc.body["code"], "0.167");
    // Against the values the job stored, downloaded and counted again.
    let values = s
        .get(&format!("/v1/octal/0.167/values?start=0&count={n}"))
        .await;
    let values: Vec<u32> = serde_json::from_value(values.body["values"].clone()).unwrap();
    let mut stored = Statistics::new();
    stored.observe_block(0, &values).unwrap();
    assert_statistics(&doc.body, &stored);
    assert_eq!(doc.body["powers_of_two"].as_array().unwrap().len(), 18);

    // CSV: the same histograms, one row per (n, value) that occurs.
    let statistics_as = |accept: &'static str| {
        s.client
            .get(format!("{}/v1/octal/jobs/{id}/statistics", s.base))
            .header("accept", accept)
            .send()
    };
    let csv = statistics_as("text/csv").await.unwrap();
    assert_eq!(csv.headers()["content-type"], "text/csv");
    let text = csv.text().await.unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("n,value,count"));
    let mut rows = 0;
    for row in doc.body["powers_of_two"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&doc.body["current"]])
    {
        for (v, c) in row["histogram"].as_array().unwrap().iter().enumerate() {
            if c.as_u64().unwrap() > 0 {
                assert_eq!(lines.next(), Some(format!("{},{v},{c}", row["n"]).as_str()));
                rows += 1;
            }
        }
    }
    assert_eq!(lines.next(), None);
    assert!(rows > 18);

    // Neither JSON nor CSV: 406; no such job: 404.
    let bin = statistics_as("application/octet-stream").await.unwrap();
    assert_eq!(bin.status().as_u16(), 406);
    let missing = s.get("/v1/octal/jobs/no-such-job/statistics").await;
    assert_eq!(missing.status.as_u16(), 404);
}

#[tokio::test]
async fn a_window_job_survives_kill_9_with_exact_statistics_and_serves_every_value() {
    let url = common::temp_sqlite_url();
    let env = job_env(&url);
    let (n, window) = (1u64 << 20, 1u64 << 16);
    // Counted first: a pooled connection left idle while counting would be closed by the
    // server's keep-alive limit.
    let all = keep_all("0.167", n as usize);
    let mut want = Statistics::new();
    want.observe_block(0, &all).unwrap();
    let mut a = Process::spawn(&env).await;
    let r = window_job(&a, n, window).await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["keep"], "window");
    assert_eq!(r.body["window"], window);
    assert_eq!(r.body["store_values"], false);
    let id = r.body["id"].as_str().unwrap().to_owned();
    // Crash once the window has moved on (the front, the window and two slides are held).
    wait_until(&a.server(), &id, 600, |j| {
        j["progress"]["computed"].as_u64().unwrap_or(0) > 5 * window
    })
    .await;
    a.kill9();
    let (b, _) = resumed_after_crash(&env, &id, n).await;
    let s = b.server();
    let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    assert_statistics(&doc.body, &want);
    // The values between the front and the window left memory, not the disk: the values
    // download reads them from the job's chunks (beyond GRUNDY_OCTAL_MAX_N, so nothing else
    // could answer), and equal keeping every value.
    for (start, count) in [(500_000u64, 1_000u64), (0, 70_000), (n - 70_000, 70_000)] {
        let got = s
            .get(&format!(
                "/v1/octal/0.167/values?start={start}&count={count}"
            ))
            .await;
        assert_eq!(got.status.as_u16(), 200, "{}", got.text);
        let got: Vec<u32> = serde_json::from_value(got.body["values"].clone()).unwrap();
        let range = start as usize..(start + count) as usize;
        assert!(got == all[range.clone()], "values {range:?} differ");
    }
    // Past what the job computed: the 409 says how far the values go.
    let past = s
        .get(&format!("/v1/octal/0.167/values?start={n}&count=10"))
        .await;
    assert_eq!(past.status.as_u16(), 409, "{}", past.text);
    let detail = past.body["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("0..={}", n - 1)), "{detail}");
}

/// `.034` in a window of 2^16 (the least a job takes): its mask changes at a review near
/// 196,000 (`ff` → `1ff`, the tables built again from the archive), two of its rare positions
/// lie beyond the window (paired through values read back a run at a time) and a rare check
/// near 370,000 scans past the kept values. Killed while it reads back, resumed, it ends with
/// every value — read back from its store — equal to keeping them all.
#[tokio::test]
async fn a_window_job_reads_back_past_its_window_and_equals_keeping_every_value() {
    let url = common::temp_sqlite_url();
    let env = job_env(&url);
    let (code, n, window) = ("0.034", 1usize << 19, 1u64 << 16);
    let want = keep_all(code, n);
    let mut a = Process::spawn(&env).await;
    let r = a
        .server()
        .post(
            "/v1/octal/jobs",
            &json!({"code": code, "max_n": n, "keep": "window", "window": window}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["archive"]["disk_bytes"], 0, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    // Crash while the job reads back: once a far rare position is paired through the archive.
    let j = wait_until(&a.server(), &id, 600, |j| {
        j["archive"]["reads"].as_u64().unwrap_or(0) >= 1
    })
    .await;
    assert!(j["archive"]["disk_bytes"].as_u64().unwrap() > 0, "{j}");
    a.kill9();
    let (b, done) = resumed_after_crash(&env, &id, n as u64).await;
    let s = b.server();
    let archive = &done["archive"];
    assert_eq!(archive["far_rare_positions"], 2, "{done}");
    assert!(archive["deep_scans"].as_u64().unwrap() >= 1, "{done}");
    assert!(archive["reads"].as_u64().unwrap() >= 2, "{done}");
    assert!(archive["values_read"].as_u64().unwrap() > 0, "{done}");
    assert_eq!(archive.get("rebuilt"), None, "{done}");
    // About a byte a value or less: every value is on disk, compressed.
    let bytes = archive["disk_bytes"].as_u64().unwrap();
    assert!(bytes > 10_000 && bytes < n as u64, "{bytes}");
    let metrics = s
        .client
        .get(format!("{}/metrics", s.base))
        .send()
        .await
        .unwrap();
    let text = metrics.text().await.unwrap();
    assert!(
        text.contains(&format!("grundy_jobs_disk_bytes {bytes}")),
        "{}",
        text.lines()
            .filter(|l| l.contains("disk_bytes"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    let mut stats = Statistics::new();
    stats.observe_block(0, &want).unwrap();
    assert_statistics(&doc.body, &stats);
    // Every value through the API too (binary, little-endian, as wide as the largest value).
    let bin = s
        .client
        .get(format!(
            "{}/v1/octal/{code}/values?start=0&count={n}",
            s.base
        ))
        .header("accept", "application/octet-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(bin.status().as_u16(), 200);
    let width: usize = bin.headers()["x-grundy-value-bytes"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let bytes = bin.bytes().await.unwrap();
    assert_eq!(bytes.len(), n * width);
    let downloaded: Vec<u32> = bytes
        .chunks(width)
        .map(|b| b.iter().rev().fold(0u32, |v, &x| (v << 8) | u32::from(x)))
        .collect();
    assert!(
        downloaded == want,
        "the download differs from keeping every value"
    );
    drop(b);
    let got = window_values(&url, &id).await;
    assert_eq!(got.len(), n);
    if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
        panic!(
            "G({i}) = {} stored, {} keeping every value",
            got[i], want[i]
        );
    }
}

/// A window job's archive damaged while the server is down — a chunk's bytes changed, or a
/// chunk gone — is found when the job resumes (the checksums), never read: the job says so in
/// its document, starts over from heap 0 and ends with exact statistics.
#[tokio::test]
async fn a_damaged_archive_is_found_on_resume_and_rebuilt_never_used() {
    for damage in ["corrupt", "missing"] {
        let url = common::temp_sqlite_url();
        let env = job_env(&url);
        let (n, window) = (1u64 << 19, 1u64 << 16);
        let mut a = Process::spawn(&env).await;
        let r = window_job(&a, n, window).await;
        let id = r.body["id"].as_str().unwrap().to_owned();
        // Once chunk 2 (heaps 131072..196608) is archived: the front and the window are 2^16.
        wait_until(&a.server(), &id, 600, |j| {
            j["progress"]["computed"].as_u64().unwrap_or(0) > 5 * window
        })
        .await;
        a.kill9();
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        if damage == "corrupt" {
            let (data,): (Vec<u8>,) =
                sqlx::query_as("SELECT data FROM job_window_chunks WHERE job_id = ? AND chunk = 2")
                    .bind(&id)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            let mut bad = data.clone();
            let last = bad.len() - 1;
            bad[last] ^= 0x10;
            bad[6] ^= 0x01; // and the checksum: either alone is caught
            sqlx::query("UPDATE job_window_chunks SET data = ? WHERE job_id = ? AND chunk = 2")
                .bind(bad)
                .bind(&id)
                .execute(&pool)
                .await
                .unwrap();
        } else {
            sqlx::query("DELETE FROM job_window_chunks WHERE job_id = ? AND chunk = 2")
                .bind(&id)
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
        let b = Process::spawn(&env).await;
        let s = b.server();
        let done = wait_job(&s, &id).await;
        assert_eq!(done["status"], "done", "{damage}: {done}");
        let note = done["archive"]["rebuilt"].as_str().unwrap_or_default();
        assert!(
            note.contains("chunk 2") && note.contains("heap 0"),
            "{damage}: {done}"
        );
        let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
        assert_statistics(&doc.body, &recount("0.167", n as usize));
    }
}

#[tokio::test]
async fn job_requests_are_checked_field_by_field() {
    let s = common::start_with(fast_jobs()).await;
    let bad = |body: Value, field: &'static str, words: &'static str| {
        let s = &s;
        async move {
            let r = s.post("/v1/octal/jobs", &body).await;
            common::assert_problem(&r, 422, words);
            assert_eq!(r.body["field"], field, "{body}: {}", r.text);
        }
    };
    for (body, field, words) in [
        (
            json!({"code": "0.6", "max_n": 2_000_000_000u64}),
            "max_n",
            "keep\": \"window\" may go further",
        ),
        // A window option with an explicit "keep": "all" conflicts (without `keep` it implies
        // window mode: below).
        (
            json!({"code": "0.6", "max_n": 1000, "keep": "all", "window": 65536}),
            "window",
            "only a job with",
        ),
        (
            json!({"code": "0.6", "max_n": 1000, "keep": "all", "store_values": true}),
            "store_values",
            "only a job with",
        ),
        (
            json!({"code": "0.6", "max_n": 1000, "keep": "window", "window": 1000}),
            "window",
            "multiple of 65536",
        ),
        (
            json!({"code": "0.6", "max_n": 1u64 << 49, "keep": "window"}),
            "max_n",
            "GRUNDY_JOB_WINDOW_MAX_N",
        ),
        // Window mode cannot compute a digit leaving three heaps, or recurring digits: refused
        // naming the digit while the window is smaller than max_n (issue 46) …
        (
            json!({"code": "0.8F", "max_n": 1u64 << 25, "keep": "window"}),
            "keep",
            "digit d1 = 8 leaves three heaps",
        ),
        (
            json!({"code": "0.(B)", "max_n": 1u64 << 20, "window": 65536}),
            "keep",
            "recurring digit B",
        ),
    ] {
        bad(body, field, words).await;
    }
    // … and accepted when the window holds every value (window ≥ max_n): run as keeping all.
    for body in [
        json!({"keep": "window", "code": ".F2AC", "window": 109576192, "max_n": 416352}),
        json!({"code": "0.8F", "max_n": 1000, "keep": "window"}),
        json!({"code": "0.(B)", "max_n": 65536, "window": 65536}),
    ] {
        let r = s.post("/v1/octal/jobs", &body).await;
        assert_eq!(r.status.as_u16(), 202, "{body}: {}", r.text);
        assert_eq!(r.body["keep"], "all", "{body}: {}", r.text);
        assert_eq!(r.body["window"], Value::Null);
        assert_eq!(r.body["store_values"], true);
        cancel_submitted(&s, &r).await;
    }
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 10, "keep": "sometimes"}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 422, "{}", r.text);
    assert_eq!(r.body["field"], "keep");
    // 2^48 heaps in window mode are accepted (and cancelled here at once).
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.167", "max_n": 1u64 << 48, "keep": "window", "store_values": true}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["window"], 1u64 << 24);
    assert_eq!(r.body["store_values"], true);
    let id = r.body["id"].as_str().unwrap();
    let c = s.delete(&format!("/v1/octal/jobs/{id}")).await;
    assert_eq!(c.status.as_u16(), 200, "{}", c.text);

    // Without `keep`, a window option implies "keep": "window" (issue 31): a window, or
    // store_values, and window mode's limit of max_n with them.
    for (body, window, store_values) in [
        (
            json!({"code": "0.167", "max_n": 1u64 << 40, "window": 131072}),
            131072u64,
            false,
        ),
        (
            json!({"code": "0.167", "max_n": 1u64 << 40, "store_values": true}),
            1 << 24,
            true,
        ),
        (
            json!({"code": "0.167", "max_n": 1000, "keep": null, "window": 65536, "store_values": false}),
            65536,
            false,
        ),
    ] {
        let r = s.post("/v1/octal/jobs", &body).await;
        assert_eq!(r.status.as_u16(), 202, "{body}: {}", r.text);
        assert_eq!(r.body["keep"], "window", "{body}");
        assert_eq!(r.body["window"], window, "{body}");
        assert_eq!(r.body["store_values"], store_values, "{body}");
        cancel_submitted(&s, &r).await;
    }
    // Neither: a job that keeps every value, as before.
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 100, "window": null}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["keep"], "all");
}

/// A job whose values were all stored by an earlier one still ran: it reports its threads and
/// CPU time (numbers, 0 included; null only before a run), and one that reuses a prefix shows
/// it as progress (issue 46).
#[tokio::test]
async fn a_job_that_reuses_stored_values_reports_threads_and_cpu_time() {
    // Paced, a second between slices: the reused prefix stays the job's progress for a second
    // on any machine, long enough to be seen.
    let s = common::start_with(Config {
        job_checkpoint: Duration::from_secs(1),
        job_pace: Some(1 << 16),
        ..fast_jobs()
    })
    .await;
    let submit = |n: u64| {
        let s = &s;
        async move {
            let r = s
                .post("/v1/octal/jobs", &json!({"code": "0.167", "max_n": n}))
                .await;
            assert_eq!(r.status.as_u16(), 202, "{}", r.text);
            r.body["id"].as_str().unwrap().to_owned()
        }
    };
    let first = submit(1 << 16).await;
    let done = common::wait_job(&s, &first).await;
    assert_eq!(done["status"], "done", "{done}");
    let again = submit(1 << 16).await;
    let reused = common::wait_job(&s, &again).await;
    assert_eq!(reused["status"], "done", "{reused}");
    assert_eq!(reused["progress"]["computed"], 1 << 16);
    assert_eq!(reused["threads"], 1, "{reused}");
    assert!(reused["cpu_seconds"].as_f64().is_some(), "{reused}");
    assert!(reused["engine"]["commit"].is_string(), "{reused}");
    // A longer one: once running, its progress starts at the stored prefix.
    let longer = submit(1 << 18).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    let mut seen = Vec::new();
    loop {
        let r = s.get(&format!("/v1/octal/jobs/{longer}")).await;
        let (status, computed) = (
            r.body["status"].as_str().unwrap().to_owned(),
            r.body["progress"]["computed"].as_u64().unwrap(),
        );
        seen.push((status.clone(), computed));
        if status == "done" || std::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen.last().unwrap().0, "done", "{seen:?}");
    // The first checkpoint (a computed count above 0) is the stored prefix, not a slice's end.
    let first_progress = seen.iter().map(|(_, c)| *c).find(|&c| c > 0).unwrap();
    assert_eq!(first_progress, 1 << 16, "{seen:?}");
}
