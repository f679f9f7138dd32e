//! The parallel pipeline (`engine/parallel/`) against the one-thread engine and
//! the definition: every value equal, on every path it can take — bit rows and byte rows, with
//! and without far rows, values of one and two bytes, part rules, windows read back from an
//! archive — and in the cases it exists to survive: a heap found rare inside a block (all that
//! follows is computed again), a value reaching 64 inside a block (bit marks give way to
//! stamps), a check that needs the archive, a stop in the middle.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::octal::code::{Game, PartRule};
use crate::octal::engine::{Engine, Profile};
use crate::octal::naive::naive_values;
use crate::octal::naive::tests::{random_code, Rng};
use crate::octal::statistics::Statistics;
use crate::octal::values::ValuesRef;
use crate::octal::window::archive::Archive;
use crate::octal::window::Keep;

use super::window::Shared;

/// G(0..n) on one thread, the pipeline off.
fn one_thread(game: &Game, n: usize) -> Vec<u32> {
    let mut e = Engine::new(game);
    e.set_threads(1);
    e.set_pipeline(false);
    e.extend_to(n, &mut || false).unwrap();
    e.into_values().to_u32_vec()
}

/// An engine on `threads` threads whose pipeline runs from heap `from` on, with a fixed plan
/// (block, far rows) or its own.
fn piped(game: &Game, threads: usize, from: usize, plan: Option<(usize, bool)>) -> Engine {
    let mut e = Engine::new(game);
    e.set_threads(threads);
    e.force_pipeline(from, plan);
    e
}

fn first_difference(a: &[u32], b: &[u32]) -> Option<(usize, u32, u32)> {
    if a.len() != b.len() {
        return Some((a.len().min(b.len()), u32::MAX, u32::MAX));
    }
    (0..a.len())
        .find(|&i| a[i] != b[i])
        .map(|i| (i, a[i], b[i]))
}

/// Runs `game` to `n` on 1 (profiled), 2 and 3 threads under every plan given and compares with one thread.
/// Returns the pipeline's counts summed over the runs.
fn agrees(game: &Game, n: usize, from: usize, plans: &[Option<(usize, bool)>]) -> [u64; 5] {
    let want = one_thread(game, n);
    let mut sum = [0u64; 5];
    for &plan in plans {
        // One thread with a profile runs the pipeline too, every stage on the calling thread.
        for threads in [1, 2, 3] {
            let mut e = piped(game, threads, from, plan);
            e.set_profile(threads == 1);
            e.extend_to(n, &mut || false).unwrap();
            let c = e.pipeline_counts();
            let got = e.into_values().to_u32_vec();
            if let Some((i, x, y)) = first_difference(&got, &want) {
                panic!(
                    "{} ({threads} threads, plan {plan:?}, {c:?}): G({i}) = {x} but {y}",
                    game.canonical()
                );
            }
            for (s, x) in
                sum.iter_mut()
                    .zip([c.heaps, c.rare, c.leftovers, c.deferred, c.far_rounds])
            {
                *s += x;
            }
        }
    }
    sum
}

const PLANS: [Option<(usize, bool)>; 4] = [
    None,
    Some((64, false)),
    Some((128, true)),
    Some((320, true)),
];

#[test]
fn the_pipeline_agrees_with_one_thread_and_the_definition() {
    // Bit rows (.167, .1777, .156 stay below 64), byte rows of one-byte values (.6, Grundy's game) and
    // two (.014 from 256 on), a heap-1 digit beside the split (.36), digits 1..3 (.74).
    for (code, n) in [
        ("0.167", 20_000),
        ("0.1777", 12_000),
        ("0.156", 12_000),
        ("0.161", 12_000),
        ("0.6", 12_000),
        ("grundy", 12_000),
        ("0.36", 8_000),
        ("0.74", 8_000),
        ("0.4007", 8_000),
    ] {
        let game = Game::parse(code).unwrap();
        let sum = agrees(&game, n, 1024, &PLANS);
        assert!(sum[0] > 0, "{code}: the pipeline computed nothing");
        let naive = naive_values(&game, 1500, &mut || false).unwrap();
        assert_eq!(&one_thread(&game, 1500)[..], &naive[..], "{code}");
    }
}

