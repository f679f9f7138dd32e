//! The reference engine: G(n) straight from the definition (Austin 1976, §4.1–4.2: the meaning of each digit).
//!
//! For every index `u` with a non-zero digit, every bit `h` of `d_u` and every partition of
//! `n − u` into `h` non-empty parts (each below `n` when `u ≤ 0`), the nim-sum of the parts'
//! values is excluded; G(n) is the least value not excluded. It is deliberately simple — a
//! recursive partition enumeration with no shortcuts — so that it can be trusted as the oracle
//! for the fast engine. Cost per heap: O(n^(h−1)) per digit (O(n²) per heap for hex codes).
//! A part rule (Grundy's game: unequal parts) drops the two-heap splits whose parts differ by
//! less than its gap.

use super::code::Game;
use super::error::OctalError;

/// G(0), …, G(n−1) by the definition. `should_stop` is polled once per heap.
pub fn naive_values(
    game: &Game,
    n: usize,
    should_stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<u32>, OctalError> {
    let mut g: Vec<u32> = Vec::with_capacity(n);
    let mut seen: Vec<bool> = Vec::new();
    let gap = usize::try_from(game.part_rule().min_gap()).unwrap_or(usize::MAX);
    for m in 0..n {
        if should_stop() {
            return Err(OctalError::Stopped { computed: m });
        }
        seen.clear();
        for u in game.min_index()..=m as i64 {
            let d = game.digit(u);
            if d == 0 {
                continue;
            }
            let total = (m as i64 - u) as usize;
            // Adding tokens (u ≤ 0) must leave every heap smaller than the original one.
            let max_part = if u <= 0 { m.saturating_sub(1) } else { total };
            for h in 0..4usize {
                if d >> h & 1 == 0 {
                    continue;
                }
                if h == 2 && gap > 0 {
                    // a ≤ b = total − a with b − a ≥ gap and b ≤ max_part.
                    for a in 1..=total / 2 {
                        let b = total - a;
                        if b - a >= gap && b <= max_part {
                            mark(&mut seen, g[a] ^ g[b]);
                        }
                    }
                } else {
                    partitions(&g, h, total, 1, max_part, 0, &mut seen);
                }
            }
        }
        let v = seen.iter().position(|&s| !s).unwrap_or(seen.len());
        g.push(u32::try_from(v).map_err(|_| OctalError::ValueOverflow { n: m })?);
    }
    Ok(g)
}

/// Marks the nim-sum `acc ⊕ G(p_1) ⊕ … ⊕ G(p_k)` for every non-decreasing `p_1 ≤ … ≤ p_k` with
/// sum `total`, `p_1 ≥ min_part` and every part ≤ `max_part`.
fn partitions(
    g: &[u32],
    parts: usize,
    total: usize,
    min_part: usize,
    max_part: usize,
    acc: u32,
    seen: &mut Vec<bool>,
) {
    if parts == 0 {
        if total == 0 {
            mark(seen, acc);
        }
        return;
    }
    if parts == 1 {
        if total >= min_part && total <= max_part {
            mark(seen, acc ^ g[total]);
        }
        return;
    }
    let mut p = min_part;
    while p * parts <= total && p <= max_part {
        partitions(g, parts - 1, total - p, p, max_part, acc ^ g[p], seen);
        p += 1;
    }
}

fn mark(seen: &mut Vec<bool>, v: u32) {
    let v = v as usize;
    if v >= seen.len() {
        seen.resize(v + 1, false);
    }
    seen[v] = true;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    pub(crate) use crate::test_support::{codes_and_random, random_code, Rng};
    use std::collections::HashMap;

    /// Grundy value of an arbitrary multiset of heaps by exploring the game tree, without the
    /// Sprague–Grundy sum theorem and with an independent move generator (ordered compositions,
    /// sorted afterwards).
    fn brute(game: &Game, pos: Vec<usize>, memo: &mut HashMap<Vec<usize>, u32>) -> u32 {
        if let Some(&v) = memo.get(&pos) {
            return v;
        }
        let mut opts = Vec::new();
        for (i, &x) in pos.iter().enumerate() {
            if i > 0 && pos[i - 1] == x {
                continue;
            }
            let mut rest = pos.clone();
            rest.remove(i);
            for u in game.min_index()..=x as i64 {
                let d = game.digit(u);
                for h in 0..4usize {
                    if d >> h & 1 == 0 {
                        continue;
                    }
                    let total = x as i64 - u;
                    let mut comp = vec![0usize; h];
                    compositions(total as usize, h, 0, &mut comp, &mut |parts| {
                        if u <= 0 && parts.iter().any(|&p| p >= x) {
                            return;
                        }
                        let mut next = rest.clone();
                        next.extend_from_slice(parts);
                        next.sort_unstable();
                        opts.push(next);
                    });
                }
            }
        }
        let mut vals: Vec<u32> = opts.into_iter().map(|o| brute(game, o, memo)).collect();
        vals.sort_unstable();
        vals.dedup();
        let v = vals
            .iter()
            .enumerate()
            .find(|&(i, &v)| v != i as u32)
            .map_or(vals.len(), |(i, _)| i);
        memo.insert(pos, v as u32);
        v as u32
    }

    fn compositions(
        total: usize,
        h: usize,
        k: usize,
        comp: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]),
    ) {
        if k == h {
            if total == 0 {
                f(comp);
            }
            return;
        }
        for p in 1..=total {
            comp[k] = p;
            compositions(total - p, h, k + 1, comp, f);
        }
    }

    #[test]
    fn naive_matches_game_tree_brute_force() {
        let mut rng = Rng(0x5eed_0001);
        let codes = codes_and_random(
            &[
                "0.07", "0.77", "4.07", "44.3", "80.4", "0.F8", "0.(3)", "4.(3)", "0.5(3)", "C.1",
                "8.2",
            ],
            &mut rng,
        );
        for code in &codes {
            let game = Game::parse(code).unwrap();
            let limit = if game.max_heaps() >= 3 { 9 } else { 12 };
            let g = naive_values(&game, limit, &mut || false).unwrap();
            let mut memo = HashMap::new();
            for (n, &gv) in g.iter().enumerate() {
                let b = brute(&game, if n == 0 { vec![] } else { vec![n] }, &mut memo);
                assert_eq!(gv, b, "{code}: G({n})");
            }
            // The Sprague–Grundy sum rule on a few two-heap positions, as a check of `brute`.
            for a in 1..5.min(limit) {
                for b in a..6.min(limit) {
                    assert_eq!(
                        brute(&game, vec![a, b], &mut memo),
                        g[a] ^ g[b],
                        "{code}: {a}+{b}"
                    );
                }
            }
        }
    }

    #[test]
    fn known_sequences() {
        let seq = |c: &str, n| naive_values(&Game::parse(c).unwrap(), n, &mut || false).unwrap();
        assert_eq!(seq("0.72", 13), vec![0, 1, 0, 2, 3, 1, 0, 2, 3, 1, 0, 2, 3]);
        assert_eq!(seq("0.(3)", 6), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(seq("4.(3)", 9), vec![0, 1, 2, 4, 3, 5, 6, 8, 7]);
        assert_eq!(seq("0.77", 12), vec![0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
        let mut calls = 0;
        let err = naive_values(&Game::parse("0.6").unwrap(), 100, &mut || {
            calls += 1;
            calls > 10
        });
        assert_eq!(err, Err(OctalError::Stopped { computed: 10 }));
    }
}
