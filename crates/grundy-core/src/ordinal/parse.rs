//! Parsing ordinal expressions: a recursive-descent parser that evaluates with true ordinal
//! arithmetic as it reads (see [`Ordinal::parse`] for the grammar and the limits).

use std::fmt;
use std::str::FromStr;

use super::{ArithError, Ordinal, MAX_INPUT_LEN, MAX_NESTING, MAX_NODES, MAX_WORK};

/// A parse failure, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// 1-based position in characters (Unicode scalar values) of the offending token.
    pub column: usize,
    /// 0-based byte offset of the same token.
    pub byte_offset: usize,
}

/// The kinds of [`ParseError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error("the ordinal is empty")]
    Empty,
    #[error("the ordinal is {len} bytes long; the limit is {max}")]
    TooLong { len: usize, max: usize },
    #[error("expected {expected}, found {found}")]
    Unexpected {
        expected: &'static str,
        found: String,
    },
    #[error("number larger than 2^64-1")]
    NumberTooLarge,
    #[error("nesting deeper than {max} levels")]
    TooDeep { max: usize },
    #[error("the expression's products and powers produce more than {max} terms in total")]
    TooMuchWork { max: usize },
    #[error("{0}")]
    Arithmetic(ArithError),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ParseErrorKind::Empty | ParseErrorKind::TooLong { .. } => write!(f, "{}", self.kind),
            _ => write!(f, "{} at character {}", self.kind, self.column),
        }
    }
}

impl std::error::Error for ParseError {}

impl Ordinal {
    /// Parse an ordinal expression (see the module docs), evaluated with ordinal arithmetic.
    ///
    /// Grammar (whitespace allowed between tokens; `^` binds tightest and is right-associative,
    /// so `w^w^2` is `w^(w^2)`; `*`/`+` are left-associative):
    /// ```text
    /// sum     := product ('+' product)*
    /// product := power (('*' | '·' | '⋅' | '×') power)*
    /// power   := atom ('^' power)?
    /// atom    := digits | 'w' | 'ω' | '(' sum ')'
    /// ```
    /// Limits: [`MAX_INPUT_LEN`] bytes, [`MAX_NESTING`] levels, numbers ≤ 2^64−1, and every
    /// intermediate result within [`MAX_NODES`] / [`MAX_HEIGHT`](super::MAX_HEIGHT). Runs in
    /// time roughly proportional to the input length times [`MAX_NODES`] at worst.
    pub fn parse(input: &str) -> Result<Ordinal, ParseError> {
        Ordinal::parse_with_max_len(input, MAX_INPUT_LEN)
    }

    /// [`Ordinal::parse`] with another length limit (bytes). Every ordinal this module builds
    /// prints (`Display`) to a string that this parses back to the same ordinal, but that string
    /// can be longer than [`MAX_INPUT_LEN`]: up to about 45 bytes per term (values and moves
    /// derived from several long inputs are longer still), so a caller that wants to re-accept
    /// its own output must allow for that length.
    pub fn parse_with_max_len(input: &str, max_len: usize) -> Result<Ordinal, ParseError> {
        if input.len() > max_len {
            return Err(ParseError {
                kind: ParseErrorKind::TooLong {
                    len: input.len(),
                    max: max_len,
                },
                column: 1,
                byte_offset: 0,
            });
        }
        let mut p = Parser {
            src: input,
            pos: 0,
            depth: 0,
            work: 0,
        };
        p.skip_ws();
        if p.peek().is_none() {
            return Err(p.error_at(p.pos, ParseErrorKind::Empty));
        }
        let value = p.sum()?;
        p.skip_ws();
        match p.peek() {
            None => Ok(value),
            Some(_) => Err(p.unexpected("'+', '*', '^' or the end of the input")),
        }
    }
}

impl FromStr for Ordinal {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ordinal::parse(s)
    }
}

