//! Oracles: the definitions counted from scratch (histograms, first occurrences and the rare
//! counts of every mask by brute force), the rows published by T. Czajka and the histograms
//! published by A. Rogalski (see `unsolved.rs` for both sources).

use super::*;
use crate::octal::code::Game;
use crate::octal::engine::Engine;
use crate::octal::statistics::unsolved::UNSOLVED_GAMES;
use crate::test_support::{random_code, Rng};

/// The statistics of `values` (heaps `0..len`) from the definitions alone: every mask below
/// `2K` tried (masks from `K` on must never win), the first minimum kept.
fn recount(values: &[u32]) -> Option<Snapshot> {
    let max = *values.iter().max()?;
    let mut histogram = vec![0u64; max as usize + 1];
    for &v in values {
        histogram[v as usize] += 1;
    }
    let k = (max + 1).next_power_of_two();
    let present: Vec<(u32, u64)> = histogram
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(v, &c)| (v as u32, c))
        .collect();
    let rare = |m: u32| -> u64 {
        present
            .iter()
            .filter(|&&(v, _)| (v & m).count_ones().is_multiple_of(2))
            .map(|&(_, c)| c)
            .sum()
    };
    let (mut mask, mut rare_count) = (0, rare(0));
    for m in 1..2 * k {
        let r = rare(m);
        if r < rare_count {
            (mask, rare_count) = (m, r);
        }
    }
    assert!(mask < k, "a mask above the largest value won");
    Some(Snapshot {
        n: values.len() as u64,
        max_value: max,
        max_value_first_heap: values.iter().position(|&v| v == max)? as u64,
        histogram,
        mask,
        rare_count,
        last_rare_heap: values
            .iter()
            .rposition(|&v| (v & mask).count_ones() % 2 == 0)
            .map(|h| h as u64),
    })
}

/// Feeds `values[from..to]` as a slice of `u8`, `u16` or `u32` (the narrowest that holds
/// them, or a wider one when `wide`).
fn feed(s: &mut Statistics, values: &[u32], from: usize, to: usize, wide: u64) {
    let block = &values[from..to];
    let max = block.iter().copied().max().unwrap_or(0);
    let heap = from as u64;
    if max < 256 && wide == 0 {
        let b: Vec<u8> = block.iter().map(|&v| v as u8).collect();
        s.observe_block(heap, &b).unwrap();
    } else if max < 65_536 && wide <= 1 {
        let b: Vec<u16> = block.iter().map(|&v| v as u16).collect();
        s.observe_values(heap, ValuesRef::U16(&b)).unwrap();
    } else {
        s.observe_block(heap, block).unwrap();
    }
}

/// Feeds `values` in blocks of awkward lengths (empty, single values, ending just before, at
/// and after powers of two), saving and resuming from bytes now and then, and checks every
/// snapshot and the current statistics against [`recount`].
fn check_incremental(values: &[u32], rng: &mut Rng) {
    let mut s = Statistics::new();
    let mut at = 0usize;
    while at < values.len() {
        let next_pow = (at + 1).next_power_of_two();
        let len = match rng.below(8) {
            0 => 0,
            1 => 1,
            2 => next_pow - at,
            3 => (next_pow - at).saturating_sub(1),
            4 => next_pow - at + 1,
            5 => 2 + rng.below(5) as usize,
            _ => rng.below(300) as usize,
        };
        let to = (at + len).min(values.len());
        feed(&mut s, values, at, to, rng.below(3));
        at = to;
        assert_eq!(s.len(), at as u64);
        if rng.below(4) == 0 {
            let bytes = s.to_bytes();
            let resumed = Statistics::from_bytes(&bytes).unwrap();
            assert_eq!(resumed, s);
            s = resumed;
        }
        if rng.below(6) == 0 {
            assert_eq!(s.current(), recount(&values[..at]), "at {at}");
        }
    }
    assert_eq!(s.current(), recount(values));
    let powers = if values.is_empty() {
        0
    } else {
        values.len().ilog2() as usize + 1
    };
    assert_eq!(s.snapshots().len(), powers);
    for (k, snap) in s.snapshots().iter().enumerate() {
        assert_eq!(Some(snap), recount(&values[..1 << k]).as_ref(), "2^{k}");
    }
    let mut present: Vec<u32> = values.to_vec();
    present.sort_unstable();
    present.dedup();
    let absent = [present.last().map_or(0, |&m| m + 1), 1 << 20];
    for &v in present.iter().chain(&absent) {
        let count = values.iter().filter(|&&x| x == v).count() as u64;
        assert_eq!(s.count_of(v), count);
        assert_eq!(
            s.first_heap(v),
            values.iter().position(|&x| x == v).map(|h| h as u64)
        );
        assert_eq!(
            s.last_heap(v),
            values.iter().rposition(|&x| x == v).map(|h| h as u64)
        );
    }
}