/// `.6` to `n` on `threads` threads from heap 1024 on, profiled, with `forced` serial work in
/// every round: (the profile, the run's time, the values).
fn profiled(threads: usize, n: usize, forced: Duration) -> (Profile, Duration, Vec<u32>) {
    let mut e = piped(
        &Game::parse("0.6").unwrap(),
        threads,
        1024,
        Some((128, true)),
    );
    e.set_profile(true);
    e.force_serial_work(forced);
    let t = Instant::now();
    e.extend_to(n, &mut || false).unwrap();
    let total = t.elapsed();
    let p = *e.profile().expect("profiling is on");
    (p, total, e.into_values().to_u32_vec())
}

#[test]
fn a_one_thread_profile_times_every_stage_of_the_pipeline() {
    let n = 40_000;
    let (p, total, values) = profiled(1, n, Duration::ZERO);
    assert_eq!(values, one_thread(&Game::parse("0.6").unwrap(), n));
    assert!(p.rounds > 100, "{p:?}");
    assert!(
        !p.far_rows.is_zero() && !p.checks.is_zero() && !p.spine.is_zero(),
        "{p:?}"
    );
    // The stages are disjoint parts of the run: the shared ones and the spine fit in it.
    assert!(p.parallel() + p.spine <= total, "{p:?} in {total:?}");
    assert_eq!(p.serial(total), total - p.parallel());
    let s = p.serial_share(total);
    assert!(s > 0.0 && s < 1.0, "{s}");
    // Amdahl: p threads are at most p times faster, and the bound falls with the serial share.
    assert!((Profile::predicted(0.0, 16) - 16.0).abs() < 1e-9);
    assert!((Profile::predicted(1.0, 16) - 1.0).abs() < 1e-9);
    assert!((Profile::predicted(0.04, 16) - 1.0 / (0.04 + 0.96 / 16.0)).abs() < 1e-9);
    let line = p.line(1, total);
    assert!(
        line.starts_with(&format!("profile: threads=1 serial_share={s:.3} serial_s=")),
        "{line}"
    );
    for key in ["total_s=", "predicted_8=", "predicted_16="] {
        assert!(line.contains(key), "{line}");
    }
}

#[test]
fn serial_work_forced_into_the_rounds_shows_in_the_profile() {
    // 2 ms of serial work in each of a few hundred rounds: the profile must count all of it as
    // serial, and none of it as shared.
    let n = 30_000;
    let forced = Duration::from_millis(2);
    let (p, total, values) = profiled(1, n, forced);
    assert_eq!(values, one_thread(&Game::parse("0.6").unwrap(), n));
    let serial = p.serial(total);
    let least = forced * p.rounds as u32;
    assert!(
        serial >= least,
        "serial {serial:?} < {least:?} forced ({p:?})"
    );
    assert!(p.parallel() < total - least, "{p:?} in {total:?}");
    // And the share grows with it.
    let (p0, total0, _) = profiled(1, n, Duration::ZERO);
    assert!(
        p.serial_share(total) > p0.serial_share(total0),
        "{p:?} in {total:?} against {p0:?} in {total0:?}"
    );
    // On two threads the same work is serial too.
    let (p2, total2, values2) = profiled(2, n, forced);
    assert_eq!(values2, values);
    assert!(p2.serial(total2) >= forced * p2.rounds as u32, "{p2:?}");
}

#[test]
fn new_rare_values_inside_blocks_restart_the_pipeline() {
    // Early on, the rare positions of Officers and Grundy's game still grow: checks find rare
    // values inside blocks, and everything computed after them is computed again.
    for code in ["0.6", "grundy"] {
        let game = Game::parse(code).unwrap();
        let sum = agrees(&game, 10_000, 256, &[Some((64, false)), Some((64, true))]);
        assert!(sum[1] > 0, "{code}: no heap was found rare inside a block");
    }
}

