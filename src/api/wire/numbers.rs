//! Exact reading of JSON numbers.
//!
//! serde_json reads an integer literal that fits `u64`/`i64` exactly, and every other number —
//! `5.0`, `1e17`, `9007199254740993e0`, `18446744073709551616` — as an `f64`, which rounds:
//! `9007199254740993e0` becomes 2^53, `4.0000000000000001` becomes 4, `1e-400` becomes 0. A
//! check made on the `f64` cannot tell these apart from exact values, so the request body is
//! normalised *before* serde sees it, working on the literal's digits (never on a float):
//!
//! * a literal whose exact value is an integer in `−2^63..=2^64−1` is rewritten as a plain
//!   integer literal (`1e17` → `100000000000000000`, `9007199254740993e0` →
//!   `9007199254740993`, `-0.0` → `0`), which serde_json then reads exactly;
//! * a literal whose magnitude is at least 2^64 (integer or not) becomes the literal
//!   `18446744073709551616` (or `-18446744073709551616`): every such value is refused as too large
//!   (or negative) anyway, and serde_json would fail with a syntax error ("number out of range")
//!   on those beyond `f64`;
//! * every other literal (a non-integer of modest size) is left alone: after this pass an
//!   `f64` reaching an integer field always stands for a non-integer, whatever it rounded to,
//!   and [`super::nat::Nat`] refuses it.
//!
//! Only number tokens outside strings that match the JSON grammar are touched, and each is
//! replaced by another valid number token, so a body's validity and structure never change.
//! The pass is one linear scan with no recursion (deep nesting costs nothing) and allocates only
//! when something is rewritten.

use std::borrow::Cow;

/// The replacement for literals of magnitude ≥ 2^64.
const TOO_LARGE: &str = "18446744073709551616";

/// What a byte means to the scan of [`normalize`].
const OTHER: u8 = 0;
/// `0`–`9`: starts or continues a number token.
const DIGIT: u8 = 1;
/// `-`: starts a number token; inside one it makes the token not plain.
const MINUS: u8 = 2;
/// `+ . e E`: continue a number token (not plain); anywhere else they are other bytes.
const NUMERIC: u8 = 3;
/// `"`: starts a string.
const QUOTE: u8 = 4;

/// The class of each byte (a table: the scan runs over every byte of every request body).
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = DIGIT;
        d += 1;
    }
    t[b'-' as usize] = MINUS;
    t[b'+' as usize] = NUMERIC;
    t[b'.' as usize] = NUMERIC;
    t[b'e' as usize] = NUMERIC;
    t[b'E' as usize] = NUMERIC;
    t[b'"' as usize] = QUOTE;
    t
};

/// Rewrites the number literals of a JSON text as described in the module docs.
pub fn normalize(text: &[u8]) -> Cow<'_, [u8]> {
    if plainly_exact(text) {
        return Cow::Borrowed(text);
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    let n = text.len();
    while i < n {
        match CLASS[usize::from(text[i])] {
            QUOTE => {
                // Skip a string, honouring backslash escapes (an unterminated string runs to
                // the end; serde reports it).
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &text[i.min(n)..]) {
                        None => {
                            i = n;
                            break;
                        }
                        Some(k) if text[i + k] == b'"' => {
                            i += k + 1;
                            break;
                        }
                        Some(k) => i += k + 2, // a backslash and the byte it escapes
                    }
                }
            }
            DIGIT | MINUS => {
                let start = i;
                // `plain`: only digits after the first byte (no fraction, exponent or sign).
                let mut plain = true;
                i += 1 + digit_run(&text[i + 1..]);
                while i < n {
                    match CLASS[usize::from(text[i])] {
                        DIGIT => {}
                        MINUS | NUMERIC => plain = false,
                        _ => break,
                    }
                    i += 1;
                }
                let token = &text[start..i];
                if plain && plain_integer_is_kept(token) {
                    continue; // the common case, decided without parsing (see below)
                }
                if let Some(replacement) = std::str::from_utf8(token).ok().and_then(rewrite) {
                    edits.push((start, i, replacement));
                }
            }
            _ => i += 1,
        }
    }
    splice(text, edits)
}

