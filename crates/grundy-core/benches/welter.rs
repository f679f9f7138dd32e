//! Welter benchmarks: the O(n log n) value and O(n·w) primes against the O(n²) animating
//! formula, measured in one run so the ratios are comparable.
//!
//! `cargo bench --bench welter`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use grundy_core::welter;

fn random_coins(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    let mut set = std::collections::HashSet::with_capacity(n);
    while set.len() < n {
        s = s.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        set.insert(z ^ (z >> 31));
    }
    set.into_iter().collect()
}

fn value(c: &mut Criterion) {
    let mut g = c.benchmark_group("welter_value");
    g.sample_size(20);
    for n in [10usize, 1_000, 100_000, 1_000_000] {
        let coins = random_coins(n, n as u64);
        g.bench_with_input(BenchmarkId::new("fast", n), &coins, |b, c| {
            b.iter(|| welter::value(black_box(c)))
        });
    }
    for n in [10usize, 1_000, 100_000] {
        let coins = random_coins(n, n as u64);
        g.bench_with_input(BenchmarkId::new("quadratic", n), &coins, |b, c| {
            b.iter(|| welter::value_quadratic(black_box(c)))
        });
    }
    g.finish();
}

fn primes(c: &mut Criterion) {
    let mut g = c.benchmark_group("welter_primes");
    g.sample_size(20);
    for n in [1_000usize, 100_000] {
        let coins = random_coins(n, 7 + n as u64);
        g.bench_with_input(BenchmarkId::new("all_primes_target0", n), &coins, |b, c| {
            b.iter(|| welter::primes(black_box(c), 0))
        });
    }
    let coins = random_coins(100_000, 99);
    g.bench_function("winning_moves_misere/100000", |b| {
        b.iter(|| welter::analyse(black_box(&coins), welter::Play::Misere))
    });
    g.finish();
}

criterion_group!(benches, value, primes);
criterion_main!(benches);
