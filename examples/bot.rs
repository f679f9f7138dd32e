//! A bot that plays Welter's game against itself through the HTTP API and checks every answer.
//!
//! `cargo run --example bot -- http://127.0.0.1:8080 [seed] [games]`
//!
//! Each game starts from a random position (fixed seed: 6–10 coins on squares < 60); games
//! alternate normal and misère play. Every turn the player to move asks
//! `/v1/welter/winning-moves`, plays a winning move when there is one (a seeded choice among
//! them), else the smallest coin that can slide one square down. The bot verifies, and exits
//! non-zero on any inconsistency:
//! * the echoed position is the sorted position, `play` is echoed, moves are ordered by `from`;
//! * every returned move is legal (`from` occupied, `to < from`, `to` empty);
//! * the outcome agrees with the moves (N ⇔ some winning move, except the misère terminal
//!   position, which is N with no move) and the value agrees with `/v1/welter/value`;
//! * after a winning move `/v1/welter/value` reports the opponent's position P, and after any
//!   move out of a P-position it reports N;
//! * the player the first answer says wins (N: the first player) really wins.
//!
//! The game record is printed as it goes.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;

/// Total wall-clock budget of one run (every request also has its own timeout).
const RUN_BUDGET: Duration = Duration::from_secs(120);

#[derive(Debug, Deserialize)]
struct Move {
    from: u64,
    to: u64,
}

#[derive(Debug, Deserialize)]
struct MovesResponse {
    position: Vec<u64>,
    value: u64,
    outcome: String,
    play: String,
    moves: Vec<Move>,
}

#[derive(Debug, Deserialize)]
struct ValueResponse {
    position: Vec<u64>,
    coins: usize,
    value: u64,
    outcome: String,
}

/// SplitMix64: a tiny deterministic generator, so a seed always gives the same games.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Api {
    http: reqwest::Client,
    base: String,
    started: Instant,
    requests: u64,
}

impl Api {
    async fn post<T: for<'de> Deserialize<'de>>(
        &mut self,
        path: &str,
        body: serde_json::Value,
    ) -> Result<T, String> {
        if self.started.elapsed() > RUN_BUDGET {
            return Err(format!("run budget of {RUN_BUDGET:?} exceeded"));
        }
        self.requests += 1;
        let url = format!("{}{}", self.base, path);
        let resp = self
            .http
            .post(&url)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = resp.status();
        let text = resp
            .text()
            .await
            .map_err(|e| format!("POST {url}: reading the body: {e}"))?;
        if status != reqwest::StatusCode::OK {
            return Err(format!("POST {url} {body} -> {status}: {text}"));
        }
        serde_json::from_str(&text)
            .map_err(|e| format!("POST {url} {body}: unexpected body ({e}): {text}"))
    }

    async fn value(
        &mut self,
        position: &BTreeSet<u64>,
        play: &str,
    ) -> Result<ValueResponse, String> {
        let body = json!({ "position": position.iter().collect::<Vec<_>>(), "play": play });
        let r: ValueResponse = self.post("/v1/welter/value", body).await?;
        let sorted: Vec<u64> = position.iter().copied().collect();
        check(r.position == sorted, || {
            format!("value: echoed position {:?} != {:?}", r.position, sorted)
        })?;
        check(r.coins == position.len(), || {
            format!("value: coins {} != {}", r.coins, position.len())
        })?;
        check(r.outcome == "P" || r.outcome == "N", || {
            format!("value: outcome {:?}", r.outcome)
        })?;
        Ok(r)
    }
}

