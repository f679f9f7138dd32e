//! Welter's game: the Welter function, the Unique Prime Lemma primes, winning moves, misère play.
//!
//! Coins sit on distinct squares 0, 1, 2, …; a move slides one coin to a lower empty square.
//! The Sprague–Grundy value is the Welter function, which by the *animating formula*
//! (van Splunder, Def. 3.10) is
//!
//! ```text
//! [x_1|…|x_n] = x_1 ⊕ … ⊕ x_n ⊕ ⊕_{i<j} (x_i|x_j),   (x|y) = 2^(v+1) − 1,  v = ν2(x ⊕ y)
//! ```
//!
//! Bit `t` of `(x|y)` is 1 exactly when `x ≡ y (mod 2^t)`, so bit `t` of the pair term is the
//! parity of the number of pairs congruent modulo `2^t`. Sorting the coins by their *reversed*
//! bits puts every residue class modulo `2^t` into one contiguous run, for every `t` at once;
//! the pairs then become intervals of that order and their count per depth is a classic
//! "sum over subarray minima" — which is why the value costs one sort plus O(n), not O(n²).
//!
//! The primes (Unique Prime Lemma) are solved bit by bit from the least significant bit:
//! bit `t` of `x ⊕ ⊕_j (x|x_j)` only depends on bits `0..t` of `x`, so each bit of the prime is
//! forced once the lower ones are known (notes §A.5a). The class sizes come from the same sorted
//! order, narrowed one bit at a time.
//!
//! Everything here is pure and total on distinct inputs: no allocation proportional to the
//! values, no overflow (primes can need 65 bits and are returned as `u128`).

/// The shared vocabulary (defined in [`crate::game`]), re-exported because Welter's game
/// is where a move slides one coin and the other coin games borrow it.
pub use crate::game::{Move, Outcome, Play};

/// The mating function `(x|y) = 2^(ν2(x⊕y)+1) − 1` for `x ≠ y`, as `u128` because `x ≡ y`
/// modulo `2^64` cannot happen for distinct `u64` but the doubled bound needs 65 bits at most.
#[inline]
pub fn mate(x: u64, y: u64) -> u128 {
    debug_assert_ne!(x, y);
    let v = (x ^ y).trailing_zeros();
    (1u128 << (v + 1)) - 1
}

/// Coins sorted by their bit-reversed value: every residue class modulo `2^t` is a contiguous
/// run, and within a run the coins with bit `t` clear come first.
struct LowBitOrder {
    coins: Vec<u64>,
}

impl LowBitOrder {
    fn new(coins: &[u64]) -> Self {
        let mut keys: Vec<u64> = coins.iter().map(|c| c.reverse_bits()).collect();
        keys.sort_unstable();
        for k in keys.iter_mut() {
            *k = k.reverse_bits();
        }
        LowBitOrder { coins: keys }
    }
}

/// The residue classes of the coins modulo `2^t`, for every `t` at once, as a compressed
/// binary trie over the low bits. A node is a run `lo..hi` of the low-bit order whose coins all
/// agree below bit `branch` and split on it (a leaf, one coin, has `branch = 64`). For every
/// `t` from the parent's branch + 1 up to `branch`, the class modulo `2^t` of these coins is
/// exactly this run — so a walk down the trie decides many bits per node instead of one.
struct ResidueTrie<'a> {
    coins: &'a [u64],
    nodes: Vec<TrieNode>,
}

#[derive(Clone, Copy)]
struct TrieNode {
    lo: u32,
    hi: u32,
    branch: u32,
    child: [u32; 2],
}

/// Bits `a..b` (0 ≤ a ≤ b ≤ 64) set.
fn bit_range(a: u32, b: u32) -> u64 {
    if a >= b {
        return 0;
    }
    let upper = if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    let lower = if a >= 64 { u64::MAX } else { (1u64 << a) - 1 };
    upper & !lower
}

/// Bits `t..` of `x` (nothing when `t ≥ 64`).
fn bits_from(x: u64, t: u32) -> u128 {
    if t >= 64 {
        0
    } else {
        ((x >> t) << t) as u128
    }
}

