//! Property tests (proptest) for the parsers that read client text: octal/take-and-break game
//! codes, ordinals in Cantor normal form, and JSON number literals. Each parser must never panic
//! on any input, and must read back its own canonical output unchanged.
//!
//! `PROPTEST_CASES=10000 cargo test --test parser_properties` runs a longer search.

use grundy::api::numbers::{normalize, parse_decimal};
use grundy::core::octal::Game;
use grundy::core::ordinal::Ordinal;
use proptest::prelude::*;

/// Strings over the characters that appear in game codes, plus some that must be refused.
fn code_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex(r"[ 0-9a-fA-FsSgG.(),\-+x\t\u{0}\u{3000}ω]{0,40}").unwrap()
}

/// Syntactically valid digit codes: digits before the point that take no tokens (0, 4, 8, C),
/// hexadecimal digits after it, and an optional repeating block; at most 64 digits in all.
fn digit_code() -> impl Strategy<Value = String> {
    (
        proptest::string::string_regex("[048Cc]{0,4}").unwrap(),
        proptest::string::string_regex("[0-9A-Fa-f]{0,12}").unwrap(),
        proptest::option::of(proptest::string::string_regex("[0-9A-Fa-f]{1,6}").unwrap()),
    )
        .prop_map(|(before, after, block)| match block {
            Some(b) => format!("{before}.{after}({b})"),
            None => format!("{before}.{after}"),
        })
}

/// Subtraction games `S(a,b,…)` with members in 1..=1024, in any order, repeats allowed.
fn subtraction_code() -> impl Strategy<Value = String> {
    proptest::collection::vec(1u32..=1024, 1..8).prop_map(|m| {
        format!(
            "S({})",
            m.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        )
    })
}

/// Strings over the ordinal alphabet.
fn ordinal_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex(r"[wω0-9+*·^() \u{0}x\-.]{0,48}").unwrap()
}

/// Well-formed ordinal expressions (natural numbers, ω, sums, products, powers, parentheses).
fn ordinal_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        (0u64..1000).prop_map(|n| n.to_string()),
        Just("w".to_owned()),
        Just("ω".to_owned()),
        Just("18446744073709551615".to_owned()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}+{b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})*({b})")),
            (inner.clone(), 0u64..4).prop_map(|(a, k)| format!("({a})^{k}")),
            inner.clone().prop_map(|a| format!("w^({a})")),
            inner.prop_map(|a| format!("({a})")),
        ]
    })
}

proptest! {
    #[test]
    fn code_parser_never_panics(s in code_like()) {
        let _ = Game::parse(&s);
    }

    #[test]
    fn code_parser_never_panics_on_any_text(s in any::<String>()) {
        let _ = Game::parse(&s);
    }

    #[test]
    fn digit_codes_round_trip(code in digit_code()) {
        let game = Game::parse(&code).expect("a syntactically valid code parses");
        let canonical = game.canonical();
        let again = Game::parse(&canonical).expect("the canonical form parses");
        prop_assert_eq!(&again, &game, "{} -> {}", code, canonical);
        prop_assert_eq!(again.canonical(), canonical);
    }

    #[test]
    fn subtraction_codes_round_trip(code in subtraction_code()) {
        let game = Game::parse(&code).expect("a valid subtraction set parses");
        let canonical = game.canonical();
        let again = Game::parse(&canonical).expect("the canonical form parses");
        prop_assert_eq!(&again, &game, "{} -> {}", code, canonical);
        prop_assert_eq!(again.canonical(), canonical);
    }

    #[test]
    fn ordinal_parser_never_panics(s in ordinal_like()) {
        let _ = Ordinal::parse(&s);
    }

    #[test]
    fn ordinal_parser_never_panics_on_any_text(s in any::<String>()) {
        let _ = Ordinal::parse(&s);
    }

    #[test]
    fn ordinals_round_trip(expr in ordinal_expr()) {
        // Overflow and size limits may refuse an expression; whatever parses prints to a
        // canonical string that parses back to the same ordinal and prints identically.
        if let Ok(o) = Ordinal::parse(&expr) {
            let canonical = o.to_string();
            let again = Ordinal::parse_with_max_len(&canonical, canonical.len().max(1))
                .expect("the canonical form parses");
            prop_assert_eq!(&again, &o, "{} -> {}", expr, canonical);
            prop_assert_eq!(again.to_string(), canonical);
        }
    }

    #[test]
    fn number_normalisation_never_panics(s in proptest::string::string_regex(r"[-+0-9.eE \[\],\x22\\]{0,40}").unwrap()) {
        let _ = normalize(s.as_bytes());
    }

    /// `v` written as `digits` with the decimal point moved by `shift` and an exponent undoing
    /// it reads back as exactly `v`.
    #[test]
    fn float_forms_of_integers_read_exactly(v in any::<u64>(), shift in 0usize..25, zeros in 0usize..4) {
        let digits = format!("{v}{}", "0".repeat(zeros));
        let point = digits.len().saturating_sub(shift).max(1);
        let (int, frac) = digits.split_at(point);
        prop_assume!(!(int.len() > 1 && int.starts_with('0'))); // not JSON
        let moved = digits.len() - point;
        let literal = if frac.is_empty() {
            format!("{int}e{}", -(zeros as i64))
        } else {
            format!("{int}.{frac}e{}", moved as i64 - zeros as i64)
        };
        let json = format!("[{literal}]");
        let normalized = String::from_utf8(normalize(json.as_bytes()).into_owned()).unwrap();
        prop_assert_eq!(normalized, format!("[{v}]"), "{}", literal);
        prop_assert_eq!(parse_decimal(&literal).and_then(|d| d.to_i128()), Some(i128::from(v)));
    }
}
