//! Black-box tests of the Welter endpoints against the thesis's worked examples and tables,
//! and self-consistency on random positions (every winning move reaches value 0). In-process
//! (`common::app`) except for one test over a real socket.

mod common;

use common::{u64s, vectors, Rng};
use serde_json::{json, Value};

fn pairs(v: &Value) -> Vec<(u64, u64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            if m.is_array() {
                (m[0].as_u64().unwrap(), m[1].as_u64().unwrap())
            } else {
                (m["from"].as_u64().unwrap(), m["to"].as_u64().unwrap())
            }
        })
        .collect()
}

#[tokio::test]
async fn contract_examples() {
    let s = common::app().await;
    let v = s
        .ok(
            "/v1/welter/value",
            &json!({"position": [1, 3, 7, 8, 11, 19], "play": "normal"}),
        )
        .await;
    assert_eq!(v["position"], json!([1, 3, 7, 8, 11, 19]));
    assert_eq!(v["coins"], 6);
    assert_eq!(v["value"], 12);
    assert_eq!(v["outcome"], "N");
    let m = s
        .ok(
            "/v1/welter/winning-moves",
            &json!({"position": [19, 11, 8, 7, 3, 1]}),
        )
        .await;
    assert_eq!(m["position"], json!([1, 3, 7, 8, 11, 19]));
    assert_eq!(m["moves"], json!([{"from": 8, "to": 4}]));
    let p = s
        .ok(
            "/v1/welter/primes",
            &json!({"position": [7, 1, 5], "target": 0}),
        )
        .await;
    assert_eq!(p["position"], json!([7, 1, 5]));
    assert_eq!(p["primes"], json!([3, 13, 9]));
    assert_eq!(p["moves"], json!([{"from": 7, "to": 3}]));
    assert_eq!(p["value"], 4);
    let same = s
        .ok(
            "/v1/welter/primes",
            &json!({"position": [7, 1, 5], "target": 4}),
        )
        .await;
    assert_eq!(same["primes"], json!([7, 1, 5]));
    assert_eq!(same["moves"], json!([]));
}

