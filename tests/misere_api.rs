//! Misère play of octal games through HTTP, against an independent brute force: the outcome
//! and every winning move of `POST /v1/octal/winning-moves` with `"play": "misere"` (through
//! the quotient, and through the exact search when the quotient is out of time), Bouton's rule
//! for misère Nim, the published quotients of `POST /v1/octal/misere/quotient` (0.123:
//! |Q| = 20, |P| = 5, Plambeck 2005; Q_30 of Dawson's Kayles: 360 elements, Plambeck–Siegel),
//! outcomes recomputed from the quotient's own table and Φ, pagination, and the limits; and
//! quotients computed by jobs (`"async": true`): the job document, one job per owner and
//! quotient and one computation per quotient, cancel, the job's limits, and `kill -9` in the
//! middle — resumed from the verified quotient it saved, or from scratch when that fails its
//! check.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use common::{wait_job, Process};
use grundy::config::Config;
use serde_json::{json, Value};

/// The digit d_u of a code: `0.d1d2…` (digits ≤ 7), or every digit 3 (Nim, `0.(3)`).
#[derive(Clone)]
enum Digits {
    Finite(Vec<u8>),
    Nim,
}

impl Digits {
    fn of(code: &str) -> Digits {
        if code == "0.(3)" {
            return Digits::Nim;
        }
        let tail = code.strip_prefix("0.").unwrap();
        Digits::Finite(tail.bytes().map(|b| b - b'0').collect())
    }
    fn digit(&self, u: u64) -> u8 {
        match self {
            Digits::Nim => 3,
            Digits::Finite(d) => d.get(u as usize - 1).copied().unwrap_or(0),
        }
    }
    fn max_take(&self, heap: u64) -> u64 {
        match self {
            Digits::Nim => heap,
            Digits::Finite(d) => (d.len() as u64).min(heap),
        }
    }
}

/// A move as `(heap index, take, leave ascending)`.
type Mv = (usize, i64, Vec<u64>);

/// Misère play by the definitions: positions are sorted heap lists, the player who cannot
/// move wins. Independent of the server's code (nothing of `grundy` is used).
struct Brute {
    digits: Digits,
    memo: HashMap<Vec<u64>, bool>,
}

impl Brute {
    fn new(code: &str) -> Brute {
        Brute {
            digits: Digits::of(code),
            memo: HashMap::new(),
        }
    }

    /// Every move of a heap of size `h`: `(take, leave)`.
    fn heap_moves(&self, h: u64) -> Vec<(i64, Vec<u64>)> {
        let mut out = Vec::new();
        for u in 1..=self.digits.max_take(h) {
            let d = self.digits.digit(u);
            let r = h - u;
            if d & 1 != 0 && r == 0 {
                out.push((u as i64, vec![]));
            }
            if d & 2 != 0 && r > 0 {
                out.push((u as i64, vec![r]));
            }
            if d & 4 != 0 && r >= 2 {
                for a in 1..=r / 2 {
                    out.push((u as i64, vec![a, r - a]));
                }
            }
        }
        out
    }

    fn moves(&self, pos: &[u64]) -> Vec<(Mv, Vec<u64>)> {
        let mut out = Vec::new();
        for (i, &h) in pos.iter().enumerate() {
            if pos[..i].contains(&h) {
                continue;
            }
            for (take, leave) in self.heap_moves(h) {
                let mut next: Vec<u64> = pos[..i].to_vec();
                next.extend_from_slice(&pos[i + 1..]);
                next.extend_from_slice(&leave);
                next.retain(|&x| x > 0);
                next.sort_unstable();
                out.push(((i, take, leave), next));
            }
        }
        out
    }

    /// Whether the player to move wins (misère).
    fn wins(&mut self, pos: &[u64]) -> bool {
        let mut key = pos.to_vec();
        key.retain(|&x| x > 0);
        key.sort_unstable();
        if let Some(&w) = self.memo.get(&key) {
            return w;
        }
        let moves = self.moves(&key);
        let w = moves.is_empty() || moves.into_iter().any(|(_, next)| !self.wins(&next));
        self.memo.insert(key, w);
        w
    }

    fn winning_moves(&mut self, pos: &[u64]) -> BTreeSet<Mv> {
        self.moves(pos)
            .into_iter()
            .filter(|(_, next)| !self.wins(next))
            .map(|(m, _)| m)
            .collect()
    }
}

