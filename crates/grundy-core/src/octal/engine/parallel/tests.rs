//! The rows' block pass against its definition: row k of a pass gets `va ⊕ G(r + k − a)` for
//! every listed position `a`, and nothing else — for every cell width the values come in
//! (the u16 cells take a path of their own) and every row width.

use super::{Bits, Bytes, RowKind, BYTE_HEAPS};
use crate::octal::engine::split::BIT_HEAPS;
use crate::octal::values::Cell;

fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Random positions and values below `limit`, a pass of `K` checked mark by mark.
fn check<K: RowKind, T: Cell, const N: usize>(
    limit: u32,
    seed: &mut u64,
    marked: impl Fn(&K::Row, usize) -> bool,
) {
    let g: Vec<T> = (0..4096)
        .map(|_| T::from_u32((xorshift(seed) % u64::from(limit)) as u32))
        .collect();
    for _ in 0..200 {
        let count = (xorshift(seed) % 40) as usize;
        let mut pos: Vec<u32> = (0..count)
            .map(|_| 1 + (xorshift(seed) % 1500) as u32)
            .collect();
        pos.sort_unstable();
        let vals: Vec<u16> = pos
            .iter()
            .map(|_| (xorshift(seed) % u64::from(limit)) as u16)
            .collect();
        let r = 1600 + (xorshift(seed) % 2000) as usize;
        let mut rows = vec![K::empty(); K::HEAPS];
        K::block(&pos, &vals, &g, r, &mut rows);
        for (k, row) in rows.iter().enumerate() {
            let want: Vec<bool> = (0..N)
                .map(|x| {
                    pos.iter()
                        .zip(&vals)
                        .any(|(&a, &va)| usize::from(va ^ g[r + k - a as usize].low16()) == x)
                })
                .collect();
            for (x, &w) in want.iter().enumerate() {
                assert_eq!(marked(row, x), w, "row {k}, value {x}");
            }
        }
    }
}

#[test]
fn byte_and_bit_passes_mark_exactly_the_nim_sums() {
    let mut seed = 0x0123_4567_89ab_cdefu64;
    assert_eq!(<Bytes<512> as RowKind>::HEAPS, BYTE_HEAPS);
    let byte = |row: &[u8; 512], x: usize| row[x] == 1;
    check::<Bytes<512>, u8, 512>(256, &mut seed, byte);
    check::<Bytes<512>, u16, 512>(256, &mut seed, byte);
    check::<Bytes<512>, u32, 512>(256, &mut seed, byte);
    let wide = |row: &[u8; 2048], x: usize| row[x] == 1;
    check::<Bytes<2048>, u16, 2048>(1024, &mut seed, wide);
    check::<Bytes<2048>, u32, 2048>(1024, &mut seed, wide);
    assert_eq!(<Bits as RowKind>::HEAPS, BIT_HEAPS);
    check::<Bits, u8, 64>(64, &mut seed, |row: &u64, x| row >> x & 1 == 1);
}
