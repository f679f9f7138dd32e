//! Window mode (`window.rs`, `archive.rs`) against every value kept: the same values
//! everywhere, the values between the front and the tail read back from an archive when a
//! heap needs them; a refusal only for games window mode cannot compute at all (no sparse
//! space, three-heap splits) — never another error, never a different value.

use std::sync::{Arc, Mutex};

use crate::octal::code::Game;
use crate::octal::engine::Engine;
use crate::octal::error::OctalError;
use crate::octal::naive::tests::{random_code, Rng};
use crate::octal::periodicity::{detect, Detector, Periodicity};
use crate::octal::values::ValuesRef;
use crate::octal::window::archive::{Archive, MemoryArchive};
use crate::octal::window::Keep;

/// A [`MemoryArchive`] that a test can still look at (and hand to a resumed engine).
#[derive(Debug, Clone, Default)]
pub(super) struct Shared(Arc<Mutex<MemoryArchive>>);

impl Archive for Shared {
    fn offer(&mut self, from: u64, values: ValuesRef<'_>) -> Result<u64, String> {
        self.0.lock().unwrap().offer(from, values)
    }
    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        self.0.lock().unwrap().read(from, out)
    }
}

impl Shared {
    fn reads(&self) -> u64 {
        self.0.lock().unwrap().reads
    }
}

/// G(0..n) keeping everything.
fn full(code: &str, n: usize) -> Vec<u32> {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(1);
    e.extend_to(n, &mut || false).unwrap();
    e.values().to_u32_vec()
}

/// An engine keeping a front and a window, dropping `slide` values at a time into an archive
/// in memory.
fn windowed(code: &str, front: usize, window: usize, slide: usize, threads: usize) -> Engine {
    windowed_with(code, front, window, slide, threads).0
}

/// [`windowed`], and its archive.
fn windowed_with(
    code: &str,
    front: usize,
    window: usize,
    slide: usize,
    threads: usize,
) -> (Engine, Shared) {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(threads);
    e.set_slide(slide);
    e.set_keep(Keep::Window { front, window }).unwrap();
    let archive = Shared::default();
    e.set_archive(Box::new(archive.clone()));
    (e, archive)
}

/// The kept values of `e` equal `all` where they are kept, and `e` holds no more than it may.
fn assert_kept(e: &Engine, all: &[u32], front: usize, window: usize, slide: usize, code: &str) {
    let (f, tail, base) = e.kept();
    assert_eq!(e.len(), all.len(), "{code}");
    assert_eq!(
        f.iter().collect::<Vec<_>>(),
        all[..f.len()],
        "{code}: front"
    );
    assert_eq!(tail.iter().collect::<Vec<_>>(), all[base..], "{code}: tail");
    if e.is_windowed() {
        assert_eq!(f.len(), front, "{code}");
        assert!(
            tail.len() >= window && tail.len() <= window + 2 * slide,
            "{code}"
        );
    }
}

/// Sparse games in windows far smaller than their deepest rare checks and their last rare
/// heaps: every value equals keeping them all. Each case: code, front, window, n.
fn sparse_games_in(cases: &[(&str, usize, usize, usize)], threads: &[usize]) {
    let slide = 256;
    for &(code, front, window, n) in cases {
        let all = full(code, n);
        for &threads in threads {
            let (mut e, archive) = windowed_with(code, front, window, slide, threads);
            if let Err(e) = e.extend_to(n, &mut || false) {
                panic!("{code} (front {front}, window {window}, {threads} threads): {e}");
            }
            assert!(e.is_windowed(), "{code}");
            assert_kept(&e, &all, front, window, slide, code);
            let r = e.read_backs();
            eprintln!(
                "{code} front {front} window {window} to {n}: {} far rare, {} deep scans, \
                 {} reads ({} values), {} archive reads",
                e.far_rare().len(),
                r.deep_scans,
                r.reads,
                r.values,
                archive.reads()
            );
        }
    }
}

#[test]
fn sparse_games_in_a_window_keep_exact_values_and_bounded_memory() {
    // A front larger than the window: the probes in use when the gap opens reach beyond
    // the window and must be dropped then. `.167`'s rare heap 1303 lies beyond a window of
    // 1024 (a far rare position), its rare check of G(28114) needs splits up to 14056.
    sparse_games_in(
        &[
            ("0.167", 2048, 2048, 12_000),
            ("0.167", 8192, 2048, 16_000),
            ("0.167", 1024, 1024, 40_000),
        ],
        &[1, 2],
    );
    sparse_games_in(
        &[
            ("0.36", 1 << 14, 1 << 14, 40_000),
            ("0.6", 2048, 2048, 30_000),
        ],
        &[1],
    );
}

