//! Misère play of octal games through HTTP, against an independent brute force: the outcome
//! and every winning move of `POST /v1/octal/winning-moves` with `"play": "misere"` (through
//! the quotient, and through the exact search when the quotient is out of time), Bouton's rule
//! for misère Nim, the published quotients of `POST /v1/octal/misere/quotient` (0.123:
//! |Q| = 20, |P| = 5, Plambeck 2005; Q_30 of Dawson's Kayles: 360 elements, Plambeck–Siegel),
//! outcomes recomputed from the quotient's own table and Φ, pagination, and the limits.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

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
        ..Config::default()
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
        ..Config::default()
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
        ..Config::default()
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
        ..Config::default()
    })
    .await;
    let first = quotient(&s, "0.123", 20, 5).await;
    // The write is in the background: wait for it.
    let mut second = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let t = common::app_with(Config {
            database_url: Some(url.clone()),
            octal_sync_time: Duration::ZERO,
            ..Config::default()
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

/// `"async": true`: 202 with a Location, then the quotient there once done — the same answer
/// as the synchronous one. A quotient never computed nor submitted is a 404 there.
#[tokio::test]
async fn background_quotients() {
    let s = common::app().await;
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
    let location = r.headers["location"].to_str().unwrap().to_owned();
    assert_eq!(location, "/v1/octal/misere/quotient?code=0.123&max_heap=19");
    assert_eq!(r.body["location"], location);
    assert!(matches!(
        r.body["status"].as_str(),
        Some("queued" | "running")
    ));
    let mut done = None;
    for _ in 0..200 {
        let r = s.get(&format!("{location}&table_rows=3")).await;
        match r.status.as_u16() {
            200 => {
                done = Some(r.body);
                break;
            }
            202 => tokio::time::sleep(Duration::from_millis(25)).await,
            other => panic!("{other}: {}", r.text),
        }
    }
    let done = done.expect("the background computation ends");
    let sync = quotient(&s, "0.123", 19, 3).await;
    assert_eq!(done, sync);
    assert_eq!(
        (done["q_size"].as_u64(), done["p_size"].as_u64()),
        (Some(20), Some(5))
    );
    // Submitting a computed quotient answers it at once.
    let r = s
        .post(
            "/v1/octal/misere/quotient",
            &json!({"code": "0.123", "max_heap": 19, "async": true, "table_rows": 3}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body, sync);
    // Bad parameters are named.
    let r = s
        .get("/v1/octal/misere/quotient?code=0.123&max_heap=1001")
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = s.get("/v1/octal/misere/quotient?code=0.123").await;
    assert!(matches!(r.status.as_u16(), 400 | 422), "{}", r.text);
}
