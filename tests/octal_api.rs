//! Black-box tests of the octal endpoints: Austin's tables and known constants through HTTP,
//! every winning move checked against an independent brute-force G-sequence, pagination,
//! values for huge heaps, and the limits. In-process (`common::app`); jobs, restarts and
//! replicas are in `jobs_api.rs` and `replicas_pg.rs` (real servers).

mod common;

use common::u64s;
use grundy::config::Config;
use serde_json::{json, Value};

/// Independent brute force for finite octal codes `0.d1d2…` (digits ≤ 7): mex over options.
fn brute_octal(digits: &[u8], n: usize) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::with_capacity(n);
    for h in 0..n {
        let mut seen = std::collections::HashSet::new();
        for (i, &d) in digits.iter().enumerate() {
            let u = i + 1;
            if u > h {
                break;
            }
            let r = h - u;
            if d & 1 != 0 && r == 0 {
                seen.insert(0);
            }
            if d & 2 != 0 && r > 0 {
                seen.insert(g[r]);
            }
            if d & 4 != 0 && r >= 2 {
                for a in 1..=r / 2 {
                    seen.insert(g[a] ^ g[r - a]);
                }
            }
        }
        let mut m = 0;
        while seen.contains(&m) {
            m += 1;
        }
        g.push(m);
    }
    g
}

#[tokio::test]
async fn sequences_and_known_periods() {
    let s = common::app().await;
    let r = s
        .ok("/v1/octal/sequence", &json!({"code": ".07", "n": 16}))
        .await;
    assert_eq!(r["code"], "0.07");
    assert_eq!(r["standard_form"]["code"], "0.137");
    assert_eq!(r["standard_form"]["shift"], 1);
    assert_eq!(
        u64s(&r["values"]),
        vec![0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0]
    );
    // The brief's constants that 20,000 values prove.
    for (code, pre, per) in common::KNOWN_PERIODS[..6].iter().copied() {
        let r = s
            .ok("/v1/octal/sequence", &json!({"code": code, "n": 20000}))
            .await;
        let p = &r["periodicity"];
        assert_eq!(p["status"], "periodic", "{code}: {p}");
        assert_eq!(
            (
                p["preperiod"].as_u64().unwrap(),
                p["period"].as_u64().unwrap()
            ),
            (pre, per),
            "{code}"
        );
        let values = u64s(&r["values"]);
        assert_eq!(values.len(), 20000);
        let digits: Vec<u8> = code[2..].bytes().map(|b| b - b'0').collect();
        assert_eq!(
            values[..2000],
            brute_octal(&digits, 2000)[..],
            "{code} against the brute force"
        );
        // Beyond the computed values the sequence continues by the proved period.
        let pre = pre as usize;
        let per = per as usize;
        for n in pre..values.len() - per {
            assert_eq!(values[n], values[n + per]);
        }
    }
    // No proof for Officers, .6: it stays unknown.
    let r = s
        .ok("/v1/octal/sequence", &json!({"code": "0.6", "n": 2000}))
        .await;
    assert_eq!(r["periodicity"]["status"], "unknown");
    assert_eq!(r["periodicity"]["period"], Value::Null);
    assert_eq!(u64s(&r["values"]), brute_octal(&[6], 2000));
    // Nim and a subtraction game.
    let r = s
        .ok("/v1/octal/sequence", &json!({"code": "0.(3)", "n": 10}))
        .await;
    assert_eq!(u64s(&r["values"]), (0..10).collect::<Vec<u64>>());
    let r = s
        .ok("/v1/octal/sequence", &json!({"code": "S(1,2,5)", "n": 12}))
        .await;
    let mut g = vec![0u64; 12];
    for h in 1..12 {
        let opts: Vec<u64> = [1usize, 2, 5]
            .iter()
            .filter(|&&u| u <= h)
            .map(|&u| g[h - u])
            .collect();
        g[h] = (0..).find(|m| !opts.contains(m)).unwrap();
    }
    assert_eq!(u64s(&r["values"]), g);
}

