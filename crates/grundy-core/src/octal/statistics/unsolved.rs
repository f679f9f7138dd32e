//! The unsolved octal games and the published computations of them.
//!
//! The list is T. Czajka's table of unsolved games ([`CZAJKA_SOURCE`], last changed 2018-05-01):
//! Grundy's game and the 82 two- and three-digit octal codes (with `4.xyz`, a first digit 4
//! before the point: a heap may also be split into two without removing a token) whose
//! G-sequence is not known to be periodic — 83 rows; the document states no count of its own.
//! For four of them it gives the statistics of `G(0..n)` computed by its analyzer
//! ([`PublishedStatistics`]; the definitions are those of [`crate::octal::statistics`]).
//!
//! A. Rogalski's sparse-space solver ([`ROGALSKI_SOURCE`], README and `results/`, last changed
//! 2023-05-12) holds the published records: `.014` and `.172` to 2^36, `.034` to 2^37, `.161`
//! to 2^38 and `.167` to 2^40, each with the value histogram at every power of two
//! ([`Record`]). His histogram files count the heaps `1..=n` (heap 0 left out, heap `n`
//! included: `results/0.167/4` is `0:1, 1:1, 2:2`, the values of heaps 1–4 of `.167`, which
//! are 1, 0, 2, 2), one more heap than the prefix `G(0..n)` less G(0).
//!
//! Codes are written as [`Game::parse`] reads them (`0.6` for `.6`, `grundy` for Grundy's
//! game). Pure data: nothing here computes.

use crate::octal::code::Game;

/// T. Czajka's table of unsolved games (github.com/tczajka/octal-games, `UnsolvedGames.md`).
pub const CZAJKA_SOURCE: &str = "https://github.com/tczajka/octal-games/blob/main/UnsolvedGames.md";

/// A. Rogalski's solver and results (README table and `results/<game>/<n>` histograms).
pub const ROGALSKI_SOURCE: &str = "https://github.com/rogalski-wmii-uni-lodz-pl/octal";

/// Rows of [`CZAJKA_SOURCE`]: Grundy's game and 82 octal codes.
pub const UNSOLVED_COUNT: usize = 83;

/// One row of statistics published in [`CZAJKA_SOURCE`], for the prefix `G(0..n)` (heaps
/// `0..n`; the table's columns "n", "largest idx", "largest", "rare mask", "num rare", "last
/// rare").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublishedStatistics {
    /// Number of values: heaps `0..n`.
    pub n: u64,
    /// The largest value ("largest").
    pub max_value: u32,
    /// The first heap holding it ("largest idx").
    pub max_value_first_heap: u64,
    /// The fewest-rare mask ("rare mask", published in hexadecimal).
    pub mask: u32,
    /// Heaps whose value is rare under `mask` ("num rare").
    pub rare_count: u64,
    /// The last of them ("last rare").
    pub last_rare_heap: u64,
}

/// A published record computation ([`ROGALSKI_SOURCE`]): the game was computed at least to heap
/// `n`, and its value histogram over heaps `1..=n` is published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The last heap of the published histogram (a power of two).
    pub n: u64,
    /// The largest value among heaps `1..=n` (the README's "max(G(n))").
    pub max_value: u32,
    /// How many distinct values occur among heaps `1..=n` (derived from the histogram).
    pub distinct_values: u32,
    /// The fewest-rare mask of that histogram and its rare count (derived here from the
    /// published histogram with the rule of [`crate::octal::statistics::fewest_rare_mask`]; for the
    /// prefix `G(0..n)` add 1 for heap 0 and subtract 1 when G(n) is rare). Every minimum is
    /// unique.
    pub mask: u32,
    pub rare_count: u64,
}

/// An unsolved game and what is published about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsolvedGame {
    /// The code, as [`Game::parse`] reads it.
    pub code: &'static str,
    /// The statistics row of [`CZAJKA_SOURCE`], for the four games it gives one.
    pub statistics: Option<PublishedStatistics>,
    /// The record of [`ROGALSKI_SOURCE`], for the five games he computed.
    pub record: Option<Record>,
}

