//! G(heap) for any heap size from computed values and a proved periodicity.

use crate::octal::error::OctalError;
use crate::octal::periodicity::Periodicity;
use crate::octal::values::ValuesRef;

/// G(heap): read from `values` when `heap < values.len()`, otherwise from the proved
/// (arithmetico-)periodicity: with n0 = preperiod, p = period, s = saltus,
/// `G(heap) = G(n0 + (heap−n0) mod p) + s·⌊(heap−n0)/p⌋` (computed in u128; an error when
/// the result exceeds u64). Without a proof a heap beyond the values is an error.
/// `values` is a `&[u32]`, a `&Values` or a [`ValuesRef`].
pub fn value_at<'a>(
    values: impl Into<ValuesRef<'a>>,
    periodicity: &Periodicity,
    heap: u64,
) -> Result<u64, OctalError> {
    let values = values.into();
    if let Some(v) = usize::try_from(heap).ok().and_then(|h| values.get(h)) {
        return Ok(u64::from(v));
    }
    let Periodicity::Proved(p) = periodicity else {
        return Err(OctalError::HeapBeyondRange {
            heap,
            computed: values.len(),
        });
    };
    // heap ≥ len ≥ proved_at > preperiod + period, so the base index is a computed value
    // (unless the caller passed fewer values than the proof used).
    let Some(off) = heap.checked_sub(p.preperiod) else {
        return Err(OctalError::HeapBeyondRange {
            heap,
            computed: values.len(),
        });
    };
    let base = p.preperiod + off % p.period;
    let Some(gb) = usize::try_from(base).ok().and_then(|b| values.get(b)) else {
        return Err(OctalError::HeapBeyondRange {
            heap,
            computed: values.len(),
        });
    };
    let v = u128::from(gb) + u128::from(p.saltus) * u128::from(off / p.period);
    u64::try_from(v).map_err(|_| OctalError::ValueTooLarge { heap })
}