#[tokio::test]
async fn acceptance_tables_through_http() {
    // Austin's chapter 7 rows that agree with brute force: the prefix and the period.
    let s = common::app().await;
    let data: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/grundy-core/tests/data/austin_acceptance.json"
    )))
    .unwrap();
    let same = |got: &Value, want: &Value, what: &str| {
        for (i, w) in want.as_array().into_iter().flatten().enumerate() {
            if !w.is_null() {
                assert_eq!(&got[i], w, "{what} at n = {i}");
            }
        }
    };
    let mut checked = 0;
    for row in data["table_7_1"].as_array().unwrap().iter().step_by(4) {
        let code = row["game"].as_str().unwrap();
        let r = s
            .ok("/v1/octal/sequence", &json!({"code": code, "n": 3000}))
            .await;
        same(&r["values"], &row["g_prefix"], code);
        assert_eq!(
            r["periodicity"]["period"], row["period"],
            "{code}: {}",
            r["periodicity"]
        );
        assert_eq!(r["periodicity"]["preperiod"], row["preperiod_n0"], "{code}");
        checked += 1;
    }
    // Table 7.2 lists the standard form, the shift and the standard form's values.
    for row in data["table_7_2"].as_array().unwrap().iter().step_by(10) {
        let code = row["game"].as_str().unwrap();
        let r = s
            .ok("/v1/octal/sequence", &json!({"code": code, "n": 10}))
            .await;
        let sf = r["standard_form"]["code"]
            .as_str()
            .unwrap()
            .trim_start_matches('0')
            .to_owned();
        assert_eq!(sf, row["standard_form"].as_str().unwrap(), "{code}");
        assert_eq!(r["standard_form"]["shift"], row["shift"], "{code}");
        let std = s
            .ok(
                "/v1/octal/sequence",
                &json!({"code": r["standard_form"]["code"], "n": 200}),
            )
            .await;
        same(&std["values"], &row["g_prefix_standard_form"], code);
        checked += 1;
    }
    assert!(checked >= 30);
}

#[tokio::test]
async fn values_for_huge_heaps() {
    let s = common::app().await;
    // Dawson's Kayles at heap 10^18 from the proved period 34 (preperiod 53).
    let r = s.get("/v1/octal/0.07/value/1000000000000000000").await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    let seq = brute_octal(&[0, 7], 200);
    let h: u64 = 1_000_000_000_000_000_000;
    let expect = seq[(53 + (h - 53) % 34) as usize];
    assert_eq!(r.body["value"], expect);
    assert_eq!(r.body["source"], "periodicity");
    let r = s.get("/v1/octal/0.07/value/18446744073709551615").await;
    assert_eq!(r.status.as_u16(), 200);
    // URL-encoded codes with parentheses.
    let r = s.get("/v1/octal/4.(3)/value/7").await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    let r = s.get("/v1/octal/0.(3)/value/123456789").await;
    assert_eq!(
        r.body["value"], 123456789,
        "Nim is arithmetic-periodic: {}",
        r.text
    );
}

#[tokio::test]
async fn every_winning_move_and_pagination() {
    let s = common::app().await;
    let g = brute_octal(&[7, 7], 400);
    let heaps = [5u64, 9, 20, 33, 60];
    let first = s
        .ok(
            "/v1/octal/winning-moves",
            &json!({"code": "0.77", "heaps": heaps, "limit": 3}),
        )
        .await;
    let nim = heaps.iter().fold(0, |a, &h| a ^ g[h as usize]);
    assert_eq!(first["value"], nim);
    // Collect every page.
    let mut all: Vec<Value> = first["moves"].as_array().unwrap().clone();
    let mut cursor = first["next_cursor"].clone();
    while !cursor.is_null() {
        let p = s
            .ok(
                "/v1/octal/winning-moves",
                &json!({"code": "0.77", "heaps": heaps, "limit": 3, "cursor": cursor}),
            )
            .await;
        all.extend(p["moves"].as_array().unwrap().iter().cloned());
        cursor = p["next_cursor"].clone();
    }
    // Every move is legal for Kayles (take 1 or 2, leave ≤ 2 heaps) and reaches nim-sum 0 …
    let mut seen = std::collections::HashSet::new();
    for m in &all {
        let heap = m["heap"].as_u64().unwrap();
        let take = m["take"].as_u64().unwrap();
        let leave = u64s(&m["leave"]);
        assert!(take == 1 || take == 2);
        assert_eq!(leave.iter().sum::<u64>() + take, heap);
        assert!(leave.len() <= 2 && leave.iter().all(|&x| x > 0));
        let rest = nim ^ g[heap as usize] ^ leave.iter().fold(0, |a, &x| a ^ g[x as usize]);
        assert_eq!(rest, 0, "{m}");
        assert!(seen.insert(m.to_string()), "no duplicates across pages");
    }
    // … and none is missing: count the brute-force winning moves.
    let mut count = 0;
    for &h in heaps.iter().collect::<std::collections::BTreeSet<_>>() {
        for take in 1..=2u64.min(h) {
            let r = h - take;
            let mut leaves = vec![vec![r]];
            if r == 0 {
                leaves = vec![vec![]];
            }
            for a in 1..=r / 2 {
                leaves.push(vec![a, r - a]);
            }
            for l in leaves {
                if nim ^ g[h as usize] ^ l.iter().fold(0, |a, &x| a ^ g[x as usize]) == 0 {
                    count += 1;
                }
            }
        }
    }
    assert_eq!(all.len(), count);
    // A P-position has no moves.
    let p = s
        .ok(
            "/v1/octal/winning-moves",
            &json!({"code": "0.77", "heaps": [1, 1]}),
        )
        .await;
    assert_eq!(p["outcome"], "P");
    assert_eq!(p["moves"], json!([]));
    // A huge heap with a proved period: the first page comes at once.
    let big = s
        .ok(
            "/v1/octal/winning-moves",
            &json!({"code": "0.07", "heaps": [1000000000000000000u64, 3], "limit": 5}),
        )
        .await;
    assert!(big["moves"].as_array().unwrap().len() <= 5);
}