const fn game(code: &'static str) -> UnsolvedGame {
    UnsolvedGame {
        code,
        statistics: None,
        record: None,
    }
}

/// Every row of [`CZAJKA_SOURCE`], in its order, with the records of [`ROGALSKI_SOURCE`].
pub const UNSOLVED_GAMES: [UnsolvedGame; UNSOLVED_COUNT] = [
    UnsolvedGame {
        code: "grundy",
        statistics: Some(PublishedStatistics {
            n: 1 << 21,
            max_value: 231,
            max_value_first_heap: 763_622,
            mask: 0xfe,
            rare_count: 1274,
            last_rare_heap: 82_860,
        }),
        record: None,
    },
    UnsolvedGame {
        code: "0.6",
        statistics: Some(PublishedStatistics {
            n: 1 << 21,
            max_value: 319,
            max_value_first_heap: 1_274_955,
            mask: 0x1ee,
            rare_count: 1584,
            last_rare_heap: 20_627,
        }),
        record: None,
    },
    UnsolvedGame {
        code: "0.04",
        statistics: Some(PublishedStatistics {
            n: 1 << 17,
            max_value: 1024,
            max_value_first_heap: 109_363,
            mask: 0x7b8,
            rare_count: 18_860,
            last_rare_heap: 131_003,
        }),
        record: None,
    },
    UnsolvedGame {
        code: "0.06",
        statistics: Some(PublishedStatistics {
            n: 1 << 17,
            max_value: 1045,
            max_value_first_heap: 127_083,
            mask: 0x5a0,
            rare_count: 52_923,
            last_rare_heap: 131_070,
        }),
        record: None,
    },
    game("0.14"),
    game("0.36"),
    game("0.64"),
    game("0.74"),
    game("0.76"),
    game("0.004"),
    game("0.005"),
    game("0.006"),
    UnsolvedGame {
        code: "0.014",
        statistics: None,
        record: Some(Record {
            n: 1 << 36,
            max_value: 392,
            distinct_values: 333,
            mask: 0x1fe,
            rare_count: 2036,
        }),
    },
    game("0.015"),
    game("0.016"),
    game("0.024"),
    game("0.026"),
    UnsolvedGame {
        code: "0.034",
        statistics: None,
        record: Some(Record {
            n: 1 << 37,
            max_value: 256,
            distinct_values: 212,
            mask: 0x1ff,
            rare_count: 1078,
        }),
    },
    game("0.054"),
    game("0.064"),
    game("0.104"),
    game("0.106"),
    game("0.114"),
    game("0.125"),
    game("0.126"),
    game("0.135"),
    game("0.136"),
    game("0.142"),
    game("0.143"),
    game("0.146"),
    UnsolvedGame {
        code: "0.161",
        statistics: None,
        record: Some(Record {
            n: 1 << 38,
            max_value: 158,
            distinct_values: 127,
            mask: 0xfe,
            rare_count: 488,
        }),
    },
    game("0.162"),
    game("0.163"),
    game("0.164"),
    game("0.166"),
    UnsolvedGame {
        code: "0.167",
        statistics: None,
        record: Some(Record {
            n: 1 << 40,
            max_value: 64,
            distinct_values: 44,
            mask: 0x7d,
            rare_count: 59,
        }),
    },
    UnsolvedGame {
        code: "0.172",
        statistics: None,
        record: Some(Record {
            n: 1 << 36,
            max_value: 387,
            distinct_values: 303,
            mask: 0x1cd,
            rare_count: 2351,
        }),
    },
    game("0.174"),
    game("0.204"),
    game("0.205"),
    game("0.206"),
    game("0.207"),
    game("0.224"),
    game("0.244"),
    game("0.245"),
    game("0.264"),
    game("0.314"),
    game("0.324"),
    game("0.334"),
    game("0.336"),
    game("0.342"),
    game("0.344"),
    game("0.346"),
    game("0.362"),
    game("0.364"),
    game("0.366"),
    game("0.371"),
    game("0.374"),
    game("0.404"),
    game("0.414"),
    game("0.416"),
    game("0.444"),
    game("0.454"),
    game("0.564"),
    game("0.604"),
    game("0.606"),
    game("0.744"),
    game("0.764"),
    game("0.774"),
    game("0.776"),
    game("4.004"),
    game("4.007"),
    game("4.026"),
    game("4.044"),
    game("4.045"),
    game("4.064"),
    game("4.324"),
    game("4.327"),
    game("4.344"),
    game("4.364"),
    game("4.367"),
    game("4.404"),
    game("4.406"),
];