/// The same at sizes where the rare checks scan deep and rare heaps lie far beyond the window
/// (release: `cargo test --release -- --ignored`): `.167`'s rare check of G(28114) needs
/// splits up to a = 14056, `.6`'s of G(220655) up to 110327; `.16`'s last rare heap (mask
/// chosen at the gap) is 13935, `.6`'s 20627, `.161`'s 23784 — all beyond windows of 2^12.
#[test]
#[ignore]
fn sparse_games_in_a_window_at_scale() {
    sparse_games_in(
        &[
            ("0.167", 1 << 12, 1 << 12, 1 << 20),
            ("0.167", 1 << 14, 1 << 12, 1 << 20),
            ("0.16", 1 << 12, 1 << 12, 1 << 19),
            ("0.6", 1 << 13, 1 << 13, 1 << 19),
            ("0.161", 1 << 12, 1 << 12, 1 << 19),
            ("0.36", 1 << 12, 1 << 12, 1 << 19),
        ],
        &[1, 2],
    );
}

/// The mask is reviewed in window mode from the archive: `.6` with a window of 4096 opens
/// its gap near 8,700 under the mask `ee` (every value from 256 on rare: the rare positions
/// beyond the window would grow without end); the review at 1.5·n switches to `1ee`.
#[test]
fn a_window_reviews_its_mask_reading_every_value_back() {
    let n = 40_000;
    let all = full("0.6", n);
    let (mut e, archive) = windowed_with("0.6", 4096, 4096, 256, 1);
    e.extend_to(9_000, &mut || false).unwrap();
    assert!(e.is_windowed());
    assert_eq!(e.mask(), 0xee);
    e.extend_to(n, &mut || false).unwrap();
    assert_eq!(e.mask(), 0x1ee);
    assert!(e.far_rare().len() < 800, "{}", e.far_rare().len());
    assert!(archive.reads() > 0);
    assert_kept(&e, &all, 4096, 4096, 256, "0.6");
}

/// Every rare check reads its splits through the archive path (`fill`: front, archive,
/// tail) instead of the probes and the kept values: the same values, and reads happen.
#[test]
fn rare_checks_that_read_everything_back_agree() {
    for (code, window, n) in [
        ("0.167", 1024, 20_000),
        ("0.6", 2048, 16_000),
        ("0.16", 1024, 12_000),
    ] {
        let all = full(code, n);
        // With bit marks (values below 64: .167) and with stamps (`sparse.rs`).
        for bits in [true, false] {
            let (mut e, archive) = windowed_with(code, window, window, 256, 1);
            e.set_bit_marks(bits);
            // Past the gap (the mode and the mask are frozen then), force the read-backs.
            e.extend_to(2 * window + 1024, &mut || false).unwrap();
            assert!(e.is_windowed(), "{code}");
            e.force_read_back();
            e.extend_to(n, &mut || false).unwrap();
            assert_kept(&e, &all, window, window, 256, code);
            assert!(archive.reads() > 1000, "{code}: {} reads", archive.reads());
        }
    }
}

#[test]
fn random_codes_in_a_window_agree_or_refuse() {
    let mut rng = Rng(0x51DE_0001);
    let (n, front, window, slide) = (2_000, 512, 256, 64);
    let (mut agreed, mut refused) = (0, 0);
    for _ in 0..60 {
        let code = random_code(&mut rng);
        let all = full(&code, n);
        let mut e = windowed(&code, front, window, slide, 1 + (agreed % 2));
        match e.extend_to(n, &mut || false) {
            Ok(()) => {
                assert_kept(&e, &all, front, window, slide, &code);
                agreed += 1;
            }
            // Only what window mode cannot compute at all: no sparse space, three heaps.
            Err(OctalError::WindowTooSmall { detail, .. }) => {
                assert!(
                    detail.contains("sparse space") || detail.contains("three-heap"),
                    "{code}: {detail}"
                );
                assert_kept(&e, &all[..e.len()], front, window, slide, &code);
                refused += 1;
            }
            Err(other) => panic!("{code}: {other}"),
        }
    }
    assert!(
        agreed >= 12 && refused >= 5,
        "agreed {agreed}, refused {refused}"
    );
}

