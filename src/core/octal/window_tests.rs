//! Window mode (`window.rs`) against every value kept: the same values wherever both compute,
//! and where the window cannot decide a heap, a `WindowTooSmall` error — never another error,
//! never a different value.

use super::code::Game;
use super::engine::Engine;
use super::error::OctalError;
use super::naive::tests::{random_code, Rng};
use super::periodicity::{detect, Detector, Periodicity};
use super::window::Keep;

/// G(0..n) keeping everything.
fn full(code: &str, n: usize) -> Vec<u32> {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(1);
    e.extend_to(n, &mut || false).unwrap();
    e.values().to_u32_vec()
}

/// An engine keeping a front and a window, dropping `slide` values at a time.
fn windowed(code: &str, front: usize, window: usize, slide: usize, threads: usize) -> Engine {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(threads);
    e.set_slide(slide);
    e.set_keep(Keep::Window { front, window }).unwrap();
    e
}

/// The kept values of `e` equal `all` where they are kept, and `e` holds no more than it may.
fn assert_kept(e: &Engine, all: &[u32], front: usize, window: usize, slide: usize, code: &str) {
    let (f, tail, base) = e.kept();
    assert_eq!(e.len(), all.len(), "{code}");
    assert_eq!(f.iter().collect::<Vec<_>>(), all[..f.len()], "{code}: front");
    assert_eq!(tail.iter().collect::<Vec<_>>(), all[base..], "{code}: tail");
    if e.is_windowed() {
        assert_eq!(f.len(), front, "{code}");
        assert!(tail.len() >= window && tail.len() <= window + 2 * slide, "{code}");
    }
}

#[test]
fn sparse_games_in_a_window_keep_exact_values_and_bounded_memory() {
    // Games with a sparse space from early on (Flammenkamp's and Czajka's unsolved ones).
    let (n, front, window, slide) = (40_000, 2048, 1024, 128);
    let mut windowed_to_the_end = 0;
    for code in ["0.6", "0.14", "0.16", "0.34", "0.36", "0.64", "0.74", "0.76", "0.37"] {
        let all = full(code, n);
        for threads in [1, 2] {
            let mut e = windowed(code, front, window, slide, threads);
            match e.extend_to(n, &mut || false) {
                Ok(()) => {
                    assert_kept(&e, &all, front, window, slide, code);
                    windowed_to_the_end += usize::from(e.is_windowed());
                }
                Err(OctalError::WindowTooSmall { heap, .. }) => {
                    // Every value before the refusal is exact.
                    assert!(heap as usize <= n, "{code}");
                    assert_kept(&e, &all[..e.len()], front, window, slide, code);
                }
                Err(other) => panic!("{code}: {other}"),
            }
        }
    }
    assert!(windowed_to_the_end >= 6, "only {windowed_to_the_end} runs stayed in the window");
}

#[test]
fn random_codes_in_a_window_agree_or_refuse() {
    let mut rng = Rng(0x51DE_0001);
    let (n, front, window, slide) = (6_000, 512, 256, 64);
    let (mut agreed, mut refused) = (0, 0);
    for _ in 0..120 {
        let code = random_code(&mut rng);
        let all = full(&code, n);
        let mut e = windowed(&code, front, window, slide, 1 + (agreed % 2));
        match e.extend_to(n, &mut || false) {
            Ok(()) => {
                assert_kept(&e, &all, front, window, slide, &code);
                agreed += 1;
            }
            Err(OctalError::WindowTooSmall { .. }) => {
                assert_kept(&e, &all[..e.len()], front, window, slide, &code);
                refused += 1;
            }
            Err(other) => panic!("{code}: {other}"),
        }
    }
    assert!(agreed >= 30 && refused >= 5, "agreed {agreed}, refused {refused}");
}

#[test]
fn a_window_resumes_from_its_front_tail_counts_and_mask() {
    let (n, front, window, slide) = (30_000, 1024, 1024, 64);
    for code in ["0.6", "0.16", "0.14"] {
        let all = full(code, n);
        let mut a = windowed(code, front, window, slide, 1);
        a.extend_to(n / 2, &mut || false).unwrap();
        assert!(a.is_windowed(), "{code}");
        let (f, tail, base) = a.kept();
        let mut b = Engine::resume_window(
            &Game::parse(code).unwrap(),
            Keep::Window { front, window },
            f.iter().collect::<Vec<u32>>().into(),
            tail.iter().collect::<Vec<u32>>().into(),
            base,
            a.counts(),
            a.mask(),
        )
        .unwrap();
        b.set_slide(slide);
        b.extend_to(n, &mut || false).unwrap();
        assert_kept(&b, &all, front, window, slide, code);
    }
}

#[test]
fn what_a_window_refuses_it_names() {
    // Dawson's Kayles has no sparse space: the gap never opens.
    let mut e = windowed("0.07", 256, 256, 64, 1);
    match e.extend_to(5_000, &mut || false) {
        Err(OctalError::WindowTooSmall { heap, detail }) => {
            assert!(heap >= 512, "{heap}");
            assert!(detail.contains("sparse space"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    // Three-heap splits need every value.
    let mut e = windowed("0.8F", 256, 256, 64, 1);
    assert!(matches!(
        e.extend_to(5_000, &mut || false),
        Err(OctalError::WindowTooSmall { .. })
    ));
    // Bad shapes.
    let mut e = Engine::new(&Game::parse("0.6").unwrap());
    for keep in [
        Keep::Window {
            front: 100,
            window: 100,
        },
        Keep::Window {
            front: 0,
            window: 0,
        },
        Keep::Window {
            front: 1 << 16,
            window: 1 << 17,
        },
    ] {
        assert!(e.set_keep(keep).is_err(), "{keep:?}");
    }
}

#[test]
fn the_tail_proves_periods_that_start_inside_it_and_only_those() {
    for code in ["0.07", "0.137", "0.51", "0.15", "4.7"] {
        let game = Game::parse(code).unwrap();
        let all = full(code, 4_000);
        let Periodicity::Proved(want) = detect(&game, &all[..]) else {
            panic!("{code} is periodic")
        };
        for base in [1, 10, 40, 100, 400, 1000] {
            let mut d = Detector::new(&game);
            let got = *d.check_tail(&all[base..], base, true);
            if base as u64 + 2 <= want.preperiod {
                // The stretch starts inside the tail: the same proof.
                assert_eq!(got, Periodicity::Proved(want), "{code} from {base}");
            } else {
                // The tail is periodic from its start: the start of the stretch is unknown.
                assert_eq!(got, Periodicity::Unknown, "{code} from {base}");
            }
        }
    }
}

#[test]
#[ignore]
fn print_last_rare() {
    for code in ["0.6", "0.14", "0.16", "0.34", "0.36", "0.64", "0.74", "0.76", "0.37", "0.04", "0.06", "0.167", "0.161", "0.014", "0.172", "0.034", "0.007"] {
        let mut e = Engine::new(&Game::parse(code).unwrap());
        e.set_threads(1);
        e.extend_to(1 << 18, &mut || false).unwrap();
        let m = e.mask();
        let v = e.values().to_u32_vec();
        let last = v.iter().enumerate().skip(1).filter(|(_, &x)| m != 0 && (x & m).count_ones() % 2 == 0).map(|(i, _)| i).last();
        let count = v.iter().skip(1).filter(|&&x| m != 0 && (x & m).count_ones() % 2 == 0).count();
        println!("{code}: mode {} mask {m:x} rare {count} last {last:?} max {}", e.stats().mode, e.stats().max_value);
    }
}
