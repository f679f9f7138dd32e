//! A G-sequence stored in the narrowest integer width that holds its largest value.
//!
//! Grundy values of octal games are small in practice (`.1777` stays below 2^8 or 2^9 for
//! hundreds of millions of heaps), so storing them as `u32` wastes 2–3 bytes per value. [`Values`]
//! keeps them as `u8` while every value is below 2^8, as `u16` below 2^16 and as `u32` beyond,
//! widening once (a copy, amortised over everything computed before) when a larger value
//! arrives. Widths never shrink.
//!
//! Hot loops are written once, generic over [`Cell`] (`u8`, `u16`, `u32`), and dispatched on
//! the width by [`Values::as_ref`] → [`ValuesRef`] and the `with_cells!` macro, so the inner loops
//! are monomorphised for each width and read packed values without a branch per access.

/// One stored Grundy value: `u8`, `u16` or `u32`.
pub trait Cell: Copy + Default + Eq + Send + Sync + std::fmt::Debug + 'static {
    /// Bytes per value.
    const BYTES: usize;
    /// The largest value this width holds.
    const MAX: u32;
    /// The value as u32.
    fn get(self) -> u32;
    /// `v` narrowed to this width (callers guarantee `v ≤ MAX`).
    fn from_u32(v: u32) -> Self;
    /// The low 16 bits (the whole value while values are below 2^16, as in sparse mode).
    #[inline(always)]
    fn low16(self) -> u16 {
        self.get() as u16
    }
    /// A slice of this width as a [`ValuesRef`].
    fn wrap(cells: &[Self]) -> ValuesRef<'_>;
}

macro_rules! cell {
    ($t:ty, $v:ident) => {
        impl Cell for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            const MAX: u32 = <$t>::MAX as u32;
            #[inline(always)]
            fn get(self) -> u32 {
                u32::from(self)
            }
            #[inline(always)]
            fn from_u32(v: u32) -> Self {
                debug_assert!(v <= <Self as Cell>::MAX);
                v as $t
            }
            #[inline(always)]
            fn wrap(cells: &[Self]) -> ValuesRef<'_> {
                ValuesRef::$v(cells)
            }
        }
    };
}
cell!(u8, U8);
cell!(u16, U16);
cell!(u32, U32);

/// An owned G-sequence G(0..len) in 1, 2 or 4 bytes per value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Default for Values {
    fn default() -> Self {
        Values::U8(Vec::new())
    }
}

/// A borrowed view of G(0..len) (or of a prefix of it) in its stored width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValuesRef<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

/// Runs `$body` with `$g` bound to the typed slice of a [`ValuesRef`] (monomorphised per width).
macro_rules! with_cells {
    ($values:expr, |$g:ident| $body:expr) => {
        match $values {
            $crate::octal::values::ValuesRef::U8($g) => $body,
            $crate::octal::values::ValuesRef::U16($g) => $body,
            $crate::octal::values::ValuesRef::U32($g) => $body,
        }
    };
}
pub(crate) use with_cells;

/// Bytes per value that hold `max`.
pub fn width_for(max: u32) -> usize {
    if max <= u32::from(u8::MAX) {
        1
    } else if max <= u32::from(u16::MAX) {
        2
    } else {
        4
    }
}

impl Values {
    /// An empty sequence (1 byte per value until a value ≥ 256 arrives).
    pub fn new() -> Values {
        Values::default()
    }

    /// From u32 values, in the narrowest width that holds them all.
    pub fn from_u32(values: &[u32]) -> Values {
        let max = values.iter().copied().max().unwrap_or(0);
        match width_for(max) {
            1 => Values::U8(values.iter().map(|&v| v as u8).collect()),
            2 => Values::U16(values.iter().map(|&v| v as u16).collect()),
            _ => Values::U32(values.to_vec()),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.as_ref().len()
    }

    /// True when no value is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per value: 1, 2 or 4.
    pub fn width(&self) -> usize {
        self.as_ref().width()
    }

    /// G(i), or `None` beyond the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u32> {
        self.as_ref().get(i)
    }

