//! Timing harness for the octal engine.
//!
//! ```text
//! octal_time CODE [--n N] [--until-proved] [--threads T[,T2,...]] [--naive] [--dense]
//!                 [--no-long-periods] [--detector-cost] [--seconds S]
//! ```
//! Computes G(0..N) (or until periodicity is proved, capped at N, or until S seconds have
//! passed) and prints the wall time, the CPU time, values per second, the peak resident memory
//! (VmHWM), the bytes per value of the stored values and the verdict. `CODE` may be `grundy`
//! (Grundy's game).
//!
//! * `--threads 1,2,4`: one run per listed thread count, in that order, in one process, then
//!   the wall-time ratios to the first (list a count twice, e.g. `1,2,1,2`, to see the noise).
//! * `--no-long-periods`: switch the detector's long-period sweep (periods above 2^20) off.
//! * Every run prints `values: n=N digest=…`, an FNV-1a digest of G(0..N) (not with
//!   `--window`): runs with other thread counts or builds computed the same values when their
//!   digests agree.
//! * `--statistics`: keep the tables' statistics with the values (as every job does) and print
//!   the last snapshot.
//! * `--window W`: keep only the front G(0..W) and the last W values in memory (a job's
//!   `"keep": "window"`), W a multiple of 65536; the values between go to a scratch file (2
//!   bytes a value, under the system's temporary directory, removed at exit) and are read back
//!   from it when a heap needs them (a job keeps them in its store instead).
//! * `--profile`: time the parallel engine's stages and print, once per run, `profile:
//!   threads=T serial_share=… serial_s=… total_s=… predicted_8=… predicted_16=…` (see
//!   [`grundy_core::octal::Profile`]); with one thread the pipeline runs on the calling thread
//!   alone, so that the line shows what more threads could share.
//! * `--detector-cost`: after computing, replay the detector over the same values at the
//!   lengths [`Solver::run`] checks at (every 1/16 of growth), with and without the
//!   long-period sweep, and print its CPU cost per value next to the computation's (CPU
//!   seconds, so that a loaded machine does not distort the ratio).

use std::os::unix::fs::FileExt;
use std::time::Instant;

use grundy_core::octal::{
    naive_values, Archive, Detector, Game, Keep, Periodicity, Solver, Statistics, Values, ValuesRef,
};

#[path = "support/proc_status.rs"]
mod proc_status;
use proc_status::status_kb;

/// The archive of `--window`: the dropped values as u16 little-endian in a scratch file.
#[derive(Debug)]
struct FileArchive {
    file: std::fs::File,
    path: std::path::PathBuf,
    start: u64,
    end: u64,
}

impl FileArchive {
    fn new() -> FileArchive {
        let path = std::env::temp_dir().join(format!("octal_time-{}.archive", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .expect("a scratch file for --window");
        FileArchive {
            file,
            path,
            start: 0,
            end: 0,
        }
    }
}

impl Drop for FileArchive {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Archive for FileArchive {
    fn offer(&mut self, from: u64, values: ValuesRef<'_>) -> Result<u64, String> {
        if self.end == 0 {
            (self.start, self.end) = (from, from);
        }
        let skip = self.end.checked_sub(from).ok_or("a hole in the archive")? as usize;
        let bytes: Vec<u8> = values
            .iter()
            .skip(skip)
            .flat_map(|v| (v as u16).to_le_bytes())
            .collect();
        self.file
            .write_all_at(&bytes, (self.end - self.start) * 2)
            .map_err(|e| e.to_string())?;
        self.end += (bytes.len() / 2) as u64;
        Ok(self.end)
    }

    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        let mut bytes = vec![0u8; out.len() * 2];
        self.file
            .read_exact_at(&mut bytes, (from - self.start) * 2)
            .map_err(|e| e.to_string())?;
        for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            *o = u16::from_le_bytes([b[0], b[1]]);
        }
        Ok(())
    }
}

fn cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/self/stat")
}

/// CPU seconds of the calling (main) thread only. With T threads the main thread does its share
/// of every parallel pass plus all the sequential work, so its CPU time is the critical path:
/// what the wall time would be on T idle cores (less load imbalance and memory contention),
/// which a loaded machine's wall clock cannot show.
fn main_thread_cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/thread-self/stat")
}

