//! The options of one heap as multisets of heaps (the move rule of `octal::naive`).
//!
//! For every index `u` with a non-zero digit `d_u` and every bit `h` of `d_u`, a heap of `n`
//! tokens may lose `u` tokens (gain `|u|` when `u ≤ 0`) and be replaced by exactly `h`
//! non-empty heaps whose sizes add up to `n − u` (Austin 1976, ch. 4; Guy & Smith 1956):
//!
//! * `h = 0`: the heap is removed whole (`u = n`);
//! * `h = 1`: one heap `n − u` is left (`1 ≤ n − u`);
//! * `h = 2, 3`: every multiset of `h` positive parts adding up to `n − u`.
//!
//! When tokens are added (`u ≤ 0`) every part must be smaller than `n`. A [`PartRule`] on the
//! game (Grundy's game: two parts must differ by at least its gap) drops the two-heap splits
//! whose parts are too close. Each option is listed once, as a sorted list of heap sizes (no
//! zero heaps: a heap of size 0 is the empty game and is never produced).
//!
//! [`PartRule`]: crate::octal::PartRule

use crate::octal::Game;

use super::error::MisereError;

/// Largest heap whose options this module enumerates (a heap of `n` tokens of a hexadecimal
/// code has about `n²/12` three-heap options per digit).
pub const MAX_OPTION_HEAP: u64 = 1 << 20;
/// Most options of one heap this module lists.
pub const MAX_OPTIONS: usize = 1 << 22;

/// One option of a heap: `take` tokens removed (negative: added) and the heaps `leave`
/// (ascending, each ≥ 1) that replace it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeapOption {
    pub take: i64,
    pub leave: Vec<u64>,
}

/// Every option of a heap of `n` tokens, ordered by the number of heaps left, then `take`
/// ascending, then `leave` lexicographically (the order of `octal::moves`).
pub fn heap_options(game: &Game, n: u64) -> Result<Vec<HeapOption>, MisereError> {
    let mut out: Vec<HeapOption> = Vec::new();
    let mut too_many = false;
    for_each_option(game, n, &mut |take, leave| {
        out.push(HeapOption {
            take,
            leave: leave.to_vec(),
        });
        too_many = out.len() > MAX_OPTIONS;
        !too_many
    })?;
    if too_many {
        return Err(MisereError::TooManyOptions {
            heap: n,
            max: MAX_OPTIONS,
        });
    }
    Ok(out)
}

/// True when a heap of `n` tokens has at least one option (a heap without options is the
/// empty game: it can be dropped from any position without changing anything).
pub fn has_options(game: &Game, n: u64) -> Result<bool, MisereError> {
    let mut any = false;
    for_each_option(game, n, &mut |_, _| {
        any = true;
        false
    })?;
    Ok(any)
}

/// Calls `f(take, leave)` for every option in the order of [`heap_options`] until `f`
/// returns false.
fn for_each_option(
    game: &Game,
    n: u64,
    f: &mut dyn FnMut(i64, &[u64]) -> bool,
) -> Result<(), MisereError> {
    if n > MAX_OPTION_HEAP {
        return Err(MisereError::HeapTooLarge {
            heap: n,
            max: MAX_OPTION_HEAP,
        });
    }
    let gap = game.part_rule().min_gap();
    let n_i = n as i64;
    for h in 0..4u32 {
        for u in game.min_index()..=n_i {
            let d = game.digit(u);
            if d >> h & 1 == 0 {
                continue;
            }
            let total = (n_i - u) as u64;
            // Adding tokens must leave every heap smaller than the original one.
            let max_part = if u <= 0 { n.saturating_sub(1) } else { total };
            match h {
                0 => {
                    if total == 0 && !f(u, &[]) {
                        return Ok(());
                    }
                }
                1 => {
                    if total >= 1 && total <= max_part && !f(u, &[total]) {
                        return Ok(());
                    }
                }
                2 => {
                    // a ≤ b = total − a, b ≤ max_part, b − a ≥ gap.
                    for a in 1..=total / 2 {
                        let b = total - a;
                        if b <= max_part && b - a >= gap && !f(u, &[a, b]) {
                            return Ok(());
                        }
                    }
                }
                _ => {
                    // a ≤ b ≤ c = total − a − b, c ≤ max_part.
                    let mut a = 1;
                    while 3 * a <= total {
                        let rest = total - a;
                        let mut b = a.max(rest.saturating_sub(max_part));
                        while 2 * b <= rest {
                            if !f(u, &[a, b, rest - b]) {
                                return Ok(());
                            }
                            b += 1;
                        }
                        a += 1;
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::naive_values;
    use crate::test_support::{random_code, Rng};

    /// Independent of the code above: the nim-sum rule applied to the listed options must
    /// give the G-sequence of the reference engine `octal::naive`.
    #[test]
    fn mex_of_options_is_the_naive_g_sequence() {
        let mut rng = Rng(0x0915_0001);
        let mut codes: Vec<String> = [
            "0.07", "0.77", "0.137", "4.07", "44.3", "80.4", "0.F8", "0.(3)", "4.(3)", "0.5(3)",
            "C.1", "8.2", "grundy", "S(1,2,5)", "0.8F", "0.123",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for _ in 0..200 {
            codes.push(random_code(&mut rng));
        }
        for code in &codes {
            let game = Game::parse(code).unwrap();
            let limit = if game.max_heaps() >= 3 { 22 } else { 40 };
            let g = naive_values(&game, limit, &mut || false).unwrap();
            for n in 0..limit {
                let opts = heap_options(&game, n as u64).unwrap();
                let mut seen = vec![false; 256];
                let mut sorted = opts.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), opts.len(), "{code}: duplicate option of {n}");
                for o in &opts {
                    assert!(o.leave.windows(2).all(|w| w[0] <= w[1]), "{code}: unsorted");
                    assert!(o.leave.iter().all(|&x| x >= 1), "{code}: empty heap left");
                    assert_eq!(
                        o.leave.iter().sum::<u64>() as i64,
                        n as i64 - o.take,
                        "{code}: tokens of {n}"
                    );
                    let v = o.leave.iter().fold(0u32, |acc, &x| acc ^ g[x as usize]);
                    seen[v as usize] = true;
                }
                let mex = seen.iter().position(|&s| !s).unwrap() as u32;
                assert_eq!(mex, g[n], "{code}: G({n})");
            }
        }
    }

    #[test]
    fn kayles_and_dawson_options() {
        let k = Game::parse("0.77").unwrap();
        let leaves: Vec<Vec<u64>> = heap_options(&k, 4)
            .unwrap()
            .into_iter()
            .map(|o| o.leave)
            .collect();
        assert_eq!(leaves, vec![vec![3], vec![2], vec![1, 2], vec![1, 1]]);
        let d = Game::parse("0.07").unwrap();
        assert!(heap_options(&d, 1).unwrap().is_empty());
        assert_eq!(heap_options(&d, 2).unwrap().len(), 1);
        let g = Game::grundy();
        let leaves: Vec<Vec<u64>> = heap_options(&g, 6)
            .unwrap()
            .into_iter()
            .map(|o| o.leave)
            .collect();
        assert_eq!(leaves, vec![vec![1, 5], vec![2, 4]]);
        assert!(matches!(
            heap_options(&k, MAX_OPTION_HEAP + 1),
            Err(MisereError::HeapTooLarge { .. })
        ));
    }
}