fn check(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

fn random_position(rng: &mut SplitMix64) -> BTreeSet<u64> {
    let coins = 6 + rng.below(5) as usize; // 6..=10
    let mut position = BTreeSet::new();
    while position.len() < coins {
        position.insert(rng.below(60));
    }
    position
}

/// The smallest coin whose square just below is empty (a legal move exists iff there is one).
fn fallback_move(position: &BTreeSet<u64>) -> Option<(u64, u64)> {
    position
        .iter()
        .copied()
        .find(|&c| c > 0 && !position.contains(&(c - 1)))
        .map(|c| (c, c - 1))
}

fn show(position: &BTreeSet<u64>) -> String {
    format!("{:?}", position.iter().collect::<Vec<_>>())
}

/// Plays one game; returns the number of moves made.
async fn play_game(
    api: &mut Api,
    rng: &mut SplitMix64,
    game: usize,
    mut position: BTreeSet<u64>,
    play: &str,
) -> Result<usize, String> {
    let players = ["A", "B"];
    println!(
        "game {game} ({play} play): start {} ({} coins), A moves first",
        show(&position),
        position.len()
    );
    let mut first_outcome: Option<String> = None;
    let mut turn = 0usize;
    loop {
        let mover = players[turn % 2];
        let sorted: Vec<u64> = position.iter().copied().collect();
        let r: MovesResponse = api
            .post(
                "/v1/welter/winning-moves",
                json!({ "position": sorted, "play": play }),
            )
            .await?;
        let ctx = format!("game {game} turn {} position {}", turn + 1, show(&position));
        check(r.position == sorted, || {
            format!("{}: echoed position {:?}", ctx, r.position)
        })?;
        check(r.play == play, || {
            format!("{}: echoed play {:?}", ctx, r.play)
        })?;
        check(r.outcome == "P" || r.outcome == "N", || {
            format!("{}: outcome {:?}", ctx, r.outcome)
        })?;
        for m in &r.moves {
            check(position.contains(&m.from), || {
                format!("{}: move {}->{}: `from` is empty", ctx, m.from, m.to)
            })?;
            check(m.to < m.from, || {
                format!(
                    "{}: move {}->{}: `to` is not below `from`",
                    ctx, m.from, m.to
                )
            })?;
            check(!position.contains(&m.to), || {
                format!("{}: move {}->{}: `to` is occupied", ctx, m.from, m.to)
            })?;
        }
        check(r.moves.windows(2).all(|w| w[0].from <= w[1].from), || {
            format!("{ctx}: moves not ordered by from")
        })?;
        let legal = fallback_move(&position);
        let terminal = legal.is_none();
        // N ⇔ a winning move exists — except the misère terminal position (N, no move at all).
        let expect_n = !r.moves.is_empty() || (terminal && play == "misere");
        check((r.outcome == "N") == expect_n, || {
            format!(
                "{}: outcome {} but {} winning moves (terminal: {terminal})",
                ctx,
                r.outcome,
                r.moves.len()
            )
        })?;
        let v = api.value(&position, play).await?;
        check(v.value == r.value && v.outcome == r.outcome, || {
            format!(
                "{}: winning-moves says {} {}, value says {} {}",
                ctx, r.value, r.outcome, v.value, v.outcome
            )
        })?;
        if first_outcome.is_none() {
            first_outcome = Some(r.outcome.clone());
        }
        let Some(fallback) = legal else {
            // No move possible: normal play, the mover loses; misère, the mover wins.
            let winner = if play == "normal" {
                players[(turn + 1) % 2]
            } else {
                mover
            };
            let predicted = if first_outcome.as_deref() == Some("N") {
                "A"
            } else {
                "B"
            };
            println!(
                "game {game}: {mover} cannot move at {} (value {}, {}); winner {winner} after {turn} moves",
                show(&position),
                r.value,
                r.outcome
            );
            check(winner == predicted, || {
                format!(
                    "game {game}: the start was {first_outcome:?} so {predicted} should win, but {winner} won"
                )
            })?;
            return Ok(turn);
        };
        // A winning move when there is one (chosen by the seeded generator), else the fallback.
        let (from, to, kind) = if r.moves.is_empty() {
            (fallback.0, fallback.1, "any")
        } else {
            let m = &r.moves[rng.below(r.moves.len() as u64) as usize];
            (m.from, m.to, "winning")
        };
        position.remove(&from);
        position.insert(to);
        let after = api.value(&position, play).await?;
        println!(
            "  {:>3}. {mover}: {:<40} value {:>3} {} -> {from:>2}->{to:<2} ({kind}, {} winning) => opponent {}",
            turn + 1,
            format!("{sorted:?}"),
            r.value,
            r.outcome,
            r.moves.len(),
            after.outcome
        );
        let want = if kind == "winning" { "P" } else { "N" };
        check(after.outcome == want, || {
            let got = &after.outcome;
            format!("{ctx}: after the {kind} move {from}->{to} the opponent's position is {got}, expected {want}")
        })?;
        turn += 1;
        // Each move lowers the sum of squares, so a game is finite; bound it anyway.
        check(turn <= 60 * 10, || {
            format!("game {game}: more than 600 moves")
        })?;
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20251122);
    let games: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    let http = match reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bot: cannot build the HTTP client: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut api = Api {
        http,
        base: base.trim_end_matches('/').to_owned(),
        started: Instant::now(),
        requests: 0,
    };
    let mut rng = SplitMix64(seed);
    let mut total_moves = 0;
    for game in 1..=games {
        let play = if game % 2 == 1 { "normal" } else { "misere" };
        let position = random_position(&mut rng);
        match play_game(&mut api, &mut rng, game, position, play).await {
            Ok(moves) => total_moves += moves,
            Err(e) => {
                eprintln!("bot: FAIL: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "bot: PASS ({games} games, {total_moves} moves, {} requests, seed {seed}, {:.1}s)",
        api.requests,
        api.started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
