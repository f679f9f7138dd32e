//! `Nat`: a JSON integer in 0..=2^64−1, read exactly, with errors that say *why* a number was
//! refused.
//!
//! Request bodies pass through [`super::numbers::normalize`] first, which rewrites every number
//! literal whose exact value is an integer in range (`5.0`, `1e17`, `9007199254740993e0`) as a
//! plain integer literal, so serde_json hands this visitor a `u64`/`i64` read exactly. An `f64`
//! reaching it is therefore a non-integer (`1.5`, and also `4.0000000000000001` or `1e-400`,
//! which a float rounds to a whole number) or a value beyond 64 bits — each refused with its own
//! message instead of a generic type error. Nothing is ever rounded.

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
        // Show the value only where the float still spells the literal's magnitude, in a few
        // characters (a tiny one such as 1e-288 would print as hundreds of zeros).
        let shown = if v.is_finite() && (v == 0.0 || (1e-6..1e15).contains(&v.abs())) {
            v.to_string()
        } else {
            "the number".to_owned()
        };
        if v < 0.0 {
            Err(E::custom(format!(
                "{shown} is negative; expected a non-negative integer"
            )))
        } else if v >= 2f64.powi(64) || !v.is_finite() {
            Err(E::custom(
                "the number is too large; the maximum is 18446744073709551615 (2^64-1)",
            ))
        } else if v.fract() != 0.0 {
            Err(E::custom(format!("{v} is not an integer")))
        } else {
            // An exact whole number would have been rewritten as an integer literal (see the
            // module docs): this one has a fraction too small for a float to hold.
            Err(E::custom(
                "the number is not an integer (its fraction is below floating-point precision)",
            ))
        }
    }
}

impl<'de> Deserialize<'de> for Nat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `deserialize_u64`, not `_any`: the same visits for every number (serde_json reads
        // the literal and calls `visit_u64`, `visit_i64` or `visit_f64` as it fits), and the
        // same "invalid type" error for anything else, without `_any`'s dispatch.
        d.deserialize_u64(NatVisitor)
    }
}

/// Unwraps a list of `Nat`s.
pub fn nats(v: &[Nat]) -> Vec<u64> {
    v.iter().map(|n| n.0).collect()
}
