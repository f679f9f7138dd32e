//! The patterns the OpenAPI document states for game codes and ordinals agree with the parsers:
//! every string a client (or Schemathesis) generates from a pattern is accepted by the server,
//! and every canonical form the server writes matches the pattern.

use grundy::api::schema_rules::{game_code_pattern, ordinal_pattern};
use grundy::core::octal::Game;
use grundy::core::ordinal::Ordinal;
use proptest::prelude::*;

/// The pattern without its anchors, for generation (proptest generates whole strings).
fn unanchored(p: &str) -> String {
    p.trim_start_matches('^').trim_end_matches('$').to_owned()
}

fn full_match(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("the pattern is a valid regex")
}

fn code_regex() -> &'static regex::Regex {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| full_match(&game_code_pattern()))
}

fn ordinal_regex() -> &'static regex::Regex {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| full_match(&ordinal_pattern()))
}

proptest! {
    #[test]
    fn every_string_of_the_code_pattern_parses(s in proptest::string::string_regex(&unanchored(&game_code_pattern())).unwrap()) {
        prop_assert!(Game::parse(&s).is_ok(), "{:?}: {:?}", s, Game::parse(&s));
    }

    #[test]
    fn every_string_of_the_ordinal_pattern_parses(s in proptest::string::string_regex(&unanchored(&ordinal_pattern())).unwrap()) {
        prop_assert!(Ordinal::parse(&s).is_ok(), "{:?}: {:?}", s, Ordinal::parse(&s));
    }

    /// The server writes its answers in the canonical form the pattern states (sums can grow a
    /// coefficient past the pattern's 9 digits; those are the only exceptions).
    #[test]
    fn canonical_ordinals_match_the_pattern(s in proptest::string::string_regex(&unanchored(&ordinal_pattern())).unwrap()) {
        let canonical = Ordinal::parse(&s).unwrap().to_string();
        let long_number = canonical.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() > 9);
        prop_assert!(long_number || ordinal_regex().is_match(&canonical), "{:?} -> {:?}", s, canonical);
    }

    #[test]
    fn canonical_codes_match_the_pattern(s in proptest::string::string_regex(&unanchored(&game_code_pattern())).unwrap()) {
        let canonical = Game::parse(&s).unwrap().canonical();
        prop_assert!(code_regex().is_match(&canonical), "{:?} -> {:?}", s, canonical);
    }
}

proptest! {
    /// The other direction, for short strings (the pattern bounds each part of a digit code at
    /// 16 digits or more): whatever the parser accepts, the pattern states. A new notation
    /// (Grundy's game is being added as `grundy`) fails here until the pattern has it.
    #[test]
    fn every_short_code_the_parser_accepts_matches_the_pattern(s in proptest::string::string_regex(r"[ 0-9a-fA-FsSgGrRuUnNyY.(),\t]{0,16}").unwrap()) {
        if Game::parse(&s).is_ok() {
            prop_assert!(code_regex().is_match(&s), "{:?} parses but the pattern refuses it", s);
        }
    }
}

#[test]
fn known_notations_match_when_the_parser_accepts_them() {
    for s in ["grundy", "Grundy", "GRUNDY", " grundy ", "g", "G(1)"] {
        if Game::parse(s).is_ok() {
            assert!(
                code_regex().is_match(s),
                "{s:?} parses but the pattern refuses it"
            );
        }
    }
}

#[test]
fn documented_examples_match_and_near_misses_do_not() {
    let code = code_regex();
    for ok in [
        "0.07",
        ".137",
        "4.07",
        "44.3",
        "0.(3)",
        "4.(3)",
        "0.F",
        "S(1,2,5)",
        " s ( 1 , 1024 ) ",
        "\u{3000}0.07",
    ] {
        assert!(code.is_match(ok), "{ok:?}");
        assert!(Game::parse(ok).is_ok(), "{ok:?}");
    }
    for bad in [
        "",
        "0",
        "1.07",
        "0..7",
        "0.(3",
        "0.()",
        "S()",
        "S(0)",
        "S(1025)",
        "0.07g",
        "\u{1c}0.07",
    ] {
        assert!(!code.is_match(bad), "{bad:?}");
        assert!(Game::parse(bad).is_err(), "{bad:?}");
    }
    let ordinal = ordinal_regex();
    for ok in [
        "0",
        "1",
        "w",
        "w*2+4",
        "w^2+w*4+16",
        "w^w*3+w^(w*2+5)+7",
        "w^(w^2+1)",
    ] {
        assert!(ordinal.is_match(ok), "{ok:?}");
        assert!(Ordinal::parse(ok).is_ok(), "{ok:?}");
    }
    for bad in [
        "",
        " ",
        "w^",
        "w+",
        "(w",
        "-1",
        "1.5",
        "00",
        "18446744073709551616",
    ] {
        assert!(!ordinal.is_match(bad), "{bad:?}");
    }
}

/// The page's reading of a code (`web/rules.js`, `parseRules`): its three patterns, as Rust
/// regexes (the JavaScript literals `/^…$/i` are in the syntax both engines share).
fn page_code_regexes() -> &'static [regex::Regex] {
    static R: std::sync::OnceLock<Vec<regex::Regex>> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        let js = include_str!("../web/rules.js");
        let body = &js[js
            .find("export function parseRules")
            .expect("parseRules in rules.js")..];
        let body = &body[..body.find("\n}\n").expect("the end of parseRules")];
        let literal = regex::Regex::new(r"/(\^[^/\n]*\$)/(i?)").unwrap();
        let found: Vec<regex::Regex> = literal
            .captures_iter(body)
            .map(|c| {
                let flags = if &c[2] == "i" { "(?i)" } else { "" };
                full_match(&format!("{flags}{}", &c[1]))
            })
            .collect();
        assert_eq!(
            found.len(),
            3,
            "parseRules reads grundy, S(…) and digit codes: {found:?}"
        );
        found
    })
}

proptest! {
    /// The page reads every canonical code the server echoes back, whatever code of the
    /// OpenAPI pattern was sent: the grammar's three writings (the parser, the pattern, the
    /// page) fail here when they part.
    #[test]
    fn the_page_reads_every_canonical_code(s in proptest::string::string_regex(&unanchored(&game_code_pattern())).unwrap()) {
        let canonical = Game::parse(&s).unwrap().canonical();
        prop_assert!(
            page_code_regexes().iter().any(|r| r.is_match(&canonical)),
            "{:?} -> {:?}: web/rules.js cannot read it", s, canonical
        );
    }
}