#[test]
fn incremental_snapshots_equal_a_recount_on_random_codes() {
    let mut rng = Rng(0x57A7_1571);
    for _ in 0..24 {
        let code = random_code(&mut rng);
        let game = Game::parse(&code).unwrap();
        let n = 1 + rng.below(800) as usize;
        let mut e = Engine::new(&game);
        e.extend_to(n, &mut || false).unwrap();
        let values = e.values().to_u32_vec();
        check_incremental(&values, &mut rng);
    }
}

#[test]
fn incremental_snapshots_equal_a_recount_on_made_up_sequences() {
    let mut rng = Rng(0x0DD_5EED);
    let zeros = vec![0u32; 1000];
    let nim: Vec<u32> = (0..700).collect();
    let no_zero: Vec<u32> = (0..300).map(|i| 1 + (i % 3)).collect();
    let large = [0, 300, 65_536, 65_537, 70_000];
    let wide: Vec<u32> = (0..600).map(|_| large[rng.below(5) as usize]).collect();
    let sparse: Vec<u32> = (0..900)
        .map(|i| {
            if i % 97 == 0 {
                7
            } else {
                1 + 2 * (i % 5) as u32
            }
        })
        .collect();
    for values in [
        &zeros,
        &nim,
        &no_zero,
        &wide,
        &sparse,
        &vec![5],
        &Vec::new(),
    ] {
        check_incremental(values, &mut rng);
    }
    // Every value common under mask 1: no rare heap.
    let ones = Statistics::from_values(&[1, 1, 3]);
    let c = ones.current().unwrap();
    assert_eq!((c.mask, c.rare_count, c.last_rare_heap), (1, 0, None));
    // Only zeros: mask 0, everything rare.
    let c = Statistics::from_values(&[0, 0]).current().unwrap();
    assert_eq!((c.mask, c.rare_count, c.last_rare_heap), (0, 2, Some(1)));
}

impl Statistics {
    fn from_values(values: &[u32]) -> Statistics {
        let mut s = Statistics::new();
        s.observe_block(0, values).unwrap();
        s
    }
}

/// Long blocks take the four-lane counting passes: values new to the table mid-pass, in every
/// lane, in the remainder of a pass, and blocks longer than one pass.
#[test]
fn long_blocks_equal_a_recount() {
    let mut rng = Rng(0x1A_4E5);
    let n = 150_001;
    let mut values: Vec<u32> = (0..n)
        .map(|_| match rng.below(100) {
            0 => rng.below(40) as u32,
            1..=30 => 3,
            _ => 4 + rng.below(6) as u32,
        })
        .collect();
    // First occurrences late in a pass, in each lane and in the last (remainder) values.
    for (at, v) in [(70_001, 100), (70_002, 101), (70_003, 102), (70_004, 103)] {
        values[at] = v;
    }
    values[n - 1] = 104;
    values[n - 3] = 105;
    values[5] = 300; // a u16 width from the start
    let feeds: [&[usize]; 4] = [
        &[n],
        &[4096, 65_536, 4097, 70_000],
        &[1, 65_535, 65_537, 4096],
        &[100_000, 4095, 4099],
    ];
    for sizes in feeds {
        let mut s = Statistics::new();
        let mut at = 0;
        for &len in sizes.iter().cycle() {
            if at == n {
                break;
            }
            let to = (at + len).min(n);
            feed(&mut s, &values, at, to, rng.below(2) + 1);
            at = to;
        }
        assert_eq!(s.current(), recount(&values), "{sizes:?}");
        for (k, snap) in s.snapshots().iter().enumerate() {
            assert_eq!(Some(snap), recount(&values[..1 << k]).as_ref(), "2^{k}");
        }
        for v in [0, 3, 39, 100, 101, 102, 103, 104, 105, 300] {
            let first = values.iter().position(|&x| x == v).map(|h| h as u64);
            let last = values.iter().rposition(|&x| x == v).map(|h| h as u64);
            assert_eq!((s.first_heap(v), s.last_heap(v)), (first, last), "{v}");
        }
        assert_eq!(Statistics::from_bytes(&s.to_bytes()), Ok(s));
    }
}

