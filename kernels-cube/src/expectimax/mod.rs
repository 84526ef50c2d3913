//! Expectimax on the device (seed 4.4), generic over the game ([`DeviceStochasticGame`]) and
//! valued by an n-tuple network ([`crate::ntuple`]): no kernel has a game-specific branch.
//!
//! The tree of an X-layer search from one root is addressed by paths of digits: the root
//! action `a0`, then X times a chance outcome `o` and an action. Actions and outcomes are
//! numbered in slots padded to powers of two ([`TreeShape`]; a padded slot is never legal or
//! possible), so a node's children are `A` action slots and an afterstate's are `O·A`
//! (outcome, action) slots, one *block*. Digit position `j`: `a0` is 0, `o_k` is `2k − 1`, `a_k`
//! is `2k`. A path's *entry* is `(value, len)`: `len` counts its leading valid digits (an
//! action is valid when it is legal, an outcome when it is possible; everything under an
//! invalid digit is invalid) and `value` is the rewards collected along the valid prefix, plus
//! V(afterstate) when the whole path is valid. Entries are in path order (the deepest digits
//! fastest), so sibling leaves are contiguous:
//!
//! * [`naive`]: one unit per root-to-leaf path replays its whole path (seed Algorithm 1) and
//!   writes its entry;
//! * [`multilevel`]: one kernel per depth, each node computed once from its parent, and units
//!   under an invalid parent doing nothing but copying its entry. The kernel making the deepest
//!   afterstates lists the live (valid) ones; the last kernel plays each listed afterstate's
//!   block of leaves in one cube and folds them there, so the leaf entries (the largest level)
//!   never reach memory and no cube visits a dead subtree. It numbers outcomes through
//!   [`DeviceStochasticGame::chance_packed`], so a game may put the possible ones first.
//!
//! [`reduce`] folds each block of sibling entries into its parent's entry (seed Algorithm 2):
//! the max over the actions of each player node (a node with no valid action keeps its prefix
//! rewards: a finished game is worth no more), then the probability-weighted mean over the
//! possible outcomes, in shared memory or with plane ops where the device has 32-unit planes
//! and the block fits them. The last fold and the root step are one kernel: it picks each
//! root's best action and writes all its results in one buffer. Only the roots go up and the
//! per-root results come down, in one read; the outcome probabilities are formed on the host
//! and uploaded once, the network's weights are uploaded once ([`launch::DeviceNetwork`]) and
//! its lookups compiled into the kernels ([`NetLayout`](crate::ntuple::NetLayout)), and a
//! search's buffers are kept for the next ([`launch::Workspace`]).

pub mod launch;
pub mod multilevel;
pub mod naive;
pub mod reduce;

use crate::stochastic::{act_slot, chance_slot, Acted, DeviceStochasticGame, GpuStochasticGame};
use cubecl::prelude::*;

/// The fan-out of one layer of a search tree, as compile-time data of its kernels: the game's
/// actions and chance outcome slots, each padded to a power of two.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub struct TreeShape {
    /// The game's actions.
    pub actions: u32,
    /// The game's chance outcome slots.
    pub outcomes: u32,
}

impl TreeShape {
    /// The shape of game `G`'s trees.
    pub fn of<G: GpuStochasticGame>() -> Self {
        Self {
            actions: G::ACTIONS.len() as u32,
            outcomes: G::OUTCOMES,
        }
    }

    /// Action slots of a player node: the actions padded to a power of two.
    pub fn action_slots(self) -> u32 {
        self.actions.next_power_of_two()
    }

    /// Outcome slots of an afterstate: the outcomes padded to a power of two.
    pub fn outcome_slots(self) -> u32 {
        self.outcomes.next_power_of_two()
    }

    /// Children of one afterstate one layer down, one reduction block (and the units of the
    /// cubes that fold one): outcome slots × action slots.
    pub fn block(self) -> u32 {
        self.outcome_slots() * self.action_slots()
    }
}

/// Action slot `action` played in place ([`act_slot()`]).
#[cube]
pub fn act_in<G: DeviceStochasticGame>(
    state: &mut G::State,
    action: u32,
    #[comptime] tree: TreeShape,
) -> Acted {
    act_slot::<G>(
        state,
        action,
        comptime!(tree.actions),
        comptime!(tree.action_slots()),
    )
}

/// Outcome slot `outcome` applied in place ([`chance_slot()`]), `packed` or not.
#[cube]
pub fn chance_in<G: DeviceStochasticGame>(
    state: &mut G::State,
    outcome: u32,
    #[comptime] tree: TreeShape,
    #[comptime] packed: bool,
) -> bool {
    chance_slot::<G>(
        state,
        outcome,
        comptime!(tree.outcomes),
        comptime!(tree.outcome_slots()),
        packed,
    )
}

/// Counter of the live deepest afterstates, in a multilevel search's counters buffer.
pub const LIVE: usize = 0;
/// Counter of the distinct ones (one of each key, [`multilevel::Transpositions::distinct`]).
pub const DISTINCT: usize = 1;
/// Words of a search's counters buffer, all zero between searches.
pub const COUNTERS: usize = 2;

/// Zeroes a search's counters for the next search (unit 0 of the root kernel).
#[cube]
pub fn clear_counters(counters: &mut Array<u32>) {
    #[unroll]
    for c in 0..COUNTERS {
        counters[c] = 0u32;
    }
}