/// All multisets of 1..=`count` heaps of sizes 0..=`max`, ascending.
fn sums(count: usize, max: u64) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    fn rec(pos: &mut Vec<u64>, from: u64, max: u64, count: usize, out: &mut Vec<Vec<u64>>) {
        if !pos.is_empty() {
            out.push(pos.clone());
        }
        if pos.len() == count {
            return;
        }
        for h in from..=max {
            pos.push(h);
            rec(pos, h, max, count, out);
            pos.pop();
        }
    }
    rec(&mut Vec::new(), 0, max, count, &mut out);
    out
}

fn moves_of(r: &Value) -> BTreeSet<Mv> {
    r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["heap_index"].as_u64().unwrap() as usize,
                m["take"].as_i64().unwrap(),
                common::u64s(&m["leave"]),
            )
        })
        .collect()
}

/// Checks `play: misere` on `positions` against the brute force; returns the sources seen.
async fn check(s: &common::App, code: &str, positions: &[Vec<u64>]) -> BTreeSet<String> {
    let mut brute = Brute::new(code);
    let mut sources = BTreeSet::new();
    for pos in positions {
        let r = s
            .ok(
                "/v1/octal/winning-moves",
                &json!({"code": code, "heaps": pos, "play": "misere"}),
            )
            .await;
        let expect = if brute.wins(pos) { "N" } else { "P" };
        assert_eq!(r["outcome"], expect, "{code} {pos:?}: {r}");
        assert_eq!(r["play"], "misere");
        assert!(r.get("value").is_none(), "no nim value in misère: {r}");
        assert_eq!(
            moves_of(&r),
            brute.winning_moves(pos),
            "{code} {pos:?}: winning moves"
        );
        sources.insert(r["source"].as_str().unwrap().to_owned());
    }
    sources
}

/// 20 codes: Kayles, Dawson's Kayles and Dawson's Chess, Nim, Plambeck's 0.123, and codes with
/// known normal-play periods, tame and wild.
const CODES: &[&str] = &[
    "0.77", "0.07", "0.137", "0.(3)", "0.123", "0.6", "0.51", "0.15", "0.04", "0.14", "0.16",
    "0.26", "0.34", "0.44", "0.53", "0.54", "0.71", "0.72", "0.75", "0.12",
];

#[tokio::test]
async fn misere_winning_moves_match_brute_force() {
    let s = common::app().await;
    for code in CODES {
        let mut positions = sums(3, 7);
        // Some larger sums: up to four heaps of at most 12.
        positions.extend([
            vec![12, 11, 10, 9],
            vec![12, 12, 5, 1],
            vec![3, 7, 11, 12],
            vec![1, 1, 1, 12],
            vec![2, 4, 6, 8],
            vec![12],
            vec![0, 0, 12],
        ]);
        let sources = check(&s, code, &positions).await;
        assert_eq!(
            sources,
            BTreeSet::from(["quotient".to_owned()]),
            "{code}: every heap within the quotient"
        );
    }
}

