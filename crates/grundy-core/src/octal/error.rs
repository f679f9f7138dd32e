//! The one error type of the octal engine.
//!
//! Every fallible operation returns [`OctalError`]; nothing in this module panics on user input.
//! Parse errors name the offending character and its 0-based character position in the code as
//! given (after trimming surrounding whitespace), so the HTTP layer can echo them verbatim.

/// Everything that can go wrong in `crate::octal`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OctalError {
    // ----- parsing game codes -------------------------------------------------------------
    /// The code is empty (or only whitespace).
    #[error("empty game code")]
    EmptyCode,
    /// A character that is not a digit 0-9/A-F, '.', '(' or ')' (or not valid in `S(...)`).
    #[error("invalid character {ch:?} at position {pos} in game code")]
    InvalidChar { pos: usize, ch: char },
    /// A code of digits needs exactly one point, e.g. `0.07` or `.07`.
    #[error("missing '.' in game code (write e.g. \"0.{digits}\")")]
    MissingPoint { digits: String },
    /// A second '.'.
    #[error("second '.' at position {pos} in game code")]
    SecondPoint { pos: usize },
    /// Digits before the point may only contain the bits for splitting into 2 or 3 heaps.
    #[error(
        "digit {ch:?} at position {pos} is before the point; there only 0, 4, 8 and C are allowed \
         (a move that adds tokens must leave at least two heaps)"
    )]
    BitsBeforePoint { pos: usize, ch: char },
    /// '(' before the point, a second '(' or nested parentheses.
    #[error("unexpected '(' at position {pos}: one repeating block is allowed, after the point")]
    UnexpectedOpenParen { pos: usize },
    /// ')' without '('.
    #[error("unexpected ')' at position {pos}")]
    UnexpectedCloseParen { pos: usize },
    /// '(' never closed.
    #[error("repeating block opened at position {pos} is not closed")]
    UnclosedParen { pos: usize },
    /// `()`.
    #[error("empty repeating block at position {pos}")]
    EmptyRepeat { pos: usize },
    /// Anything after the closing parenthesis.
    #[error(
        "character {ch:?} at position {pos} after the repeating block; the block must end the code"
    )]
    TrailingAfterRepeat { pos: usize, ch: char },
    /// More digits than [`crate::octal::MAX_CODE_DIGITS`].
    #[error("game code has {len} digits; at most {max} are allowed")]
    CodeTooLong { len: usize, max: usize },
    /// Malformed `S(...)`.
    #[error("malformed subtraction set at position {pos}: {reason}")]
    BadSubtractionSet { pos: usize, reason: &'static str },
    /// A subtraction-set member outside 1..=max.
    #[error("subtraction set member {member} at position {pos} is out of range 1..={max}")]
    SubtractionMemberOutOfRange {
        pos: usize,
        member: String,
        max: u32,
    },
    /// A part rule on a game it is not defined for.
    #[error(
        "a rule on the parts of a split is only supported for finite codes whose moves leave at \
         most two heaps (not {code})"
    )]
    PartRuleUnsupported { code: String },

    // ----- computing ------------------------------------------------------------------------
    /// The `should_stop` callback asked to stop; everything computed so far is kept.
    #[error("computation stopped at n = {computed}")]
    Stopped { computed: usize },
    /// A requested length above the engine's hard limit.
    #[error("cannot compute {requested} values: the limit is {max}")]
    LengthTooLarge { requested: usize, max: usize },
    /// A Grundy value does not fit the engine's value type (never seen in practice).
    #[error("Grundy value at n = {n} exceeds the engine's value range")]
    ValueOverflow { n: usize },
    /// A computation would need more working memory than allowed.
    #[error("computing n = {n} would need about {words} words of working memory (limit {max})")]
    MemoryLimit { n: usize, words: usize, max: usize },
    /// A computation that keeps a window of values (see `Keep::Window`) needs a value it
    /// does not keep. Nothing was guessed: the engine stops with every value so far exact.
    #[error("heap {heap}: {detail}")]
    WindowTooSmall { heap: u64, detail: String },
    /// A window-mode computation could not read back dropped values from its archive
    /// (`archive.rs`: missing, failing its checksum, or the store unavailable). Nothing was
    /// guessed: every value before `heap`'s read is exact.
    #[error("reading back G({heap}…) from the archive: {detail}")]
    Archive { heap: u64, detail: String },
    /// Values given to `Engine::resume` are not a valid start (empty is fine; G(0) must be 0).
    #[error("invalid stored values: {reason}")]
    InvalidValues { reason: &'static str },

    // ----- queries ----------------------------------------------------------------------------
    /// The heap is beyond the computed values and no periodicity is proved.
    #[error(
        "g({heap}) is unknown: periodicity is not proved and the heap is beyond the computed \
         range (values are known for heaps 0..{computed})"
    )]
    HeapBeyondRange { heap: u64, computed: usize },
    /// An arithmetico-periodic value that does not fit in 64 bits.
    #[error("g({heap}) exceeds 2^64-1")]
    ValueTooLarge { heap: u64 },
    /// Too many heaps in a winning-move query.
    #[error("{count} heaps given; at most {max} are allowed")]
    TooManyHeaps { count: usize, max: usize },
    /// A cursor that was not produced by this engine for this position.
    #[error("invalid cursor: {reason}")]
    BadCursor { reason: &'static str },
}
