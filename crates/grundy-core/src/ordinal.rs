//! Ordinals below ε0 in Cantor normal form (CNF).
//!
//! Every ordinal 0 < α < ε0 is uniquely `ω^e1·c1 + … + ω^ek·ck` with `e1 > … > ek` (ordinals
//! below ε0 themselves, so the representation is recursive) and natural coefficients `ci ≥ 1`.
//! [`Ordinal`] stores exactly this list, so structural equality is ordinal equality and the
//! derived lexicographic order is the ordinal order (see [`Ordinal`]).
//!
//! Coefficients and finite exponents are `u64`; any arithmetic that would exceed them returns
//! [`ArithError::Overflow`] — nothing is ever wrapped. Parsing, [`Ordinal::checked_mul`] and
//! [`Ordinal::checked_pow`] never produce more than [`MAX_NODES`] terms or a tower higher than
//! [`MAX_HEIGHT`] (addition and nim-sum results are no bigger than their operands together),
//! so no operation can run away in time or memory, and everything of height ≤ [`MAX_HEIGHT`]
//! prints to a string that parses back to it (given a length limit that fits the string, see
//! [`Ordinal::parse_with_max_len`]).
//!
//! Text syntax (see [`Ordinal::parse`]): `w` or `ω`, natural numbers, `+`, `*` or `·`, `^`,
//! parentheses, whitespace. Every expression is evaluated with true ordinal arithmetic
//! (`1+w` = `w`, `2*w` = `w`, `(w+1)*2` = `w*2+1`, `2^w` = `w`). Canonical output (`Display`) is
//! ASCII CNF: terms by decreasing exponent, `w^e*c`, no `*1`, no `^1`, and any exponent other
//! than a natural number or `w` in parentheses: `w^(w+1)*2+5`, `w^w`, `w^(w^2)`, `w`, `0`.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

mod parse;
pub use parse::{ParseError, ParseErrorKind};

/// Longest accepted input, in bytes.
pub const MAX_INPUT_LEN: usize = 10_000;
/// Deepest accepted syntactic nesting: each `(` and each `^` opens one level.
pub const MAX_NESTING: usize = 64;
/// Largest ordinal that parsing, products and powers produce, counted in terms at all levels
/// ([`Ordinal::node_count`]); about 45 bytes of text per term at most.
pub const MAX_NODES: usize = 1_000;
/// Most terms (counted as in [`MAX_NODES`]) that the products and powers of one parsed
/// expression may produce in total, so that parsing time stays small whatever the input.
pub const MAX_WORK: usize = 50 * MAX_NODES;
/// Deepest accepted exponent tower ([`Ordinal::height`]). Printing an ordinal of height `h`
/// needs at most `2h − 1` nesting levels, so `2·32 − 1 ≤ MAX_NESTING` keeps printing and
/// parsing inverse to each other.
pub const MAX_HEIGHT: usize = 32;

/// An ordinal below ε0 in Cantor normal form.
///
/// Invariant: `terms` have strictly decreasing exponents and non-zero coefficients; zero is the
/// empty list. With the fields in the order (exponent, coefficient), the derived `Ord` is the
/// ordinal order: the first differing term decides (a larger exponent, or the same exponent with
/// a larger coefficient, outweighs everything after it, because the tail is below `ω^e`), and
/// a proper prefix is smaller. The derived `Eq`/`Hash` are ordinal equality by uniqueness of CNF.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ordinal {
    terms: Vec<Term>,
}

/// One CNF term `ω^exponent · coefficient` (coefficient ≥ 1).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term {
    exponent: Ordinal,
    coefficient: u64,
}

impl Term {
    /// The exponent `e` of `ω^e·c`.
    pub fn exponent(&self) -> &Ordinal {
        &self.exponent
    }
    /// The coefficient `c ≥ 1` of `ω^e·c`.
    pub fn coefficient(&self) -> u64 {
        self.coefficient
    }
}

/// Why an ordinal operation has no representable result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArithError {
    #[error("a coefficient or finite exponent would exceed 2^64-1")]
    Overflow,
    #[error("the result would have more than {max} terms")]
    TooLarge { max: usize },
    #[error("the result would nest exponents more than {max} levels deep")]
    TooTall { max: usize },
}

impl From<u64> for Ordinal {
    fn from(n: u64) -> Self {
        Ordinal::monomial(Ordinal::zero(), n)
    }
}