#[tokio::test]
async fn thesis_vectors() {
    let s = common::app().await;
    let d = vectors();
    for case in d["welter_values"].as_array().unwrap() {
        let v = s
            .ok("/v1/welter/value", &json!({"position": case["position"]}))
            .await;
        assert_eq!(v["value"], case["value"], "{}", case["source"]);
    }
    for case in d["welter_mating_pairs"].as_array().unwrap() {
        let v = s
            .ok("/v1/welter/value", &json!({"position": case["position"]}))
            .await;
        assert_eq!(v["value"], case["value"], "{}", case["source"]);
    }
    for case in d["welter_primes"].as_array().unwrap().iter().chain(
        d["derived"]["welter_primes_closed_form"]
            .as_array()
            .unwrap(),
    ) {
        let p = s
            .ok(
                "/v1/welter/primes",
                &json!({"position": case["position"], "target": case["target"]}),
            )
            .await;
        assert_eq!(p["value"], case["value"]);
        assert_eq!(p["primes"], case["primes"]);
        if let Some(m) = case.get("moves_to_target") {
            let mut got = pairs(&p["moves"]);
            got.sort_unstable();
            let mut want = pairs(m);
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }
    for case in d["welter_winning_moves"].as_array().unwrap() {
        let m = s
            .ok(
                "/v1/welter/winning-moves",
                &json!({"position": case["position"]}),
            )
            .await;
        let got = pairs(&m["moves"]);
        for mv in pairs(&case["moves"]) {
            assert!(got.contains(&mv), "{}", case["source"]);
        }
        if case["complete"] == true {
            assert_eq!(got, pairs(&case["moves"]), "{}", case["source"]);
        }
    }
    for case in d["derived"]["welter_bruteforce_sample"].as_array().unwrap() {
        let m = s
            .ok(
                "/v1/welter/winning-moves",
                &json!({"position": case["position"]}),
            )
            .await;
        assert_eq!(m["value"], case["value"]);
        assert_eq!(pairs(&m["moves"]), pairs(&case["winning_moves"]));
        let mm = s
            .ok(
                "/v1/welter/winning-moves",
                &json!({"position": case["position"], "play": "misere"}),
            )
            .await;
        assert_eq!(mm["outcome"], case["misere_outcome"]);
        assert_eq!(pairs(&mm["moves"]), pairs(&case["misere_winning_moves"]));
    }
    for case in d["derived"]["welter_large_closed_form"].as_array().unwrap() {
        let v = s
            .ok("/v1/welter/value", &json!({"position": case["position"]}))
            .await;
        assert_eq!(v["value"], case["value"]);
    }
    for case in d["derived"]["abacus_positions"].as_array().unwrap() {
        let v = s
            .ok(
                "/v1/welter/value",
                &json!({"position": case["position"], "play": "misere"}),
            )
            .await;
        assert_eq!(v["value"], case["value"]);
        assert_eq!(v["outcome"], case["misere_outcome"], "{}", case["position"]);
    }
    // Triangle (Ex 3.15): every window of consecutive coins has the printed value.
    for case in d["triangles"].as_array().unwrap() {
        let xs: Vec<u64> = u64s(&case["position"]);
        for (r, row) in case["rows"].as_array().unwrap().iter().enumerate().skip(1) {
            for (j, want) in row.as_array().unwrap().iter().enumerate() {
                let v = s
                    .ok("/v1/welter/value", &json!({"position": xs[j..j + r]}))
                    .await;
                assert_eq!(&v["value"], want, "window {j}+{r}");
            }
        }
    }
    // Sprague's 5 coins on {0..15} (Ex 6.29, 6.30): the printed winning move is a winning move.
    for case in d["sprague_5coin"].as_array().unwrap() {
        let m = s
            .ok(
                "/v1/welter/winning-moves",
                &json!({"position": case["position"]}),
            )
            .await;
        assert_eq!(m["outcome"] == "P", case["p_position"] == true);
        if let Some(w) = case.get("winning_move") {
            let mv = (w[0].as_u64().unwrap(), w[1].as_u64().unwrap());
            assert!(pairs(&m["moves"]).contains(&mv));
        }
    }
    // Tables 1–3: the printed completion z makes a P-position; Table 4: [x1|x2].
    for name in ["table1", "table2", "table3", "table4"] {
        let t = &d["tables"][name];
        let cols: Vec<u64> = u64s(&t["cols"]);
        for (row, cells) in t["rows"].as_object().unwrap() {
            let x: u64 = row.parse().unwrap();
            for (c, cell) in cols.iter().zip(cells.as_array().unwrap()) {
                let Some(z) = cell.as_u64() else { continue };
                let mut pos = vec![x, *c];
                if let Some(x1) = t.get("x1").and_then(|v| v.as_u64()) {
                    pos.insert(0, x1);
                }
                if name == "table4" {
                    let v = s.ok("/v1/welter/value", &json!({"position": pos})).await;
                    assert_eq!(v["value"], z, "{name} {pos:?}");
                } else {
                    pos.push(z);
                    let v = s.ok("/v1/welter/value", &json!({"position": pos})).await;
                    assert_eq!(v["outcome"], "P", "{name} {pos:?}");
                }
            }
        }
    }
}

#[tokio::test]
async fn random_positions_are_self_consistent() {
    // Every returned normal winning move reaches value 0; the primes for target 0 that lie
    // below their coins are exactly those moves; positions of value 0 have no moves.
    let s = common::app().await;
    let mut rng = Rng(2026);
    for round in 0..150 {
        let n = 1 + (rng.next() % 12) as usize;
        let width = [6u32, 10, 20, 63][round % 4];
        let mut pos: Vec<u64> = Vec::new();
        while pos.len() < n {
            let x = rng.next() & ((1u64 << width) - 1);
            if !pos.contains(&x) {
                pos.push(x);
            }
        }
        let m = s
            .ok("/v1/welter/winning-moves", &json!({"position": pos}))
            .await;
        let moves = pairs(&m["moves"]);
        assert_eq!(moves.is_empty(), m["value"] == 0);
        assert_eq!(
            moves.len() % 2,
            if m["value"] == 0 { 0 } else { 1 },
            "Theorem 4.13: odd number of moves"
        );
        for (from, to) in &moves {
            let next: Vec<u64> = pos
                .iter()
                .map(|&x| if x == *from { *to } else { x })
                .collect();
            let v = s.ok("/v1/welter/value", &json!({"position": next})).await;
            assert_eq!(v["value"], 0, "{pos:?} {from}->{to}");
        }
        let p = s
            .ok("/v1/welter/primes", &json!({"position": pos, "target": 0}))
            .await;
        let mut from_primes = pairs(&p["moves"]);
        from_primes.sort_unstable();
        assert_eq!(from_primes, moves);
    }
}

#[tokio::test]
async fn cache_uses_canonical_keys() {
    let config = grundy::config::Config {
        cache_min_coins: 0, // cache even tiny positions here
        ..Default::default()
    };
    let s = common::app_with(config).await;
    let a = s
        .post("/v1/welter/value", &json!({"position": [3, 1, 2]}))
        .await;
    let b = s
        .post(
            "/v1/welter/value",
            &json!({"play": "normal", "position": [1, 2, 3]}),
        )
        .await;
    assert_eq!(a.text, b.text);
    let c = s
        .post(
            "/v1/welter/value",
            &json!({"position": [1, 2, 3], "play": "misere"}),
        )
        .await;
    assert_ne!(a.text, c.text, "play is part of the key");
    let p1 = s
        .post(
            "/v1/welter/primes",
            &json!({"position": [1, 5, 7], "target": 0}),
        )
        .await;
    let p2 = s
        .post(
            "/v1/welter/primes",
            &json!({"position": [7, 5, 1], "target": 0}),
        )
        .await;
    assert_eq!(p1.body["primes"], json!([13, 9, 3]));
    assert_eq!(
        p2.body["primes"],
        json!([3, 9, 13]),
        "primes follow request order even when cached"
    );
    let m = s.get("/metrics").await.text;
    let hits = m
        .lines()
        .find(|l| l.starts_with("grundy_cache_hits_total"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0);
    assert!(hits >= 1.0, "the second request was a cache hit");
}

#[tokio::test]
async fn big_positions_and_huge_primes() {
    let s = common::app().await;
    // 200k coins: computed off the async workers, exact.
    let pos: Vec<u64> = (0..200_000u64)
        .map(|i| i * 3 + (i % 7))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let v = s.ok("/v1/welter/value", &json!({"position": pos})).await;
    assert_eq!(v["coins"], pos.len());
    assert_eq!(
        v["value"],
        grundy::core::welter::value_quadratic(&pos[..0]) ^ grundy::core::welter::value(&pos)
    );
    // A prime beyond 2^64−1 is returned exactly.
    let p = s
        .post(
            "/v1/welter/primes",
            &json!({"position": [5, 0], "target": u64::MAX}),
        )
        .await;
    assert!(
        p.text
            .contains(r#""primes":[18446744073709551616,18446744073709551621]"#),
        "{}",
        p.text
    );
}

#[tokio::test]
async fn operations_endpoints() {
    // Over a real socket: the service really serves HTTP (the other tests here run in-process).
    let s = common::start().await;
    assert_eq!(s.get("/healthz").await.body["status"], "ok");
    assert_eq!(s.get("/readyz").await.status.as_u16(), 200);
    s.ok("/v1/welter/value", &json!({"position": [1]})).await;
    let m = s.get("/metrics").await;
    assert!(m.text.contains("grundy_http_requests_total"), "{}", m.text);
    let doc = s.get("/openapi.json").await;
    assert_eq!(doc.body["openapi"], "3.1.0");
    let docs = s
        .client
        .get(format!("{}/docs/", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(docs.status().as_u16(), 200);
    assert!(
        docs.text().await.unwrap().contains("swagger"),
        "interactive docs are served offline"
    );
    let r = s
        .client
        .get(format!("{}/healthz", s.base))
        .send()
        .await
        .unwrap();
    assert!(r.headers().contains_key("x-request-id"));
}

/// Every response carries a request id: the client's when it sent one, else a fresh UUID
/// (different for each request), on successes and problems alike.
#[tokio::test]
async fn request_ids_are_kept_or_made() {
    let s = common::start().await;
    let send = |path: &str, id: Option<&str>| {
        let mut r = s
            .client
            .post(format!("{}{path}", s.base))
            .header("content-type", "application/json")
            .body(r#"{"position": [1, 2, 3]}"#);
        if let Some(id) = id {
            r = r.header("x-request-id", id);
        }
        r.send()
    };
    let id_of = |r: &reqwest::Response| {
        r.headers()
            .get("x-request-id")
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let mut made = Vec::new();
    for path in ["/v1/welter/value", "/v1/welter/nope", "/v1/octal/value"] {
        let r = send(path, Some("client-chosen-42")).await.unwrap();
        assert_eq!(id_of(&r).as_deref(), Some("client-chosen-42"), "{path}");
        let r = send(path, None).await.unwrap();
        let id = id_of(&r).unwrap_or_else(|| panic!("{path}: no request id"));
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{path}: {id}");
        made.push(id);
    }
    made.sort();
    made.dedup();
    assert_eq!(made.len(), 3, "fresh ids differ: {made:?}");
}

#[tokio::test]
async fn explain_shows_the_thesis_methods() {
    let s = common::app().await;
    let e = s
        .ok(
            "/v1/welter/explain",
            &json!({"position": [19, 11, 8, 7, 3, 1]}),
        )
        .await;
    assert_eq!(e["value"], 12);
    assert_eq!(
        e["mating"],
        json!([{"pair": [3, 19], "depth": 4, "value": 15}, {"pair": [7, 11], "depth": 2, "value": 11}, {"pair": [1, 8], "depth": 0, "value": 8}])
    );
    assert_eq!(
        e["triangle"],
        json!([
            [0, 0, 0, 0, 0, 0, 0],
            [1, 3, 7, 8, 11, 19],
            [1, 3, 14, 2, 23],
            [2, 11, 3, 31],
            [11, 9, 25],
            [10, 12],
            [12]
        ])
    );
    assert_eq!(e["sprague"], Value::Null);
    assert_eq!(e["abacus"]["is_abacus"], false);
    // Ex 3.7: [1|5|6]: pair (1,5) and spinster 6.
    let e = s
        .ok("/v1/welter/explain", &json!({"position": [1, 5, 6]}))
        .await;
    assert_eq!(
        e["mating"],
        json!([{"pair": [1, 5], "depth": 2, "value": 3}, {"single": 6}])
    );
    assert_eq!(e["value"], 5);
    // Ex 6.29 / 6.30: Sprague's renumbering.
    let e = s
        .ok("/v1/welter/explain", &json!({"position": [1, 3, 6, 8, 14]}))
        .await;
    assert_eq!(e["sprague"]["renumbered"], json!([15, 13, 10, 8, 2]));
    assert_eq!(e["sprague"]["nim_sum"], 2);
    assert!(pairs(&e["sprague"]["moves"]).contains(&(14, 0)));
    let e = s
        .ok("/v1/welter/explain", &json!({"position": [2, 3, 6, 8, 14]}))
        .await;
    assert_eq!(e["sprague"]["nim_sum"], 3);
    assert!(pairs(&e["sprague"]["moves"]).contains(&(8, 5)));
    // Abacus: [0, 2] has value 1 and is misère P.
    let e = s
        .ok("/v1/welter/explain", &json!({"position": [0, 2]}))
        .await;
    assert_eq!(e["abacus"]["is_abacus"], true);
    assert_eq!(e["abacus"]["misere_outcome"], "P");
    // The mating values always nim-add to the value.
    let d = vectors();
    for case in d["welter_mating_pairs"].as_array().unwrap() {
        let e = s
            .ok("/v1/welter/explain", &json!({"position": case["position"]}))
            .await;
        let mut got: Vec<(u64, u64)> = e["mating"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|st| {
                st.get("pair")
                    .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
            })
            .collect();
        got.sort_unstable();
        let mut want: Vec<(u64, u64)> = pairs(&case["pairs"])
            .into_iter()
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        want.sort_unstable();
        assert_eq!(got, want, "{}", case["source"]);
    }
    // Too many coins for a triangle.
    let big: Vec<u64> = (0..300).collect();
    let r = s
        .post("/v1/welter/explain", &json!({"position": big}))
        .await;
    common::assert_problem(&r, 422, "GRUNDY_EXPLAIN_MAX_COINS");
}