#[test]
fn walsh_hadamard_is_the_signed_sum_and_ties_go_to_the_smaller_mask() {
    let mut rng = Rng(0x0A15_4ADA);
    for _ in 0..200 {
        let len = rng.below(70) as usize;
        let h: Vec<u64> = (0..len)
            .map(|_| {
                if rng.below(3) == 0 {
                    0
                } else {
                    rng.below(1000)
                }
            })
            .collect();
        let w = walsh_hadamard(&h).unwrap();
        assert_eq!(w.len(), len.max(1).next_power_of_two());
        for (m, &x) in w.iter().enumerate() {
            let direct: i64 = h
                .iter()
                .enumerate()
                .map(|(v, &c)| {
                    if (v & m).count_ones() % 2 == 0 {
                        c as i64
                    } else {
                        -(c as i64)
                    }
                })
                .sum();
            assert_eq!(x, direct, "W[{m}] of {h:?}");
        }
        let total: u64 = h.iter().sum();
        let (mask, rare) = fewest_rare_mask(&h).unwrap();
        let brute = |m: usize| -> u64 {
            h.iter()
                .enumerate()
                .filter(|&(v, _)| is_rare(v as u32, m as u32))
                .map(|(_, &c)| c)
                .sum()
        };
        let least = (0..w.len()).map(brute).min().unwrap();
        assert_eq!(rare, least);
        assert_eq!(
            mask as usize,
            (0..w.len()).find(|&m| brute(m) == least).unwrap()
        );
        assert!(rare <= total);
    }
    // Values 0..3 once each: masks 1, 2 and 3 each leave two rare values; 1 wins.
    assert_eq!(fewest_rare_mask(&[1, 1, 1, 1]), Ok((1, 2)));
    assert_eq!(fewest_rare_mask(&[]), Ok((0, 0)));
    assert_eq!(fewest_rare_mask(&[9]), Ok((0, 9)));
    // Value 2 dominates: mask 2 (or 3) makes it common; 2 is the smaller.
    assert_eq!(fewest_rare_mask(&[1, 0, 50, 0]), Ok((2, 1)));
    assert!(fewest_rare_mask(&[MAX_HEAPS, 1]).is_err());
    assert!(fewest_rare_mask(&[u64::MAX, u64::MAX]).is_err());
    assert_eq!(
        fewest_rare_mask(&[MAX_HEAPS / 2, MAX_HEAPS / 2]),
        Ok((1, MAX_HEAPS / 2))
    );
}