/// Whether no number literal of `text` can need a rewrite, decided with a few vectorised
/// searches instead of the scan (nearly every body: integers only). A rewrite needs a
/// fraction or an exponent (`.`, `e`, `E`, `+` somewhere in the text, strings included, so
/// this errs on the safe side), a negative zero (`-0`), or an integer too long for an `f64`
/// (≥ 309 digits, so a text at least that long). Other integers are read exactly by serde_json
/// or, beyond 64 bits, as a float ≥ 2^64 (or ≤ −2^63) that [`super::nat::Nat`] refuses as too
/// large (or negative) just as it refuses [`TOO_LARGE`].
fn plainly_exact(text: &[u8]) -> bool {
    text.len() < 309
        && memchr::memchr3(b'.', b'e', b'E', text).is_none()
        && memchr::memchr(b'+', text).is_none()
        && memchr::memmem::find(text, b"-0").is_none()
}

/// How many ASCII digits `text` starts with, eight bytes at a time (a number token is mostly
/// digits; byte by byte, the scan was a few percent of a request's instructions).
fn digit_run(text: &[u8]) -> usize {
    const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    // 0x7f − 9 = 0x76: adding it sets a byte's high bit exactly when its low seven bits
    // exceed 9, without carrying into the next byte (at most 0x7f + 0x76 < 0x100).
    const OVER9: u64 = u64::from_le_bytes([0x76; 8]);
    let mut k = 0;
    while let Some(chunk) = text.get(k..k + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let x = word ^ ZEROS; // a digit byte becomes 0..=9
        let not_digit = (((x & LOW7) + OVER9) | x) & HIGH;
        if not_digit != 0 {
            return k + (not_digit.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    k + text[k..].iter().take_while(|b| b.is_ascii_digit()).count()
}

/// `text` with each `(start, end, replacement)` of `edits` (in order, disjoint) applied.
fn splice(text: &[u8], edits: Vec<(usize, usize, String)>) -> Cow<'_, [u8]> {
    if edits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for (start, end, replacement) in edits {
        out.extend_from_slice(&text[at..start]);
        out.extend_from_slice(replacement.as_bytes());
        at = end;
    }
    out.extend_from_slice(&text[at..]);
    Cow::Owned(out)
}

/// Whether [`rewrite`] leaves `token` — an optional `-` followed by digits only — as it is,
/// decided without parsing: at most 18 digits always fit `i64` and `u64`, so such a literal is
/// kept unless it is a negative zero (`-0`, rewritten to `0`). Leading zeros (`007`) are not
/// JSON, and `rewrite` leaves them for serde to refuse, as this does.
fn plain_integer_is_kept(token: &[u8]) -> bool {
    let digits = match token {
        [b'-', rest @ ..] => {
            if rest.first() == Some(&b'0') {
                return false;
            }
            rest
        }
        _ => token,
    };
    (1..=18).contains(&digits.len())
}

/// A JSON number literal split into sign, significant digits and a power of ten:
/// value = ±digits × 10^exp, `digits` without leading or trailing zeros (empty for zero).
#[derive(Debug, PartialEq, Eq)]
pub struct Decimal {
    pub negative: bool,
    pub digits: String,
    pub exp: i64,
}

/// Parses `token` if it is exactly a JSON number (RFC 8259 §6 grammar), else `None`.
pub fn parse_decimal(token: &str) -> Option<Decimal> {
    let b = token.as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if negative {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int = &token[int_start..i];
    if int.is_empty() || (int.len() > 1 && int.starts_with('0')) {
        return None;
    }
    let mut frac = "";
    if b.get(i) == Some(&b'.') {
        let s = i + 1;
        i = s;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac = &token[s..i];
        if frac.is_empty() {
            return None;
        }
    }
    let mut exp: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let exp_negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            // Saturate: beyond ±10^15 the answer (zero or huge) no longer depends on it.
            exp = (exp * 10 + i64::from(b[i] - b'0')).min(1_000_000_000_000_000);
            i += 1;
        }
        if i == s {
            return None;
        }
        if exp_negative {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }
    // digits = int ++ frac, value = digits × 10^(exp − |frac|); then strip zeros.
    let mut digits = String::with_capacity(int.len() + frac.len());
    digits.push_str(int);
    digits.push_str(frac);
    let mut exp = exp - frac.len() as i64;
    let trimmed_end = digits.trim_end_matches('0').len();
    exp += (digits.len() - trimmed_end) as i64;
    digits.truncate(trimmed_end);
    let digits = digits.trim_start_matches('0').to_owned();
    if digits.is_empty() {
        exp = 0;
    }
    Some(Decimal {
        negative,
        digits,
        exp,
    })
}

impl Decimal {
    /// The exact value when it is an integer in `i128` range (zero included), else `None`.
    pub fn to_i128(&self) -> Option<i128> {
        if self.digits.is_empty() {
            return Some(0);
        }
        if self.exp < 0 || self.digits.len() as i64 + self.exp > 38 {
            return None;
        }
        let mut v: i128 = self.digits.parse().ok()?;
        for _ in 0..self.exp {
            v = v.checked_mul(10)?;
        }
        Some(if self.negative { -v } else { v })
    }

    /// Whether |value| ≥ 2^64 (so ≥ 10^20 when it has more than 20 integer digits).
    fn at_least_2_pow_64(&self) -> bool {
        let int_digits = self.digits.len() as i64 + self.exp;
        if int_digits > 20 {
            return true;
        }
        if int_digits < 20 {
            return false;
        }
        // Exactly 20 integer digits: compare the integer part (fraction digits cannot lift a
        // value below 2^64 to it, since 2^64 is an integer).
        let int_part: String = if self.exp >= 0 {
            let mut s = self.digits.clone();
            s.push_str(&"0".repeat(self.exp as usize));
            s
        } else {
            self.digits[..20].to_owned()
        };
        int_part.as_str() >= TOO_LARGE
    }
}

/// The replacement for one number token, or `None` to leave it as it is.
fn rewrite(token: &str) -> Option<String> {
    let d = parse_decimal(token)?;
    if d.at_least_2_pow_64() {
        return Some(if d.negative {
            format!("-{TOO_LARGE}")
        } else {
            TOO_LARGE.to_owned()
        });
    }
    let v = d.to_i128()?; // a non-integer of modest size: serde and Nat deal with it
    let plain = v.to_string();
    (plain != token).then_some(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        String::from_utf8(normalize(s.as_bytes()).into_owned()).unwrap()
    }

    /// The scan as first written (byte by byte, no table, no memchr): the oracle the table
    /// scan is checked against.
    fn normalize_reference(text: &[u8]) -> Cow<'_, [u8]> {
        splice(text, reference_edits(text))
    }

    /// The edits the reference scan makes.
    fn reference_edits(text: &[u8]) -> Vec<(usize, usize, String)> {
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut i = 0;
        let n = text.len();
        while i < n {
            match text[i] {
                b'"' => {
                    i += 1;
                    while i < n && text[i] != b'"' {
                        i += if text[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    i += 1;
                    while i < n {
                        match text[i] {
                            b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' => {}
                            _ => break,
                        }
                        i += 1;
                    }
                    let token = &text[start..i];
                    if let Some(r) = std::str::from_utf8(token).ok().and_then(rewrite) {
                        edits.push((start, i, r));
                    }
                }
                _ => i += 1,
            }
        }
        edits
    }

    /// The word-at-a-time digit count agrees with counting byte by byte, on every byte value
    /// at every position of runs of every length around the word size.
    #[test]
    fn digit_run_counts_digits() {
        for len in 0..20 {
            for stop in 0..=255u8 {
                let mut text = vec![b'7'; len];
                text.push(stop);
                text.extend_from_slice(b"123456789");
                let expected = text.iter().take_while(|b| b.is_ascii_digit()).count();
                assert_eq!(digit_run(&text), expected, "len {len} stop {stop}");
                assert_eq!(digit_run(&text[..len]), len);
            }
        }
    }

    /// The table scan agrees with the reference on random texts made of the bytes that
    /// matter (digits, signs, exponents, quotes, backslashes, words, separators).
    #[test]
    fn table_scan_agrees_with_reference() {
        const ALPHABET: &[u8] = b"0123456789-+.eE\"\\ ,[]{}:truefalsnx";
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 48) as usize;
            if x.is_multiple_of(7) {
                // Long integers (up to 40 digits) with separators: the too-large case.
                let digits = 18 + (x % 23) as usize;
                let mut text = b"[".to_vec();
                text.extend((0..digits).map(|k| b'1' + ((x >> (k % 50)) % 9) as u8));
                text.extend_from_slice(if x.is_multiple_of(2) { b"]" } else { b",-7]" });
                if x.is_multiple_of(3) {
                    text.insert(1, b'-');
                }
                let shown = String::from_utf8_lossy(&text).into_owned();
                assert!(plainly_exact(&text), "{shown}");
                assert!(matches!(normalize(&text), Cow::Borrowed(_)), "{shown}");
                for (start, end, replacement) in reference_edits(&text) {
                    assert!(end - start >= 20, "{shown}");
                    assert_eq!(replacement.trim_start_matches('-'), TOO_LARGE, "{shown}");
                }
                continue;
            }
            let mut y = x;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    y = y
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ALPHABET[(y >> 33) as usize % ALPHABET.len()]
                })
                .collect();
            let shown = String::from_utf8_lossy(&text);
            if plainly_exact(&text) {
                // The shortcut's claim: the reference rewrites nothing, or only integers of
                // 20 digits or more to the too-large literal, which serde_json already reads
                // as a float ≥ 2^64 in magnitude (see `plainly_exact`).
                assert!(matches!(normalize(&text), Cow::Borrowed(_)), "{shown}");
                for (start, end, replacement) in reference_edits(&text) {
                    let token = std::str::from_utf8(&text[start..end]).unwrap();
                    let digits = token.strip_prefix('-').unwrap_or(token);
                    assert!(
                        digits.len() >= 20 && digits.bytes().all(|b| b.is_ascii_digit()),
                        "{shown}: {token}"
                    );
                    assert_eq!(replacement.trim_start_matches('-'), TOO_LARGE, "{shown}");
                }
            } else {
                assert_eq!(normalize(&text), normalize_reference(&text), "{shown}");
            }
        }
    }

    #[test]
    fn float_forms_of_integers_become_integers() {
        assert_eq!(
            norm("[9007199254740993e0, 1e17, 5.0, -0.0, 0e5, 12.50e1, 1E+2, 2500e-2]"),
            "[9007199254740993, 100000000000000000, 5, 0, 0, 125, 100, 25]"
        );
        assert_eq!(
            norm("[18446744073709551615e0, 1844674407370955161.5e1]"),
            "[18446744073709551615, 18446744073709551615]"
        );
        assert_eq!(
            norm("[-9223372036854775808e0, -1.0]"),
            "[-9223372036854775808, -1]"
        );
    }

    #[test]
    fn huge_values_become_the_too_large_literal() {
        assert_eq!(
            norm("[18446744073709551616, 1e400, 1.5e400, -1e999999999999999999999, 18446744073709551616.5]"),
            "[18446744073709551616, 18446744073709551616, 18446744073709551616, -18446744073709551616, 18446744073709551616]"
        );
        let long = format!("[1{}]", "0".repeat(500));
        assert_eq!(norm(&long), "[18446744073709551616]");
    }

    #[test]
    fn non_integers_and_plain_integers_are_untouched() {
        for s in [
            "[1.5, 4.0000000000000001, 1e-400, -0.5, 2.5e0, 18446744073709551615.5]",
            "[0, 7, 18446744073709551615, -9223372036854775808]",
            r#"{"code": "1e5", "s": "\"5.0\"", "t": "\\", "u": 1}"#,
        ] {
            assert!(matches!(normalize(s.as_bytes()), Cow::Borrowed(_)), "{s}");
        }
    }

    /// The shortcut for plain integer literals agrees with the full rewrite on every
    /// plain token it accepts, at the boundaries and on random ones.
    #[test]
    fn plain_integer_shortcut_agrees_with_rewrite() {
        let mut tokens: Vec<String> = [
            "0",
            "-0",
            "00",
            "-00",
            "007",
            "-007",
            "-",
            "1",
            "-1",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "-18446744073709551616",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 24) as usize;
            let mut t: String = (0..len)
                .map(|k| char::from(b'0' + ((x >> (k % 60)) % 10) as u8))
                .collect();
            if x & 1 == 1 {
                t.insert(0, '-');
            }
            tokens.push(t);
        }
        for t in &tokens {
            if plain_integer_is_kept(t.as_bytes()) {
                assert_eq!(rewrite(t), None, "{t}");
                assert!(matches!(normalize(t.as_bytes()), Cow::Borrowed(_)), "{t}");
            }
        }
        assert!(!plain_integer_is_kept(b"-0"));
        assert_eq!(
            norm("[-0, 18446744073709551616, 7]"),
            "[0, 18446744073709551616, 7]"
        );
    }

    #[test]
    fn invalid_number_syntax_is_left_for_serde() {
        for s in [
            "[01.0]", "[1.]", "[.5]", "[1e]", "[1.0.0]", "[--1]", "[1e5e]", "[+1]",
        ] {
            assert_eq!(norm(s), s);
        }
    }

    #[test]
    fn decimals_are_exact() {
        let d = parse_decimal("-12.3400e-1").unwrap();
        assert_eq!(
            d,
            Decimal {
                negative: true,
                digits: "1234".into(),
                exp: -3
            }
        );
        assert_eq!(parse_decimal("0.000").unwrap().to_i128(), Some(0));
        assert_eq!(parse_decimal("1.25e2").unwrap().to_i128(), Some(125));
        assert_eq!(parse_decimal("1.25e1").unwrap().to_i128(), None);
    }
}