/// Without time for a quotient, every answer comes from the exact search, still exact.
#[tokio::test]
async fn the_exact_search_answers_when_the_quotient_is_out_of_time() {
    let s = common::app_with(Config {
        octal_sync_time: Duration::ZERO,
        ..common::config()
    })
    .await;
    for code in ["0.77", "0.07", "0.137", "0.(3)"] {
        // (Q_0 takes no time: sums of empty heaps still come from it.)
        let positions: Vec<Vec<u64>> = sums(3, 5)
            .into_iter()
            .filter(|p| p.iter().any(|&h| h > 0))
            .collect();
        let sources = check(&s, code, &positions).await;
        assert!(sources.contains("search"), "{code}: {sources:?}");
        assert!(!sources.contains("quotient"), "{code}: {sources:?}");
    }
    // A search too large for the budget is a budget problem naming the heaps.
    let s = common::app_with(Config {
        octal_sync_time: Duration::from_millis(50),
        search_max_steps: 10_000,
        ..common::config()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/winning-moves",
            &json!({"code": "0.07", "heaps": [900, 950, 1000], "play": "misere"}),
        )
        .await;
    common::assert_problem(&r, 422, "heaps:");
    assert_eq!(r.body["type"], "/problems/budget-exceeded");
    assert_eq!(r.body["field"], "heaps");
}

/// Misère Nim: the player to move loses iff every heap is at most 1 and their number is odd,
/// or some heap is at least 2 and the nim-sum is 0 (Bouton 1902).
#[tokio::test]
async fn misere_nim_is_boutons_rule() {
    let s = common::app().await;
    for pos in sums(3, 9)
        .into_iter()
        .chain([vec![1, 1, 1, 1, 1], vec![20, 17, 5]])
    {
        let r = s
            .ok(
                "/v1/octal/winning-moves",
                &json!({"code": "0.(3)", "heaps": pos, "play": "misere"}),
            )
            .await;
        let x = pos.iter().fold(0, |a, b| a ^ b);
        let big = pos.iter().any(|&h| h >= 2);
        let ones = pos.iter().filter(|&&h| h == 1).count();
        let p = if big { x == 0 } else { ones % 2 == 1 };
        assert_eq!(r["outcome"], if p { "P" } else { "N" }, "{pos:?}");
    }
}

async fn quotient(s: &common::App, code: &str, max_heap: u64, rows: u64) -> Value {
    s.ok(
        "/v1/octal/misere/quotient",
        &json!({"code": code, "max_heap": max_heap, "table_rows": rows}),
    )
    .await
}

#[tokio::test]
async fn published_quotients() {
    let s = common::app().await;
    let q = quotient(&s, "0.123", 20, 0).await;
    assert_eq!(
        (q["q_size"].as_u64(), q["p_size"].as_u64()),
        (Some(20), Some(5))
    );
    assert_eq!(q["code"], "0.123");
    assert_eq!(q["max_heap"], 20);
    assert_eq!(q["phi"].as_array().unwrap().len(), 21);
    assert_eq!(q["elements"].as_array().unwrap().len(), 20);
    assert_eq!(q["p_portion"].as_array().unwrap().len(), 5);
    assert!(q["table"].is_null());
    assert_eq!(q["tame"], false);
    let q = quotient(&s, "0.07", 30, 0).await;
    assert_eq!(q["q_size"], 360);
    // Misère Nim on heaps 0..=3 is tame (rank 2): six elements, P = {a, b^2}.
    let q = quotient(&s, "0.(3)", 3, 0).await;
    assert_eq!(q["tame"], true);
    assert_eq!(q["tame_rank"], 2);
    assert_eq!(q["q_size"], 6);
    assert_eq!(q["p_size"], 2);
}

/// The quotient's own table and Φ give the outcome of every sum of heaps it covers; its
/// table is a commutative monoid with identity 0; pages of rows fit together.
#[tokio::test]
async fn outcomes_from_the_quotient_table_match_brute_force() {
    let s = common::app().await;
    for (code, bound) in [
        ("0.123", 10),
        ("0.77", 12),
        ("0.07", 12),
        ("0.137", 12),
        ("0.6", 12),
    ] {
        let q = quotient(&s, code, bound, 256).await;
        let n = q["q_size"].as_u64().unwrap() as usize;
        let table: Vec<Vec<u64>> = q["table"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(common::u64s)
            .collect();
        assert_eq!(table.len(), n, "{code}: one page holds every row");
        assert!(q["table"]["next_offset"].is_null());
        for (a, row) in table.iter().enumerate() {
            assert_eq!(table[0][a], a as u64, "{code}: 0 is the identity");
            for (b, &ab) in row.iter().enumerate() {
                assert_eq!(ab, table[b][a], "{code}: commutative");
            }
        }
        let phi = common::u64s(&q["phi"]);
        let p: BTreeSet<u64> = common::u64s(&q["p_portion"]).into_iter().collect();
        let mut brute = Brute::new(code);
        for pos in sums(4, bound)
            .into_iter()
            .filter(|p| p.len() <= 3 || p[3] <= 8)
        {
            let x = pos
                .iter()
                .fold(0u64, |x, &h| table[x as usize][phi[h as usize] as usize]);
            assert_eq!(p.contains(&x), !brute.wins(&pos), "{code} {pos:?}");
        }
        // Pages of 3 rows give the same table.
        let mut offset = 0u64;
        let mut rows = Vec::new();
        loop {
            let page = s
                .ok(
                    "/v1/octal/misere/quotient",
                    &json!({"code": code, "max_heap": bound, "table_rows": 3, "table_offset": offset}),
                )
                .await;
            assert_eq!(page["table"]["offset"], offset);
            rows.extend(
                page["table"]["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(common::u64s),
            );
            match page["table"]["next_offset"].as_u64() {
                Some(next) => offset = next,
                None => break,
            }
        }
        assert_eq!(rows, table, "{code}: pages");
    }
}

#[tokio::test]
async fn pagination_cursors_and_limits() {
    let s = common::app().await;
    let req = json!({"code": "0.(3)", "heaps": [1, 12, 13, 14], "play": "misere"});
    let all = s.ok("/v1/octal/winning-moves", &req).await;
    let all_moves = moves_of(&all);
    assert_eq!(all_moves.len(), 3, "{all}");
    let mut cursor = Value::Null;
    let mut paged = BTreeSet::new();
    loop {
        let mut r = req.clone();
        r["limit"] = json!(1);
        r["cursor"] = cursor.clone();
        let page = s.ok("/v1/octal/winning-moves", &r).await;
        assert!(page["moves"].as_array().unwrap().len() <= 1);
        paged.extend(moves_of(&page));
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(paged, all_moves);
    // A misère cursor of another query, or a normal-play cursor, is refused.
    let first = {
        let mut r = req.clone();
        r["limit"] = json!(1);
        s.ok("/v1/octal/winning-moves", &r).await["next_cursor"].clone()
    };
    let other = json!({"code": "0.(3)", "heaps": [1, 12, 13], "play": "misere", "cursor": first});
    let r = s.post("/v1/octal/winning-moves", &other).await;
    common::assert_problem(&r, 422, "invalid cursor");
    let normal = json!({"code": "0.(3)", "heaps": [1, 12, 13, 14], "cursor": first, "limit": 1});
    let r = s.post("/v1/octal/winning-moves", &normal).await;
    common::assert_problem(&r, 422, "cursor");
    // Normal play is unchanged: the nim-sum value is there.
    let r = s
        .ok(
            "/v1/octal/winning-moves",
            &json!({"code": "0.(3)", "heaps": [1, 2]}),
        )
        .await;
    assert_eq!(r["value"], 3);
    assert_eq!(r["play"], "normal");
    assert!(r.get("source").is_none());
    // Limits of the quotient endpoint.
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 1001}),
        )
        .await;
    common::assert_problem(&r, 422, "max_heap");
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 3, "table_rows": 257}),
        )
        .await;
    common::assert_problem(&r, 422, "table_rows");
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.9x", "max_heap": 3}),
        )
        .await;
    common::assert_problem(&r, 422, "code");
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": -1}),
        )
        .await;
    assert!(matches!(r.status.as_u16(), 400 | 422), "{}", r.text);
    let r = s
        .post(
            "/v1/octal/winning-moves",
            &json!({"code": "0.07", "heaps": [1], "play": "reverse"}),
        )
        .await;
    assert!(matches!(r.status.as_u16(), 400 | 422), "{}", r.text);
    assert_eq!(r.body["field"], "play", "{}", r.text);
}

