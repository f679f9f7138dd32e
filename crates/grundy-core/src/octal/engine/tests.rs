//! Unit tests of the engine (`engine.rs`): the fast values against the definition on fixed
//! and random codes, in every mode, cell width and thread count; stop and resume.

use super::super::naive::naive_values;
use super::super::naive::tests::{random_code, Rng};
use super::*;

fn fast(code: &str, n: usize, threads: usize) -> Vec<u32> {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(threads);
    e.extend_to(n, &mut || false).unwrap();
    e.into_values().to_u32_vec()
}

fn naive(code: &str, n: usize) -> Vec<u32> {
    naive_values(&Game::parse(code).unwrap(), n, &mut || false).unwrap()
}

fn check(code: &str, n: usize) {
    let a = fast(code, n, 2);
    let b = naive(code, n);
    if let Some(i) = (0..n).find(|&i| a[i] != b[i]) {
        panic!("{code}: fast G({i}) = {} but naive = {}", a[i], b[i]);
    }
}

#[test]
fn fixed_codes_match_naive() {
    for code in [
        "0.07", "0.6", "0.77", "0.137", "0.4", "0.16", "0.007", "4.07", "44.3", "80.4", "0.F8",
        "0.B8", "0.FB", "C.1", "8.2", "C0.4", "0.(3)", "4.(3)", "0.5(3)", "0.1(7)", "0.(53)",
        "0.3(30)", "0.(F)", "0.1(8)", "8.(4)", "S(1,2,5)", "0.0", "0.1", "0.(1)", "400.4", "800.4",
        "C00.2", "4.(7)", "0.7(70)",
    ] {
        let g = Game::parse(code).unwrap();
        let n = if g.max_heaps() >= 3 || !g.is_finite() {
            260
        } else {
            700
        };
        check(code, n);
    }
}

#[test]
fn random_codes_match_naive() {
    let mut rng = Rng(0xC0DE_2024);
    for i in 0..160 {
        let code = random_code(&mut rng);
        let g = Game::parse(&code).unwrap();
        let n = if g.max_heaps() >= 3 || !g.is_finite() {
            if i % 8 == 0 {
                400
            } else {
                150
            }
        } else if i % 4 == 0 {
            2000
        } else {
            500
        };
        check(&code, n);
    }
}

#[test]
fn bit_marks_agree_with_stamps() {
    // Values below 64 run on bit marks (`bitmarks.rs`): .167, .1777 and .156 throughout,
    // .6 and Grundy's game until a value reaches 64 (the switch may fall inside a block).
    for (code, n, bits_at_end) in [
        ("0.167", 40_000, true),
        ("0.1777", 20_000, true),
        ("0.156", 20_000, true),
        ("0.6", 12_000, false),
        ("grundy", 12_000, false),
    ] {
        let run = |bits: bool, threads: usize| {
            let mut e = Engine::new(&Game::parse(code).unwrap());
            e.set_threads(threads);
            if threads > 1 {
                e.force_pipeline(1024, None); // the pipeline from heap 1024 on
            }
            e.set_bit_marks(bits);
            e.extend_to(n, &mut || false).unwrap();
            if threads > 1 {
                // (Two threads may prefer dense scans: then nothing is compared here.)
                return e.into_values().to_u32_vec();
            }
            assert_eq!(e.stats().mode, "sparse", "{code}");
            if bits {
                // In use exactly while every value is below 64.
                let small = e.stats().max_value < 64;
                assert_eq!(small, bits_at_end, "{code}");
                assert_eq!(e.bit_marks_in_use(), small, "{code}");
            } else {
                assert!(!e.bit_marks_in_use());
            }
            e.into_values().to_u32_vec()
        };
        let stamps = run(false, 1);
        assert_eq!(run(true, 1), stamps, "{code}");
        assert_eq!(run(true, 2), stamps, "{code} (parallel rare pairs)");
        assert_eq!(&stamps[..1500], &naive(code, 1500)[..], "{code}");
    }
}

#[test]
fn stamp_blocks_agree_in_every_cell_width() {
    // The stamp block kernel reads the four partners of u16 cells as one word; the values
    // here stay below 256 (u8 cells), so the run resumes from values widened on purpose.
    for code in ["0.6", "0.161", "grundy"] {
        let n = 24_000;
        let all = fast(code, n, 1);
        for bytes in [2, 4] {
            let mut values = Values::from(all[..n / 2].to_vec());
            values.widen_to(bytes);
            let mut e = Engine::resume(&Game::parse(code).unwrap(), values).unwrap();
            e.set_threads(1);
            e.extend_to(n, &mut || false).unwrap();
            assert_eq!(e.stats().mode, "sparse", "{code}");
            assert_eq!(e.values().width(), bytes, "{code}");
            assert_eq!(e.into_values().to_u32_vec(), all, "{code} in {bytes} bytes");
        }
    }
}