    /// The typed view.
    #[inline]
    pub fn as_ref(&self) -> ValuesRef<'_> {
        match self {
            Values::U8(v) => ValuesRef::U8(v),
            Values::U16(v) => ValuesRef::U16(v),
            Values::U32(v) => ValuesRef::U32(v),
        }
    }

    /// Appends `v`, widening the storage first when `v` does not fit.
    #[inline]
    pub fn push(&mut self, v: u32) {
        match self {
            Values::U8(g) if v <= u32::from(u8::MAX) => g.push(v as u8),
            Values::U16(g) if v <= u32::from(u16::MAX) => g.push(v as u16),
            Values::U32(g) => g.push(v),
            _ => {
                self.widen_to(width_for(v));
                self.push(v);
            }
        }
    }

    /// Appends `more`, widening first when its values do not fit the current width (to the
    /// narrowest width that holds them, whatever the width `more` is held in).
    pub fn extend_from_ref(&mut self, more: ValuesRef<'_>) {
        if more.width() > self.width() {
            self.widen_to(width_for(more.iter().max().unwrap_or(0)));
        }
        match (self, more) {
            (Values::U8(g), ValuesRef::U8(m)) => g.extend_from_slice(m),
            (Values::U16(g), ValuesRef::U16(m)) => g.extend_from_slice(m),
            (Values::U32(g), ValuesRef::U32(m)) => g.extend_from_slice(m),
            (Values::U16(g), ValuesRef::U8(m)) => g.extend(m.iter().map(|&v| u16::from(v))),
            (Values::U32(g), ValuesRef::U8(m)) => g.extend(m.iter().map(|&v| u32::from(v))),
            (Values::U32(g), ValuesRef::U16(m)) => g.extend(m.iter().map(|&v| u32::from(v))),
            // Wider views whose values fit (checked above).
            (Values::U8(g), m) => g.extend(m.iter().map(|v| v as u8)),
            (Values::U16(g), m) => g.extend(m.iter().map(|v| v as u16)),
        }
    }

    /// Re-stores the values with `bytes` (≥ the current width) bytes each.
    pub fn widen_to(&mut self, bytes: usize) {
        if bytes <= self.width() {
            return;
        }
        let old = std::mem::take(self);
        *self = match (bytes, old) {
            (2, Values::U8(g)) => Values::U16(g.into_iter().map(u16::from).collect()),
            (_, Values::U8(g)) => Values::U32(g.into_iter().map(u32::from).collect()),
            (_, Values::U16(g)) => Values::U32(g.into_iter().map(u32::from).collect()),
            (_, other) => other,
        };
    }

    /// Frees unused capacity.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Values::U8(g) => g.shrink_to_fit(),
            Values::U16(g) => g.shrink_to_fit(),
            Values::U32(g) => g.shrink_to_fit(),
        }
    }

    /// Reserves room for `extra` more values in the current width.
    pub fn reserve(&mut self, extra: usize) {
        match self {
            Values::U8(g) => g.reserve(extra),
            Values::U16(g) => g.reserve(extra),
            Values::U32(g) => g.reserve(extra),
        }
    }

    /// Removes the values at indices `range` (the ones after it move down: one `memmove`).
    pub fn drain(&mut self, range: std::ops::Range<usize>) {
        match self {
            Values::U8(g) => drop(g.drain(range)),
            Values::U16(g) => drop(g.drain(range)),
            Values::U32(g) => drop(g.drain(range)),
        }
    }

    /// Drops everything from index `len` on.
    pub fn truncate(&mut self, len: usize) {
        match self {
            Values::U8(g) => g.truncate(len),
            Values::U16(g) => g.truncate(len),
            Values::U32(g) => g.truncate(len),
        }
    }

    /// Bytes held by the values (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Values::U8(g) => g.capacity(),
            Values::U16(g) => g.capacity() * 2,
            Values::U32(g) => g.capacity() * 4,
        }
    }

    /// Compatibility accessor: every value as u32 (4 bytes a value: for callers that persist
    /// or hand out `Vec<u32>`; prefer [`Values::range_u32`] or [`Values::iter`]).
    pub fn to_u32_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// G(i) for i in `range` as u32 (panics when the range is out of bounds, like slicing).
    pub fn range_u32(&self, range: impl std::ops::RangeBounds<usize>) -> Vec<u32> {
        self.as_ref().slice(range).iter().collect()
    }

    /// Every value as u32, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.as_ref().iter()
    }

    /// The largest value (0 when empty).
    pub fn max(&self) -> u32 {
        self.iter().max().unwrap_or(0)
    }
}