fn stat_cpu_seconds(path: &str) -> f64 {
    // utime + stime in clock ticks (fields 14 and 15 of a stat file).
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn verdict_text(verdict: &Periodicity) -> String {
    match verdict {
        Periodicity::Unknown => "unknown".to_owned(),
        Periodicity::Proved(p) => format!(
            "{} preperiod={} period={} saltus={} proved_at={} ({})",
            if p.saltus == 0 {
                "periodic"
            } else {
                "arithmetic-periodic"
            },
            p.preperiod,
            p.period,
            p.saltus,
            p.proved_at,
            p.theorem.name()
        ),
    }
}

/// Replays the detector's rate-limited checks over G(0..len) as `Solver::run` issues them;
/// returns (CPU seconds, verdict).
fn replay_detector(game: &Game, values: &Values, long: bool) -> (f64, Periodicity) {
    let mut d = Detector::new(game);
    d.set_long_periods(long);
    let t0 = cpu_seconds();
    let total = values.len();
    let mut len = 0usize;
    loop {
        d.check(values.as_ref().slice(..len));
        if len >= total {
            break;
        }
        len = total.min(len + (len / 16).max(1024));
    }
    let verdict = *d.check_now(values);
    (cpu_seconds() - t0, verdict)
}

/// The command line's options.
struct Options {
    n: usize,
    until: bool,
    threads: Vec<usize>,
    naive: bool,
    dense: bool,
    long: bool,
    detector_cost: bool,
    seconds: Option<f64>,
    statistics: bool,
    window: Option<usize>,
    profile: bool,
}

const USAGE: &str =
    "usage: octal_time CODE [--n N] [--until-proved] [--threads T[,T2,...]] [--naive] \
                     [--dense] [--no-long-periods] [--detector-cost] [--seconds S] [--statistics] \
                     [--window W] [--profile]";

/// The code and the options, or what is wrong with the command line.
fn parse_args(args: &[String]) -> Result<(String, Options), String> {
    let Some(code) = args.get(1) else {
        return Err(USAGE.to_owned());
    };
    let mut o = Options {
        n: 1_000_000,
        until: false,
        threads: vec![1],
        naive: false,
        dense: false,
        long: true,
        detector_cost: false,
        seconds: None,
        statistics: false,
        window: None,
        profile: false,
    };
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--n" => {
                o.n = args[i + 1].replace('_', "").parse().expect("--n N");
                i += 1;
            }
            "--threads" => {
                o.threads = args[i + 1]
                    .split(',')
                    .map(|t| t.parse().expect("--threads T[,T2,...]"))
                    .collect();
                i += 1;
            }
            "--window" => {
                o.window = Some(args[i + 1].replace('_', "").parse().expect("--window W"));
                i += 1;
            }
            "--statistics" => o.statistics = true,
            "--profile" => o.profile = true,
            "--seconds" => {
                o.seconds = Some(args[i + 1].parse().expect("--seconds S"));
                i += 1;
            }
            "--until-proved" => o.until = true,
            "--naive" => o.naive = true,
            "--dense" => o.dense = true,
            "--no-long-periods" => o.long = false,
            "--detector-cost" => o.detector_cost = true,
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
        i += 1;
    }
    Ok((code.clone(), o))
}

/// What one run computed: the values (empty in window mode), the verdict, the engine's report
/// and the number of values.
type RunOut = (Values, Periodicity, String, usize);

/// One run by the definition (`--naive`).
fn run_naive(game: &Game, o: &Options) -> RunOut {
    let v = naive_values(game, o.n, &mut || false).expect("naive");
    let verdict = grundy_core::octal::detect(game, &v[..]);
    let len = v.len();
    (Values::from_u32(&v), verdict, "naive".to_owned(), len)
}

/// One run of the solver on `t` threads, begun at `t0`.
fn run_solver(game: &Game, o: &Options, t: usize, t0: Instant) -> RunOut {
    let mut s = Solver::new(game);
    s.engine_mut().set_threads(t);
    s.engine_mut().set_allow_sparse(!o.dense);
    s.detector_mut().set_long_periods(o.long);
    if let Some(w) = o.window {
        s.engine_mut()
            .set_keep(Keep::Window {
                front: w,
                window: w,
            })
            .expect("--window W: a positive multiple of 65536");
        s.engine_mut().set_archive(Box::new(FileArchive::new()));
    }
    if o.statistics {
        s.engine_mut()
            .set_statistics(Statistics::new())
            .expect("statistics");
    }
    s.engine_mut().set_profile(o.profile);
    let seconds = o.seconds;
    let deadline = seconds.map(|s| t0 + std::time::Duration::from_secs_f64(s));
    let mut stop = || deadline.is_some_and(|d| Instant::now() >= d);
    let verdict = match s.run(o.n, o.until, &mut stop) {
        Ok(v) => *v,
        Err(grundy_core::octal::OctalError::Stopped { computed }) => {
            println!("stopped after {seconds:?} s at {computed} values");
            *s.periodicity()
        }
        Err(e) => panic!("run: {e}"),
    };
    if let Some(p) = s.engine().profile() {
        print_profile(p, t, t0.elapsed());
    }
    let stats = engine_report(&s);
    let len = s.engine().len();
    let values = if s.engine().is_windowed() {
        Values::new() // not G(0..len): only what was kept
    } else {
        s.into_values()
    };
    (values, verdict, stats, len)
}