#[test]
fn sparse_mode_is_used_and_parallel_agrees() {
    // .6 has a sparse space; .007 does not.
    let mut e = Engine::new(&Game::parse("0.6").unwrap());
    e.set_threads(1);
    e.extend_to(12000, &mut || false).unwrap();
    assert_eq!(e.stats().mode, "sparse");
    assert_eq!(e.values().to_u32_vec(), naive("0.6", 12000));
    let one = fast("0.007", 6000, 1);
    let two = fast("0.007", 6000, 2);
    assert_eq!(one, two);
    assert_eq!(&one[..1500], &naive("0.007", 1500)[..]);
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn sparse_agrees_with_dense_past_stamp_wrap() {
    // The sparse mode's u16 stamps wrap (and its mark arrays are cleared) every ~65,000
    // heaps, possibly inside a block of premarked heaps.
    let n = 150_000;
    let sparse = fast("0.6", n, 1);
    let mut e = Engine::new(&Game::parse("0.6").unwrap());
    e.set_allow_sparse(false);
    e.extend_to(n, &mut || false).unwrap();
    assert_eq!(sparse, e.into_values().to_u32_vec());
}

#[test]
fn parallel_sparse_blocks_agree_with_one_thread() {
    // (.007 turns sparse only near 50,000 heaps; here the pipeline runs from heap 1024 on,
    // on codes that are sparse early.)
    // 4.6 has a digit that adds no tokens (u = 0: the per-heap path, not the 4-heap blocks).
    for (code, threads, n) in [
        ("0.6", 2, 20_000),
        ("0.74", 3, 12_000),
        ("0.36", 2, 12_000),
        ("4.6", 2, 12_000),
        ("0.4007", 2, 12_000),
        ("0.1777", 2, 12_000),
    ] {
        let mut e = Engine::new(&Game::parse(code).unwrap());
        e.set_threads(threads);
        e.force_pipeline(1024, Some((128, true)));
        e.extend_to(n, &mut || false).unwrap();
        assert!(e.pipeline_counts().heaps > 0, "{code}: {:?}", e.stats());
        let mut d = Engine::new(&Game::parse(code).unwrap());
        d.set_allow_sparse(false);
        d.extend_to(n, &mut || false).unwrap();
        assert_eq!(e.values(), d.values(), "{code} {threads}");
    }
}

#[test]
fn values_widen_from_one_to_four_bytes() {
    // Nim (.(3)): G(n) = n crosses 2^8 and 2^16.
    let mut e = Engine::new(&Game::parse("0.(3)").unwrap());
    e.extend_to(200, &mut || false).unwrap();
    assert_eq!(e.values().width(), 1);
    e.extend_to(300, &mut || false).unwrap();
    assert_eq!(e.values().width(), 2);
    e.extend_to(66_000, &mut || false).unwrap();
    assert_eq!(e.values().width(), 4);
    assert!(e.values().iter().enumerate().all(|(n, v)| v as usize == n));
    // .6 needs two bytes by 20,000 heaps, and its sparse mode reads the narrow values
    // directly (no copy of its own).
    let mut e = Engine::new(&Game::parse("0.6").unwrap());
    e.extend_to(20_000, &mut || false).unwrap();
    assert_eq!((e.values().width(), e.stats().mode), (2, "sparse"));
    // Resuming from u32s stores the narrowest width.
    let r = Engine::resume(&Game::parse("0.6").unwrap(), e.values().to_u32_vec()).unwrap();
    assert_eq!(r.values(), e.values());
}

#[test]
fn stop_and_resume() {
    let game = Game::parse("0.16").unwrap();
    let mut e = Engine::new(&game);
    let mut polls = 0;
    let r = e.extend_to(5000, &mut || {
        polls += 1;
        polls > 3
    });
    assert!(matches!(r, Err(OctalError::Stopped { .. })));
    let partial = e.values().to_u32_vec();
    assert!(partial.len() < 5000);
    e.extend_to(5000, &mut || false).unwrap();
    let full = e.into_values().to_u32_vec();
    assert_eq!(&full[..partial.len()], &partial[..]);
    let mut r = Engine::resume(&game, full[..1234].to_vec()).unwrap();
    r.extend_to(5000, &mut || false).unwrap();
    assert_eq!(r.values().to_u32_vec(), full);
    // Resume for a game with full sets (recurring, three-heap).
    for code in ["0.1(7)", "0.F8", "80.4"] {
        let g = Game::parse(code).unwrap();
        let all = fast(code, 300, 1);
        let mut r = Engine::resume(&g, all[..120].to_vec()).unwrap();
        r.extend_to(300, &mut || false).unwrap();
        assert_eq!(r.values().to_u32_vec(), all, "{code}");
    }
    assert!(Engine::resume(&game, vec![1, 2]).is_err());
    assert!(matches!(
        Engine::new(&game).extend_to(MAX_VALUES + 1, &mut || false),
        Err(OctalError::LengthTooLarge { .. })
    ));
}
