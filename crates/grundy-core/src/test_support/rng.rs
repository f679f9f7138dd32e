//! The tests' PRNG, in a file of its own so that the integration tests (`tests/common/`) use
//! the same source.

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny deterministic PRNG, so that every property
/// test is reproducible from its seed.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is irrelevant for tests).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