impl<'a> ResidueTrie<'a> {
    /// Builds the trie; `coins` must be non-empty, distinct, in low-bit order and fewer
    /// than 2^32 (positions are capped far below that).
    fn new(coins: &'a [u64]) -> Self {
        let mut trie = ResidueTrie {
            coins,
            nodes: Vec::with_capacity(2 * coins.len()),
        };
        if !coins.is_empty() {
            trie.build(0, coins.len());
        }
        trie
    }

    fn build(&mut self, lo: usize, hi: usize) -> u32 {
        let idx = self.nodes.len() as u32;
        // In a sorted run the first bit where any two differ is where the ends differ.
        let branch = if hi - lo == 1 {
            64
        } else {
            (self.coins[lo] ^ self.coins[hi - 1]).trailing_zeros()
        };
        self.nodes.push(TrieNode {
            lo: lo as u32,
            hi: hi as u32,
            branch,
            child: [0, 0],
        });
        if branch < 64 {
            let split = lo + self.coins[lo..hi].partition_point(|c| (c >> branch) & 1 == 0);
            let left = self.build(lo, split);
            let right = self.build(split, hi);
            self.nodes[idx as usize].child = [left, right];
        }
        idx
    }

    /// `D_i = ⊕_{j≠i} (x_i|x_j)` for every coin (low-bit order): bit `t` is the parity of
    /// the other coins in its class modulo `2^t`, accumulated down the trie in one pass.
    fn all_corrections(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.coins.len()];
        if self.nodes.is_empty() {
            return out;
        }
        // (node, first bit of its run, D accumulated above it)
        let mut stack: Vec<(u32, u32, u64)> = vec![(0, 0, 0)];
        while let Some((node, t, d)) = stack.pop() {
            let nd = self.nodes[node as usize];
            if nd.branch >= 64 {
                out[nd.lo as usize] = d; // alone in its class from here on
                continue;
            }
            let d = if (nd.hi - nd.lo - 1) & 1 == 1 {
                d ^ bit_range(t, nd.branch + 1)
            } else {
                d
            };
            stack.push((nd.child[0], nd.branch + 1, d));
            stack.push((nd.child[1], nd.branch + 1, d));
        }
        out
    }

    /// Solves `x ⊕ ⊕_{c ≠ skip} (x|c) = target` for the coins of the trie minus the one at
    /// index `skip`: bit `u` of the left side is `x_u ⊕ parity(#{c ≡ x mod 2^u})`, so each bit
    /// of `x` is forced by the lower ones. Inside a node the count is constant, so a whole run
    /// of bits is decided with one mask; the walk ends when `x` leaves every class.
    fn solve(&self, skip: Option<usize>, target: u64) -> u128 {
        if self.nodes.is_empty() {
            return target as u128;
        }
        let (mut node, mut t, mut x) = (0usize, 0u32, 0u128);
        loop {
            let nd = self.nodes[node];
            let inside = skip.is_some_and(|s| (nd.lo as usize..nd.hi as usize).contains(&s));
            let count = nd.hi - nd.lo - inside as u32;
            if count == 0 {
                // No other coin agrees with x below bit t: the rest of x is the target's.
                return x | bits_from(target, t);
            }
            let desired = if count & 1 == 1 { !target } else { target };
            let common = self.coins[nd.lo as usize];
            let run = bit_range(t, nd.branch);
            let diff = (desired ^ common) & run;
            if diff != 0 {
                // x leaves the class at bit u; above u no coin agrees with it.
                let u = diff.trailing_zeros();
                return x | (desired & bit_range(t, u + 1)) as u128 | bits_from(target, u + 1);
            }
            x |= (desired & run) as u128;
            if nd.branch >= 64 {
                // x ≡ this coin mod 2^64 with one coin in the class: bit 64 must be 1.
                return x | (((count & 1) as u128) << 64);
            }
            let bit = (desired >> nd.branch) & 1;
            x |= (bit as u128) << nd.branch;
            t = nd.branch + 1;
            node = nd.child[bit as usize] as usize;
        }
    }
}

