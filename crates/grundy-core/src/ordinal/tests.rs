//! Unit tests of `crates/grundy-core/src/ordinal.rs`.

use super::*;
use crate::test_support::Rng;
use std::time::{Duration, Instant};

fn p(s: &str) -> Ordinal {
    Ordinal::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

/// Random ordinal with up to `max_terms` terms, exponents nested up to `depth` levels.
pub(crate) fn random_ordinal(rng: &mut Rng, depth: u32, max_terms: u64, big: bool) -> Ordinal {
    let n = rng.below(max_terms + 1);
    let mut exps: Vec<Ordinal> = (0..n)
        .map(|_| {
            if depth > 0 && rng.below(3) == 0 {
                random_ordinal(rng, depth - 1, max_terms, big)
            } else {
                Ordinal::from(rng.below(4))
            }
        })
        .collect();
    exps.sort();
    exps.dedup();
    exps.reverse();
    let terms = exps
        .into_iter()
        .map(|exponent| {
            let coefficient = if big && rng.below(8) == 0 {
                u64::MAX - rng.below(3)
            } else {
                1 + rng.below(5)
            };
            Term {
                exponent,
                coefficient,
            }
        })
        .collect();
    Ordinal { terms }
}

#[test]
fn parses_and_prints_api_examples() {
    for s in [
        "0",
        "7",
        "w",
        "w*2+4",
        "w^2*3+w+9",
        "w^w+1",
        "w^(w*2+1)*5",
        "w^(w+1)*2+5",
        "w^w",
        "w^(w^2)",
        "w^(w^w)",
    ] {
        assert_eq!(p(s).to_string(), s);
    }
    let cases = [
        ("1+w", "w"),
        ("2*w", "w"),
        ("w*2", "w*2"),
        ("w + w", "w*2"),
        ("3 + w*2 + 5", "w*2+5"),
        ("w*2+w^2", "w^2"),
        ("(w+1)*2", "w*2+1"),
        ("(w+1)*(w+1)", "w^2+w+1"),
        ("(w+1)^3", "w^3+w^2+w+1"),
        ("(w^2+w)^3", "w^6+w^5"),
        ("(w*2)^2", "w^2*2"),
        ("w^w^2", "w^(w^2)"),
        ("(w^w)^w", "w^(w^2)"),
        ("(w^w)^2", "w^(w*2)"),
        ("2^w", "w"),
        ("2^(w+3)", "w*8"),
        ("2^(w*2)", "w^2"),
        ("3^(w^2+2)", "w^w*9"),
        ("(w+1)^w", "w^w"),
        ("(w+1)^(w+1)", "w^(w+1)+w^w"),
        ("0^0", "1"),
        ("0^w", "0"),
        ("1^w", "1"),
        ("w^0", "1"),
        ("w*0", "0"),
        ("0*w + 007", "7"),
        ("2^10", "1024"),
        ("ω^2·3+ω+9", "w^2*3+w+9"),
        ("ω^(ω·2+1)·5", "w^(w*2+1)*5"),
        (" w ^ 2 * 3 \t+\n 1 ", "w^2*3+1"),
        ("w⋅2×3", "w*6"),
        ("18446744073709551615", "18446744073709551615"),
        ("w^18446744073709551615", "w^18446744073709551615"),
    ];
    for (s, want) in cases {
        assert_eq!(p(s).to_string(), want, "{s}");
    }
    assert_eq!(p("w^2*3+w+9").to_unicode_string(), "ω^2·3+ω+9");
    assert_eq!(p("w^(w+1)*2").to_unicode_string(), "ω^(ω+1)·2");
    assert_eq!("w*2+4".parse::<Ordinal>().unwrap(), p("w*2+4"));
}

#[test]
fn parse_errors_say_where() {
    let err = |s: &str| Ordinal::parse(s).unwrap_err();
    let e = err("w+");
    assert_eq!((e.column, e.byte_offset), (3, 2));
    assert_eq!(
        e.to_string(),
        "expected a number, 'w', 'ω' or '(', found the end of the input at character 3"
    );
    let e = err("ω+x");
    assert_eq!((e.column, e.byte_offset), (3, 3));
    assert_eq!(
        e.to_string(),
        "expected a number, 'w', 'ω' or '(', found 'x' at character 3"
    );
    assert_eq!(
        err("w2").to_string(),
        "expected '+', '*', '^' or the end of the input, found '2' at character 2"
    );
    assert_eq!(
        err("(w+1").to_string(),
        "expected ')', found the end of the input at character 5"
    );
    assert_eq!(err("").to_string(), "the ordinal is empty");
    assert_eq!(err("  ").kind, ParseErrorKind::Empty);
    assert_eq!(err("-1").column, 1);
    assert_eq!(err("w^^2").column, 3);
    let e = err("1+18446744073709551616");
    assert_eq!(
        (e.kind.clone(), e.column),
        (ParseErrorKind::NumberTooLarge, 3)
    );
    assert_eq!(e.to_string(), "number larger than 2^64-1 at character 3");
    let e = err("18446744073709551615 + 1");
    assert_eq!(
        (e.kind.clone(), e.column),
        (ParseErrorKind::Arithmetic(ArithError::Overflow), 22)
    );
    assert_eq!(
        e.to_string(),
        "a coefficient or finite exponent would exceed 2^64-1 at character 22"
    );
    assert!(matches!(
        err("w*9223372036854775808 + w*9223372036854775808").kind,
        ParseErrorKind::Arithmetic(ArithError::Overflow)
    ));
    assert!(matches!(
        err("(w*4294967296)*4294967296").kind,
        ParseErrorKind::Arithmetic(ArithError::Overflow)
    ));
    assert!(matches!(
        err("(w^2)^9223372036854775808").kind,
        ParseErrorKind::Arithmetic(ArithError::Overflow)
    ));
    assert!(matches!(
        err("2^64").kind,
        ParseErrorKind::Arithmetic(ArithError::Overflow)
    ));
    assert!(matches!(
        err("2^(w+64)").kind,
        ParseErrorKind::Arithmetic(ArithError::Overflow)
    ));
    assert!(matches!(
        err("(w+1)^100000").kind,
        ParseErrorKind::Arithmetic(ArithError::TooLarge { .. })
    ));
    assert_eq!(
        err(&"1".repeat(MAX_INPUT_LEN + 1)).to_string(),
        "the ordinal is 10001 bytes long; the limit is 10000"
    );
    // Nesting: 64 parentheses are fine, 65 are not.
    let nest = |k: usize| format!("{}w{}", "(".repeat(k), ")".repeat(k));
    assert_eq!(p(&nest(MAX_NESTING)), Ordinal::omega());
    assert!(matches!(
        err(&nest(MAX_NESTING + 1)).kind,
        ParseErrorKind::TooDeep { .. }
    ));
    // Towers: height 32 is fine, 33 is not.
    let tower = |k: usize| vec!["w"; k].join("^");
    assert_eq!(p(&tower(MAX_HEIGHT)).height(), MAX_HEIGHT);
    assert!(matches!(
        err(&tower(MAX_HEIGHT + 1)).kind,
        ParseErrorKind::Arithmetic(ArithError::TooTall { .. })
    ));
}

#[test]
fn print_parse_roundtrip_random() {
    let mut rng = Rng(1);
    for _ in 0..3000 {
        let a = random_ordinal(&mut rng, 3, 4, true);
        assert_eq!(p(&a.to_string()), a, "{a}");
        assert_eq!(p(&a.to_unicode_string()), a, "{a}");
    }
    // The tallest ordinal allowed still prints to something parseable.
    let mut a = Ordinal::from(5);
    for _ in 0..MAX_HEIGHT {
        a = Ordinal::monomial(a.checked_add(&Ordinal::one()).unwrap(), 2);
    }
    assert_eq!(a.height(), MAX_HEIGHT);
    assert_eq!(p(&a.to_string()), a);
}

/// Order on ordinals < ω^ω, computed independently from a coefficient vector.
#[test]
fn order_matches_coefficient_vectors() {
    let mut rng = Rng(2);
    let vector = |a: &Ordinal| {
        let mut v = [0u64; 4];
        for t in a.terms() {
            v[3 - t.exponent().to_u64().unwrap() as usize] = t.coefficient();
        }
        v
    };
    for _ in 0..5000 {
        let a = random_ordinal(&mut rng, 0, 4, false);
        let b = random_ordinal(&mut rng, 0, 4, false);
        assert_eq!(a.cmp(&b), vector(&a).cmp(&vector(&b)), "{a} vs {b}");
    }
}

#[test]
fn order_and_addition_laws() {
    let mut rng = Rng(3);
    let zero = Ordinal::zero();
    for _ in 0..3000 {
        let a = random_ordinal(&mut rng, 2, 3, true);
        let b = random_ordinal(&mut rng, 2, 3, true);
        let c = random_ordinal(&mut rng, 2, 3, true);
        // Total order: antisymmetry and transitivity.
        assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        if a <= b && b <= c {
            assert!(a <= c);
        }
        assert_eq!(a.checked_add(&zero).unwrap(), a);
        assert_eq!(zero.checked_add(&a).unwrap(), a);
        if let (Ok(ab), Ok(bc)) = (a.checked_add(&b), b.checked_add(&c)) {
            if let (Ok(l), Ok(r)) = (ab.checked_add(&c), a.checked_add(&bc)) {
                assert_eq!(l, r, "associativity {a} {b} {c}");
            }
        }
        if let Ok(ab) = a.checked_add(&b) {
            assert!(ab >= a && ab >= b);
            // Absorption: a + b = b exactly when a·ω ≤ b, i.e. a's leading term is below b's.
            let absorbed = match (a.terms().first(), b.terms().first()) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => x.exponent() < y.exponent(),
            };
            assert_eq!(ab == b, absorbed, "{a} + {b} = {ab}");
        }
        // Strict monotonicity on the right, weak on the left.
        if let (Ok(ab), Ok(ac)) = (a.checked_add(&b), a.checked_add(&c)) {
            assert_eq!(ab.cmp(&ac), b.cmp(&c), "{a}+{b} vs {a}+{c}");
        }
        if let (Ok(ac), Ok(bc)) = (a.checked_add(&c), b.checked_add(&c)) {
            if a <= b {
                assert!(ac <= bc);
            }
        }
    }
}