#[tokio::test]
async fn bad_codes_and_limits() {
    let config = Config {
        octal_max_n: 100_000,
        octal_sync_time: std::time::Duration::from_millis(300),
        ..common::config()
    };
    let s = common::app_with(config).await;
    for (body, field, needle) in [
        (json!({"code": "0.0x", "n": 5}), "code", "invalid character"),
        (json!({"code": "", "n": 5}), "code", "empty"),
        (json!({"code": "7.1", "n": 5}), "code", "before the point"),
        (json!({"code": "0.(3", "n": 5}), "code", "not closed"),
        (json!({"code": "S(0)", "n": 5}), "code", "out of range"),
        (
            json!({"code": "0.07", "n": 100001}),
            "n",
            "GRUNDY_OCTAL_MAX_N",
        ),
        (json!({"code": "0.07", "n": -1}), "n", "negative"),
    ] {
        let r = s.post("/v1/octal/sequence", &body).await;
        common::assert_problem(&r, 422, needle);
        assert_eq!(r.body["field"], field, "{body}");
    }
    // .6 to 10^5 in a debug build exceeds a 300 ms synchronous limit: a 422 pointing at jobs.
    let r = s
        .post("/v1/octal/sequence", &json!({"code": "0.6", "n": 100000}))
        .await;
    if r.status.as_u16() != 200 {
        common::assert_problem(&r, 422, "POST /v1/octal/jobs");
    }
    let r = s.get("/v1/octal/0.6/value/1000000000").await;
    common::assert_problem(&r, 422, "/v1/octal/jobs");
    let r = s.get("/v1/octal/0.07/value/-5").await;
    common::assert_problem(&r, 422, "heap");
    let r = s
        .post(
            "/v1/octal/winning-moves",
            &json!({"code": "0.07", "heaps": [5], "cursor": "garbage"}),
        )
        .await;
    common::assert_problem(&r, 422, "cursor");
    let r = s
        .post(
            "/v1/octal/winning-moves",
            &json!({"code": "0.07", "heaps": [5], "limit": 0}),
        )
        .await;
    common::assert_problem(&r, 422, "limit");
}

#[tokio::test]
async fn answers_do_not_depend_on_earlier_requests() {
    // The same request gives the same body whatever was computed before it.
    let s = common::app().await;
    let seq = json!({"code": "0.07", "n": 20});
    let small = json!({"code": "0.07", "n": 300});
    let a1 = s.post("/v1/octal/sequence", &seq).await.text;
    let b1 = s.get("/v1/octal/0.07/value/100").await.text;
    let c1 = s.get("/v1/octal/0.07/value/3").await.text;
    s.get("/v1/octal/0.07/value/1000000000000000000").await;
    s.post("/v1/octal/sequence", &small).await;
    assert_eq!(s.post("/v1/octal/sequence", &seq).await.text, a1);
    assert_eq!(s.get("/v1/octal/0.07/value/100").await.text, b1);
    assert_eq!(s.get("/v1/octal/0.07/value/3").await.text, c1);
    let a: Value = serde_json::from_str(&a1).unwrap();
    assert_eq!(
        a["periodicity"]["status"], "unknown",
        "20 values prove nothing"
    );
    let b: Value = serde_json::from_str(&b1).unwrap();
    assert_eq!(b["source"], "computed");
    let r = s.ok("/v1/octal/sequence", &small).await;
    assert_eq!(r["periodicity"]["status"], "periodic");
    assert!(r["periodicity"]["proved_at"].as_u64().unwrap() <= 300);
}