/// Recursive-descent parser that evaluates as it goes.
struct Parser<'a> {
    src: &'a str,
    /// Byte offset of the next unread character.
    pos: usize,
    depth: usize,
    /// Terms produced so far by products and powers (see [`MAX_WORK`]).
    work: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }
    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }
    fn error_at(&self, byte_offset: usize, kind: ParseErrorKind) -> ParseError {
        let column = self.src[..byte_offset].chars().count() + 1;
        ParseError {
            kind,
            column,
            byte_offset,
        }
    }
    fn unexpected(&self, expected: &'static str) -> ParseError {
        let found = match self.peek() {
            Some(c) => format!("{c:?}"),
            None => "the end of the input".to_owned(),
        };
        self.error_at(self.pos, ParseErrorKind::Unexpected { expected, found })
    }
    /// Attach the operator's position to an arithmetic error; enforce [`MAX_NODES`] on sums
    /// (products and powers enforce it themselves; no operation but `^` raises the height, and
    /// [`Ordinal::checked_pow`] checks that).
    fn arith(&self, at: usize, r: Result<Ordinal, ArithError>) -> Result<Ordinal, ParseError> {
        r.and_then(|a| {
            if a.node_count() > MAX_NODES {
                Err(ArithError::TooLarge { max: MAX_NODES })
            } else {
                Ok(a)
            }
        })
        .map_err(|e| self.error_at(at, ParseErrorKind::Arithmetic(e)))
    }
    /// Charge a product's or power's result to the work budget.
    fn charge(&mut self, at: usize, r: Result<Ordinal, ParseError>) -> Result<Ordinal, ParseError> {
        let a = r?;
        self.work += a.node_count();
        if self.work > MAX_WORK {
            return Err(self.error_at(at, ParseErrorKind::TooMuchWork { max: MAX_WORK }));
        }
        Ok(a)
    }
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_at(self.pos, ParseErrorKind::TooDeep { max: MAX_NESTING }));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<Ordinal, ParseError> {
        let mut acc = self.product()?;
        loop {
            self.skip_ws();
            if self.peek() != Some('+') {
                return Ok(acc);
            }
            let at = self.pos;
            self.bump();
            let rhs = self.product()?;
            acc = self.arith(at, acc.add_owned(rhs))?;
        }
    }

    fn product(&mut self) -> Result<Ordinal, ParseError> {
        let mut acc = self.power()?;
        loop {
            self.skip_ws();
            if !matches!(self.peek(), Some('*' | '·' | '⋅' | '×')) {
                return Ok(acc);
            }
            let at = self.pos;
            self.bump();
            let rhs = self.power()?;
            let r = self.arith(at, acc.mul_owned(&rhs));
            acc = self.charge(at, r)?;
        }
    }

    fn power(&mut self) -> Result<Ordinal, ParseError> {
        let base = self.atom()?;
        self.skip_ws();
        if self.peek() != Some('^') {
            return Ok(base);
        }
        let at = self.pos;
        self.bump();
        self.enter()?;
        let exp = self.power()?;
        self.depth -= 1;
        let r = self.arith(at, base.checked_pow(&exp));
        self.charge(at, r)
    }

    fn atom(&mut self) -> Result<Ordinal, ParseError> {
        const EXPECTED: &str = "a number, 'w', 'ω' or '('";
        self.skip_ws();
        match self.peek() {
            Some('w' | 'ω') => {
                self.bump();
                Ok(Ordinal::omega())
            }
            Some('(') => {
                self.bump();
                self.enter()?;
                let inner = self.sum()?;
                self.skip_ws();
                if self.peek() != Some(')') {
                    return Err(self.unexpected("')'"));
                }
                self.bump();
                self.depth -= 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                let mut n: u64 = 0;
                while let Some(d) = self
                    .peek()
                    .and_then(|c| c.to_digit(10).filter(|_| c.is_ascii_digit()))
                {
                    n = n
                        .checked_mul(10)
                        .and_then(|n| n.checked_add(u64::from(d)))
                        .ok_or_else(|| self.error_at(start, ParseErrorKind::NumberTooLarge))?;
                    self.bump();
                }
                Ok(Ordinal::from(n))
            }
            _ => Err(self.unexpected(EXPECTED)),
        }
    }
}
