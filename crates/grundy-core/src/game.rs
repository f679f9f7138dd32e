//! The vocabulary every coin game shares: the rules of play, who wins, and a move of one coin.
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
