//! The minimax / alpha-beta pipeline (the seed's study, generic over games).
//!
//! Values are negamax values from the side to move: `Game::score` at leaves (by default +1 win,
//! −1 loss, 0 unknown at the depth cut-off; a game with an evaluation scales finished games
//! above it). Strategies ([`Strategy`], by the names below):
//!
//! | name | where | shape |
//! |---|---|---|
//! | `cpu` | one CPU thread | iterative alpha-beta with the root window narrowing |
//! | `cpu-split` | all CPU cores | each root move searched with a full window on its own thread |
//! | `v1` | GPU | one cube per root move, one unit per second-level move, host picks the best |
//! | `v2` | GPU | v1 over the seed's compact stack: two words of counters a level instead of five |
//! | `v4` | GPU | as v1, and the reduction over root moves on the device: one word comes back |
//! | `frontier` | any executor | the upper plies (at most half the depth) expanded in full until some 10⁵ positions, the distinct ones searched by [`SubtreeSearch`] in one batch inside an aspiration window, the host backing the values up |
//! | `split` | any executor | null-window tests (MTD(f)) whose upper tree of depth s, pruned as alpha-beta would, is built on the host and whose frontier is searched to depth p = d − s by [`SubtreeSearch`] in one batch (Rocki & Suda's split with the pruning kept) |
//!
//! `cubesearch::minimax` shows a search on a game.

mod cpu;
mod frontier;
mod split;
mod upper;

pub use cpu::{
    alphabeta, order_by_score, solve_iterative, solve_root_split, solve_sequential, Deepened,
    MoveOrder, ProbCut, SearchOptions, TranspositionTable, PROBCUT_DEPTH, PROBCUT_REDUCTION,
};
pub use frontier::{
    solve_frontier, solve_frontier_with, FrontierOptions, ASPIRATION, FRONTIER_PER_BATCH,
};
pub use split::{solve_split, solve_split_tree, SplitShape, SplitTree};
pub use upper::{UpperTree, MAX_UPPER_TREE};

use cubesearch_core::{Error, Game, Result, SubtreeSearch};
use cubesearch_kernels::alphabeta::{RootSearch, RootShape};

/// Larger than any score (the device's `INFINITY`).
pub const INFINITY: i32 = 1 << 22;

/// A search result at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<M> {
    /// The best move (the first of equals in canonical order); `None` when the game is over or
    /// the depth is 0.
    pub best: Option<M>,
    /// The root's negamax value.
    pub value: i32,
    /// Positions visited, where the strategy counts them (every one but v4).
    pub nodes: Option<u64>,
}

impl<M> Solution<M> {
    /// The root taken as it is, when there is nothing to search (the game is over, or the
    /// depth is 0): its score, no move, one node.
    pub fn unsearched<G: Game<Move = M>>(game: &G, state: &G::State) -> Self {
        Solution {
            best: None,
            value: game.score(state),
            nodes: Some(1),
        }
    }
}

/// The index and value of the first maximum.
pub fn first_max(values: impl Iterator<Item = i32>) -> (usize, i32) {
    values.enumerate().fold(
        (0, i32::MIN),
        |(bi, bv), (i, v)| if v > bv { (i, v) } else { (bi, bv) },
    )
}

/// A minimax strategy (see the module docs for what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `cpu`: one CPU thread, the root window narrowing.
    Cpu,
    /// `cpu-split`: every root move on its own CPU task, full windows.
    CpuSplit,
    /// `v1`: one cube per root move, one unit per second-level move.
    V1,
    /// `v2`: v1 over the seed's compact stack.
    V2,
    /// `v4`: v1 with the reduction over root moves on the device.
    V4,
    /// `split`: MTD(f) null-window tests over a pruned host tree, the frontier in one batch.
    Split,
    /// `frontier`: the upper plies in full on the host, distinct subtrees in one batch.
    Frontier,
}

impl Strategy {
    /// Every strategy, in the order the module docs list them.
    pub const ALL: [Strategy; 7] = [
        Strategy::Cpu,
        Strategy::CpuSplit,
        Strategy::V1,
        Strategy::V2,
        Strategy::V4,
        Strategy::Split,
        Strategy::Frontier,
    ];

    /// The name `FromStr` reads and `Display` writes: `cpu`, `cpu-split`, `v1`, …
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Cpu => "cpu",
            Strategy::CpuSplit => "cpu-split",
            Strategy::V1 => "v1",
            Strategy::V2 => "v2",
            Strategy::V4 => "v4",
            Strategy::Split => "split",
            Strategy::Frontier => "frontier",
        }
    }

    /// The seed's root-search shape of v1, v2 and v4 (`None` for the others).
    pub fn root_shape(self) -> Option<RootShape> {
        match self {
            Strategy::V1 => Some(RootShape::V1),
            Strategy::V2 => Some(RootShape::V2),
            Strategy::V4 => Some(RootShape::V4),
            _ => None,
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;

    /// A strategy by its name; the error lists every name.
    fn from_str(text: &str) -> Result<Self> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                let (last, rest) = names.split_last().expect("strategies exist");
                Error::parse(format!(
                    "unknown strategy '{text}': {} or {last}",
                    rest.join(", ")
                ))
            })
    }
}

