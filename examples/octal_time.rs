//! Timing harness for the octal engine.
//!
//! `cargo run --release --example octal_time -- CODE [--n N] [--until-proved] [--threads T] [--naive] [--dense] [--seconds S]`
//!
//! ```text
//! octal_time CODE [--n N] [--until-proved] [--threads T] [--naive] [--dense] [--seconds S]
//! ```
//! Computes G(0..N) (or until periodicity is proved, capped at N, or until S seconds have
//! passed) and prints the wall time, the CPU time, values per second, the peak resident memory
//! (VmHWM) and the verdict. `CODE` may be `grundy` (Grundy's game).

use std::time::Instant;

use grundy::core::octal::{naive_values, Game, Periodicity, Solver};

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn cpu_seconds() -> f64 {
    // utime + stime of this process in clock ticks (fields 14 and 15 of /proc/self/stat).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(code) = args.get(1) else {
        eprintln!(
            "usage: octal_time CODE [--n N] [--until-proved] [--threads T] [--naive] [--dense] [--seconds S]"
        );
        std::process::exit(2);
    };
    let mut n = 1_000_000usize;
    let mut until = false;
    let mut threads = 1usize;
    let mut naive = false;
    let mut dense = false;
    let mut seconds: Option<f64> = None;
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--n" => {
                n = args[i + 1].replace('_', "").parse().expect("--n N");
                i += 1;
            }
            "--threads" => {
                threads = args[i + 1].parse().expect("--threads T");
                i += 1;
            }
            "--seconds" => {
                seconds = Some(args[i + 1].parse().expect("--seconds S"));
                i += 1;
            }
            "--until-proved" => until = true,
            "--naive" => naive = true,
            "--dense" => dense = true,
            other => panic!("unknown argument {other}"),
        }
        i += 1;
    }
    let game = match Game::parse(code) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let (len, verdict, stats) = if naive {
        let v = naive_values(&game, n, &mut || false).expect("naive");
        let verdict = grundy::core::octal::detect(&game, &v);
        (v.len(), verdict, "naive".to_owned())
    } else {
        let mut s = Solver::new(&game);
        s.engine_mut().set_threads(threads);
        s.engine_mut().set_allow_sparse(!dense);
        let deadline = seconds.map(|s| t0 + std::time::Duration::from_secs_f64(s));
        let mut stop = || deadline.is_some_and(|d| Instant::now() >= d);
        let verdict = match s.run(n, until, &mut stop) {
            Ok(v) => *v,
            Err(grundy::core::octal::OctalError::Stopped { computed }) => {
                println!("stopped after {seconds:?} s at {computed} values");
                *s.periodicity()
            }
            Err(e) => panic!("run: {e}"),
        };
        (
            s.values().len(),
            verdict,
            format!("{:?}", s.engine().stats()),
        )
    };
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let verdict = match verdict {
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
    };
    println!(
        "code={} canonical={} threads={threads}",
        code,
        game.canonical()
    );
    println!(
        "values={len} wall={wall:.3}s cpu={cpu:.2}s values/s={:.0}",
        len as f64 / wall
    );
    println!("peak_rss={} MiB", status_kb("VmHWM:") / 1024);
    println!("verdict: {verdict}");
    println!("engine: {stats}");
}