/// Bit `t` (0 ≤ t ≤ 64) of the pair term `⊕_{i<j} (x_i|x_j)` is the parity of the number of
/// pairs congruent modulo `2^t`. Returns those 65 parities packed in a `u128` (bit 64 is
/// always 0 for distinct coins).
fn pair_term(order: &LowBitOrder) -> u128 {
    let c = &order.coins;
    let n = c.len();
    if n < 2 {
        return 0;
    }
    // depth[i] = number of common low bits of neighbours i and i+1 (< 64: coins are distinct).
    // Two coins i < j agree modulo 2^t iff min(depth[i..j]) ≥ t, so the pairs at exact
    // depth d are the subarrays of `depth` whose minimum is d. Count them (mod 2) with a
    // monotonic stack: each index owns the subarrays where it is the leftmost minimum.
    let depth: Vec<u8> = c
        .windows(2)
        .map(|w| (w[0] ^ w[1]).trailing_zeros() as u8)
        .collect();
    let m = depth.len();
    let mut left = vec![0usize; m]; // choices of start: strictly greater to the left
    let mut stack: Vec<usize> = Vec::with_capacity(m);
    for i in 0..m {
        while let Some(&top) = stack.last() {
            if depth[top] > depth[i] {
                stack.pop();
            } else {
                break;
            }
        }
        left[i] = match stack.last() {
            Some(&top) => i - top,
            None => i + 1,
        };
        stack.push(i);
    }
    stack.clear();
    let mut exact: u128 = 0; // bit d = parity of the number of pairs at exact depth d
    for i in (0..m).rev() {
        while let Some(&top) = stack.last() {
            if depth[top] >= depth[i] {
                stack.pop();
            } else {
                break;
            }
        }
        let right = match stack.last() {
            Some(&top) => top - i,
            None => m - i,
        };
        stack.push(i);
        if left[i] & right & 1 == 1 {
            exact ^= 1u128 << depth[i];
        }
    }
    // Pairs congruent mod 2^t are those at exact depth ≥ t: a suffix-XOR over the bits.
    let mut at_least: u128 = 0;
    let mut acc = false;
    for t in (0..65).rev() {
        acc ^= (exact >> t) & 1 == 1;
        if acc {
            at_least |= 1u128 << t;
        }
    }
    at_least
}

/// The Welter value (Sprague–Grundy value) of distinct coins, in any order.
///
/// The caller guarantees the coins are distinct (the API layer rejects duplicates).
/// The result is below `2^64`: it is below `2^B` when every coin is below `2^B`.
#[inline]
pub fn value(coins: &[u64]) -> u64 {
    // For a handful of coins the quadratic formula beats a sort and its allocation.
    if coins.len() <= SMALL {
        return value_quadratic(coins);
    }
    let order = LowBitOrder::new(coins);
    value_with(&order)
}

/// Up to this many coins the O(n²) formula is the faster one (measured in benches/welter.rs).
const SMALL: usize = 12;

fn value_with(order: &LowBitOrder) -> u64 {
    let xor = order.coins.iter().fold(0u64, |a, &c| a ^ c);
    let pairs = pair_term(order);
    debug_assert_eq!(pairs >> 64, 0);
    xor ^ (pairs as u64)
}

/// The unique `x ≥ 0` with `value(others ∪ {x}) == target`; `x` is never among `others`.
/// It may need 65 bits (e.g. `others = [0]`, `target = u64::MAX` gives `x = 2^64`).
pub fn complete(others: &[u64], target: u64) -> u128 {
    let order = LowBitOrder::new(others);
    let rest = value_with(&order);
    // value(others ∪ {x}) = rest ⊕ x ⊕ ⊕_c (x|c), so solve F(x) = target ⊕ rest.
    ResidueTrie::new(&order.coins).solve(None, target ^ rest)
}

