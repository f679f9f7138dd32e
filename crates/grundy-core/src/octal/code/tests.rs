//! Tests of `code.rs`: parsing, canonical codes, digits and standard forms.

use super::*;

fn canon(s: &str) -> String {
    Game::parse(s).unwrap().canonical()
}

#[test]
fn canonical_forms() {
    assert_eq!(canon(".07"), "0.07");
    assert_eq!(canon("0.070"), "0.07");
    assert_eq!(canon("0.137"), "0.137");
    assert_eq!(canon("4.07"), "4.07");
    assert_eq!(canon("04.3"), "4.3");
    assert_eq!(canon("44.3"), "44.3");
    assert_eq!(canon("80.4"), "80.4");
    assert_eq!(canon("0.8f"), "0.8F");
    assert_eq!(canon(" .fb "), "0.FB");
    assert_eq!(canon("0.(3)"), "0.(3)");
    assert_eq!(canon(".3(3)"), "0.(3)");
    assert_eq!(canon(".(33)"), "0.(3)");
    assert_eq!(canon(".33(03)"), "0.3(30)");
    assert_eq!(canon("4.(3)"), "4.(3)");
    assert_eq!(canon("0.5(3)"), "0.5(3)");
    assert_eq!(canon(".07(0)"), "0.07");
    assert_eq!(canon("4."), "4.0");
    assert_eq!(canon("0.0"), "0.0");
    assert_eq!(canon("s(5, 2,1,2)"), "S(1,2,5)");
    let s = Game::parse("S(1,2,4)").unwrap();
    assert_eq!(s.prefix(), &[3, 3, 0, 3]);
    assert_eq!(Game::parse(".3303").unwrap().prefix(), s.prefix());
}

#[test]
fn digits_and_classes() {
    let g = Game::parse("80.4").unwrap();
    assert_eq!(g.digit(-1), 8);
    assert_eq!(g.digit(0), 0);
    assert_eq!(g.digit(1), 4);
    assert_eq!(g.digit(2), 0);
    assert_eq!(g.last_index(), Some(1));
    assert_eq!(g.max_heaps(), 3);
    let r = Game::parse("0.3(30)").unwrap();
    assert_eq!(
        (1..=8).map(|u| r.digit(u)).collect::<Vec<_>>(),
        vec![3, 3, 0, 3, 0, 3, 0, 3]
    );
    assert_eq!(r.last_index(), None);
    assert_eq!(Game::parse(".33").unwrap().class(), GameClass::Tetral);
    assert_eq!(Game::parse("4.3").unwrap().class(), GameClass::Octal);
    assert_eq!(Game::parse(".F").unwrap().class(), GameClass::Sedecimal);
    assert_eq!(Game::parse("0.07").unwrap().last_index(), Some(2));
    assert_eq!(Game::parse("4C.13").unwrap().last_index(), Some(2));
}

#[test]
fn standard_form_chain() {
    let sf = |s: &str| {
        let r = Game::parse(s).unwrap().standard_form();
        (r.game.canonical(), r.shift)
    };
    assert_eq!(sf(".4"), ("0.137".into(), 2));
    assert_eq!(sf(".07"), ("0.137".into(), 1));
    assert_eq!(sf(".137"), ("0.137".into(), 0));
    assert_eq!(sf(".08"), ("0.111333777F".into(), 4));
    assert_eq!(sf("80000.02"), ("4C.13".into(), 2));
    assert_eq!(sf(".644"), ("0.3777".into(), 1));
    assert_eq!(sf(".055"), ("0.1177".into(), 1));
    assert_eq!(sf("4.02"), ("0.73".into(), 1));
    assert_eq!(sf(".0(4)"), ("0.1133(7)".into(), 3)); // = .11337(7) of Table 7.4
    assert_eq!(sf(".01(2)"), ("0.10(3)".into(), 1));
    assert_eq!(sf(".28"), ("0.300F".into(), 1));
    assert_eq!(sf("S(2)").1, 1);
    assert_eq!(sf("0.0"), ("0.0".into(), 0));
}

#[test]
fn parse_errors() {
    use OctalError::*;
    let e = |s: &str| Game::parse(s).unwrap_err();
    assert_eq!(e(""), EmptyCode);
    assert_eq!(e("   "), EmptyCode);
    assert_eq!(e("0.0G"), InvalidChar { pos: 3, ch: 'G' });
    assert_eq!(
        e("07"),
        MissingPoint {
            digits: "07".into()
        }
    );
    assert_eq!(e("0.0.7"), SecondPoint { pos: 3 });
    assert_eq!(e("3.07"), BitsBeforePoint { pos: 0, ch: '3' });
    assert_eq!(e("4A.07"), BitsBeforePoint { pos: 1, ch: 'A' });
    assert_eq!(e("(4).3"), UnexpectedOpenParen { pos: 0 });
    assert_eq!(e("0.(3"), UnclosedParen { pos: 2 });
    assert_eq!(e("0.()"), EmptyRepeat { pos: 2 });
    assert_eq!(e("0.3)"), UnexpectedCloseParen { pos: 3 });
    assert_eq!(e("0.(3)4"), TrailingAfterRepeat { pos: 5, ch: '4' });
    assert_eq!(e("0.(3(4))"), UnexpectedOpenParen { pos: 4 });
    assert!(matches!(
        e(&format!("0.{}", "7".repeat(64))),
        CodeTooLong { len: 65, max: 64 }
    ));
    assert!(Game::parse(&format!(".{}", "7".repeat(64))).is_ok());
    assert_eq!(
        e("S()"),
        BadSubtractionSet {
            pos: 2,
            reason: "the set is empty"
        }
    );
    assert_eq!(
        e("S(1,,2)"),
        BadSubtractionSet {
            pos: 4,
            reason: "expected a member"
        }
    );
    assert_eq!(
        e("S(1,2"),
        BadSubtractionSet {
            pos: 5,
            reason: "missing ')'"
        }
    );
    assert_eq!(
        e("S1,2)"),
        BadSubtractionSet {
            pos: 1,
            reason: "expected '(' after 'S'"
        }
    );
    assert_eq!(e("S(1,x)"), InvalidChar { pos: 4, ch: 'x' });
    assert_eq!(e("S(1,2)x"), InvalidChar { pos: 6, ch: 'x' });
    assert_eq!(
        e("S(0)"),
        SubtractionMemberOutOfRange {
            pos: 2,
            member: "0".into(),
            max: MAX_SUBTRACTION_MEMBER
        }
    );
    assert!(matches!(
        e("S(99999999999999999999)"),
        SubtractionMemberOutOfRange { pos: 2, .. }
    ));
    assert!(matches!(e("S(1025)"), SubtractionMemberOutOfRange { .. }));
    // Display names the problem.
    assert_eq!(
        e("0.0G").to_string(),
        "invalid character 'G' at position 3 in game code"
    );
}
