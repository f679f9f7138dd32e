//! The worked examples of the papers as data, in a file of its own so that the integration
//! tests (`tests/common/`) use the same source.

/// `crates/grundy-core/tests/data/welter_vectors.json`: every worked example and table of the Welter thesis and
/// the Max-Welter paper, transcribed and checked by brute force (where a paper and brute force
/// disagree, the entry says so and the computation wins).
pub fn vectors() -> serde_json::Value {
    // Relative to this file, which the integration tests of the service compile too.
    serde_json::from_str(include_str!("../../tests/data/welter_vectors.json"))
        .expect("welter_vectors.json parses")
}

/// The periodicity constants of the brief: (code, preperiod, period), ordinary periodicity,
/// ordered by the values a proof reads (the first six within 20,000).
pub const KNOWN_PERIODS: [(&str, u64, u64); 10] = [
    ("0.77", 71, 12),
    ("0.07", 53, 34),
    ("0.137", 52, 34),
    ("0.4", 54, 34),
    ("0.45", 498, 20),
    ("0.156", 3479, 349),
    ("0.356", 7315, 142),
    ("0.644", 3256, 442),
    ("0.165", 5181, 1550),
    ("0.127", 46578, 4),
];

/// A JSON array of naturals.
pub fn u64s(v: &serde_json::Value) -> Vec<u64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_u64().expect("a natural"))
        .collect()
}