/// A quotient that does not fit the time limit is a budget problem naming `max_heap` and
/// saying how far it got.
#[tokio::test]
async fn a_quotient_out_of_time_is_a_budget_problem() {
    let s = common::app_with(Config {
        octal_sync_time: Duration::ZERO,
        ..common::config()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 30}),
        )
        .await;
    common::assert_problem(&r, 422, "GRUNDY_OCTAL_SYNC_MS");
    assert_eq!(r.body["type"], "/problems/budget-exceeded");
    assert_eq!(r.body["field"], "max_heap");
}

/// A computed quotient is stored: a second application on the same store reads it back
/// (with no time to compute, it could not answer otherwise).
#[tokio::test]
async fn quotients_are_stored_and_read_back() {
    let url = common::temp_sqlite_url();
    let s = common::app_with(Config {
        database_url: Some(url.clone()),
        ..common::config()
    })
    .await;
    let first = quotient(&s, "0.123", 20, 5).await;
    // The write is in the background: wait for it (the deadline only ends a hang).
    let mut second = None;
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    while std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let t = common::app_with(Config {
            database_url: Some(url.clone()),
            octal_sync_time: Duration::ZERO,
            ..common::config()
        })
        .await;
        let r = t
            .post(
                "/v1/octal/misere/quotient",
                &json!({"code": "0.123", "max_heap": 20, "table_rows": 5}),
            )
            .await;
        if r.status == 200 {
            second = Some(r.body);
            break;
        }
    }
    assert_eq!(second.expect("the quotient was stored"), first);
}

/// Fast checkpoints, a short lease, and one heap of a quotient per checkpoint at most
/// (`GRUNDY_JOB_PACE`): Q_32 takes at least 32 checkpoints on any machine, so that a test sees
/// it running (a slow machine only makes it last longer).
fn fast_jobs() -> Config {
    Config {
        job_pace: Some(1),
        ..common::fast_jobs()
    }
}