/// The Unique Prime Lemma primes: for each coin (in the given order) the unique square
/// `x'_i` such that replacing `x_i` by `x'_i` gives Welter value `target`.
/// When `target == value(coins)` every prime is the coin itself.
pub fn primes(coins: &[u64], target: u64) -> Vec<u128> {
    value_and_primes(coins, target).1
}

/// The value and the primes for `target` from one sort of the coins.
pub fn value_and_primes(coins: &[u64], target: u64) -> (u64, Vec<u128>) {
    let order = LowBitOrder::new(coins);
    let k = value_with(&order);
    if target == k {
        return (k, coins.iter().map(|&c| c as u128).collect());
    }
    let by_order = primes_in_order(&order, k, target);
    // Back to request order: pair each coin with its low-bit rank (one more sort, cheaper
    // than a binary search per coin).
    let mut rank: Vec<(u64, u32)> = coins
        .iter()
        .enumerate()
        .map(|(i, c)| (c.reverse_bits(), i as u32))
        .collect();
    rank.sort_unstable();
    let mut out = vec![0u128; coins.len()];
    for (r, &(_, i)) in rank.iter().enumerate() {
        out[i as usize] = by_order[r];
    }
    (k, out)
}

/// The primes for `target` of the coins in low-bit order (aligned with `order.coins`).
/// Walking the coins in this order keeps the trie walks cache-friendly, and every `D_i` comes
/// from one depth-first pass instead of a walk per coin.
fn primes_in_order(order: &LowBitOrder, k: u64, target: u64) -> Vec<u128> {
    if target == k {
        return order.coins.iter().map(|&c| c as u128).collect();
    }
    let trie = ResidueTrie::new(&order.coins);
    let d = trie.all_corrections();
    order
        .coins
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            // k = x_i ⊕ D_i ⊕ [X∖x_i], so [X∖x_i] = k ⊕ x_i ⊕ D_i.
            let rest = k ^ c ^ d[i];
            trie.solve(Some(i), target ^ rest)
        })
        .collect()
}

/// Every move to a position of value `target` (Theorem 4.13: the coins whose prime lies below
/// them), ordered by `from` ascending.
pub fn moves_to(coins: &[u64], target: u64) -> Vec<Move> {
    let order = LowBitOrder::new(coins);
    let k = value_with(&order);
    moves_with(&order, k, target)
}

fn moves_with(order: &LowBitOrder, k: u64, target: u64) -> Vec<Move> {
    let ps = primes_in_order(order, k, target);
    let mut moves: Vec<Move> = order
        .coins
        .iter()
        .zip(ps)
        .filter(|&(&c, p)| p < c as u128)
        .map(|(&c, p)| Move {
            from: c,
            to: p as u64,
        })
        .collect();
    moves.sort_unstable();
    moves
}

/// Abacus positions (Def. 8.1): n coins, exactly one on each rod `{j, 2n−1−j}`, j < n.
/// Their values are 0 or 1 and misère play swaps the roles of 0 and 1 on them.
#[derive(Debug, Clone)]
pub struct AbacusCheck {
    n: u64,
    /// coins on squares ≥ 2n (outside every rod)
    outside: usize,
    /// rods holding two coins
    doubled: usize,
    occupied: std::collections::HashSet<u64>,
}

impl AbacusCheck {
    pub fn new(coins: &[u64]) -> Self {
        let n = coins.len() as u64;
        let occupied: std::collections::HashSet<u64> = coins.iter().copied().collect();
        let outside = coins.iter().filter(|&&c| c >= 2 * n).count();
        let doubled = coins
            .iter()
            .filter(|&&c| c < n && occupied.contains(&(2 * n - 1 - c)))
            .count();
        AbacusCheck {
            n,
            outside,
            doubled,
            occupied,
        }
    }

    pub fn is_abacus(&self) -> bool {
        self.outside == 0 && self.doubled == 0
    }

    fn partner(&self, c: u64) -> Option<u64> {
        (c < 2 * self.n).then(|| 2 * self.n - 1 - c)
    }

