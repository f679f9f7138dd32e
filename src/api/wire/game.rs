//! The HTTP vocabulary every game endpoint shares: the rules of play, who wins, a move of one
//! coin (the serialisable mirror of [`crate::core::game`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::core::game;

/// Normal play (whoever cannot move loses) or misère play (whoever cannot move wins).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Play {
    #[default]
    Normal,
    Misere,
}

// By hand rather than derived: serde_json reports a non-string enum value as a *syntax*
// error ("expected value"), which would be a misleading 400; this says what is wrong.
impl<'de> Deserialize<'de> for Play {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Play;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the string \"normal\" or \"misere\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Play, E> {
                match v {
                    "normal" => Ok(Play::Normal),
                    "misere" | "misère" => Ok(Play::Misere),
                    other => Err(E::unknown_variant(other, &["normal", "misere"])),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Play {
    /// The request's play as written in JSON (and in cache keys).
    pub fn as_str(self) -> &'static str {
        match self {
            Play::Normal => "normal",
            Play::Misere => "misere",
        }
    }
}

impl From<Play> for game::Play {
    fn from(p: Play) -> Self {
        match p {
            Play::Normal => game::Play::Normal,
            Play::Misere => game::Play::Misere,
        }
    }
}

/// `P`: the previous player (who just moved) wins; `N`: the next player (to move) wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Outcome {
    P,
    N,
}

impl From<game::Outcome> for Outcome {
    fn from(o: game::Outcome) -> Self {
        match o {
            game::Outcome::P => Outcome::P,
            game::Outcome::N => Outcome::N,
        }
    }
}

/// A move: slide the coin on `from` to the empty square `to < from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Move {
    pub from: u64,
    pub to: u64,
}

impl From<game::Move> for Move {
    fn from(m: game::Move) -> Self {
        Move {
            from: m.from,
            to: m.to,
        }
    }
}