#[test]
fn observe_refuses_gaps_overlaps_and_huge_values_whole() {
    let mut s = Statistics::new();
    s.observe_block(0, &[0u8, 1, 2]).unwrap();
    let before = s.clone();
    assert_eq!(
        s.observe(5, 1),
        Err(StatisticsError::NotContiguous {
            expected: 3,
            got: 5
        })
    );
    assert_eq!(
        s.observe_block(2, &[1u16]),
        Err(StatisticsError::NotContiguous {
            expected: 3,
            got: 2
        })
    );
    assert_eq!(
        s.observe_block(3, &[4u32, MAX_VALUE + 1, 6]),
        Err(StatisticsError::ValueTooLarge {
            heap: 4,
            value: MAX_VALUE + 1,
            max: MAX_VALUE
        })
    );
    assert_eq!(s, before, "a refused block counts nothing");
    s.observe_block(3, &[] as &[u8]).unwrap();
    assert_eq!(s, before);

    // Near the heap limit (a state built directly: feeding 2^62 values takes too long).
    let n = MAX_HEAPS - 1;
    let mut big = Statistics {
        n,
        table: vec![Entry {
            count: n,
            first: 0,
            last: n - 1,
        }],
        snapshots: Vec::new(),
    };
    assert_eq!(
        big.observe_block(n, &[0u8, 0]),
        Err(StatisticsError::TooManyHeaps { max: MAX_HEAPS })
    );
    big.observe(n, 1).unwrap();
    let last = big.snapshots().last().unwrap();
    assert_eq!((last.n, last.mask, last.rare_count), (MAX_HEAPS, 1, n));
    assert_eq!(last.last_rare_heap, Some(n - 1));
    assert!(big.observe(MAX_HEAPS, 0).is_err());
}

/// A state with some of everything: values of `.6` to 1000 heaps.
fn sample() -> Statistics {
    let mut e = Engine::new(&Game::parse("0.6").unwrap());
    e.extend_to(1000, &mut || false).unwrap();
    let mut s = Statistics::new();
    s.observe_values(0, e.values().as_ref()).unwrap();
    s
}

/// `body` with its checksum appended (to build inconsistent states that pass the checksum).
fn sealed(mut body: Vec<u8>) -> Vec<u8> {
    let h = fnv1a(&body);
    body.extend_from_slice(&h.to_le_bytes());
    body
}

#[test]
fn bytes_round_trip_and_every_corruption_is_an_error() {
    let s = sample();
    let bytes = s.to_bytes();
    assert_eq!(Statistics::from_bytes(&bytes), Ok(s.clone()));
    assert_eq!(
        Statistics::from_bytes(&Statistics::new().to_bytes()),
        Ok(Statistics::new())
    );
    // Compact: well under 1 KiB for 1000 heaps, 10 snapshots and values below 32.
    assert!(bytes.len() < 1024, "{} bytes", bytes.len());
    for cut in 0..bytes.len() {
        assert!(
            Statistics::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(Statistics::from_bytes(&b).is_err(), "bit {bit} of byte {i}");
        }
    }
    let mut v2 = bytes.clone();
    v2[4] = STATE_VERSION + 1;
    assert_eq!(
        Statistics::from_bytes(&v2),
        Err(StatisticsError::UnsupportedVersion {
            found: STATE_VERSION + 1,
            supported: STATE_VERSION
        })
    );
    let mut rng = Rng(0xB17_F11B);
    for _ in 0..2000 {
        let len = rng.below(64) as usize;
        let mut junk: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        if rng.below(2) == 0 && len >= 5 {
            junk[..4].copy_from_slice(&MAGIC);
            junk[4] = STATE_VERSION;
            junk = sealed(junk);
        }
        // Whatever comes back, it must be a state that encodes to the same bytes.
        if let Ok(s) = Statistics::from_bytes(&junk) {
            assert_eq!(s.to_bytes(), junk);
        }
    }
}