#[test]
fn values_reaching_64_inside_blocks_leave_bit_rows() {
    // Officers and Grundy's game cross 64 with bit marks in use: the heap is left to the
    // one-thread step and the pipeline goes on with byte rows.
    for code in ["0.6", "grundy"] {
        let game = Game::parse(code).unwrap();
        let sum = agrees(&game, 6_000, 128, &[Some((64, false)), Some((128, true))]);
        assert!(
            sum[2] > 0,
            "{code}: no heap was left to the one-thread step"
        );
    }
}

#[test]
fn byte_rows_agree_where_bit_rows_would_do() {
    let game = Game::parse("0.167").unwrap();
    let want = one_thread(&game, 16_000);
    for plan in PLANS {
        let mut e = piped(&game, 2, 512, plan);
        e.set_bit_marks(false);
        e.extend_to(16_000, &mut || false).unwrap();
        assert!(e.pipeline_counts().heaps > 0);
        assert_eq!(e.into_values().to_u32_vec(), want, "{plan:?}");
    }
}

#[test]
fn the_widest_rows_agree() {
    // Rows of 2,048 bytes (values up to 1,023) for values that need 512: the same values.
    for code in ["0.6", "grundy"] {
        let game = Game::parse(code).unwrap();
        let want = one_thread(&game, 12_000);
        for plan in [Some((64, false)), Some((128, true))] {
            let mut e = piped(&game, 2, 1024, plan);
            e.force_widest_rows();
            e.extend_to(12_000, &mut || false).unwrap();
            assert!(e.pipeline_counts().heaps > 0);
            assert_eq!(e.into_values().to_u32_vec(), want, "{code} {plan:?}");
        }
    }
}

#[test]
fn part_rules_hold_in_the_pipeline() {
    // Grundy's game and other codes with a rule on the parts: the block passes skip the
    // forbidden window, the far rows and the spine must too.
    let rule = |code: &str, gap: u32| {
        Game::parse(code)
            .unwrap()
            .with_part_rule(PartRule::DifferBy(gap))
            .unwrap()
    };
    for game in [rule("0.6", 2), rule("0.16", 3), rule("0.161", 1)] {
        agrees(&game, 8_000, 512, &PLANS);
    }
}

#[test]
fn random_codes_agree() {
    let mut rng = Rng(0x7A2A_11E1);
    let mut piped_runs = 0;
    for _ in 0..60 {
        let code = random_code(&mut rng);
        let game = Game::parse(&code).unwrap();
        if game.max_heaps() >= 3 || !game.is_finite() {
            continue;
        }
        let sum = agrees(&game, 3_000, 256, &[Some((64, false)), Some((64, true))]);
        piped_runs += u64::from(sum[0] > 0);
    }
    assert!(piped_runs >= 5, "only {piped_runs} codes ran the pipeline");
}

#[test]
fn stop_and_resume_inside_the_pipeline() {
    let game = Game::parse("0.6").unwrap();
    let want = one_thread(&game, 12_000);
    let mut e = piped(&game, 2, 1024, Some((64, true)));
    let mut polls = 0;
    let r = e.extend_to(12_000, &mut || {
        polls += 1;
        polls > 40
    });
    assert!(r.is_err(), "the stop was not seen");
    let part = e.values().to_u32_vec();
    assert!(part.len() < 12_000 && part.len() > 1024, "{}", part.len());
    assert_eq!(&part[..], &want[..part.len()]);
    e.extend_to(12_000, &mut || false).unwrap();
    assert_eq!(e.into_values().to_u32_vec(), want);
}

#[test]
fn statistics_see_every_value_once() {
    for code in ["0.167", "0.6"] {
        let game = Game::parse(code).unwrap();
        let run = |threads: usize| {
            let mut e = piped(&game, threads, 1024, Some((128, true)));
            e.set_statistics(Statistics::new()).unwrap();
            e.extend_to(10_000, &mut || false).unwrap();
            e.statistics().and_then(Statistics::current).unwrap()
        };
        assert_eq!(run(2), run(1), "{code}");
    }
}