#[test]
fn multiplication_laws() {
    let mut rng = Rng(4);
    let one = Ordinal::one();
    for _ in 0..2000 {
        let a = random_ordinal(&mut rng, 2, 3, false);
        let b = random_ordinal(&mut rng, 2, 3, false);
        let c = random_ordinal(&mut rng, 2, 3, false);
        assert_eq!(a.checked_mul(&one).unwrap(), a);
        assert_eq!(one.checked_mul(&a).unwrap(), a);
        assert!(a.checked_mul(&Ordinal::zero()).unwrap().is_zero());
        assert!(Ordinal::zero().checked_mul(&a).unwrap().is_zero());
        let (ab, bc) = (a.checked_mul(&b).unwrap(), b.checked_mul(&c).unwrap());
        assert_eq!(
            ab.checked_mul(&c).unwrap(),
            a.checked_mul(&bc).unwrap(),
            "({a})({b})({c})"
        );
        // Left distributivity.
        let l = a.checked_mul(&b.checked_add(&c).unwrap()).unwrap();
        let r = ab.checked_add(&a.checked_mul(&c).unwrap()).unwrap();
        assert_eq!(l, r, "({a})(({b})+({c}))");
        // a·n is a added n times.
        let n = rng.below(5);
        let mut sum = Ordinal::zero();
        for _ in 0..n {
            sum = sum.checked_add(&a).unwrap();
        }
        assert_eq!(a.checked_mul(&Ordinal::from(n)).unwrap(), sum);
        // Strict monotonicity on the right for a > 0.
        if !a.is_zero() {
            assert_eq!(ab.cmp(&a.checked_mul(&c).unwrap()), b.cmp(&c));
        }
    }
}

