//! Black-box tests of Max-Welter, Antonim and Antimatter through HTTP: the papers' examples and
//! tables, and an independent brute force (mex over followers, written here) on small positions.
//! In-process (`common::app`).

mod common;

use common::{u64s, vectors};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Max-Welter brute force on bitmask positions: (normal value, misère: player to move wins).
struct MaxWelterBrute {
    memo: HashMap<u32, (u64, bool)>,
}

impl MaxWelterBrute {
    fn followers(mask: u32) -> Vec<(u32, u64)> {
        if mask == 0 {
            return vec![];
        }
        let top = 31 - mask.leading_zeros();
        (0..top)
            .filter(|s| mask >> s & 1 == 0)
            .map(|s| ((mask & !(1 << top)) | (1 << s), s as u64))
            .collect()
    }
    fn eval(&mut self, mask: u32) -> (u64, bool) {
        if let Some(&v) = self.memo.get(&mask) {
            return v;
        }
        let fs = Self::followers(mask);
        let mut seen: Vec<u64> = Vec::new();
        let mut misere_win = fs.is_empty();
        for (f, _) in &fs {
            let (g, w) = self.eval(*f);
            seen.push(g);
            misere_win |= !w;
        }
        let mut m = 0;
        while seen.contains(&m) {
            m += 1;
        }
        self.memo.insert(mask, (m, misere_win));
        (m, misere_win)
    }
}

