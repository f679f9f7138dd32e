//! Validation shared by every endpoint that takes a position (a set of squares).

use crate::api::wire::error::ApiError;
use crate::api::wire::nat::Nat;

/// Checks the size limit and distinctness; returns the squares sorted ascending.
pub fn distinct_sorted(field: &str, squares: &[Nat], max: usize) -> Result<Vec<u64>, ApiError> {
    distinct_sorted_limit(field, squares, max, "GRUNDY_MAX_COINS")
}

/// As [`distinct_sorted`], naming the configuration variable that sets `max`.
pub fn distinct_sorted_limit(
    field: &str,
    squares: &[Nat],
    max: usize,
    var: &str,
) -> Result<Vec<u64>, ApiError> {
    check_len_var(field, squares.len(), max, var)?;
    let mut sorted: Vec<u64> = squares.iter().map(|n| n.0).collect();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(ApiError::invalid(
            field,
            format!(
                "{field}: square {} appears more than once (coins must be on distinct squares)",
                w[0]
            ),
        ));
    }
    Ok(sorted)
}

/// Refuses more than `max` entries, naming the limit's configuration variable.
pub fn check_len(field: &str, len: usize, max: usize) -> Result<(), ApiError> {
    check_len_var(field, len, max, "GRUNDY_MAX_COINS")
}

fn check_len_var(field: &str, len: usize, max: usize, var: &str) -> Result<(), ApiError> {
    if len > max {
        return Err(ApiError::invalid(
            field,
            format!("{field}: {len} entries exceed the limit of {max} ({var})"),
        ));
    }
    Ok(())
}