impl From<Vec<u32>> for Values {
    fn from(v: Vec<u32>) -> Values {
        Values::from_u32(&v)
    }
}

impl<'a> ValuesRef<'a> {
    /// Number of values.
    #[inline]
    pub fn len(self) -> usize {
        match self {
            ValuesRef::U8(g) => g.len(),
            ValuesRef::U16(g) => g.len(),
            ValuesRef::U32(g) => g.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Bytes per value: 1, 2 or 4.
    pub fn width(self) -> usize {
        match self {
            ValuesRef::U8(_) => 1,
            ValuesRef::U16(_) => 2,
            ValuesRef::U32(_) => 4,
        }
    }

    /// G(i), or `None` beyond the end.
    #[inline]
    pub fn get(self, i: usize) -> Option<u32> {
        match self {
            ValuesRef::U8(g) => g.get(i).map(|&v| u32::from(v)),
            ValuesRef::U16(g) => g.get(i).map(|&v| u32::from(v)),
            ValuesRef::U32(g) => g.get(i).copied(),
        }
    }

    /// The sub-view for `range` (panics when out of bounds, like slicing).
    pub fn slice(self, range: impl std::ops::RangeBounds<usize>) -> ValuesRef<'a> {
        let r = (range.start_bound().cloned(), range.end_bound().cloned());
        match self {
            ValuesRef::U8(g) => ValuesRef::U8(&g[r]),
            ValuesRef::U16(g) => ValuesRef::U16(&g[r]),
            ValuesRef::U32(g) => ValuesRef::U32(&g[r]),
        }
    }

    /// Every value as u32, in order.
    pub fn iter(self) -> ValuesIter<'a> {
        ValuesIter { values: self, i: 0 }
    }

    /// Appends the values as little-endian unsigned integers of the stored width
    /// ([`ValuesRef::width`] bytes each) to `out`.
    pub fn write_le_bytes(self, out: &mut Vec<u8>) {
        match self {
            ValuesRef::U8(g) => out.extend_from_slice(g),
            ValuesRef::U16(g) => {
                out.reserve(g.len() * 2);
                g.iter()
                    .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            }
            ValuesRef::U32(g) => {
                out.reserve(g.len() * 4);
                g.iter()
                    .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
            }
        }
    }

    /// The values as little-endian bytes of the stored width, in chunks of at most
    /// `values_per_chunk` values (for streaming a large range without one big buffer).
    pub fn le_chunks(self, values_per_chunk: usize) -> impl Iterator<Item = Vec<u8>> + 'a {
        let per = values_per_chunk.max(1);
        let len = self.len();
        (0..len.div_ceil(per)).map(move |c| {
            let mut out = Vec::new();
            self.slice(c * per..((c + 1) * per).min(len))
                .write_le_bytes(&mut out);
            out
        })
    }
}

