//! The batch endpoints: every result is byte for byte the single endpoint's body, bad items get
//! their own problem naming `positions[i]…` while the others are answered, and the limits hold.

mod common;

use grundy::config::Config;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// The raw JSON text of each result, in order.
fn raw_results(text: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Results<'a> {
        #[serde(borrow)]
        results: Vec<&'a RawValue>,
    }
    let r: Results<'_> = serde_json::from_str(text).expect("a results object");
    r.results.iter().map(|v| v.get().to_owned()).collect()
}

/// A small deterministic generator (no extra dev-dependency).
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

fn random_positions(n: usize, seed: &mut u64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let coins = 1 + (lcg(seed) % 12) as usize + if i % 17 == 0 { 300 } else { 0 };
            let mut squares: Vec<u64> = Vec::new();
            while squares.len() < coins {
                let x = lcg(seed) % (1 << 20);
                if !squares.contains(&x) {
                    squares.push(x);
                }
            }
            json!(squares)
        })
        .collect()
}

#[tokio::test]
async fn each_result_is_the_single_endpoints_body() {
    let s = common::start().await;
    let mut seed = 42;
    let mut positions = random_positions(40, &mut seed);
    positions.push(json!([])); // the empty position is valid
    positions.push(json!([1, 3, 7, 8, 11, 19]));
    for (single, batch) in [
        ("/v1/welter/value", "/v1/welter/value/batch"),
        ("/v1/welter/winning-moves", "/v1/welter/winning-moves/batch"),
    ] {
        for play in ["normal", "misere"] {
            let r = s
                .post(batch, &json!({"positions": positions, "play": play}))
                .await;
            assert_eq!(r.status, 200, "{}", r.text);
            assert_eq!(r.content_type, "application/json");
            let results = raw_results(&r.text);
            assert_eq!(results.len(), positions.len());
            for (p, got) in positions.iter().zip(&results) {
                let one = s.post(single, &json!({"position": p, "play": play})).await;
                assert_eq!(one.status, 200, "{}", one.text);
                assert_eq!(got, &one.text, "{batch} {play} {p}");
            }
        }
    }
    // `play` defaults to normal, as in the single endpoints.
    let r = s
        .post("/v1/welter/value/batch", &json!({"positions": [[1, 2]]}))
        .await;
    assert_eq!(r.body["results"][0]["play"], "normal");
    let one = s.ok("/v1/welter/value", &json!({"position": [1, 2]})).await;
    assert_eq!(r.body["results"][0], one);
}

#[tokio::test]
async fn bad_items_get_their_own_problem_and_the_others_are_answered() {
    let s = common::start().await;
    let body = r#"{"positions": [[1, 3], [1, -2], [5, 5], [1, "x"], "nope", [2.5], [7], {"a": 1}, [1e400]], "play": "misere"}"#;
    for path in ["/v1/welter/value/batch", "/v1/welter/winning-moves/batch"] {
        let r = s.post_raw(path, body).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let results = r.body["results"].as_array().unwrap();
        assert_eq!(results.len(), 9, "{}", r.text);
        let expect: [(usize, Option<(u64, &str)>); 9] = [
            (0, None),
            (1, Some((422, "positions[1][1]"))),
            (2, Some((422, "positions[2]"))),
            (3, Some((400, "positions[3][1]"))),
            (4, Some((400, "positions[4]"))),
            (5, Some((422, "positions[5][0]"))),
            (6, None),
            (7, Some((400, "positions[7]"))),
            (8, Some((422, "positions[8]"))), // a number beyond 2^64-1: `positions[8][0]`
        ];
        for (i, want) in expect {
            let item = &results[i];
            match want {
                None => {
                    assert!(item.get("value").is_some(), "item {i}: {item}");
                    assert_eq!(item["play"], "misere");
                }
                Some((status, field)) => {
                    assert_eq!(item["status"], status, "item {i}: {item}");
                    let named = item["field"].as_str().unwrap();
                    assert!(
                        named == field || (i == 8 && named.starts_with(field)),
                        "item {i}: {item}"
                    );
                    let detail = item["detail"].as_str().unwrap();
                    assert!(detail.starts_with(named), "item {i}: {detail}");
                    assert!(item["type"].as_str().is_some_and(|t| !t.is_empty()));
                }
            }
        }
    }
}

#[tokio::test]
async fn whole_request_errors() {
    let s = common::start().await;
    let path = "/v1/welter/value/batch";
    let r = s.post(path, &json!({"play": "normal"})).await;
    common::assert_problem(&r, 422, "positions");
    let r = s
        .post(path, &json!({"positions": [[1]], "play": "sideways"}))
        .await;
    assert_eq!(r.body["field"], "play", "{}", r.text);
    let r = s.post(path, &json!({"positions": [[1]], "extra": 1})).await;
    assert!(r.status.is_client_error(), "{}", r.text);
    let r = s.post(path, &json!({"positions": {"a": [1]}})).await;
    common::assert_problem(&r, 400, "positions");
    assert_eq!(r.body["field"], "positions");
    let r = s.post_raw(path, "[1, 2]").await;
    common::assert_problem(&r, 400, "JSON object");
    let r = s.post(path, &json!({"positions": []})).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body, json!({"results": []}));
}

#[tokio::test]
async fn limits_name_the_field_and_the_variable() {
    let s = common::start_with(Config {
        batch_max_items: 3,
        batch_max_coins: 10,
        max_coins: 5,
        max_body_bytes: 4096,
        ..common::config()
    })
    .await;
    let path = "/v1/welter/winning-moves/batch";
    let r = s
        .post(path, &json!({"positions": [[1], [2], [3], [4]]}))
        .await;
    common::assert_problem(&r, 422, "GRUNDY_BATCH_MAX_ITEMS");
    assert_eq!(r.body["field"], "positions");
    let r = s
        .post(
            path,
            &json!({"positions": [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3]]}),
        )
        .await;
    common::assert_problem(&r, 422, "GRUNDY_BATCH_MAX_COINS");
    assert_eq!(r.body["field"], "positions");
    // exactly at the limits: answered
    let r = s
        .post(
            path,
            &json!({"positions": [[1, 2, 3, 4, 5], [1, 2, 3, 4], [1]]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // one position over GRUNDY_MAX_COINS is that item's problem only
    let r = s
        .post(path, &json!({"positions": [[1, 2, 3, 4, 5, 6], [1]]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["results"][0]["field"], "positions[0]");
    assert!(r.body["results"][0]["detail"]
        .as_str()
        .unwrap()
        .contains("GRUNDY_MAX_COINS"));
    assert!(r.body["results"][1]["moves"].is_array());
    // the body limit still applies, as a 413 problem
    let big = format!(r#"{{"positions": [[{}]]}}"#, "1,".repeat(3000) + "1");
    let r = s.post_raw(path, big).await;
    common::assert_problem(&r, 413, "4096");
}

#[tokio::test]
async fn big_batches_are_computed_off_the_async_workers_and_stay_correct() {
    // inline_coins 0: every batch goes through the blocking pool; the answer must not change.
    let s = common::start_with(Config {
        inline_coins: 0,
        ..common::config()
    })
    .await;
    let mut seed = 7;
    let positions = random_positions(30, &mut seed);
    let r = s
        .post("/v1/welter/value/batch", &json!({"positions": positions}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let results = raw_results(&r.text);
    for (p, got) in positions.iter().zip(&results) {
        let one = s.post("/v1/welter/value", &json!({"position": p})).await;
        assert_eq!(got, &one.text);
    }
}
