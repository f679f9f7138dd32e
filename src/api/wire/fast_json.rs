//! Hand-written JSON for the answers bots ask for many times a second (Welter's value and
//! winning moves implement [`WriteJson`] in `welter.rs`): the trait and its pieces.
//!
//! serde_json writes every field name through its string escaper (about a hundred
//! instructions per name) and every number through its generic path; for a small position
//! that was a twentieth of a request's instructions. These writers emit the same bytes as
//! `serde_json::to_vec` (names are constants, numbers are `itoa`'s, the enum values are
//! plain ASCII) — the tests compare them with serde_json on random answers, so the derived
//! `Serialize` stays the contract and the OpenAPI schema's source.

use crate::api::wire::game::{Move, Outcome, Play};

/// A response body that writes its own JSON, byte for byte what serde_json writes.
pub trait WriteJson: serde::Serialize {
    fn write_json(&self, out: &mut Vec<u8>);
}

pub fn number(out: &mut Vec<u8>, n: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

pub fn numbers(out: &mut Vec<u8>, ns: &[u64]) {
    out.push(b'[');
    for (i, &n) in ns.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        number(out, n);
    }
    out.push(b']');
}

pub fn outcome(o: Outcome) -> &'static [u8] {
    match o {
        Outcome::P => b"\"P\"",
        Outcome::N => b"\"N\"",
    }
}

pub fn play(p: Play) -> &'static [u8] {
    match p {
        Play::Normal => b"\"normal\"",
        Play::Misere => b"\"misere\"",
    }
}

pub fn moves(out: &mut Vec<u8>, ms: &[Move]) {
    out.push(b'[');
    for (i, m) in ms.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"from\":");
        number(out, m.from);
        out.extend_from_slice(b",\"to\":");
        number(out, m.to);
        out.push(b'}');
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::welter::{ValueResponse, WinningMovesResponse};

    fn written(v: &impl WriteJson) -> Vec<u8> {
        let mut out = Vec::new();
        v.write_json(&mut out);
        out
    }

    /// The writers agree with serde_json, byte for byte, on random answers: empty, one
    /// coin, many; numbers at every length up to 2^64−1; both outcomes and plays; no moves
    /// and many.
    #[test]
    fn writers_match_serde_json() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..5_000 {
            let len = (next() % 12) as usize;
            let position: Vec<u64> = (0..len)
                .map(|_| {
                    let r = next();
                    match r % 4 {
                        0 => r >> (r % 64),
                        1 => u64::MAX - (r % 3),
                        2 => r % 10,
                        _ => r,
                    }
                })
                .collect();
            let outcome = if case % 2 == 0 {
                Outcome::P
            } else {
                Outcome::N
            };
            let play = if case % 3 == 0 {
                Play::Misere
            } else {
                Play::Normal
            };
            let v = ValueResponse {
                coins: position.len(),
                position: position.clone(),
                value: next() >> (case % 64),
                outcome,
                play,
            };
            assert_eq!(written(&v), serde_json::to_vec(&v).unwrap());
            let w = WinningMovesResponse {
                position,
                value: next(),
                outcome,
                play,
                moves: (0..next() % 5)
                    .map(|_| Move {
                        from: next(),
                        to: next() >> 3,
                    })
                    .collect(),
            };
            assert_eq!(written(&w), serde_json::to_vec(&w).unwrap());
        }
    }
}
