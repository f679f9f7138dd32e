//! The vocabulary every coin game shares: the rules of play, who wins, a move of one coin, the
//! limits and refusals of a list of squares, and the analysis of one position.
//! Welter's game, Max-Welter, Antonim, Antimatter and the explanations all speak it; the HTTP
//! layer has its own serialisable mirror (`api::wire::game`).

/// A winning (or targeted) move: slide the coin on `from` down to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    pub from: u64,
    pub to: u64,
}

/// Normal play (last mover wins) or misère play (last mover loses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Play {
    #[default]
    Normal,
    Misere,
}

/// Who wins with perfect play: `P` — the previous player, `N` — the next player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    P,
    N,
}

/// Largest accepted number of coins in a position of Max-Welter or Antonim (coins on 0
/// included).
pub const MAX_COINS: usize = 1_000_000;

/// A list of squares a coin game refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SquaresError {
    #[error("position has {coins} coins; at most {max} are allowed")]
    TooManyCoins { coins: usize, max: usize },
    #[error("square {0} holds more than one coin")]
    DuplicateSquare(u64),
}

/// Refuses a position of `coins` coins beyond [`MAX_COINS`], then sorts `squares` and refuses
/// a square listed twice.
pub fn sort_distinct(coins: usize, squares: &mut [u64]) -> Result<(), SquaresError> {
    if coins > MAX_COINS {
        return Err(SquaresError::TooManyCoins {
            coins,
            max: MAX_COINS,
        });
    }
    squares.sort_unstable();
    match squares.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(SquaresError::DuplicateSquare(w[0])),
        None => Ok(()),
    }
}

/// Value, outcome and every winning move of one position: `V` the value (`Option<u64>` where
/// it may lie beyond a budget), `M` a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis<V, M> {
    /// Normal-play Sprague–Grundy value.
    pub value: V,
    /// Outcome under the requested play.
    pub outcome: Outcome,
    /// Every move to a P-position under the requested play, in the game's order.
    pub moves: Vec<M>,
}
