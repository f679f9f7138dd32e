//! Black-box tests of the transfinite endpoints: the papers' examples (with the printed slip in
//! Example 2.11 corrected), agreement with finite Welter/Nim, and every move reaching value 0.
//! In-process (`common::app`).

mod common;

use serde_json::{json, Value};

#[tokio::test]
async fn abuku_examples() {
    let s = common::app().await;
    let nim = json!({"position": ["1", "ω·2+4", "ω^2·3+9", "ω^2·2+ω·4+16", "ω^2+ω·5+25"]});
    let v = s.ok("/v1/transfinite/nim/value", &nim).await;
    assert_eq!(v["value"], "w*3+5");
    assert_eq!(v["outcome"], "N");
    assert_eq!(
        v["position"],
        json!(["1", "w*2+4", "w^2+w*5+25", "w^2*2+w*4+16", "w^2*3+9"])
    );
    let m = s.ok("/v1/transfinite/nim/winning-moves", &nim).await;
    assert!(
        m["moves"]
            .as_array()
            .unwrap()
            .contains(&json!({"from": "w*2+4", "to": "w+1"})),
        "{m}"
    );

    let welter = json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"]});
    let v = s.ok("/v1/transfinite/welter/value", &welter).await;
    assert_eq!(v["value"], "w+4");
    let m = s.ok("/v1/transfinite/welter/winning-moves", &welter).await;
    // The paper prints w^2+w*4+6, but [6|16] = 21 and the total would not be 0:
    // [16|30] = 13 and 1 ⊕ [4|9] ⊕ 13 = 1 ⊕ 12 ⊕ 13 = 0.
    assert_eq!(
        m["moves"],
        json!([{"from": "w^2+w*5+25", "to": "w^2+w*4+30"}])
    );
    let after = s
        .ok(
            "/v1/transfinite/welter/value",
            &json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*4+30"]}),
        )
        .await;
    assert_eq!(after["value"], "0");
    assert_eq!(after["outcome"], "P");
    let printed = s
        .ok(
            "/v1/transfinite/welter/value",
            &json!({"position": ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*4+6"]}),
        )
        .await;
    assert_ne!(printed["value"], "0");
}

#[tokio::test]
async fn finite_inputs_match_finite_games() {
    let s = common::app().await;
    for pos in [
        vec![1u64, 3, 7, 8, 11, 19],
        vec![1, 5, 7],
        vec![2, 5, 6, 8, 10],
        vec![0, 1, 3, 4, 8, 12, 16, 23],
    ] {
        let strings: Vec<String> = pos.iter().map(|x| x.to_string()).collect();
        let t = s
            .ok(
                "/v1/transfinite/welter/winning-moves",
                &json!({"position": strings}),
            )
            .await;
        let f = s
            .ok("/v1/welter/winning-moves", &json!({"position": pos}))
            .await;
        assert_eq!(t["value"], f["value"].to_string());
        let fm: Vec<Value> = f["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!({"from": m["from"].to_string(), "to": m["to"].to_string()}))
            .collect();
        assert_eq!(t["moves"], json!(fm));
    }
    let t = s
        .ok(
            "/v1/transfinite/nim/value",
            &json!({"position": ["3", "5", "7"]}),
        )
        .await;
    assert_eq!(t["value"], "1");
}

#[tokio::test]
async fn normalisation_and_every_move_reaches_zero() {
    let s = common::app().await;
    let v = s
        .ok(
            "/v1/transfinite/nim/value",
            &json!({"position": ["1+w", "w^(w+1)*2+5", "ω^ω+1"]}),
        )
        .await;
    assert_eq!(v["position"], json!(["w", "w^w+1", "w^(w+1)*2+5"]));
    let positions = [
        vec!["w^w+3", "w*7+2", "w^2", "9", "w^(w+1)+w*3"],
        vec!["w*2+1", "w*2+2", "w*3+1", "w+5", "4", "w^2*2+w+1"],
        vec!["w^(w^w)+1", "w^(w^w)", "w^w*3+17", "w^3+w^2+w+1"],
    ];
    for pos in positions {
        let m = s
            .ok(
                "/v1/transfinite/welter/winning-moves",
                &json!({"position": pos}),
            )
            .await;
        assert_eq!(m["moves"].as_array().unwrap().is_empty(), m["value"] == "0");
        for mv in m["moves"].as_array().unwrap() {
            let next: Vec<String> = m["position"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    if p == &mv["from"] {
                        mv["to"].as_str().unwrap().to_owned()
                    } else {
                        p.as_str().unwrap().to_owned()
                    }
                })
                .collect();
            let v = s
                .ok("/v1/transfinite/welter/value", &json!({"position": next}))
                .await;
            assert_eq!(v["value"], "0", "{pos:?} {mv}");
        }
    }
}

#[tokio::test]
async fn bad_ordinals() {
    let s = common::app().await;
    let cases = [
        (
            json!({"position": ["w*x"]}),
            422,
            "position[0]",
            "at character 3",
        ),
        (json!({"position": ["1", ""]}), 422, "position[1]", "empty"),
        (
            json!({"position": ["w^(w+1"]}),
            422,
            "position[0]",
            "expected",
        ),
        (
            json!({"position": ["18446744073709551616"]}),
            422,
            "position[0]",
            "larger than 2^64-1",
        ),
        (
            json!({"position": ["w*18446744073709551615+w*1"]}),
            422,
            "position[0]",
            "2^64-1",
        ),
        (
            json!({"position": ["w", "w"]}),
            422,
            "position",
            "more than once",
        ),
        (
            json!({"position": [1, 2]}),
            400,
            "position[0]",
            "invalid type",
        ),
    ];
    for (body, status, field, needle) in cases {
        let path = "/v1/transfinite/welter/value";
        let r = s.post(path, &body).await;
        common::assert_problem(&r, status, needle);
        assert_eq!(r.body["field"], field, "{body}");
    }
    // Nim allows equal heaps.
    let v = s
        .ok(
            "/v1/transfinite/nim/value",
            &json!({"position": ["w", "w"]}),
        )
        .await;
    assert_eq!(v["outcome"], "P");
    let deep = format!("{}1{}", "w^(".repeat(200), ")".repeat(200));
    let r = s
        .post("/v1/transfinite/nim/value", &json!({"position": [deep]}))
        .await;
    common::assert_problem(&r, 422, "deeper");
}
