//! Grundy's game (`grundy`: split a heap into two unequal heaps) through HTTP: the sequence,
//! single values, winning moves of sums (small ones against an independent brute force, a
//! heap of 10^6 by the XOR test), jobs, and bad codes.

mod common;

use std::time::Duration;

use grundy::config::Config;
use serde_json::{json, Value};

/// G(0..n) from the rules: mex over `G(a) ⊕ G(n−a)` for `1 ≤ a < n − a`.
fn brute(n: usize) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::with_capacity(n);
    for m in 0..n {
        let mut seen = vec![false; 2 * m + 2];
        for a in 1..=m.saturating_sub(1) / 2 {
            let b = m - a;
            if a < b {
                seen[(g[a] ^ g[b]) as usize] = true;
            }
        }
        g.push(seen.iter().position(|&s| !s).unwrap_or(0) as u64);
    }
    g
}

/// Every winning move `(heap_index, a, b)` of a sum, by brute force, in the API's order.
fn brute_moves(g: &[u64], heaps: &[u64]) -> Vec<(u64, u64, u64)> {
    let x = heaps.iter().fold(0, |acc, &h| acc ^ g[h as usize]);
    let mut out = Vec::new();
    if x == 0 {
        return out;
    }
    for (i, &n) in heaps.iter().enumerate() {
        if n == 0 || heaps[..i].contains(&n) {
            continue;
        }
        let t = x ^ g[n as usize];
        for a in 1..n {
            let b = n - a;
            if a < b && g[a as usize] ^ g[b as usize] == t {
                out.push((i as u64, a, b));
            }
        }
    }
    out
}

#[tokio::test]
async fn sequence_values_and_verdict() {
    let s = common::start().await;
    let n = 3000;
    let want = brute(n);
    for code in ["grundy", "Grundy", " GRUNDY "] {
        let r = s
            .ok("/v1/octal/sequence", &json!({"code": code, "n": n}))
            .await;
        assert_eq!(r["code"], "grundy");
        assert_eq!(r["standard_form"]["code"], "grundy");
        assert_eq!(r["standard_form"]["shift"], 0);
        assert_eq!(common::u64s(&r["values"]), want);
        // No theorem proves periodicity for a rule on the parts.
        assert_eq!(r["periodicity"]["status"], "unknown");
        assert!(r["periodicity"]["period"].is_null());
    }
    // OEIS A002188 opens with these values.
    assert_eq!(
        want[..21],
        [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0]
    );
    // Single heaps: the last known P-position (OEIS A002189) and its neighbours.
    for heap in [0u64, 1, 2, 3, 1222, 1225, 2999] {
        let r = s.get(&format!("/v1/octal/grundy/value/{heap}")).await;
        assert_eq!(r.status.as_u16(), 200, "{}", r.text);
        assert_eq!(r.body["code"], "grundy");
        assert_eq!(r.body["value"].as_u64().unwrap(), want[heap as usize]);
        assert_eq!(r.body["source"], "computed");
        assert_eq!(r.body["periodicity"]["status"], "unknown");
    }
    let r = s.get("/v1/octal/GRUNDY/value/1222").await;
    assert_eq!(r.body["value"], 0, "{}", r.text);
}

