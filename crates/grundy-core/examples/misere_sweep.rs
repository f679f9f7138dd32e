//! Sweep of misère quotients (the table of BENCHMARKS.md, "Misère quotients").
//!
//! ```text
//! misere_sweep [--codes C1,C2,...] [--max-heap N] [--seconds S] [--until-proved]
//! ```
//! For each code (default: every two-digit octal code `0.d1d2`, `d2 ≠ 0`) computes the
//! misère quotient heap by heap up to `Q_N` (default N = 40) with the engine's default budget
//! and a wall-clock limit of S seconds per code (default 30), and prints a Markdown row:
//! code, |Q|, |P|, tame (rank), the periodicity of Φ when proved (preperiod, period, the bound
//! the proof read), the largest heap reached, the time, and why it stopped early. With
//! `--until-proved` a code stops as soon as its periodicity is proved (the quotient is then
//! that of the whole game), so N is only a cap.

use std::time::{Duration, Instant};

use grundy_core::misere::{MisereEngine, MisereQuotient, QuotientBudget};
use grundy_core::octal::Game;

fn main() {
    let mut codes: Vec<String> = Vec::new();
    let mut max_heap = 40u64;
    let mut seconds = 30.0f64;
    let mut until_proved = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--codes" => {
                codes = args
                    .next()
                    .expect("--codes C1,C2")
                    .split(',')
                    .map(str::to_owned)
                    .collect()
            }
            "--max-heap" => max_heap = args.next().and_then(|s| s.parse().ok()).expect("N"),
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).expect("S"),
            "--until-proved" => until_proved = true,
            other => panic!("unknown argument {other}"),
        }
    }
    if codes.is_empty() {
        for d1 in 0..8 {
            for d2 in 1..8 {
                codes.push(format!("0.{d1}{d2}"));
            }
        }
    }
    println!("| code | \\|Q\\| | \\|P\\| | tame | preperiod | period | proved at | max heap reached | time | stopped by |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut total, mut finite) = (Duration::ZERO, 0);
    for code in &codes {
        let game = Game::parse(code).expect("a game code");
        let start = Instant::now();
        let deadline = start + Duration::from_secs_f64(seconds);
        let mut engine = MisereEngine::new(&game);
        let mut stop = || Instant::now() >= deadline;
        let mut why = String::new();
        for n in 1..=max_heap {
            if let Err(e) = engine.extend_to(n, &QuotientBudget::DEFAULT, &mut stop) {
                why = e.to_string();
                break;
            }
            if until_proved && engine.periodicity().is_some() {
                break;
            }
        }
        let took = start.elapsed();
        total += took;
        let q = MisereQuotient::from_engine(&engine);
        if why.is_empty() {
            finite += 1;
        }
        let per = q.periodicity();
        let show = |v: Option<u64>| v.map_or("—".to_owned(), |v| v.to_string());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} s | {} |",
            game.canonical(),
            q.size(),
            q.p_size(),
            q.tame_rank()
                .map_or("wild".to_owned(), |m| format!("tame ({m})")),
            show(per.map(|p| p.preperiod)),
            show(per.map(|p| p.period)),
            show(per.map(|p| p.proved_at)),
            q.bound(),
            took.as_secs_f64(),
            if why.is_empty() { "—" } else { &why },
        );
    }
    eprintln!(
        "{} codes, {finite} reached their bound, {:.2} s in all",
        codes.len(),
        total.as_secs_f64()
    );
}