#[test]
fn consistent_checksums_do_not_hide_inconsistent_contents() {
    let head = |n: u64| {
        let mut b = MAGIC.to_vec();
        b.push(STATE_VERSION);
        put(&mut b, n);
        b
    };
    let corrupt = |b: Vec<u8>| match Statistics::from_bytes(&sealed(b)) {
        Err(StatisticsError::Corrupt { reason }) => reason,
        other => panic!("{other:?}"),
    };
    // A table length of 2^60 entries in a few bytes: refused before allocating.
    let mut b = head(1);
    put(&mut b, 1 << 60);
    assert_eq!(corrupt(b), "length out of range");
    // Counts that do not add up to n.
    let mut b = head(2);
    put(&mut b, 1);
    put(&mut b, 1);
    put(&mut b, 0);
    put(&mut b, 0);
    assert_eq!(corrupt(b), "counts do not add up to n");
    // One value seen twice at the same heap.
    let mut b = head(2);
    put(&mut b, 1);
    put(&mut b, 2);
    put(&mut b, 1);
    put(&mut b, 0);
    assert_eq!(corrupt(b), "inconsistent first/last heap");
    // A trailing zero count (the table must end at the largest value).
    let mut b = head(1);
    put(&mut b, 2);
    for x in [1, 0, 0, 0] {
        put(&mut b, x);
    }
    assert_eq!(corrupt(b), "table not trimmed to the largest value");
    // G = 0, 1: the snapshot at 1 must count value 0 once; a value 1 there is impossible.
    let valid = |snapshot_at_1: &[u64], last_rare: u64| {
        let mut b = head(2);
        put(&mut b, 2);
        for x in [1, 0, 0, 1, 1, 0] {
            put(&mut b, x);
        }
        put(&mut b, snapshot_at_1.len() as u64);
        for &c in snapshot_at_1 {
            put(&mut b, c);
        }
        put(&mut b, 1); // last rare heap 0 at n = 1 (value 0, mask 0)
        put(&mut b, 2);
        put(&mut b, 1);
        put(&mut b, 1);
        put(&mut b, last_rare);
        b
    };
    let ok = Statistics::from_bytes(&sealed(valid(&[1], 1))).unwrap();
    assert_eq!(ok, Statistics::from_values(&[0, 1]));
    assert_eq!(
        corrupt(valid(&[0, 1], 1)),
        "snapshot histogram disagrees with the table"
    );
    // At n = 2 the mask is 1: value 0 (heap 0) is rare, so the last rare heap is 0, not 1.
    assert_eq!(
        corrupt(valid(&[1], 2)),
        "last rare heap disagrees with the table"
    );
    assert_eq!(
        corrupt(valid(&[1], 3)),
        "last rare heap beyond the snapshot"
    );
    let mut long = valid(&[1], 1);
    long.push(0);
    assert_eq!(corrupt(long), "trailing bytes");
    // A varint of eleven bytes.
    let mut b = head(0);
    b.truncate(5);
    b.extend_from_slice(&[0xff; 10]);
    b.push(1);
    assert_eq!(corrupt(b), "varint too long");
}

/// The histogram over heaps `1..=n` (A. Rogalski's convention) from ours over `0..=n`.
fn rogalski_histogram(s: &Statistics) -> Vec<u64> {
    let mut h = s.histogram();
    h[0] -= 1;
    h
}

/// G(0..=n) of `code` fed into statistics in the engine's growing steps, as a job would.
fn run(code: &str, n: u64) -> Statistics {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    let mut s = Statistics::new();
    let mut len = 0usize;
    while (len as u64) < n {
        let next = (n as usize).min(len + (len / 8).max(4096));
        e.extend_to(next, &mut || false).unwrap();
        s.observe_values(len as u64, e.values().as_ref().slice(len..))
            .unwrap();
        len = next;
    }
    s
}

/// `.167` over heaps 1..=2^16 (A. Rogalski, `results/0.167/65536`).
const ROGALSKI_167_2_16: [u64; 53] = [
    1, 4705, 10, 4690, 2687, 8, 2705, 5, 7907, 5, 7950, 2, 6, 5523, 3, 5505, 4815, 1, 4549, 0, 8,
    2617, 10, 2763, 0, 1315, 0, 1335, 783, 0, 775, 0, 2771, 0, 1482, 0, 0, 254, 0, 212, 0, 72, 0,
    31, 16, 0, 7, 0, 0, 5, 0, 2, 1,
];

/// `.167` over heaps 1..=2^20 (`results/0.167/1048576`).
const ROGALSKI_167_2_20: [u64; 57] = [
    1, 77039, 10, 77225, 44691, 8, 44754, 5, 123987, 5, 123794, 2, 6, 84981, 3, 84807, 73812, 1,
    72137, 0, 8, 42946, 10, 43127, 0, 22683, 0, 22343, 13883, 0, 13894, 0, 46129, 0, 25645, 0, 0,
    4619, 0, 3939, 0, 1026, 0, 660, 151, 0, 155, 0, 0, 51, 0, 33, 2, 0, 2, 0, 2,
];

