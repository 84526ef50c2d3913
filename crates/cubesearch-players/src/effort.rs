//! How big a search is before it starts, so that work that cannot end in any sensible time is
//! refused up front rather than left running without a word (the command line's `--force` runs
//! it anyway).
//!
//! The first plies are counted exactly on the CPU while a ply holds at most [`PROBE`]
//! positions; below, each ply is a sample of [`PROBE`] positions of the one above (every k-th),
//! expanded, and counts for the k it stands for: the estimate follows the game's own branching
//! ply by ply (Nim's shrinking piles, an endgame's thinning moves) down to the depth asked.
//! Perft counts every leaf.
//! Alpha-beta visits at least the minimal tree, even when it always tries the best move first
//! (Knuth & Moore 1975): `b^⌈d/2⌉ + b^⌊d/2⌋ − 1` leaves, about `2·√(perft)`. That lower bound is
//! what a search is refused on, so a refusal never turns away work that could end in time.

use cubesearch_core::backend::DeviceKind;
use cubesearch_core::{Error, Game, Result};
use cubesearch_search::perft::expand;

/// Positions the probe expands a ply further while it holds fewer than this.
pub const PROBE: usize = 20_000;

/// The size of a tree to a depth, counted to a ply and sampled below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeSize {
    /// The depth asked for.
    pub depth: u32,
    /// Plies counted exactly (the rest were sampled).
    pub counted: u32,
    /// Leaves at `depth` (perft), exact when `exact`.
    pub leaves: f64,
    /// The deepest ply's branching factor, for messages.
    pub branching: f64,
    /// Whether `leaves` was counted rather than sampled.
    pub exact: bool,
}

impl TreeSize {
    /// Counts `root`'s tree to `depth` while a ply holds at most [`PROBE`] positions, then
    /// samples it ply by ply.
    pub fn estimate<G: Game>(game: &G, root: &G::State, depth: u32) -> TreeSize {
        let mut frontier = vec![*root];
        // How many positions of its ply each one of `frontier` stands for.
        let mut scale = 1.0f64;
        let (mut ended, mut branching) = (0f64, 1f64);
        let (mut plies, mut counted) = (0u32, 0u32);
        while plies < depth && !frontier.is_empty() {
            if frontier.len() > PROBE {
                let every = frontier.len().div_ceil(PROBE);
                let sample: Vec<G::State> = frontier.iter().step_by(every).copied().collect();
                scale *= frontier.len() as f64 / sample.len() as f64;
                frontier = sample;
            }
            let (next, terminal) = expand(game, &frontier, 1);
            ended += terminal as f64 * scale;
            branching = next.len() as f64 / frontier.len() as f64;
            frontier = next;
            plies += 1;
            if scale == 1.0 {
                counted = plies;
            }
        }
        let exact = scale == 1.0;
        TreeSize {
            depth,
            counted,
            leaves: ended + frontier.len() as f64 * scale,
            branching,
            exact,
        }
    }

    /// Leaves of alpha-beta's minimal tree to the same depth: a lower bound on what any
    /// alpha-beta search visits, whatever its move order.
    pub fn minimal_tree(&self) -> f64 {
        let b = self.leaves.max(1.0).powf(1.0 / self.depth.max(1) as f64);
        let d = self.depth as i32;
        b.powi((d + 1) / 2) + b.powi(d / 2) - 1.0
    }

    /// How the estimate was made, for a message: `counted to ply 7, then 9.8 a ply`.
    pub fn how(&self) -> String {
        if self.exact {
            "counted".into()
        } else {
            format!(
                "counted to ply {}, then sampled ply by ply: {:.1} a ply at the last",
                self.counted, self.branching
            )
        }
    }
}

/// What a size is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Perft: leaves counted, at bulk-counting rates (about 1.7 × 10¹⁰ a second on an H200,
    /// 10⁸–10⁹ on a CPU; docs/BENCHMARKS.md, the perft rows).
    Perft,
    /// Alpha-beta: positions searched, far slower each than a perft leaf.
    Search,
    /// An exact solver's nodes, on one CPU thread (the Reversi endgame solver visits 29–32 M
    /// a second on CI's machine, FFO #40–#45).
    Exact,
}

/// Where work runs, for its rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hardware {
    /// CPU threads, and software devices that run on them (lavapipe).
    Cpu,
    /// A hardware GPU.
    Gpu,
}

impl Hardware {
    /// Where `exec` runs its work: a software device (lavapipe) at the CPU's rates, not an
    /// H200's.
    pub fn of(exec: &cubesearch_search::Executor) -> Self {
        match exec.limits() {
            Some(limits) if limits.kind == DeviceKind::Hardware => Hardware::Gpu,
            _ => Hardware::Cpu,
        }
    }
}

impl Work {
    /// The most a run may take without `--force`: about a day at the best rate measured here
    /// on `hardware`.
    pub fn limit(self, hardware: Hardware) -> f64 {
        match (self, hardware) {
            (Work::Perft, Hardware::Cpu) => 1e13,
            (Work::Perft, Hardware::Gpu) => 1e15,
            (Work::Search, Hardware::Cpu) => 1e11,
            (Work::Search, Hardware::Gpu) => 1e12,
            (Work::Exact, _) => 2e12,
        }
    }
}

