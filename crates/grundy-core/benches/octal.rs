//! Octal engine benchmarks, fast vs naive in the same run.
//!
//! `cargo bench --bench octal`. Whole-run timings (Officers to 10^6, `.376` until proved, peak
//! memory) come from `cargo run --release --example octal_time -- CODE --n N [--until-proved]`.

use criterion::{criterion_group, criterion_main, Criterion};
use grundy_core::octal::{naive_values, Game, Solver};

fn run(code: &str, n: usize, threads: usize, until_proved: bool) -> usize {
    let game = Game::parse(code).unwrap();
    let mut s = Solver::new(&game);
    s.engine_mut().set_threads(threads);
    s.run(n, until_proved, &mut || false).unwrap();
    s.values().len()
}

fn officers(c: &mut Criterion) {
    let mut g = c.benchmark_group("officers_0.6_n20000");
    g.sample_size(10);
    g.bench_function("fast", |b| b.iter(|| run("0.6", 20_000, 1, false)));
    g.bench_function("naive", |b| {
        let game = Game::parse("0.6").unwrap();
        b.iter(|| naive_values(&game, 20_000, &mut || false).unwrap().len())
    });
    g.finish();
}

fn proofs(c: &mut Criterion) {
    let mut g = c.benchmark_group("prove");
    g.sample_size(10);
    g.bench_function("0.16_until_proved", |b| {
        b.iter(|| run("0.16", 1_000_000, 1, true))
    });
    g.bench_function("0.07_until_proved", |b| {
        b.iter(|| run("0.07", 1_000_000, 1, true))
    });
    g.finish();
}

fn dense(c: &mut Criterion) {
    let mut g = c.benchmark_group("0.007_n20000");
    g.sample_size(10);
    g.bench_function("fast_2_threads", |b| {
        b.iter(|| run("0.007", 20_000, 2, false))
    });
    g.bench_function("fast_1_thread", |b| {
        b.iter(|| run("0.007", 20_000, 1, false))
    });
    g.bench_function("naive", |b| {
        let game = Game::parse("0.007").unwrap();
        b.iter(|| naive_values(&game, 20_000, &mut || false).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, officers, proofs, dense);
criterion_main!(benches);