/// `.167` over heaps 1..=2^40 (`results/0.167/1099511627776`), the record.
const ROGALSKI_167_2_40: [u64; 65] = [
    1,
    79_959_214_205,
    10,
    79_908_484_509,
    46_657_185_305,
    8,
    46_524_505_968,
    5,
    130_948_759_449,
    5,
    130_859_157_498,
    2,
    6,
    90_190_663_735,
    3,
    90_091_583_641,
    77_759_975_838,
    1,
    76_495_615_496,
    0,
    8,
    45_269_763_971,
    10,
    45_185_247_201,
    0,
    22_987_374_541,
    0,
    22_878_852_979,
    14_322_787_477,
    0,
    14_393_463_783,
    0,
    47_671_082_620,
    0,
    26_415_794_219,
    0,
    0,
    4_745_994_709,
    0,
    4_095_058_579,
    0,
    1_116_395_438,
    0,
    654_680_417,
    143_248_645,
    0,
    134_541_141,
    0,
    0,
    64_456_467,
    0,
    31_313_092,
    1_685_199,
    0,
    1_309_773,
    0,
    3_303_403,
    0,
    121_237,
    0,
    0,
    5506,
    0,
    1233,
    443,
];

#[test]
fn histograms_agree_with_rogalskis_for_0_167_to_2_16() {
    let s = run("0.167", (1 << 16) + 1);
    assert_eq!(rogalski_histogram(&s), ROGALSKI_167_2_16);
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn histograms_agree_with_rogalskis_for_0_167_to_2_20() {
    let s = run("0.167", (1 << 20) + 1);
    assert_eq!(rogalski_histogram(&s), ROGALSKI_167_2_20);
}

#[test]
fn the_record_rows_mask_is_derived_from_the_published_histogram() {
    let record = UNSOLVED_GAMES
        .iter()
        .find(|u| u.code == "0.167")
        .and_then(|u| u.record)
        .unwrap();
    assert_eq!(ROGALSKI_167_2_40.iter().sum::<u64>(), record.n);
    assert_eq!(ROGALSKI_167_2_40.len() as u32, record.max_value + 1);
    let distinct = ROGALSKI_167_2_40.iter().filter(|&&c| c > 0).count();
    assert_eq!(distinct as u32, record.distinct_values);
    assert_eq!(
        fewest_rare_mask(&ROGALSKI_167_2_40),
        Ok((record.mask, record.rare_count))
    );
}

/// Computes each game with published statistics to its `n` and compares the snapshot at `n`
/// with the published row, also checking that the fewest-rare mask is the only minimiser.
fn check_published(code: &str) {
    let row = UNSOLVED_GAMES
        .iter()
        .find(|u| u.code == code)
        .and_then(|u| u.statistics)
        .unwrap();
    let s = run(code, row.n);
    let snap = &s.snapshots()[row.n.ilog2() as usize];
    assert_eq!(snap.n, row.n);
    assert_eq!(
        (
            snap.max_value,
            snap.max_value_first_heap,
            snap.mask,
            snap.rare_count,
            snap.last_rare_heap
        ),
        (
            row.max_value,
            row.max_value_first_heap,
            row.mask,
            row.rare_count,
            Some(row.last_rare_heap)
        ),
        "{code}"
    );
    let w = walsh_hadamard(&snap.histogram).unwrap();
    let least = w.iter().filter(|&&x| x == w[snap.mask as usize]).count();
    assert_eq!(
        least, 1,
        "{code}: the least rare count is reached by one mask only"
    );
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn published_row_grundy_to_2_21() {
    check_published("grundy");
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn published_row_0_6_to_2_21() {
    check_published("0.6");
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn published_row_0_04_to_2_17() {
    check_published("0.04");
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn published_row_0_06_to_2_17() {
    check_published("0.06");
}