#[tokio::test]
async fn winning_moves_match_brute_force() {
    let s = common::start().await;
    let g = brute(600);
    let mut seed = 0x1939_u64;
    let mut next = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let mut nonempty = 0;
    for round in 0..40 {
        let k = 1 + next(4) as usize;
        let heaps: Vec<u64> = (0..k).map(|_| next(600)).collect();
        let want = brute_moves(&g, &heaps);
        nonempty += usize::from(!want.is_empty());
        let limit = 1 + round % 5;
        let mut got = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let r = s
                .ok(
                    "/v1/octal/winning-moves",
                    &json!({"code": "grundy", "heaps": heaps, "limit": limit, "cursor": cursor}),
                )
                .await;
            assert_eq!(r["code"], "grundy");
            let x = heaps.iter().fold(0, |acc, &h| acc ^ g[h as usize]);
            assert_eq!(r["value"].as_u64().unwrap(), x);
            assert_eq!(r["outcome"], if x == 0 { "P" } else { "N" });
            for m in r["moves"].as_array().unwrap() {
                assert_eq!(m["take"], 0, "{m}");
                let leave = common::u64s(&m["leave"]);
                assert_eq!(leave.len(), 2, "{m}");
                assert_eq!(leave[0] + leave[1], m["heap"].as_u64().unwrap());
                got.push((m["heap_index"].as_u64().unwrap(), leave[0], leave[1]));
            }
            cursor = r["next_cursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        assert_eq!(got, want, "{heaps:?}");
    }
    assert!(nonempty > 20);
}

/// Winning moves of `big + 1000 + 77`, each checked by the XOR test on values read back.
async fn moves_with_a_big_heap(big: u64) {
    let s = common::start_with(Config {
        octal_sync_time: Duration::from_secs(300),
        request_timeout: Duration::from_secs(300),
        ..common::config()
    })
    .await;
    let heaps = [big, 1000, 77];
    let t = std::time::Instant::now();
    let r = s
        .ok(
            "/v1/octal/winning-moves",
            &json!({"code": "grundy", "heaps": heaps, "limit": 25}),
        )
        .await;
    eprintln!("first request (computes {big} values): {:?}", t.elapsed());
    let moves = r["moves"].as_array().unwrap().clone();
    let value = |h: u64| {
        let s = &s;
        async move {
            let r = s.get(&format!("/v1/octal/grundy/value/{h}")).await;
            assert_eq!(r.status.as_u16(), 200, "{}", r.text);
            r.body["value"].as_u64().unwrap()
        }
    };
    let mut gs = Vec::new();
    for &h in &heaps {
        gs.push(value(h).await);
    }
    let x = gs.iter().fold(0, |a, &b| a ^ b);
    assert_eq!(r["value"].as_u64().unwrap(), x);
    if x == 0 {
        assert!(moves.is_empty());
        return;
    }
    assert!(!moves.is_empty(), "{r}");
    for m in &moves {
        let i = m["heap_index"].as_u64().unwrap() as usize;
        let leave = common::u64s(&m["leave"]);
        assert_eq!(m["take"], 0);
        assert!(
            leave[0] < leave[1] && leave[0] + leave[1] == heaps[i],
            "{m}"
        );
        let rest = x ^ gs[i];
        assert_eq!(
            rest ^ value(leave[0]).await ^ value(leave[1]).await,
            0,
            "{m} does not reach a P-position"
        );
    }
    // The next page is served from the computed values, quickly.
    if !r["next_cursor"].is_null() {
        let t = std::time::Instant::now();
        // (Timed, not bounded: how long it takes depends on the machine.)
        let p2 = s
            .ok(
                "/v1/octal/winning-moves",
                &json!({"code": "grundy", "heaps": heaps, "limit": 25, "cursor": r["next_cursor"]}),
            )
            .await;
        assert!(!p2["moves"].as_array().unwrap().is_empty());
        eprintln!("second page: {:?}", t.elapsed());
    }
}

#[tokio::test]
async fn jobs_and_limits() {
    let s = common::start_with(Config {
        job_checkpoint: Duration::from_millis(200),
        octal_max_n: 30_000,
        ..common::config()
    })
    .await;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "Grundy", "max_n": 20000}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["code"], "grundy");
    let id = r.body["id"].as_str().unwrap().to_owned();
    let done = common::wait_job(&s, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["code"], "grundy");
    assert_eq!(done["progress"]["computed"], 20000, "never stopped early");
    assert_eq!(done["periodicity"]["status"], "unknown");
    // The job's values serve later requests; they agree with the brute force.
    let want = brute(2000);
    let r = s
        .ok("/v1/octal/sequence", &json!({"code": "grundy", "n": 2000}))
        .await;
    assert_eq!(common::u64s(&r["values"]), want);
    // Beyond the synchronous limit without a proof: a 422 that names the field.
    let r = s.get("/v1/octal/grundy/value/5000000").await;
    common::assert_problem(&r, 422, "heap");
    let r = s
        .post("/v1/octal/sequence", &json!({"code": "grundy!", "n": 10}))
        .await;
    common::assert_problem(&r, 422, "code");
    let r = s
        .post("/v1/octal/sequence", &json!({"code": "4.0/gap=1", "n": 10}))
        .await;
    common::assert_problem(&r, 422, "code");
}

#[tokio::test]
async fn winning_moves_with_a_large_heap() {
    // Debug builds compute about 10^4 values a second; the release test below takes 10^6.
    moves_with_a_big_heap(49_999).await;
}

#[tokio::test]
#[ignore = "release: cargo test --release --test grundy_api -- --ignored"]
async fn winning_moves_with_a_heap_of_a_million() {
    moves_with_a_big_heap(999_999).await;
}