#[test]
fn a_window_resumes_from_its_front_tail_counts_mask_and_far_rare_positions() {
    let slide = 64;
    // `.167` with a window of 1024 resumed at 30,000: its rare heap 1303 is a far one, and the
    // rare check of G(28114) has read back; `.36` resumes before any of that.
    for (code, window, mid) in [
        ("0.167", 1024, 30_000),
        ("0.167", 2048, 4_500),
        ("0.36", 1 << 14, 33_300),
    ] {
        let front = window;
        let n = mid + 6000;
        let all = full(code, n);
        let (mut a, archive) = windowed_with(code, front, window, slide, 1);
        a.extend_to(mid, &mut || false).unwrap();
        assert!(a.is_windowed(), "{code}");
        let (f, tail, base) = a.kept();
        let far = a.far_rare();
        let mut b = Engine::resume_window(
            &Game::parse(code).unwrap(),
            Keep::Window { front, window },
            f.iter().collect::<Vec<u32>>().into(),
            tail.iter().collect::<Vec<u32>>().into(),
            base,
            a.counts(),
            a.mask(),
            &far,
        )
        .unwrap();
        assert_eq!(b.far_rare(), far, "{code}");
        b.set_slide(slide);
        b.set_archive(Box::new(archive.clone()));
        b.extend_to(n, &mut || false).unwrap();
        assert_kept(&b, &all, front, window, slide, code);
        // A state that does not add up is refused, not trusted.
        let mut wrong = a.counts().to_vec();
        wrong[1] += 1;
        assert!(Engine::resume_window(
            &Game::parse(code).unwrap(),
            Keep::Window { front, window },
            f.iter().collect::<Vec<u32>>().into(),
            tail.iter().collect::<Vec<u32>>().into(),
            base,
            &wrong,
            a.mask(),
            &far,
        )
        .is_err());
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
    // Dropped values with no archive to read them back from: an error at the first heap
    // that needs one (`.167`'s rare check of G(28114) needs splits up to 14056), every value
    // before it exact.
    let mut e = Engine::new(&Game::parse("0.167").unwrap());
    e.set_slide(256);
    e.set_keep(Keep::Window {
        front: 4096,
        window: 4096,
    })
    .unwrap();
    match e.extend_to(40_000, &mut || false) {
        Err(OctalError::Archive { heap, detail }) => {
            assert_eq!(heap, 4096, "{detail}");
            assert!(detail.contains("no archive"), "{detail}");
            assert_eq!(e.len(), 28114, "every value before it kept and exact");
            assert_kept(&e, &full("0.167", 28114), 4096, 4096, 256, "0.167");
        }
        other => panic!("{other:?}"),
    }
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

/// Grundy's game with a front and a window of 2^22: G(7,250,049) = 256, its first value
/// ≥ 256, is rare under the mask `fe` of the last review; when the gap opens at 8.45·10^6 the
/// mask is chosen once more with every value at hand (`1fe`, where 256 is common). With a
/// front and a window of 3·2^20 the gap opens at 6.36·10^6 with the mask `fe` frozen:
/// G(7,250,049) is rare then, its rare check reads splits up to 3,625,024 back from the
/// archive, and it becomes a far rare position. Release: `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn a_first_value_with_a_new_top_bit_gets_a_mask_where_it_is_common() {
    let (w, n) = (1 << 22, 8_600_000);
    let all = full("grundy", n);
    assert_eq!(all[7_250_049], 256, "the first value ≥ 256");
    assert!(all[..7_250_049].iter().all(|&v| v < 256));
    let mut e = windowed("grundy", w, w, 1 << 16, 1);
    e.extend_to(n, &mut || false).unwrap();
    assert!(e.is_windowed());
    assert_eq!(e.mask(), 0x1fe, "the mask chosen when the gap opened");
    assert_kept(&e, &all, w, w, 1 << 16, "grundy");

    let w = 3 << 20;
    let mut e = windowed("grundy", w, w, 1 << 16, 1);
    e.extend_to(n, &mut || false).unwrap();
    assert_eq!(e.mask(), 0xfe);
    assert!(
        e.far_rare().contains(&(7_250_049, 256)),
        "{:?}",
        e.far_rare()
    );
    assert!(e.read_backs().deep_scans >= 1);
    assert_kept(&e, &all, w, w, 1 << 16, "grundy");
}