#[test]
fn exponentiation_laws() {
    let mut rng = Rng(5);
    let w = Ordinal::omega();
    for _ in 0..1500 {
        let a = random_ordinal(&mut rng, 1, 2, false);
        let b = random_ordinal(&mut rng, 1, 2, false);
        let c = random_ordinal(&mut rng, 1, 2, false);
        let pow = |x: &Ordinal, y: &Ordinal| x.checked_pow(y);
        assert_eq!(pow(&a, &Ordinal::one()).unwrap(), a);
        assert_eq!(pow(&w, &b).unwrap(), Ordinal::monomial(b.clone(), 1));
        if let (Ok(ab), Ok(ac)) = (pow(&a, &b), pow(&a, &c)) {
            if let (Ok(l), Ok(r)) = (pow(&a, &b.checked_add(&c).unwrap()), ab.checked_mul(&ac)) {
                assert_eq!(l, r, "({a})^(({b})+({c}))");
            }
            if let (Ok(l), Ok(r)) = (pow(&ab, &c), pow(&a, &b.checked_mul(&c).unwrap())) {
                assert_eq!(l, r, "(({a})^({b}))^({c})");
            }
        }
        if let Ok(a2) = pow(&a, &Ordinal::from(2)) {
            assert_eq!(a2, a.checked_mul(&a).unwrap());
        }
    }
}

#[test]
fn division_by_omega() {
    let mut rng = Rng(6);
    for _ in 0..3000 {
        let a = random_ordinal(&mut rng, 2, 4, true);
        let (lambda, m) = a.div_omega();
        assert_eq!(Ordinal::omega_mul_add(&lambda, m).unwrap(), a);
        // Independent check through multiplication and addition.
        let again = Ordinal::omega()
            .checked_mul(&lambda)
            .unwrap()
            .checked_add(&Ordinal::from(m))
            .unwrap();
        assert_eq!(again, a);
    }
    assert_eq!(p("w^2+w*4+16").div_omega(), (p("w+4"), 16));
    assert_eq!(p("w^w*3+w^5+7").div_omega(), (p("w^w*3+w^4"), 7));
    assert_eq!(
        Ordinal::omega_mul_add(&p("w^18446744073709551615"), 0),
        Err(ArithError::Overflow)
    );
}