/// A request to a real server, as the key `key` (`None`: none).
async fn call(
    s: &common::Server,
    key: Option<&str>,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> common::Reply {
    let mut req = s.client.request(method, format!("{}{path}", s.base));
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("request");
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.bytes().await.unwrap_or_default();
    common::Reply::new(status, headers, &bytes)
}

/// Polls a job (as `key`) until `done(job)` or the deadline; the last document read.
async fn wait_for(
    s: &common::Server,
    key: Option<&str>,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    // Only a hang's end: how long a job takes depends on the machine.
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    loop {
        let j = call(
            s,
            key,
            reqwest::Method::GET,
            &format!("/v1/octal/jobs/{id}"),
            None,
        )
        .await
        .body;
        if done(&j) || std::time::Instant::now() > deadline {
            return j;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `"async": true`: 202 with the job document (kind `misere_quotient`) and a Location at the
/// job; the job is listed (and filtered by kind), watched and done, and the quotient is then
/// read where its `location` says — the same answer as the synchronous one. A quotient never
/// computed nor submitted is a 404 there; a computed one is answered at once (200).
#[tokio::test]
async fn background_quotients_are_jobs() {
    let s = common::start_with(fast_jobs()).await;
    let r = s
        .get("/v1/octal/misere/quotient?code=0.123&max_heap=19")
        .await;
    common::assert_problem(&r, 404, "neither computed nor being computed");
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": ".123", "max_heap": 19, "async": true}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        r.headers["location"].to_str().unwrap(),
        format!("/v1/octal/jobs/{id}")
    );
    assert_eq!(r.body["kind"], "misere_quotient");
    assert_eq!(r.body["code"], "0.123");
    assert_eq!(r.body["max_heap"], 19);
    assert_eq!(r.body["max_n"], 19);
    assert!(matches!(
        r.body["status"].as_str(),
        Some("queued" | "running")
    ));
    let location = r.body["quotient"]["location"].as_str().unwrap().to_owned();
    assert_eq!(location, "/v1/octal/misere/quotient?code=0.123&max_heap=19");
    // As submitted it has not run: no threads, CPU time or engine yet.
    for field in ["threads", "cpu_seconds", "engine"] {
        assert!(r.body[field].is_null(), "{field}: {}", r.text);
    }
    // Its events end with `done`, whose data is the finished job.
    let events = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/events", s.base))
        .send()
        .await
        .unwrap();
    let text = tokio::time::timeout(common::UNHURRIED, events.text())
        .await
        .expect("the stream ends")
        .unwrap();
    let done_data = text
        .split("event: done\ndata: ")
        .nth(1)
        .expect("a done event")
        .lines()
        .next()
        .unwrap();
    let done: Value = serde_json::from_str(done_data).unwrap();
    assert_eq!(done["status"], "done");
    assert_eq!(done["quotient"]["heap"], 19);
    assert_eq!(
        (&done["quotient"]["q_size"], &done["quotient"]["p_size"]),
        (&json!(20), &json!(5))
    );
    assert_eq!(done["progress"]["computed"], 19);
    // It computed on one thread, with this engine; its CPU time is measured (ticks of 10 ms:
    // a small quotient may take less than one).
    assert_eq!(done["threads"], 1, "{done}");
    assert_eq!(
        done["engine"]["version"],
        env!("CARGO_PKG_VERSION"),
        "{done}"
    );
    assert!(
        !done["engine"]["commit"].as_str().unwrap().is_empty(),
        "{done}"
    );
    assert!(done["cpu_seconds"].as_f64().unwrap() >= 0.0, "{done}");
    let r = s.get(&format!("{location}&table_rows=3")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let app = common::app().await;
    assert_eq!(r.body, quotient(&app, "0.123", 19, 3).await);
    // Submitting a computed quotient answers it at once.
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.123", "max_heap": 19, "async": true, "table_rows": 3}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["q_size"], 20);
    // The list: every kind, or one.
    let all = s.get("/v1/octal/jobs").await.body;
    assert_eq!(all["jobs"][0]["id"], id.as_str());
    let mine = s.get("/v1/octal/jobs?kind=misere_quotient").await.body;
    assert_eq!(mine["jobs"].as_array().unwrap().len(), 1);
    let seq = s.get("/v1/octal/jobs?kind=sequence").await.body;
    assert_eq!(seq["jobs"].as_array().unwrap().len(), 0);
    let r = s.get("/v1/octal/jobs?kind=census").await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.body["field"], "kind", "{}", r.text);
    // A sequence job says its kind too.
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": 100}))
        .await;
    assert_eq!(r.body["kind"], "sequence", "{}", r.text);
    assert!(r.body.get("quotient").is_none() && r.body.get("max_heap").is_none());
    // Bad parameters are named.
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.123", "max_heap": 1001, "async": true}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.body["field"], "max_heap");
    let r = s.get("/v1/octal/misere/quotient?code=0.123").await;
    assert!(matches!(r.status.as_u16(), 400 | 422), "{}", r.text);
}

/// Without a store there is no job: 503, and the synchronous answer still works.
#[tokio::test]
async fn background_quotients_need_the_store() {
    let s = common::app_with(Config {
        database_url: None,
        ..common::config()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 20, "async": true}),
        )
        .await;
    assert_eq!(r.status, 503, "{}", r.text);
    assert_eq!(quotient(&s, "0.07", 20, 0).await["q_size"], 24);
}

/// One computation per quotient: a second request of the same key joins its job (the same
/// id); another key's request gets a job of its own that waits queued — never claimed while
/// the first computes — showing the first's progress, and ends done with it. Neither key sees
/// the other's job; the admin sees both.
#[tokio::test]
async fn one_computation_per_quotient_and_each_key_its_own_job() {
    use grundy::service::keys::{key_file_line, new_key, KeyRing, Scope};
    let (alice, bob, root) = (new_key().unwrap(), new_key().unwrap(), new_key().unwrap());
    let file = [
        key_file_line("alice", &[Scope::Jobs], &alice),
        key_file_line("bob", &[Scope::Jobs], &bob),
        key_file_line("root", &[Scope::Admin], &root),
    ]
    .join("\n");
    let s = common::start_with(Config {
        api_keys: Some(std::sync::Arc::new(KeyRing::parse(&file).unwrap())),
        ..fast_jobs()
    })
    .await;
    use reqwest::Method;
    let submit = |key: String| {
        let s = &s;
        async move {
            call(
                s,
                Some(&key),
                Method::POST,
                "/v1/octal/misere/quotient",
                Some(json!({"code": "0.07", "max_heap": 32, "async": true})),
            )
            .await
        }
    };
    // No key: 401, nothing submitted.
    let r = call(
        &s,
        None,
        Method::POST,
        "/v1/octal/misere/quotient",
        Some(json!({"code": "0.07", "max_heap": 32, "async": true})),
    )
    .await;
    assert_eq!(r.status, 401, "{}", r.text);
    let a = submit(alice.clone()).await;
    assert_eq!(a.status, 202, "{}", a.text);
    assert_eq!(a.body["owner"], "alice");
    let a_id = a.body["id"].as_str().unwrap().to_owned();
    let again = submit(alice.clone()).await;
    assert_eq!(again.status, 202, "{}", again.text);
    assert_eq!(
        again.body["id"],
        a_id.as_str(),
        "the same key joins its job"
    );
    // Running, then bob asks for the same quotient.
    let running = wait_for(&s, Some(&alice), &a_id, |j| {
        j["status"] == "running" && j["quotient"]["heap"].as_u64() > Some(0)
    })
    .await;
    assert_eq!(running["status"], "running", "{running}");
    let b = submit(bob.clone()).await;
    assert_eq!(b.status, 202, "{}", b.text);
    let b_id = b.body["id"].as_str().unwrap().to_owned();
    assert_ne!(b_id, a_id);
    assert_eq!(b.body["owner"], "bob");
    // Neither sees the other's job.
    for (key, other) in [(&bob, &a_id), (&alice, &b_id)] {
        let r = call(
            &s,
            Some(key),
            Method::GET,
            &format!("/v1/octal/jobs/{other}"),
            None,
        )
        .await;
        assert_eq!(r.status, 404, "{}", r.text);
        let r = call(
            &s,
            Some(key),
            Method::DELETE,
            &format!("/v1/octal/jobs/{other}"),
            None,
        )
        .await;
        assert_eq!(r.status, 404, "{}", r.text);
    }
    let list = call(
        &s,
        Some(&bob),
        Method::GET,
        "/v1/octal/jobs?kind=misere_quotient",
        None,
    )
    .await
    .body;
    let ids: Vec<&str> = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [b_id.as_str()]);
    let list = call(
        &s,
        Some(&root),
        Method::GET,
        "/v1/octal/jobs?kind=misere_quotient",
        None,
    )
    .await
    .body;
    assert_eq!(list["jobs"].as_array().unwrap().len(), 2, "{list}");
    // Bob's job waits, never claimed, while alice's computes; both end done together.
    let mut saw_progress = false;
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    loop {
        let jb = call(
            &s,
            Some(&bob),
            Method::GET,
            &format!("/v1/octal/jobs/{b_id}"),
            None,
        )
        .await
        .body;
        if jb["status"] == "done" {
            assert_eq!(jb["attempts"], 0, "bob's job was never computed: {jb}");
            assert_eq!(jb["quotient"]["q_size"], 552, "{jb}");
            assert_eq!(jb["quotient"]["p_size"], 93, "{jb}");
            // It never ran: no threads nor CPU time of its own; its quotient's engine is
            // the computing job's.
            assert!(
                jb["threads"].is_null() && jb["cpu_seconds"].is_null(),
                "{jb}"
            );
            assert_eq!(
                jb["engine"]["commit"],
                grundy::process::build::COMMIT,
                "{jb}"
            );
            break;
        }
        assert_eq!(jb["status"], "queued", "{jb}");
        assert_eq!(jb["attempts"], 0, "{jb}");
        saw_progress |= jb["quotient"]["heap"].as_u64() > Some(0);
        assert!(std::time::Instant::now() < deadline, "{jb}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        saw_progress,
        "the waiting job shows the computation's progress"
    );
    let ja = wait_for(&s, Some(&alice), &a_id, |j| j["status"] == "done").await;
    assert_eq!(ja["status"], "done", "{ja}");
    assert_eq!(ja["attempts"], 1, "{ja}");
    assert_eq!(ja["quotient"]["q_size"], 552, "{ja}");
    assert_eq!(ja["threads"], 1, "{ja}");
    let engine = json!({"version": grundy::core::octal::ENGINE_VERSION,
        "commit": grundy::process::build::COMMIT});
    assert_eq!(ja["engine"], engine, "{ja}");
    let r = s
        .get("/v1/octal/misere/quotient?code=0.07&max_heap=32")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["q_size"], 552);
}

/// `DELETE` ends a running quotient job within about two seconds; no quotient is stored for
/// it, and nothing of it is left behind.
#[tokio::test]
async fn cancel_ends_a_quotient_job_and_stores_nothing() {
    let url = common::temp_sqlite_url();
    let s = common::start_with(Config {
        database_url: Some(url.clone()),
        ..fast_jobs()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 33, "async": true}),
        )
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    let j = wait_for(&s, None, &id, |j| {
        j["status"] == "running" && j["quotient"]["heap"].as_u64() >= Some(10)
    })
    .await;
    assert_eq!(j["status"], "running", "{j}");
    let asked = std::time::Instant::now();
    let r = call(
        &s,
        None,
        reqwest::Method::DELETE,
        &format!("/v1/octal/jobs/{id}"),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let j = wait_for(&s, None, &id, |j| j["status"] == "cancelled").await;
    let took = asked.elapsed();
    assert_eq!(j["status"], "cancelled", "{j}");
    assert!(
        j["quotient"]["heap"].as_u64() < Some(33),
        "stopped mid-way: {j}"
    );
    // The job sees the cancel at its next tick (200 ms). The bound is generous on purpose: it
    // only fails a cancel that is never seen, on however busy a machine.
    assert!(took < Duration::from_secs(60), "cancelled after {took:?}");
    let r = s
        .get("/v1/octal/misere/quotient?code=0.07&max_heap=33")
        .await;
    common::assert_problem(&r, 404, "neither computed nor being computed");
    // Nothing stored: no quotient, no saved state.
    tokio::time::sleep(Duration::from_millis(500)).await;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    for table in ["misere_quotients", "misere_job_states"] {
        let n: i64 = sqlx::Row::get(
            &sqlx::query(&format!("SELECT COUNT(*) AS n FROM {table}"))
                .fetch_one(&pool)
                .await
                .unwrap(),
            "n",
        );
        assert_eq!(n, 0, "{table}");
    }
}

/// The job's limits: a job out of engine steps (`GRUNDY_MISERE_JOB_STEPS`) or out of time
/// (`GRUNDY_MISERE_JOB_SECS`) fails saying which; the quotient's lookup is then the budget
/// problem.
#[tokio::test]
async fn a_quotient_job_out_of_its_limits_fails() {
    let s = common::start_with(Config {
        misere_job_steps: 100_000,
        ..fast_jobs()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 30, "async": true}),
        )
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    let j = wait_job(&s, &id).await;
    assert_eq!(j["status"], "failed", "{j}");
    let error = j["error"].as_str().unwrap();
    assert!(error.contains("GRUNDY_MISERE_JOB_STEPS"), "{error}");
    let r = s
        .get("/v1/octal/misere/quotient?code=0.07&max_heap=30")
        .await;
    common::assert_problem(&r, 422, "GRUNDY_MISERE_JOB_STEPS");
    assert_eq!(r.body["type"], "/problems/budget-exceeded");
    assert_eq!(r.body["field"], "max_heap");

    let s = common::start_with(Config {
        misere_job_time: Duration::ZERO,
        ..fast_jobs()
    })
    .await;
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 30, "async": true}),
        )
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    let j = wait_job(&s, &id).await;
    assert_eq!(j["status"], "failed", "{j}");
    assert!(
        j["error"]
            .as_str()
            .unwrap()
            .contains("GRUNDY_MISERE_JOB_SECS"),
        "{j}"
    );
}