/// The row of `game` (compared as canonical games, so `.6`, `0.6` and `0.60` all find `0.6`).
pub fn unsolved_game(game: &Game) -> Option<&'static UnsolvedGame> {
    UNSOLVED_GAMES
        .iter()
        .find(|u| Game::parse(u.code).is_ok_and(|g| g == *game))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_and_is_listed_once() {
        assert_eq!(UNSOLVED_GAMES.len(), UNSOLVED_COUNT);
        let games: Vec<Game> = UNSOLVED_GAMES
            .iter()
            .map(|u| Game::parse(u.code).unwrap_or_else(|e| panic!("{}: {e}", u.code)))
            .collect();
        for (i, g) in games.iter().enumerate() {
            assert!(
                !games[..i].contains(g),
                "{} listed twice",
                UNSOLVED_GAMES[i].code
            );
            assert_eq!(unsolved_game(g), Some(&UNSOLVED_GAMES[i]));
        }
        assert_eq!(games[0], Game::grundy());
        // 82 octal codes besides Grundy's game: two or three digits after the point.
        let octal = UNSOLVED_GAMES[1..]
            .iter()
            .filter(|u| {
                let (before, after) = u.code.split_once('.').unwrap_or(("", ""));
                (before == "0" || before == "4")
                    && (1..=3).contains(&after.len())
                    && after.chars().all(|c| ('0'..='7').contains(&c))
            })
            .count();
        assert_eq!(octal, 82);
        assert_eq!(
            unsolved_game(&Game::parse(".60").unwrap()).map(|u| u.code),
            Some("0.6")
        );
        assert_eq!(unsolved_game(&Game::parse("0.07").unwrap()), None);
    }

    #[test]
    fn published_rows_and_records() {
        let with_stats: Vec<&str> = UNSOLVED_GAMES
            .iter()
            .filter(|u| u.statistics.is_some())
            .map(|u| u.code)
            .collect();
        assert_eq!(with_stats, ["grundy", "0.6", "0.04", "0.06"]);
        let records: Vec<(&str, u32)> = UNSOLVED_GAMES
            .iter()
            .filter_map(|u| u.record.map(|r| (u.code, r.n.trailing_zeros())))
            .collect();
        assert_eq!(
            records,
            [
                ("0.014", 36),
                ("0.034", 37),
                ("0.161", 38),
                ("0.167", 40),
                ("0.172", 36)
            ]
        );
        for u in &UNSOLVED_GAMES {
            if let Some(s) = u.statistics {
                assert!(
                    s.n.is_power_of_two() && s.max_value_first_heap < s.n,
                    "{}",
                    u.code
                );
                assert!(s.last_rare_heap < s.n && s.rare_count <= s.n, "{}", u.code);
                // The largest value is rare or common, and the mask has no bit above it.
                assert!(s.mask < (s.max_value + 1).next_power_of_two(), "{}", u.code);
            }
            if let Some(r) = u.record {
                assert!(r.n.is_power_of_two(), "{}", u.code);
                assert!(r.distinct_values <= r.max_value + 1 && r.rare_count < r.n);
                assert!(r.mask < (r.max_value + 1).next_power_of_two(), "{}", u.code);
            }
        }
    }
}
