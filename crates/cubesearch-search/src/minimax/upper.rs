//! The upper plies of a search built on the host, level by level, whose frontier is searched
//! elsewhere (the split and frontier strategies).

use cubesearch_core::{Error, Game, Result};

/// Most positions an [`UpperTree`] holds (a few hundred MiB of host memory).
pub const MAX_UPPER_TREE: usize = 1 << 24;

/// The upper plies of one or more searches, built on the host level by level. Its frontier is
/// searched elsewhere (a device), and [`UpperTree::back_up`] finishes the minimax.
pub struct UpperTree<S> {
    states: Vec<S>,
    /// Children of node i: `children[i]`; a frontier or finished node has none.
    children: Vec<std::ops::Range<usize>>,
    /// The nodes whose values come from outside.
    frontier: std::ops::Range<usize>,
    /// Plies expanded.
    pub plies: u32,
}

impl<S: Copy> UpperTree<S> {
    /// Expands every root `plies` plies, or fewer: expansion stops once the frontier holds
    /// `target` positions (after at least one ply) or `max_plies` is reached. Fails, rather
    /// than exhaust memory, once the tree would pass [`MAX_UPPER_TREE`] positions.
    pub fn build<G: Game<State = S>>(
        game: &G,
        roots: &[S],
        max_plies: u32,
        target: usize,
    ) -> Result<Self> {
        let mut states = roots.to_vec();
        let mut children = vec![0..0; roots.len()];
        let mut level = 0..roots.len();
        let mut plies = 0;
        while plies < max_plies && (plies == 0 || level.len() < target) {
            let start = states.len();
            for i in level.clone() {
                if states.len() > MAX_UPPER_TREE {
                    return Err(Error::Unsupported(format!(
                        "the host's part of this search ({plies}+ plies from {} positions) passes {MAX_UPPER_TREE} positions: search less deep, or on a device whose loops are not limited",
                        roots.len()
                    )));
                }
                let first = states.len();
                let parent = states[i];
                states.extend(
                    game.moves(&parent)
                        .into_iter()
                        .map(|m| game.apply(&parent, m)),
                );
                children[i] = first..states.len();
            }
            children.resize(states.len(), 0..0);
            level = start..states.len();
            plies += 1;
        }
        Ok(Self {
            states,
            children,
            frontier: level,
            plies,
        })
    }

    /// Positions in the tree, frontier included.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether the tree holds no position.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The positions to search further.
    pub fn frontier(&self) -> &[S] {
        &self.states[self.frontier.clone()]
    }

    /// Negamax values of every node, given the frontier's values (in [`UpperTree::frontier`]
    /// order); nodes without children above the frontier are finished games, scored exactly.
    pub fn back_up<G: Game<State = S>>(&self, game: &G, frontier_values: &[i32]) -> Vec<i32> {
        let mut value = vec![0i32; self.states.len()];
        value[self.frontier.clone()].copy_from_slice(frontier_values);
        // Children always come after their parent.
        for i in (0..self.frontier.start).rev() {
            value[i] = if self.children[i].is_empty() {
                game.score(&self.states[i])
            } else {
                self.children[i]
                    .clone()
                    .map(|c| -value[c])
                    .max()
                    .expect("children exist")
            };
        }
        value
    }

    /// The root moves' values (for the side to move at root `r`) from the node values.
    pub fn root_move_values(&self, values: &[i32], r: usize) -> Vec<i32> {
        self.children[r].clone().map(|c| -values[c]).collect()
    }
}