impl<'a> From<&'a [u32]> for ValuesRef<'a> {
    fn from(g: &'a [u32]) -> Self {
        ValuesRef::U32(g)
    }
}
impl<'a> From<&'a [u16]> for ValuesRef<'a> {
    fn from(g: &'a [u16]) -> Self {
        ValuesRef::U16(g)
    }
}
impl<'a> From<&'a [u8]> for ValuesRef<'a> {
    fn from(g: &'a [u8]) -> Self {
        ValuesRef::U8(g)
    }
}
impl<'a> From<&'a Vec<u32>> for ValuesRef<'a> {
    fn from(g: &'a Vec<u32>) -> Self {
        ValuesRef::U32(g)
    }
}
impl<'a> From<&'a Values> for ValuesRef<'a> {
    fn from(g: &'a Values) -> Self {
        g.as_ref()
    }
}

/// Iterator over a [`ValuesRef`] as u32.
#[derive(Debug, Clone)]
pub struct ValuesIter<'a> {
    values: ValuesRef<'a>,
    i: usize,
}

impl Iterator for ValuesIter<'_> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        let v = self.values.get(self.i)?;
        self.i += 1;
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.values.len() - self.i;
        (n, Some(n))
    }
}

impl ExactSizeIterator for ValuesIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_on_demand_and_keeps_values() {
        let mut v = Values::new();
        assert_eq!(v.width(), 1);
        for x in 0..300u32 {
            v.push(x % 256);
        }
        assert_eq!(v.width(), 1);
        v.push(256);
        assert_eq!(v.width(), 2);
        v.push(70_000);
        assert_eq!(v.width(), 4);
        assert_eq!(v.len(), 302);
        assert_eq!(v.get(255), Some(255));
        assert_eq!(v.get(256), Some(0));
        assert_eq!(v.get(300), Some(256));
        assert_eq!(v.get(301), Some(70_000));
        assert_eq!(v.get(302), None);
        let all = v.to_u32_vec();
        assert_eq!(all.len(), 302);
        assert_eq!(Values::from_u32(&all), v);
        assert_eq!(v.range_u32(299..), vec![43, 256, 70_000]);
    }

    #[test]
    fn extends_from_views_of_any_width() {
        let mut v = Values::new();
        v.extend_from_ref(ValuesRef::U32(&[0, 1, 2]));
        assert_eq!(
            v,
            Values::U8(vec![0, 1, 2]),
            "a wide view of small values stays narrow"
        );
        v.extend_from_ref(ValuesRef::U16(&[3, 300]));
        assert_eq!(v, Values::U16(vec![0, 1, 2, 3, 300]));
        v.extend_from_ref(ValuesRef::U8(&[4]));
        v.extend_from_ref(ValuesRef::U32(&[70_000]));
        assert_eq!(v, Values::U32(vec![0, 1, 2, 3, 300, 4, 70_000]));
        v.extend_from_ref(ValuesRef::U8(&[5]));
        v.extend_from_ref(ValuesRef::U16(&[6]));
        assert_eq!(v.range_u32(7..), vec![5, 6]);
    }

    #[test]
    fn narrowest_width_from_u32() {
        assert_eq!(Values::from_u32(&[0, 1, 255]).width(), 1);
        assert_eq!(Values::from_u32(&[0, 256]).width(), 2);
        assert_eq!(Values::from_u32(&[0, 65_536]).width(), 4);
        assert_eq!(Values::from_u32(&[]).width(), 1);
    }

    #[test]
    fn little_endian_chunks() {
        let v = Values::from_u32(&[1, 2, 0x1234]);
        let bytes: Vec<u8> = v.as_ref().le_chunks(2).flatten().collect();
        assert_eq!(bytes, vec![1, 0, 2, 0, 0x34, 0x12]);
        let mut out = Vec::new();
        Values::from_u32(&[7, 9]).as_ref().write_le_bytes(&mut out);
        assert_eq!(out, vec![7, 9]);
        let mut out = Vec::new();
        Values::from_u32(&[0x0102_0304])
            .as_ref()
            .write_le_bytes(&mut out);
        assert_eq!(out, vec![4, 3, 2, 1]);
    }
}