#[test]
fn nim_sum_is_a_group() {
    let mut rng = Rng(7);
    let zero = Ordinal::zero();
    for _ in 0..3000 {
        let a = random_ordinal(&mut rng, 2, 4, true);
        let b = random_ordinal(&mut rng, 2, 4, true);
        let c = random_ordinal(&mut rng, 2, 4, true);
        assert_eq!(a.nim_sum(&b), b.nim_sum(&a));
        assert_eq!(a.nim_sum(&b).nim_sum(&c), a.nim_sum(&b.nim_sum(&c)));
        assert_eq!(a.nim_sum(&zero), a);
        assert_eq!(
            Ordinal::nim_sum_all([&a, &b, &c]),
            a.nim_sum(&b).nim_sum(&c)
        );
        assert_eq!(a.nim_sum_is_smaller(&b), a.nim_sum(&b) < a);
        assert!(a.nim_sum(&a).is_zero());
        // The result is valid CNF: decreasing exponents, non-zero coefficients.
        let s = a.nim_sum(&b);
        assert!(s
            .terms()
            .windows(2)
            .all(|w| w[0].exponent() > w[1].exponent()));
        assert!(s.terms().iter().all(|t| t.coefficient() > 0));
    }
    assert_eq!(p("w*2+4").nim_sum(&p("w*3+5")), p("w+1"));
}

/// Random inputs never panic and parse quickly.
#[test]
fn parser_fuzz() {
    let mut rng = Rng(8);
    let pieces = [
        "w",
        "ω",
        "W",
        "^",
        "*",
        "·",
        "⋅",
        "×",
        "+",
        "-",
        "(",
        ")",
        "((",
        "))",
        " ",
        "\t",
        "0",
        "1",
        "7",
        "42",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "w^w^w^w",
        "(w+1)^",
        "2^",
        "^(",
        "é",
        "ωω",
        "\u{0}",
        "\u{feff}",
        "🦀",
        ".",
        "e",
        "x",
    ];
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut check = |s: &str| {
        let t = Instant::now();
        if let Ok(a) = Ordinal::parse(s) {
            let printed = a.to_string();
            assert_eq!(
                Ordinal::parse_with_max_len(&printed, usize::MAX),
                Ok(a),
                "{s:?}"
            );
        }
        slowest = slowest.max(t.elapsed());
    };
    for _ in 0..20_000 {
        let k = rng.below(30);
        let s: String = (0..k)
            .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
            .collect();
        check(&s);
    }
    for _ in 0..2_000 {
        let bytes: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
    // Adversarial shapes at the length limit.
    let long = [
        "(".repeat(MAX_INPUT_LEN),
        "w^".repeat(MAX_INPUT_LEN / 2 - 1) + "w",
        "1+".repeat(MAX_INPUT_LEN / 2 - 1) + "1",
        "w+".repeat(MAX_INPUT_LEN / 2 - 1) + "w",
        "(w+1)*".repeat(MAX_INPUT_LEN / 6 - 1) + "w",
        "(w+1)^".repeat(MAX_INPUT_LEN / 6 - 1) + "9",
        "(w+1)^490".to_owned() + &"+1".repeat((MAX_INPUT_LEN - 10) / 2),
        "(w+1)^490".to_owned() + &"*(w+1)".repeat((MAX_INPUT_LEN - 10) / 6),
        "(w+1)^490+".repeat(MAX_INPUT_LEN / 10),
        "((w+1)^490)^1*".repeat(MAX_INPUT_LEN / 14),
        "(w^(w+1)+w^w+w+1)^200*".repeat(MAX_INPUT_LEN / 23),
        "(w^(w^(w+1)+1)+w^w+w+1)^99+".repeat(MAX_INPUT_LEN / 28),
        "9".repeat(MAX_INPUT_LEN),
        "w^(".repeat(31) + "1" + &")".repeat(31) + &"+w".repeat(4000),
        " ".repeat(MAX_INPUT_LEN),
    ];
    for s in &long {
        check(&s[..s.len().min(MAX_INPUT_LEN)]);
    }
    assert!(matches!(
        Ordinal::parse(&long[8]).unwrap_err().kind,
        ParseErrorKind::TooMuchWork { .. }
    ));
    // Generous: this also runs unoptimised; optimised, the slowest is about 10 ms.
    assert!(
        slowest < Duration::from_secs(2),
        "slowest parse took {slowest:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}