/// `--profile`: the stages' times of one run.
fn print_profile(p: &grundy_core::octal::Profile, t: usize, total: std::time::Duration) {
    println!("{}", p.line(t, total));
    // The serial time not in the spine, the commits or the detector: the rounds'
    // set-up, the one-thread steps, the statistics.
    let other = p
        .serial(total)
        .saturating_sub(p.spine + p.commit + p.detector);
    println!(
        "stages: rounds={} far_rows_s={:.2} checks_s={:.2} sweep_s={:.2} dense_s={:.2} spine_s={:.2} commit_s={:.2} detector_s={:.2} other_s={:.2}",
        p.rounds,
        p.far_rows.as_secs_f64(),
        p.checks.as_secs_f64(),
        p.sweep.as_secs_f64(),
        p.dense.as_secs_f64(),
        p.spine.as_secs_f64(),
        p.commit.as_secs_f64(),
        p.detector.as_secs_f64(),
        other.as_secs_f64()
    );
}

/// The engine's statistics, the tables' last snapshot and the window's read-backs.
fn engine_report(s: &Solver) -> String {
    let mut stats = format!("{:?}", s.engine().stats());
    if let Some(snap) = s.engine().statistics().and_then(Statistics::current) {
        stats.push_str(&format!(
            "\nstatistics: n={} max_value={} first_heap={} rare_mask={:x} rare_count={} \
             last_rare_heap={:?}",
            snap.n,
            snap.max_value,
            snap.max_value_first_heap,
            snap.mask,
            snap.rare_count,
            snap.last_rare_heap
        ));
    }
    if s.engine().is_windowed() {
        let (front, tail, base) = s.engine().kept();
        let r = s.engine().read_backs();
        stats.push_str(&format!(
            "\nwindow: kept G(0..{}) and G({base}..{}) of {} values; read back {} values \
             in {} reads ({:.2} s), {} deep scans, {} rare positions beyond the window",
            front.len(),
            base + tail.len(),
            s.engine().len(),
            r.values,
            r.reads,
            r.nanos as f64 * 1e-9,
            r.deep_scans,
            s.engine().far_rare().len()
        ));
    }
    stats
}

/// The lines of one run after its times: memory, digest, verdict, engine, detector cost.
fn print_run(game: &Game, o: &Options, out: &RunOut, cpu: f64) {
    let (values, verdict, stats, len) = out;
    let len = *len;
    println!(
        "peak_rss={} MiB value_bytes={} ({} bytes/value stored)",
        status_kb("VmHWM:") / 1024,
        values.heap_bytes(),
        values.width()
    );
    if values.len() == len {
        // FNV-1a over G(0..len): equal digests, equal values (runs with other thread
        // counts, other builds, other hosts).
        let digest = values
            .as_ref()
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
                (h ^ u64::from(v)).wrapping_mul(0x0100_0000_01b3)
            });
        println!("values: n={len} digest={digest:016x}");
    }
    println!("verdict: {}", verdict_text(verdict));
    println!("engine: {stats}");
    if o.detector_cost {
        let (with, v1) = replay_detector(game, values, true);
        let (without, v2) = replay_detector(game, values, false);
        let ns = |s: f64| s * 1e9 / len.max(1) as f64;
        println!(
            "detector (CPU): with long-period sweep {:.1} ns/value ({}), without {:.1} ns/value \
             ({}); computing {:.1} ns/value (CPU, detector included)",
            ns(with),
            verdict_text(&v1),
            ns(without),
            verdict_text(&v2),
            ns(cpu)
        );
    }
}

/// The wall-time and critical-path ratios of every run to the first.
fn print_speed_ups(threads: &[usize], walls: &[f64], crit: &[f64]) {
    let ratios: Vec<String> = threads
        .iter()
        .zip(walls)
        .map(|(t, w)| format!("{t}:{:.2}", walls[0] / w))
        .collect();
    println!("speed-up vs first run (wall): {}", ratios.join(" "));
    let ratios: Vec<String> = threads
        .iter()
        .zip(crit)
        .map(|(t, c)| format!("{t}:{:.2}", crit[0] / c))
        .collect();
    println!(
        "speed-up vs first run (main-thread CPU = critical path on idle cores): {}",
        ratios.join(" ")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (code, o) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let game = match Game::parse(&code) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!("code={} canonical={}", code, game.canonical());
    let mut walls = Vec::new();
    let mut crit = Vec::new();
    for &t in &o.threads {
        let cpu0 = cpu_seconds();
        let main0 = main_thread_cpu_seconds();
        let t0 = Instant::now();
        let out = if o.naive {
            run_naive(&game, &o)
        } else {
            run_solver(&game, &o, t, t0)
        };
        let len = out.3;
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        let main = main_thread_cpu_seconds() - main0;
        walls.push(wall);
        crit.push(main);
        println!(
            "threads={t} values={len} wall={wall:.3}s cpu={cpu:.2}s main_thread_cpu={main:.2}s \
             values/s={:.0}",
            len as f64 / wall
        );
        print_run(&game, &o, &out, cpu);
    }
    if walls.len() > 1 {
        print_speed_ups(&o.threads, &walls, &crit);
    }
}