fn expand(moves: &Value, position: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for r in moves.as_array().unwrap() {
        for s in r["to_start"].as_u64().unwrap()..=r["to_end"].as_u64().unwrap() {
            if !position.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

#[tokio::test]
async fn max_welter_matches_brute_force_on_squares_below_10() {
    let s = common::app().await;
    let mut brute = MaxWelterBrute {
        memo: HashMap::new(),
    };
    for mask in 0u32..(1 << 10) {
        let pos: Vec<u64> = (0..10).filter(|b| mask >> b & 1 == 1).collect();
        let (g, misere_win) = brute.eval(mask);
        for play in ["normal", "misere"] {
            let r = s
                .ok(
                    "/v1/max-welter/winning-moves",
                    &json!({"position": pos, "play": play}),
                )
                .await;
            assert_eq!(r["value"], g, "{pos:?}");
            let n = if play == "normal" { g != 0 } else { misere_win };
            assert_eq!(r["outcome"], if n { "N" } else { "P" }, "{play} {pos:?}");
            let want: Vec<u64> = MaxWelterBrute::followers(mask)
                .into_iter()
                .filter(|(f, _)| {
                    let (fg, fw) = brute.eval(*f);
                    if play == "normal" {
                        fg == 0
                    } else {
                        !fw
                    }
                })
                .map(|(_, to)| to)
                .collect();
            assert_eq!(expand(&r["moves"], &pos), want, "{play} {pos:?}");
        }
    }
}

#[tokio::test]
async fn max_welter_papers_and_huge_positions() {
    let s = common::app().await;
    let d = vectors();
    for case in d["max_welter"]["values"].as_array().unwrap() {
        let v = s
            .ok(
                "/v1/max-welter/value",
                &json!({"position": case["position"]}),
            )
            .await;
        assert_eq!(v["value"], case["value"], "{}", case["source"]);
    }
    for case in d["derived"]["max_welter_bruteforce_sample"]
        .as_array()
        .unwrap()
    {
        let v = s
            .ok(
                "/v1/max-welter/value",
                &json!({"position": case["position"]}),
            )
            .await;
        assert_eq!(v["value"], case["value"]);
    }
    // Theorem 4 / Corollary 2 of the paper fail here; we must not use them.
    assert_eq!(
        s.ok("/v1/max-welter/value", &json!({"position": [3, 4, 6, 8]}))
            .await["value"],
        3
    );
    assert_eq!(
        s.ok(
            "/v1/max-welter/value",
            &json!({"position": [0, 1, 3, 4, 6, 8]})
        )
        .await["value"],
        2
    );
    // Squares near 10^12: outcome and moves exact and instant; the value is beyond the budget.
    let big = json!({"position": [999_999_999_990u64, 999_999_999_995u64, 1_000_000_000_000u64]});
    let r = s.ok("/v1/max-welter/winning-moves", &big).await;
    assert_eq!(r["outcome"], "N");
    assert_eq!(r["value"], Value::Null);
    assert_eq!(r["value_computed"], false);
    assert!(!r["moves"].as_array().unwrap().is_empty());
    // Every returned range leads to P-positions (checked at its ends).
    for m in r["moves"].as_array().unwrap() {
        for end in ["to_start", "to_end"] {
            let to = m[end].as_u64().unwrap();
            let next = json!({"position": [999_999_999_990u64, 999_999_999_995u64, to]});
            assert_eq!(
                s.ok("/v1/max-welter/value", &next).await["outcome"],
                "P",
                "{m}"
            );
        }
    }
}

/// Antonim brute force: coins on 0 are inert, a position is the set of non-zero squares.
fn antonim_brute(set: u32, memo: &mut HashMap<u32, u64>) -> u64 {
    if let Some(&v) = memo.get(&set) {
        return v;
    }
    let mut seen = Vec::new();
    for x in 1..32 {
        if set >> x & 1 == 1 {
            for y in 0..x {
                if y == 0 || set >> y & 1 == 0 {
                    let next = (set & !(1 << x)) | if y == 0 { 0 } else { 1 << y };
                    seen.push(antonim_brute(next, memo));
                }
            }
        }
    }
    let mut m = 0;
    while seen.contains(&m) {
        m += 1;
    }
    memo.insert(set, m);
    m
}

#[tokio::test]
async fn antonim_examples_and_brute_force() {
    let s = common::app().await;
    for case in vectors()["antonim_values"].as_array().unwrap() {
        let v = s
            .ok("/v1/antonim/value", &json!({"position": case["position"]}))
            .await;
        assert_eq!(v["value"], case["value"], "{}", case["source"]);
    }
    let mut memo = HashMap::new();
    for set in 0u32..(1 << 9) {
        if set & 1 == 1 {
            continue;
        }
        let mut pos: Vec<u64> = (1..9).filter(|b| set >> b & 1 == 1).collect();
        pos.extend([0, 0]);
        let g = antonim_brute(set, &mut memo);
        let r = s
            .ok("/v1/antonim/winning-moves", &json!({"position": pos}))
            .await;
        assert_eq!(r["value"], g, "{pos:?}");
        for m in r["moves"].as_array().unwrap() {
            let (from, to) = (m["from"].as_u64().unwrap(), m["to"].as_u64().unwrap());
            let next = (set & !(1 << from)) | if to == 0 { 0 } else { 1 << to };
            assert_eq!(antonim_brute(next, &mut memo), 0);
        }
        assert_eq!(r["moves"].as_array().unwrap().is_empty(), g == 0);
    }
    let r = s
        .post("/v1/antonim/value", &json!({"position": [3, 3]}))
        .await;
    common::assert_problem(&r, 422, "square 3");
}

#[tokio::test]
async fn antimatter_examples_and_tables() {
    let s = common::app().await;
    let d = vectors();
    for case in d["antimatter_values"].as_array().unwrap() {
        let v = s
            .ok(
                "/v1/antimatter/value",
                &json!({"positrons": case["P"], "electrons": case["E"]}),
            )
            .await;
        assert_eq!(v["value"], case["value"], "{}", case["source"]);
    }
    // Table 5: (p1, p2 | e) is a P-position for the printed e.
    let t = &d["tables"]["table5"];
    let cols: Vec<u64> = u64s(&t["cols"]);
    for (row, cells) in t["rows"].as_object().unwrap() {
        let p1: u64 = row.parse().unwrap();
        for (p2, cell) in cols.iter().zip(cells.as_array().unwrap()) {
            let Some(e) = cell.as_u64() else { continue };
            if p1 == *p2 {
                continue;
            }
            let v = s
                .ok(
                    "/v1/antimatter/value",
                    &json!({"positrons": [p1, p2], "electrons": [e]}),
                )
                .await;
            assert_eq!(v["outcome"], "P", "table 5 ({p1},{p2}|{e})");
        }
    }
    // Every winning move reaches a P-position.
    let r = s
        .ok(
            "/v1/antimatter/winning-moves",
            &json!({"positrons": [6, 7, 9], "electrons": [3, 4]}),
        )
        .await;
    assert_eq!(r["value"], 16);
    for m in r["moves"].as_array().unwrap() {
        let (from, to) = (m["from"].as_u64().unwrap(), m["to"].as_u64().unwrap());
        let (mut p, mut e) = (vec![6u64, 7, 9], vec![3u64, 4]);
        let (mine, other) = if m["particle"] == "positron" {
            (&mut p, &mut e)
        } else {
            (&mut e, &mut p)
        };
        mine.retain(|&x| x != from);
        if other.contains(&to) {
            other.retain(|&x| x != to);
        } else {
            mine.push(to);
        }
        let v = s
            .ok(
                "/v1/antimatter/value",
                &json!({"positrons": p, "electrons": e}),
            )
            .await;
        assert_eq!(v["outcome"], "P", "{m}");
    }
    let r = s
        .post(
            "/v1/antimatter/value",
            &json!({"positrons": [1, 1], "electrons": []}),
        )
        .await;
    common::assert_problem(&r, 422, "square 1");
    // One kind listed twice on a square is refused even where an electron there would
    // annihilate one of them (the schema says the squares of each list are distinct; found by
    // schemathesis: `{"electrons": [0], "positrons": [0, 0]}` was answered as `[0]` / `[]`).
    for (body, field) in [
        (json!({"positrons": [0, 0], "electrons": [0]}), "positrons"),
        (
            json!({"positrons": [5, 2], "electrons": [7, 2, 7]}),
            "electrons",
        ),
    ] {
        for path in ["/v1/antimatter/value", "/v1/antimatter/winning-moves"] {
            let r = s.post(path, &body).await;
            common::assert_problem(&r, 422, "appears twice");
            assert_eq!(r.body["field"], field, "{path} {body}");
        }
    }
    // Far beyond the budget: a clear 422, not a hang.
    let many: Vec<u64> = (0..40).map(|i| i * 7 + 3).collect();
    let more: Vec<u64> = (0..40).map(|i| i * 7 + 5).collect();
    let r = s
        .post(
            "/v1/antimatter/value",
            &json!({"positrons": many, "electrons": more}),
        )
        .await;
    common::assert_problem(&r, 422, "compute budget");
}
