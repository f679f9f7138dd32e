//! What the commands share: a game code and the counts they take (`2^k`, `10^k`), how a
//! failure is said (one line, exit 2 for bad input), notes on stderr, the default store of a
//! game.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::config::Config;
use crate::core::octal::Game;

/// A game code as given, and its canonical form.
#[derive(Debug, Clone)]
pub struct Code {
    pub text: String,
    pub canonical: String,
}

pub(super) fn game_code(text: &str) -> Result<Code, String> {
    let game = Game::parse(text).map_err(|e| e.to_string())?;
    Ok(Code {
        text: text.to_owned(),
        canonical: game.canonical(),
    })
}

/// The most heaps a run computes (`--to`): window mode's limit, 2^48.
pub const MAX_HEAPS: u64 = crate::core::octal::MAX_WINDOW_N as u64;

/// A count in digits (`_` allowed between them), or `2^k`, or `10^k`, from 1 to `most` (`what`
/// names the limit in the refusal).
pub fn count(text: &str, most: u64, what: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("{text:?} is not a count: digits, 2^k or 10^k");
    let too_big = || format!("{t} is more than {}, {what}", power_name(most));
    let n = if let Some((base, exp)) = t.split_once('^') {
        let base: u64 = match base {
            "2" => 2,
            "10" => 10,
            _ => return Err(bad()),
        };
        if exp.is_empty() || !exp.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let exp: u32 = exp.parse().map_err(|_| too_big())?;
        base.checked_pow(exp).ok_or_else(too_big)?
    } else {
        let digits: String = t.chars().filter(|&c| c != '_').collect();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || t.starts_with('_') {
            return Err(bad());
        }
        digits.parse().map_err(|_| too_big())?
    };
    if n == 0 {
        return Err(format!("{t} is not at least 1"));
    }
    if n > most {
        return Err(too_big());
    }
    Ok(n)
}

/// `--to N`: heaps 0 … N−1, N from 1 to 2^48.
pub(super) fn heaps(text: &str) -> Result<u64, String> {
    count(text, MAX_HEAPS, "the most heaps a run computes")
}

/// `--from A`: a heap, from 0.
pub(super) fn heap_index(text: &str) -> Result<u64, String> {
    if text.trim() == "0" {
        return Ok(0);
    }
    count(text, MAX_HEAPS - 1, "the last heap a run computes")
}

/// `--window W`: a multiple of 2^16, at most the largest window a job keeps.
pub(super) fn window(text: &str) -> Result<u64, String> {
    let most = Config::default().job_max_window;
    let w = count(text, most, "the largest window")?;
    if w % 65536 != 0 {
        return Err(format!("{} is not a multiple of 2^16 (65536)", text.trim()));
    }
    Ok(w)
}

/// `n` as the command line writes it: `2^k` or `10^k` where it is one, else its digits.
pub fn power_name(n: u64) -> String {
    if n.is_power_of_two() && n > 1 {
        return format!("2^{}", n.trailing_zeros());
    }
    let mut k = 0;
    let mut p = 1u64;
    while p < n {
        p = p.saturating_mul(10);
        k += 1;
    }
    if p == n && k > 1 {
        format!("10^{k}")
    } else {
        n.to_string()
    }
}

/// "1 thread", "2 threads": `n` and its noun.
pub(super) fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Why a run ended without its answer.
pub(super) enum Fail {
    /// Bad input (exit 2): one line naming it.
    Input(String),
    /// Anything else (exit 1).
    Other(String),
}

impl From<crate::store::StoreError> for Fail {
    fn from(e: crate::store::StoreError) -> Self {
        Fail::Other(format!("the store failed: {e}"))
    }
}

/// A command's exit code: its own, or 2 for bad input and 1 for anything else, said in one
/// line on stderr.
pub(super) fn exit(command: &str, result: Result<ExitCode, Fail>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Fail::Input(msg)) => {
            eprintln!("{command}: {msg}");
            ExitCode::from(2)
        }
        Err(Fail::Other(msg)) => {
            eprintln!("{command}: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The default store of a game: `octal-CODE.db`, the canonical code with anything but
/// letters, digits, `.` and `-` as `_`.
pub fn default_store(canonical: &str) -> PathBuf {
    let name: String = canonical
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(format!("octal-{name}.db"))
}

/// Notes on stderr (not progress, not errors): silent with `--quiet`.
#[derive(Clone, Copy)]
pub(super) struct Notes {
    pub quiet: bool,
}

impl Notes {
    pub fn say(self, text: std::fmt::Arguments<'_>) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }
}