impl Ordinal {
    /// 0.
    pub fn zero() -> Self {
        Ordinal { terms: Vec::new() }
    }
    /// 1.
    pub fn one() -> Self {
        Ordinal::from(1)
    }
    /// ω.
    pub fn omega() -> Self {
        Ordinal::monomial(Ordinal::one(), 1)
    }
    /// `ω^exponent · coefficient` (zero when `coefficient` is 0). Not size-checked.
    pub fn monomial(exponent: Ordinal, coefficient: u64) -> Self {
        if coefficient == 0 {
            return Ordinal::zero();
        }
        Ordinal {
            terms: vec![Term {
                exponent,
                coefficient,
            }],
        }
    }

    /// The CNF terms, by strictly decreasing exponent.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }
    /// True for 0.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }
    /// True for the natural numbers (ordinals below ω).
    pub fn is_finite(&self) -> bool {
        self.to_u64().is_some()
    }
    /// The value as a natural number, if the ordinal is finite.
    pub fn to_u64(&self) -> Option<u64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [t] if t.exponent.is_zero() => Some(t.coefficient),
            _ => None,
        }
    }
    /// Total number of terms at every level (an `ω^e·c` term counts 1 plus its exponent's count).
    pub fn node_count(&self) -> usize {
        self.terms.iter().map(|t| 1 + t.exponent.node_count()).sum()
    }
    /// Height of the exponent tower: 0 for naturals, 1 below `ω^ω`, 2 below `ω^(ω^ω)`, …
    pub fn height(&self) -> usize {
        match self.terms.first() {
            None => 0,
            Some(t) if t.exponent.is_zero() => 0,
            // The leading exponent is the largest, hence the tallest.
            Some(t) => 1 + t.exponent.height(),
        }
    }

    /// Division by ω with remainder: the unique `(λ, m)` with `self = ω·λ + m`, `m` finite.
    ///
    /// `ω·λ` maps each term `ω^e·c` of λ to `ω^(1+e)·c`, so λ takes each infinite-part term
    /// `ω^e·c` (e ≥ 1) to `ω^e'·c` with `1+e' = e`: `e' = e−1` for finite `e`, `e' = e` for
    /// `e ≥ ω` (where `1+e = e`). Both maps are strictly increasing, so CNF order is kept.
    pub fn div_omega(&self) -> (Ordinal, u64) {
        let mut lambda = Vec::with_capacity(self.terms.len());
        let mut m = 0;
        for t in &self.terms {
            match t.exponent.to_u64() {
                Some(0) => m = t.coefficient,
                Some(e) => lambda.push(Term {
                    exponent: Ordinal::from(e - 1),
                    coefficient: t.coefficient,
                }),
                None => lambda.push(t.clone()),
            }
        }
        (Ordinal { terms: lambda }, m)
    }

    /// `ω·λ + m`, the inverse of [`Ordinal::div_omega`].
    pub fn omega_mul_add(lambda: &Ordinal, m: u64) -> Result<Ordinal, ArithError> {
        let mut terms = Vec::with_capacity(lambda.terms.len() + 1);
        for t in &lambda.terms {
            let exponent = match t.exponent.to_u64() {
                Some(e) => Ordinal::from(e.checked_add(1).ok_or(ArithError::Overflow)?),
                None => t.exponent.clone(),
            };
            terms.push(Term {
                exponent,
                coefficient: t.coefficient,
            });
        }
        if m > 0 {
            terms.push(Term {
                exponent: Ordinal::zero(),
                coefficient: m,
            });
        }
        Ok(Ordinal { terms })
    }

    /// Ordinal nim-sum: XOR of the coefficients of equal powers of ω (Abuku, Def. 2.5).
    /// Infallible: XOR never overflows. Commutative, associative, 0 is neutral, `α ⊕ α = 0`.
    pub fn nim_sum(&self, other: &Ordinal) -> Ordinal {
        let (a, b) = (&self.terms, &other.terms);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].exponent.cmp(&b[j].exponent) {
                Ordering::Greater => {
                    out.push(a[i].clone());
                    i += 1;
                }
                Ordering::Less => {
                    out.push(b[j].clone());
                    j += 1;
                }
                Ordering::Equal => {
                    let c = a[i].coefficient ^ b[j].coefficient;
                    if c != 0 {
                        out.push(Term {
                            exponent: a[i].exponent.clone(),
                            coefficient: c,
                        });
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Ordinal { terms: out }
    }

    /// The nim-sum of many ordinals in one pass: O(T log T) comparisons for T terms in all,
    /// where folding [`Ordinal::nim_sum`] would copy a growing result each time.
    pub fn nim_sum_all<'a>(items: impl IntoIterator<Item = &'a Ordinal>) -> Ordinal {
        let mut coefficients: BTreeMap<&Ordinal, u64> = BTreeMap::new();
        for item in items {
            for t in &item.terms {
                *coefficients.entry(&t.exponent).or_insert(0) ^= t.coefficient;
            }
        }
        let terms = coefficients
            .into_iter()
            .rev()
            .filter(|&(_, c)| c != 0)
            .map(|(e, c)| Term {
                exponent: e.clone(),
                coefficient: c,
            })
            .collect();
        Ordinal { terms }
    }

    /// Whether `self ⊕ other < self`, without building the nim-sum (O(log) comparisons).
    /// Both agree above the leading exponent `e` of `other`; at `e` the coefficient `x` of
    /// `self` becomes `x ⊕ c`, and that first difference decides the order.
    pub fn nim_sum_is_smaller(&self, other: &Ordinal) -> bool {
        let Some(lead) = other.terms.first() else {
            return false;
        };
        let at = self.terms.partition_point(|t| t.exponent > lead.exponent);
        let x = match self.terms.get(at) {
            Some(t) if t.exponent == lead.exponent => t.coefficient,
            _ => 0,
        };
        x ^ lead.coefficient < x
    }

    /// Ordinal addition `self + rhs` (not commutative: `1 + ω = ω`).
    ///
    /// With `rhs = ω^e·d + tail`, every term of `self` with exponent below `e` is absorbed, a term
    /// with exponent exactly `e` adds its coefficient to `d`, larger terms stay in front.
    /// Errors only on coefficient overflow.
    pub fn checked_add(&self, rhs: &Ordinal) -> Result<Ordinal, ArithError> {
        let Some(first) = rhs.terms.first() else {
            return Ok(self.clone());
        };
        // Exponents decrease, so the kept prefix is found by binary search.
        let keep = self.terms.partition_point(|t| t.exponent > first.exponent);
        let mut terms = Vec::with_capacity(keep + rhs.terms.len());
        terms.extend_from_slice(&self.terms[..keep]);
        match self.terms.get(keep) {
            Some(t) if t.exponent == first.exponent => {
                let c = t
                    .coefficient
                    .checked_add(first.coefficient)
                    .ok_or(ArithError::Overflow)?;
                terms.push(Term {
                    exponent: first.exponent.clone(),
                    coefficient: c,
                });
                terms.extend_from_slice(&rhs.terms[1..]);
            }
            _ => terms.extend_from_slice(&rhs.terms),
        }
        Ok(Ordinal { terms })
    }

    /// [`Ordinal::checked_add`] reusing `self`'s storage: pops the absorbed terms instead of
    /// copying the kept ones, so a long chain of additions costs time linear in its length.
    fn add_owned(mut self, mut rhs: Ordinal) -> Result<Ordinal, ArithError> {
        let Some(first) = rhs.terms.first_mut() else {
            return Ok(self);
        };
        while let Some(last) = self.terms.last() {
            match last.exponent.cmp(&first.exponent) {
                Ordering::Less => {}
                Ordering::Equal => {
                    first.coefficient = first
                        .coefficient
                        .checked_add(last.coefficient)
                        .ok_or(ArithError::Overflow)?;
                }
                Ordering::Greater => break,
            }
            self.terms.pop();
        }
        self.terms.append(&mut rhs.terms);
        Ok(self)
    }

    /// Ordinal multiplication `self · rhs` (not commutative: `2·ω = ω`, `ω·2 = ω+ω`).
    ///
    /// Let `self = ω^a·c + rest ≠ 0`. Multiplication distributes on the left over the terms of
    /// `rhs`, and for one term: `self·ω^b·d = ω^(a+b)·d` when `b ≥ 1` (`self` lies between `ω^a`
    /// and `ω^(a+1)`, and both give `ω^(a+b)` for `b ≥ 1`), while `self·d = ω^a·(c·d) + rest`
    /// for finite `d`. The exponents `a+b` decrease with `b` and all exceed `a`, so the pieces
    /// simply concatenate into CNF. Errors on overflow or a result over [`MAX_NODES`].
    pub fn checked_mul(&self, rhs: &Ordinal) -> Result<Ordinal, ArithError> {
        if self.is_zero() {
            return Ok(Ordinal::zero());
        }
        self.clone().mul_owned(rhs)
    }

    /// [`Ordinal::checked_mul`] moving `self`'s terms into the result instead of copying them.
    fn mul_owned(mut self, rhs: &Ordinal) -> Result<Ordinal, ArithError> {
        if self.is_zero() {
            return Ok(self);
        }
        let too_large = ArithError::TooLarge { max: MAX_NODES };
        // Only the last term of rhs can be finite.
        let (infinite, finite) = match rhs.terms.split_last() {
            Some((t, init)) if t.exponent.is_zero() => (init, Some(t.coefficient)),
            _ => (rhs.terms.as_slice(), None),
        };
        let mut terms = Vec::with_capacity(rhs.terms.len() + self.terms.len());
        let mut nodes = 0usize;
        for t in infinite {
            let exponent = self.terms[0].exponent.checked_add(&t.exponent)?;
            nodes += 1 + exponent.node_count();
            if nodes > MAX_NODES {
                return Err(too_large);
            }
            terms.push(Term {
                exponent,
                coefficient: t.coefficient,
            });
        }
        if let Some(d) = finite {
            nodes += self.node_count();
            if nodes > MAX_NODES {
                return Err(too_large);
            }
            let lead = &mut self.terms[0];
            lead.coefficient = lead
                .coefficient
                .checked_mul(d)
                .ok_or(ArithError::Overflow)?;
            terms.append(&mut self.terms);
        }
        Ok(Ordinal { terms })
    }

    /// Ordinal exponentiation `self ^ exp`.
    ///
    /// Write `exp = ω·γ + n` ([`Ordinal::div_omega`]); then `α^exp = α^(ω·γ) · α^n`, and
    /// * `0^0 = 1`, `0^β = 0` (β ≥ 1), `1^β = 1`;
    /// * finite `k ≥ 2`: `k^ω = ω`, so `k^(ω·γ+n) = ω^γ · k^n`;
    /// * infinite α with leading exponent `a ≥ 1`: `ω^(a·n) ≤ α^n < ω^((a+1)·n)` and both bounds
    ///   have supremum `ω^(a·ω)`, so `α^ω = ω^(a·ω)` and `α^(ω·γ) = ω^(a·ω·γ)`; `α^n` is computed
    ///   by repeated squaring (at most 64 products, each size-checked).
    ///
    /// Errors on overflow, on a result over [`MAX_NODES`] terms or [`MAX_HEIGHT`] levels.
    pub fn checked_pow(&self, exp: &Ordinal) -> Result<Ordinal, ArithError> {
        let (gamma, n) = exp.div_omega();
        let result = if self.is_zero() {
            if exp.is_zero() {
                Ordinal::one()
            } else {
                Ordinal::zero()
            }
        } else if let Some(k) = self.to_u64() {
            if k == 1 {
                Ordinal::one()
            } else {
                let n = u32::try_from(n).map_err(|_| ArithError::Overflow)?;
                let kn = k.checked_pow(n).ok_or(ArithError::Overflow)?;
                Ordinal::monomial(gamma, kn)
            }
        } else {
            let a = &self.terms[0].exponent;
            let mut result = if gamma.is_zero() {
                Ordinal::one()
            } else {
                Ordinal::monomial(a.checked_mul(&Ordinal::omega())?.checked_mul(&gamma)?, 1)
            };
            let (mut base, mut n) = (self.clone(), n);
            while n > 0 {
                if n & 1 == 1 {
                    result = result.checked_mul(&base)?;
                }
                n >>= 1;
                if n > 0 {
                    base = base.checked_mul(&base)?;
                }
            }
            result
        };
        result.check_limits()
    }

    /// Return `self` if it is within [`MAX_NODES`] and [`MAX_HEIGHT`].
    fn check_limits(self) -> Result<Ordinal, ArithError> {
        if self.height() > MAX_HEIGHT {
            Err(ArithError::TooTall { max: MAX_HEIGHT })
        } else if self.node_count() > MAX_NODES {
            Err(ArithError::TooLarge { max: MAX_NODES })
        } else {
            Ok(self)
        }
    }

    /// The same canonical form as `Display`, with `ω` and `·` instead of `w` and `*`.
    pub fn to_unicode_string(&self) -> String {
        let mut s = String::new();
        write_cnf(&mut s, self, true).expect("writing to a String cannot fail");
        s
    }
}

impl fmt::Display for Ordinal {
    /// Canonical ASCII CNF, e.g. `w^(w+1)*2+w^2+w*3+5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cnf(f, self, false)
    }
}

fn write_cnf(out: &mut impl fmt::Write, a: &Ordinal, unicode: bool) -> fmt::Result {
    let (w, times) = if unicode { ("ω", "·") } else { ("w", "*") };
    if a.is_zero() {
        return out.write_str("0");
    }
    for (i, t) in a.terms.iter().enumerate() {
        if i > 0 {
            out.write_str("+")?;
        }
        match t.exponent.to_u64() {
            Some(0) => {
                write!(out, "{}", t.coefficient)?;
                continue;
            }
            Some(1) => out.write_str(w)?,
            Some(e) => write!(out, "{w}^{e}")?,
            None if t.exponent == Ordinal::omega() => write!(out, "{w}^{w}")?,
            None => {
                write!(out, "{w}^(")?;
                write_cnf(out, &t.exponent, unicode)?;
                out.write_str(")")?;
            }
        }
        if t.coefficient != 1 {
            write!(out, "{times}{}", t.coefficient)?;
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
