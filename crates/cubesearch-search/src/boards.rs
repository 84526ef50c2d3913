//! The seed's board classes (2.6): boards taken from an agent's games by how far into the game
//! they are. A board at move `i` of a game of `T` moves is at `i / T` of its history: starter
//! boards lie in 0–5 %, normal boards in 40–60 %, late-game boards in 95–100 %. The search
//! time of expectimax depends on the class (late boards have many dead subtrees), so the
//! benchmarks time each class on a fixed set kept in the repo as text, one board a line:
//! `class position` (e.g. `normal 1,2,0,...`), `#` starting a comment.

use crate::expectimax::StochasticGameRecord;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result, StochasticGame};

/// A board class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardClass {
    /// 0–5 % of a game.
    Starter,
    /// 40–60 %.
    Normal,
    /// 95–100 %.
    Late,
}

impl BoardClass {
    /// Every class, in the seed's order.
    pub const ALL: [BoardClass; 3] = [BoardClass::Starter, BoardClass::Normal, BoardClass::Late];

    /// The name in board files and tables.
    pub fn name(self) -> &'static str {
        match self {
            BoardClass::Starter => "starter",
            BoardClass::Normal => "normal",
            BoardClass::Late => "late",
        }
    }

    /// The share of a game's history the class covers, in percent.
    pub fn percent(self) -> (u32, u32) {
        match self {
            BoardClass::Starter => (0, 5),
            BoardClass::Normal => (40, 60),
            BoardClass::Late => (95, 100),
        }
    }

    /// The moves `i` of a `moves`-move game with `i / moves` in the class (never empty for a
    /// game of at least one move).
    pub fn moves(self, moves: usize) -> std::ops::Range<usize> {
        let (lo, hi) = self.percent();
        let at = |p: u32| (moves * p as usize).div_ceil(100);
        let start = at(lo).min(moves.saturating_sub(1));
        start..at(hi).clamp(start + 1, moves.max(1))
    }
}

impl std::str::FromStr for BoardClass {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| Error::parse(format!("bad board class '{s}': starter, normal or late")))
    }
}

/// One board of each class from every game that kept its history, each drawn uniformly within
/// its range with `XorShift32::for_worker(seed, game)`.
pub fn pick<S: Copy>(records: &[StochasticGameRecord<S>], seed: u32) -> Vec<(BoardClass, S)> {
    let mut out = Vec::new();
    for class in BoardClass::ALL {
        for (g, r) in records.iter().enumerate() {
            if r.history.is_empty() {
                continue;
            }
            let mut rng = XorShift32::for_worker(seed ^ class as u32, g as u32);
            let range = class.moves(r.history.len());
            let i = range.start + rng.below(range.len() as u32) as usize;
            out.push((class, r.history[i]));
        }
    }
    out
}

/// Writes boards as a board file, after `header` (each of its lines becomes a comment).
pub fn format<G: StochasticGame>(
    game: &G,
    header: &str,
    boards: &[(BoardClass, G::State)],
) -> String {
    let mut out: String = header.lines().map(|l| format!("# {l}\n")).collect();
    for (class, b) in boards {
        out += &format!("{} {}\n", class.name(), game.format_position(b));
    }
    out
}

/// Reads a board file; each board must have a legal action (a benchmark root).
pub fn parse<G: StochasticGame>(game: &G, text: &str) -> Result<Vec<(BoardClass, G::State)>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: Error| Error::parse(format!("board file line {}: {e}", n + 1));
        let (class, position) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| at(Error::parse("expected 'class position'")))?;
        let class: BoardClass = class.parse().map_err(at)?;
        let board = game.parse_position(position.trim()).map_err(at)?;
        if game.is_over(&board) {
            return Err(at(Error::parse("the board has no legal move")));
        }
        out.push((class, board));
    }
    if out.is_empty() {
        return Err(Error::parse("the board file holds no boards"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ranges_cover_the_seeds_percentages() {
        assert_eq!(BoardClass::Starter.moves(1000), 0..50);
        assert_eq!(BoardClass::Normal.moves(1000), 400..600);
        assert_eq!(BoardClass::Late.moves(1000), 950..1000);
        // Short games still give one board of each class.
        for class in BoardClass::ALL {
            for moves in 1..30 {
                let r = class.moves(moves);
                assert!(!r.is_empty() && r.end <= moves, "{class:?} {moves}: {r:?}");
            }
        }
        assert_eq!(BoardClass::Late.moves(10), 9..10);
    }
}