#[test]
fn windows_read_back_inside_blocks() {
    // Window mode with the pipeline: checks that need the archive are deferred to the commit
    // (forced here: every check reads back), and rare positions beyond the window (`.167`'s
    // 1303 beyond a window of 1024... here the window must hold a block: .6's far positions).
    // (Without far rows the spine reads back to the largest rare position: `.6`'s reach the
    // window, so it runs with far rows only.)
    let both = [Some((64, false)), Some((128, true))];
    let far = [Some((128, true))];
    for (code, window, n, force, plans) in [
        ("0.167", 8192, 30_000, true, &both[..]),
        ("0.6", 16_384, 60_000, false, &far[..]),
        ("0.6", 16_384, 40_000, true, &far[..]),
    ] {
        let game = Game::parse(code).unwrap();
        let want = one_thread(&game, n);
        for &plan in plans {
            let mut e = piped(&game, 2, 1024, plan);
            e.set_slide(256);
            e.set_keep(Keep::Window {
                front: window,
                window,
            })
            .unwrap();
            e.set_archive(Box::new(Shared::default()));
            e.extend_to(2 * window + 1024, &mut || false).unwrap();
            assert!(e.is_windowed(), "{code}");
            if force {
                e.force_read_back();
            }
            let before = e.pipeline_counts();
            e.extend_to(n, &mut || false).unwrap();
            let c = e.pipeline_counts();
            assert!(c.heaps > before.heaps, "{code} {plan:?}: {c:?}");
            if force {
                assert!(
                    c.deferred > before.deferred,
                    "{code}: nothing deferred ({c:?})"
                );
            }
            let (front, tail, base) = e.kept();
            assert_eq!(e.len(), n);
            assert_eq!(
                front.iter().collect::<Vec<_>>(),
                want[..front.len()],
                "{code}"
            );
            assert_eq!(
                tail.iter().collect::<Vec<_>>(),
                want[base..],
                "{code} {plan:?}"
            );
        }
    }
}

/// An archive that stops answering after a number of reads.
#[derive(Debug, Clone, Default)]
struct Failing {
    inner: Shared,
    reads_left: Arc<Mutex<u32>>,
}

impl Archive for Failing {
    fn offer(&mut self, from: u64, values: ValuesRef<'_>) -> Result<u64, String> {
        self.inner.offer(from, values)
    }
    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        let mut left = self.reads_left.lock().unwrap();
        if *left == 0 {
            return Err("the archive is gone".into());
        }
        *left -= 1;
        self.inner.read(from, out)
    }
}

#[test]
fn an_archive_failing_inside_a_block_leaves_only_verified_values() {
    // Every check reads back (forced), so the commit's checks hit the failing archive: the
    // error comes back, and what the engine holds is exact — no value of the block after it.
    let game = Game::parse("0.167").unwrap();
    let want = one_thread(&game, 40_000);
    for reads in [0, 5, 200] {
        let mut e = piped(&game, 2, 1024, Some((64, false)));
        e.set_slide(256);
        e.set_keep(Keep::Window {
            front: 8192,
            window: 8192,
        })
        .unwrap();
        let archive = Failing {
            reads_left: Arc::new(Mutex::new(u32::MAX)),
            ..Failing::default()
        };
        e.set_archive(Box::new(archive.clone()));
        e.extend_to(20_000, &mut || false).unwrap();
        e.force_read_back();
        *archive.reads_left.lock().unwrap() = reads;
        let r = e.extend_to(40_000, &mut || false);
        assert!(r.is_err(), "reads {reads}: {r:?}");
        let (front, tail, base) = e.kept();
        assert!(e.len() < 40_000);
        assert_eq!(front.iter().collect::<Vec<_>>(), want[..front.len()]);
        assert_eq!(
            tail.iter().collect::<Vec<_>>(),
            want[base..e.len()],
            "reads {reads}: a value past the last verified one"
        );
    }
}

/// At scale (release: `cargo test --release -- --ignored`): the frontier games to a few
/// million heaps on 2 and 3 threads with their own plans — the verifiers' stamps wrap, far
/// rows and bit rows run for hundreds of thousands of blocks.
#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn the_pipeline_agrees_at_scale() {
    for (code, n) in [
        ("0.167", 1 << 22),
        ("grundy", 1 << 21),
        ("0.014", 1 << 20),
        ("0.6", 1 << 20),
        ("0.161", 1 << 21),
    ] {
        let game = Game::parse(code).unwrap();
        agrees(&game, n, 1 << 15, &[None]);
    }
}
