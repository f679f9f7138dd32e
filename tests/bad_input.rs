//! The bad-input catalogue: every malformed or invalid request gets the right RFC 9457
//! problem (status, type, title, detail naming the field and value) — never a 500 or a hang.
//! In-process (`common::app`): a new case is one line of `CASES`.

mod common;

use grundy::config::Config;
use serde_json::json;

/// (path, raw body, status, text the detail must contain, field if any) — one line per case.
#[rustfmt::skip]
const CASES: &[(&str, &str, u16, &str, Option<&str>)] = &[
    // 400: not JSON / wrong JSON type
    ("/v1/welter/value", "", 400, "empty", None),
    ("/v1/welter/value", "   ", 400, "empty", None),
    ("/v1/welter/value", "{", 400, "not valid JSON", None),
    ("/v1/welter/value", "not json", 400, "not valid JSON", None),
    ("/v1/welter/value", r#"{"position": [1, 2,]}"#, 400, "not valid JSON", None),
    ("/v1/welter/value", r#"{"position": [1]} trailing"#, 400, "not valid JSON", None),
    ("/v1/welter/value", "[1, 2, 3]", 400, "must be a JSON object", None),
    ("/v1/welter/value", "42", 400, "must be a JSON object", None),
    ("/v1/welter/value", "null", 400, "must be a JSON object", None),
    ("/v1/welter/value", r#"{"position": "1,2,3"}"#, 400, "position", Some("position")),
    ("/v1/welter/value", r#"{"position": {"a": 1}}"#, 400, "position", Some("position")),
    ("/v1/welter/value", r#"{"position": [1, "2"]}"#, 400, "position[1]", Some("position[1]")),
    ("/v1/welter/value", r#"{"position": [1, null]}"#, 400, "position[1]", Some("position[1]")),
    ("/v1/welter/value", r#"{"position": [[1]]}"#, 400, "position[0]", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [1], "play": 3}"#, 400, "play", Some("play")),
    ("/v1/welter/value", r#"{"position": [1e999]}"#, 422, "too large", Some("position[0]")),
    // 422: well-formed but invalid
    ("/v1/welter/value", "{}", 422, "missing field `position`", Some("position")),
    ("/v1/welter/value", r#"{"position": [1, -3]}"#, 422, "-3 is negative", Some("position[1]")),
    ("/v1/welter/value", r#"{"position": [-9223372036854775809]}"#, 422, "negative", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [1.5]}"#, 422, "1.5 is not an integer", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [2.5e0]}"#, 422, "not an integer", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [1e20]}"#, 422, "too large", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [18446744073709551616]}"#, 422, "too large", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [99999999999999999999999999]}"#, 422, "too large", Some("position[0]")),
    ("/v1/welter/value", r#"{"position": [4, 2, 4]}"#, 422, "square 4 appears more than once", Some("position")),
    ("/v1/welter/value", r#"{"position": [1], "play": "misery"}"#, 422, "unknown variant `misery`", Some("play")),
    ("/v1/welter/value", r#"{"position": [1], "plya": "misere"}"#, 422, "unknown field `plya`", Some("plya")),
    ("/v1/welter/value", r#"{"position": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}"#, 422, "exceed the limit of 10", Some("position")),
    ("/v1/welter/winning-moves", r#"{"position": [0, 0]}"#, 422, "appears more than once", Some("position")),
    ("/v1/welter/winning-moves", r#"{"position": [1], "play": "NORMAL"}"#, 422, "unknown variant", Some("play")),
    ("/v1/welter/winning-moves", r#"{"play": "misere"}"#, 422, "missing field `position`", Some("position")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 7]}"#, 422, "missing field `target`", Some("target")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 7], "target": -1}"#, 422, "-1 is negative", Some("target")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 7], "target": 18446744073709551616}"#, 422, "too large", Some("target")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 7], "target": 0.5}"#, 422, "not an integer", Some("target")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 5], "target": 0}"#, 422, "square 5", Some("position")),
    ("/v1/welter/primes", r#"{"position": [1, 5, 7], "target": "0"}"#, 400, "target", Some("target")),
    ("/v1/octal/winning-moves", r#"{"code": "0.07", "heaps": [5], "play": "misery"}"#, 422, "unknown variant `misery`", Some("play")),
    ("/v1/octal/winning-moves", r#"{"code": "0.07", "heaps": [5], "play": "misere", "cursor": "1.0.0.0.0.0000000000000000"}"#, 422, "invalid cursor", Some("cursor")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.07"}"#, 422, "missing field `max_heap`", Some("max_heap")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.07", "max_heap": 1001}"#, 422, "above 1000", Some("max_heap")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.07", "max_heap": 5, "table_rows": 300}"#, 422, "above 256", Some("table_rows")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.07", "max_heap": "5"}"#, 400, "max_heap", Some("max_heap")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.07", "max_heap": 5, "async": "yes"}"#, 400, "async", Some("async")),
    ("/v1/octal/misere/quotient", r#"{"code": "0.7z", "max_heap": 5}"#, 422, "code", Some("code")),
];

#[tokio::test]
async fn catalogue() {
    assert!(CASES.len() >= 30);
    let config = Config {
        max_coins: 10,
        ..common::config()
    };
    let s = common::app_with(config).await;
    for &(path, body, status, needle, field) in CASES {
        let r = s.post_raw(path, body.to_owned()).await;
        common::assert_problem(&r, status, needle);
        match field {
            Some(f) => assert_eq!(r.body["field"], f, "field for {body}"),
            None => assert!(
                r.body.get("field").is_none(),
                "no field for {body}: {}",
                r.text
            ),
        }
    }
}

#[tokio::test]
async fn whole_number_floats_are_integers() {
    // JSON Schema's `integer` includes 5.0; exact below 2^53.
    let s = common::app().await;
    let r = s
        .post_raw(
            "/v1/welter/value",
            "{\"position\": [1.0, 3e0, 7, 8, 11, 19]}".to_owned(),
        )
        .await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert_eq!(r.body["value"], 12);
}

#[tokio::test]
async fn body_limit_is_413() {
    let config = Config {
        max_body_bytes: 1000,
        ..common::config()
    };
    let s = common::app_with(config).await;
    let big: Vec<u64> = (0..1000).collect();
    let r = s
        .post("/v1/welter/value", &json!({ "position": big }))
        .await;
    common::assert_problem(&r, 413, "1000 bytes");
    // Just under the limit still works.
    let r = s
        .post("/v1/welter/value", &json!({"position": [1, 2, 3]}))
        .await;
    assert_eq!(r.status.as_u16(), 200);
}

#[tokio::test]
async fn unknown_paths_and_methods() {
    let s = common::app().await;
    common::assert_problem(&s.get("/v1/welter/nope").await, 404, "/v1/welter/nope");
    common::assert_problem(&s.get("/v1/welter/value").await, 405, "not allowed");
}

#[tokio::test]
async fn deep_nesting_and_garbage_never_500() {
    let s = common::app().await;
    let deep = format!(
        "{{\"position\": {}1{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let r = s.post_raw("/v1/welter/value", deep).await;
    assert_eq!(r.status.as_u16(), 400, "{}", r.text);
    let bytes: Vec<u8> = (0..2000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let r = s.post_raw("/v1/welter/value", bytes).await;
    assert_eq!(r.status.as_u16(), 400);
}