/// Refuses `what` (`perft checkers depth 30`) when `size` is past [`Work::limit`], naming the
/// estimate and how it was made.
pub fn refuse_endless(what: &str, work: Work, size: &TreeSize, hardware: Hardware) -> Result<()> {
    let limit = work.limit(hardware);
    let (count, unit) = match work {
        Work::Perft => (size.leaves, "move paths"),
        Work::Exact => (size.leaves, "positions"),
        Work::Search => (
            size.minimal_tree(),
            "positions even with perfect move ordering",
        ),
    };
    if count <= limit {
        return Ok(());
    }
    Err(Error::Unsupported(format!(
        "{what} would take about {count:.1e} {unit} ({}): past {limit:.0e}, more than a day on {}; pass --force to run it anyway",
        size.how(),
        match hardware {
            Hardware::Cpu => "the CPU (or a software device on it)",
            Hardware::Gpu => "a GPU",
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_core::{Outcome, Result};
    use cubesearch_search::perft::perft;

    /// A game of `n` plies where each position has `n − ply` moves: perft(d) = n!/(n−d)!.
    struct Shrinking;

    impl Game for Shrinking {
        type State = u32;
        type Move = u32;
        const NAME: &'static str = "shrinking";
        const STATE_WORDS: usize = 1;
        fn initial(&self) -> u32 {
            9
        }
        fn legal_moves(&self, s: &u32, out: &mut Vec<u32>) {
            out.extend(0..*s);
        }
        fn apply(&self, s: &u32, _: u32) -> u32 {
            s - 1
        }
        fn outcome(&self, s: &u32) -> Outcome {
            if *s == 0 {
                Outcome::Loss
            } else {
                Outcome::Ongoing
            }
        }
        fn encode(&self, s: &u32, out: &mut [u32]) {
            out[0] = *s;
        }
        fn decode(&self, words: &[u32]) -> u32 {
            words[0]
        }
        fn parse_position(&self, text: &str) -> Result<u32> {
            text.parse().map_err(|_| Error::parse("a number"))
        }
        fn format_position(&self, s: &u32) -> String {
            s.to_string()
        }
        fn format_move(&self, _: &u32, m: u32) -> String {
            m.to_string()
        }
    }

    #[test]
    fn small_trees_are_counted_exactly() {
        // No ply of 7's tree holds PROBE positions (7! = 5,040).
        for depth in 0..=7 {
            let size = TreeSize::estimate(&Shrinking, &7, depth);
            assert!(size.exact, "depth {depth}");
            assert_eq!(size.leaves, perft(&Shrinking, &7, depth) as f64);
        }
        // Past the game's end the count stays exact: the tree ended.
        let size = TreeSize::estimate(&Shrinking, &3, 20);
        assert!(size.exact);
        assert_eq!(size.leaves, perft(&Shrinking, &3, 20) as f64);
    }

    #[test]
    fn large_trees_are_sampled_ply_by_ply() {
        // 12·11·10·9 = 11,880 ≤ PROBE < 12·11·10·9·8: five plies counted, then samples. This
        // game's factors (7, 6, 5) are the same at every position of a ply, so the samples give
        // the true count, where the fifth ply's ×8 a ply would have said 48,660,480.
        let size = TreeSize::estimate(&Shrinking, &12, 8);
        assert_eq!((size.counted, size.exact), (5, false));
        assert_eq!(size.leaves, perft(&Shrinking, &12, 8) as f64);
        assert_eq!(size.branching, 5.0);
        // The minimal tree of a uniform tree: b^⌈d/2⌉ + b^⌊d/2⌋ − 1.
        let uniform = TreeSize {
            depth: 5,
            counted: 5,
            leaves: 10f64.powi(5),
            branching: 10.0,
            exact: true,
        };
        assert!((uniform.minimal_tree() - (1000.0 + 100.0 - 1.0)).abs() < 1e-6);
    }

    #[test]
    fn only_work_past_the_limit_is_refused() {
        let size = |leaves: f64| TreeSize {
            depth: 20,
            counted: 6,
            leaves,
            branching: 8.0,
            exact: false,
        };
        assert!(
            refuse_endless("perft x depth 20", Work::Perft, &size(1e12), Hardware::Cpu).is_ok()
        );
        let refused = refuse_endless("perft x depth 20", Work::Perft, &size(1e14), Hardware::Cpu)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("perft x depth 20 would take about 1.0e14 move paths (counted to ply 6, then sampled ply by ply: 8.0 a ply at the last)"), "{refused}");
        assert!(refused.contains("--force"), "{refused}");
        assert!(refuse_endless("perft x", Work::Perft, &size(1e14), Hardware::Gpu).is_ok());
        // A search is held to its minimal tree: √(1e20)·2 = 2e10 positions is allowed on the
        // CPU, √(1e24)·2 = 2e12 is not.
        assert!(refuse_endless("solve", Work::Search, &size(1e20), Hardware::Cpu).is_ok());
        assert!(refuse_endless("solve", Work::Search, &size(1e24), Hardware::Cpu).is_err());
    }
}
