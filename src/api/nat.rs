//! `Nat`: a JSON integer in 0..=2^64−1, with errors that say *why* a number was refused.
//!
//! serde_json reads integer literals that fit `u64`/`i64` as integers and everything else as
//! `f64`, so a float here means either a fraction/exponent literal or an integer outside the
//! 64-bit range — each gets its own message instead of a generic type error. Whole-number
//! floats up to 2^53 (`5.0`, `1e3`) are accepted, as JSON Schema's `integer` allows them.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A non-negative JSON integer that fits in 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nat(pub u64);

struct NatVisitor;

impl Visitor<'_> for NatVisitor {
    type Value = Nat;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative integer")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nat, E> {
        Ok(Nat(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Nat, E> {
        u64::try_from(v)
            .map(Nat)
            .map_err(|_| E::custom(format!("{v} is negative; expected a non-negative integer")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Nat, E> {
        if v.is_finite() && v.fract() == 0.0 {
            if v < 0.0 {
                Err(E::custom(format!(
                    "{v:.0} is negative; expected a non-negative integer"
                )))
            } else if v >= 18_446_744_073_709_552_000.0 {
                Err(E::custom(format!(
                    "{v:.0} is too large; the maximum is 18446744073709551615 (2^64-1)"
                )))
            } else if v <= 9007199254740992.0 {
                // JSON Schema counts 5.0 as an integer; below 2^53 a float holds it exactly.
                Ok(Nat(v as u64))
            } else {
                Err(E::custom(format!(
                    "{v} is written as a float above 2^53, where floats are not exact; write it as an integer literal"
                )))
            }
        } else {
            Err(E::custom(format!("{v} is not an integer")))
        }
    }
}

impl<'de> Deserialize<'de> for Nat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NatVisitor)
    }
}

/// Unwraps a list of `Nat`s.
pub fn nats(v: &[Nat]) -> Vec<u64> {
    v.iter().map(|n| n.0).collect()
}