/// `kill -9` in the middle of a quotient job, twice. After the first crash the job is taken
/// over and resumes from the verified quotient it saved; before the second restart that saved
/// quotient is damaged, so it fails its check, is not used (the job says why) and the job
/// starts from scratch. Either way it finishes, with the quotient a fresh computation gives.
#[tokio::test]
async fn kill_9_mid_quotient_resumes_from_its_verified_saved_quotient() {
    let url = common::temp_sqlite_url();
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
        ("GRUNDY_JOB_LEASE_MS", "1500".to_owned()),
        // A heap a checkpoint at most: Q_32 takes 32 checkpoints at least on any machine.
        ("GRUNDY_JOB_PACE", "1".to_owned()),
    ];
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await;
    drop(pool);
    let saved = |url: String| async move {
        let pool = sqlx::AnyPool::connect(&url).await.unwrap();
        let row = sqlx::query(
            "SELECT heap, data FROM misere_job_states WHERE code = '0.07' AND bound = 32",
        )
        .fetch_optional(&pool)
        .await
        .unwrap();
        row.map(|r| {
            (
                sqlx::Row::get::<i64, _>(&r, "heap") as u64,
                sqlx::Row::get::<String, _>(&r, "data"),
            )
        })
    };
    let mut a = Process::spawn(&env).await;
    let r = a
        .server()
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.07", "max_heap": 32, "async": true}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    // Crash once a quotient past heap 20 is saved.
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    let first = loop {
        let j = a.server().get(&format!("/v1/octal/jobs/{id}")).await.body;
        assert_ne!(
            j["status"], "done",
            "finished before the crash; make it longer"
        );
        if let Some((heap, _)) = saved(url.clone()).await.filter(|s| s.0 >= 20) {
            break heap;
        }
        assert!(std::time::Instant::now() < deadline, "{j}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    a.kill9();
    // Taken over: resumed from that quotient (or a later one saved before the kill).
    let mut b = Process::spawn(&env).await;
    let j = wait_for(&b.server(), None, &id, |j| {
        j["attempts"].as_u64() >= Some(2) && !j["quotient"]["resumed_from"].is_null()
    })
    .await;
    let resumed = j["quotient"]["resumed_from"].as_u64().expect("resumed");
    assert!(resumed >= first, "{j}");
    assert_eq!(j["quotient"]["rejected"], Value::Null, "{j}");
    assert_ne!(
        j["status"], "done",
        "finished before the second crash; make it longer"
    );
    // Crash again once a later quotient is saved, and damage it: one P element less.
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    let (second, data) = loop {
        if let Some(s) = saved(url.clone()).await.filter(|s| s.0 > resumed) {
            break s;
        }
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    b.kill9();
    let mut record: Value = serde_json::from_str(&data).unwrap();
    record["p"].as_array_mut().unwrap().pop();
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    sqlx::query("UPDATE misere_job_states SET data = $1 WHERE code = '0.07' AND bound = 32")
        .bind(record.to_string())
        .execute(&pool)
        .await
        .unwrap();
    let c = Process::spawn(&env).await;
    let done = wait_job(&c.server(), &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert!(done["attempts"].as_u64() >= Some(3), "{done}");
    let q = &done["quotient"];
    assert_eq!(q["resumed_from"], Value::Null, "from scratch: {done}");
    let rejected = q["rejected"]
        .as_str()
        .expect("why the saved quotient was not used");
    assert!(
        rejected.contains(&format!("Q_{second}")) && rejected.contains("not used"),
        "{rejected}"
    );
    assert_eq!((&q["q_size"], &q["p_size"]), (&json!(552), &json!(93)));
    // The quotient equals a fresh, uninterrupted computation; the saved state is gone.
    let r = c
        .server()
        .get("/v1/octal/misere/quotient?code=0.07&max_heap=32&table_rows=8")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let game = grundy::core::octal::Game::parse("0.07").unwrap();
    let fresh = grundy::core::misere::MisereQuotient::compute(
        &game,
        32,
        &grundy::core::misere::QuotientBudget::DEFAULT,
        &mut || false,
    )
    .unwrap();
    let fresh = serde_json::to_value(grundy::api::octal::misere::QuotientResponse::of(
        &fresh, 0, 8,
    ))
    .unwrap();
    assert_eq!(r.body, fresh);
    assert_eq!(saved(url.clone()).await, None);
}