    /// Whether the position after moving `from` → `to` is an Abacus position, in O(1).
    pub fn is_abacus_after(&self, from: u64, to: u64) -> bool {
        let mut outside = self.outside;
        let mut doubled = self.doubled;
        match self.partner(from) {
            None => outside -= 1,
            Some(p) => {
                if self.occupied.contains(&p) {
                    doubled -= 1;
                }
            }
        }
        match self.partner(to) {
            None => outside += 1,
            Some(p) => {
                if p != from && self.occupied.contains(&p) {
                    doubled += 1;
                }
            }
        }
        outside == 0 && doubled == 0
    }
}

/// Value, outcome and every winning move of a position under the given play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub value: u64,
    pub outcome: Outcome,
    pub moves: Vec<Move>,
}

/// The outcome under `play` from the value: normal play is P iff the value is 0; misère play
/// uses the corrected Theorem 8.5 — P iff (Abacus and value 1) or (not Abacus and value 0).
#[inline]
pub fn outcome(value: u64, abacus: bool, play: Play) -> Outcome {
    let p = match play {
        Play::Normal => value == 0,
        Play::Misere => {
            if abacus {
                value == 1
            } else {
                value == 0
            }
        }
    };
    if p {
        Outcome::P
    } else {
        Outcome::N
    }
}

/// Value and outcome only (no moves): O(n log n) for the sort plus O(n).
#[inline]
pub fn evaluate(coins: &[u64], play: Play) -> (u64, Outcome) {
    let v = value(coins);
    let abacus = match play {
        Play::Normal => false,
        Play::Misere => AbacusCheck::new(coins).is_abacus(),
    };
    (v, outcome(v, abacus, play))
}

/// Value, outcome and **every** winning move under `play`, moves ordered by `from`.
///
/// Misère (corrected Theorem 8.5, verified against brute force in the tests):
/// * misère P-positions have no winning move;
/// * an Abacus position of value 0 wins by every `x → 2n−1−x` with `x ≥ n` (to Abacus value 1);
/// * a non-Abacus position of value ≠ 0 wins by the normal winning moves whose result is not
///   Abacus, and by the moves to an Abacus position of value 1 — such a move must go to the
///   coin's prime for target 1 (Unique Prime Lemma), so both kinds come from two prime sets.
pub fn analyse(coins: &[u64], play: Play) -> Analysis {
    let order = LowBitOrder::new(coins);
    let value = value_with(&order);
    match play {
        Play::Normal => {
            let moves = if value == 0 {
                Vec::new()
            } else {
                moves_with(&order, value, 0)
            };
            Analysis {
                value,
                outcome: outcome(value, false, play),
                moves,
            }
        }
        Play::Misere => {
            let abacus = AbacusCheck::new(coins);
            let out = outcome(value, abacus.is_abacus(), play);
            let mut moves = Vec::new();
            if out == Outcome::N {
                if abacus.is_abacus() {
                    let n = coins.len() as u64;
                    let mut sorted = order.coins.clone();
                    sorted.sort_unstable();
                    moves = sorted
                        .into_iter()
                        .filter(|&c| c >= n)
                        .map(|c| Move {
                            from: c,
                            to: 2 * n - 1 - c,
                        })
                        .collect();
                } else {
                    moves = moves_with(&order, value, 0)
                        .into_iter()
                        .filter(|m| !abacus.is_abacus_after(m.from, m.to))
                        .collect();
                    moves.extend(
                        moves_with(&order, value, 1)
                            .into_iter()
                            .filter(|m| abacus.is_abacus_after(m.from, m.to)),
                    );
                    moves.sort_unstable();
                }
            }
            Analysis {
                value,
                outcome: out,
                moves,
            }
        }
    }
}

/// The O(n²) animating formula, kept as the benchmark baseline and a test oracle for sizes
/// beyond brute force.
#[inline]
pub fn value_quadratic(coins: &[u64]) -> u64 {
    let mut acc: u128 = 0;
    for (i, &x) in coins.iter().enumerate() {
        acc ^= x as u128;
        for &y in &coins[i + 1..] {
            acc ^= mate(x, y);
        }
    }
    acc as u64
}

#[cfg(test)]
mod tests;