/// The GPU strategy a search gets unless it names one: `split` for games scored only as won,
/// drawn or lost (`MAX_SCORE` 1: MTD(f)'s null-window tests settle them in one or two batches,
/// keeping alpha-beta's pruning), `frontier` for games with a graded evaluation (where MTD(f)
/// needs many tests and its device subtrees lack move ordering; on Reversi the frontier
/// strategy is far faster: docs/BENCHMARKS.md, row "Alpha-beta `frontier`, against `split`").
pub fn default_gpu_strategy<G: cubesearch_kernels::GpuGame>() -> Strategy {
    if G::MAX_SCORE <= 1 {
        Strategy::Split
    } else {
        Strategy::Frontier
    }
}

/// The seed's v1 / v2 / v4 root searches ([`Strategy::root_shape`]): one cube per root move,
/// one unit per reply. GPU executors run them; the CPU executor refuses them.
pub trait RootSearcher<G: cubesearch_kernels::GpuGame> {
    /// The best root move's index in `game.moves(root)` order and the root's value, searched to
    /// `depth` (at least 2) in `shape`.
    fn root_search(
        &mut self,
        game: &G,
        root: &G::State,
        depth: u32,
        shape: RootShape,
    ) -> Result<RootSearch>;
}

/// Bytes of stack one unit of the GPU search holds for a subtree of `depth` plies: per level the
/// position (`words` u32) and five counters, or two packed words (`packed`, v2). Bounded by the
/// depth, never by the tree.
pub(crate) fn stack_bytes(depth: u32, words: usize, packed: bool) -> usize {
    depth as usize * (words + if packed { 2 } else { 5 }) * 4
}

/// A solved root with how it was searched.
#[derive(Clone, Debug)]
pub struct Solved<M> {
    /// Best move and value.
    pub solution: Solution<M>,
    /// Units the device ran (GPU strategies).
    pub units: Option<usize>,
    /// Device memory for the search stacks, in bytes (GPU strategies).
    pub stack_memory: Option<usize>,
    /// How the split or frontier strategy ran.
    pub split: Option<SplitShape>,
}

/// Searches `state` to `depth` by `strategy` (see the module docs) on `exec`: any executor that
/// runs subtree searches (split, frontier) and the seed's root searches (v1, v2, v4; the CPU
/// executor refuses them). The CPU strategies use no executor.
pub fn solve<G, E>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
    strategy: Strategy,
) -> Result<Solved<G::Move>>
where
    G: cubesearch_kernels::GpuGame,
    E: SubtreeSearch<G> + RootSearcher<G>,
{
    let plain = |solution| Solved {
        solution,
        units: None,
        stack_memory: None,
        split: None,
    };
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Ok(plain(Solution::unsearched(game, state)));
    }
    match strategy {
        Strategy::Cpu => Ok(plain(solve_sequential(
            game,
            state,
            depth,
            &mut SearchOptions::default(),
        ))),
        Strategy::CpuSplit => Ok(plain(solve_root_split(game, state, depth))),
        Strategy::V1 | Strategy::V2 | Strategy::V4 => {
            if depth < 2 {
                return Ok(plain(solve_root_split(game, state, depth)));
            }
            let shape = strategy.root_shape().expect("v1, v2 and v4 have a shape");
            let found = exec.root_search(game, state, depth, shape)?;
            let replies: usize = moves
                .iter()
                .map(|&m| game.moves(&game.apply(state, m)).len())
                .sum();
            let per_unit = stack_bytes(depth - 2, G::STATE_WORDS, shape == RootShape::V2);
            Ok(Solved {
                solution: Solution {
                    best: Some(moves[found.best as usize]),
                    value: found.value,
                    nodes: found.nodes,
                },
                units: Some(replies),
                stack_memory: Some(replies * per_unit),
                split: None,
            })
        }
        Strategy::Split | Strategy::Frontier => {
            let (solution, shape) = if strategy == Strategy::Frontier {
                solve_frontier(exec, game, state, depth)?
            } else {
                solve_split(exec, game, state, depth)?
            };
            let per_unit = stack_bytes(depth - shape.split, G::STATE_WORDS, false);
            Ok(Solved {
                solution,
                units: Some(shape.widest),
                stack_memory: Some(shape.widest * per_unit),
                split: Some(shape),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::frontier::distinct;
    use super::Strategy;

    #[test]
    fn strategies_read_back_their_names_and_an_unknown_one_lists_them_all() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
            assert_eq!(strategy.to_string(), strategy.name());
        }
        let err = "v3".parse::<Strategy>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown strategy 'v3': cpu, cpu-split, v1, v2, v4, split or frontier"
        );
    }

    #[test]
    fn distinct_keeps_first_appearances_and_maps_every_state() {
        let (unique, slot) = distinct(&[7, 3, 7, 9, 3, 7]);
        assert_eq!(unique, vec![7, 3, 9]);
        assert_eq!(slot, vec![0, 1, 0, 2, 1, 0]);
    }
}
