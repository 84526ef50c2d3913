//! The device twin of `cubesearch_core::Game`.

use cubecl::prelude::*;
use cubesearch_core::Game;

/// Outcome codes, seen from the side to move; equal to `cubesearch_core::Outcome::code()`.
pub const ONGOING: u32 = 0;
/// The side to move has lost.
pub const LOSS: u32 = 1;
/// The side to move has won.
pub const WIN: u32 = 2;
/// Nobody won.
pub const DRAW: u32 = 3;

/// A game's rules on the device. Implemented once per game with `#[cube] impl`; every search
/// kernel is generic over it. `child(state, i)` must equal the host's `apply(state, moves[i])`
/// for the host's canonical move order, which the parity tests check.
///
/// The device twin of the pile game in `cubesearch_core::Game`'s example (take one or two
/// stones, taking the last one wins); `examples/connect4.rs` pairs a larger one with its host
/// rules and searches it on every backend.
/// ```
/// use cubecl::prelude::*;
/// use cubesearch_kernels::device_game::{DeviceGame, LOSS, ONGOING};
/// use cubesearch_kernels::rng;
///
/// #[derive(CubeType, Clone, Copy)]
/// pub struct Pile {
///     stones: u32,
/// }
///
/// pub struct DevicePile;
///
/// #[cube]
/// impl DeviceGame for DevicePile {
///     type State = Pile;
///
///     fn load(words: &Array<u32>, offset: usize) -> Pile {
///         Pile { stones: words[offset] }
///     }
///     fn store(s: &Pile, words: &mut Array<u32>, offset: usize) {
///         words[offset] = s.stones;
///     }
///     fn outcome(s: &Pile) -> u32 {
///         select(s.stones == 0u32, LOSS, ONGOING)
///     }
///     fn score(s: &Pile) -> i32 {
///         select(s.stones == 0u32, -1i32, 0i32)
///     }
///     fn move_count(s: &Pile) -> u32 {
///         select(s.stones >= 2u32, 2u32, s.stones)
///     }
///     // Move i takes i + 1 stones, as the host lists them: [1, 2].
///     fn play(s: &mut Pile, index: u32) {
///         s.stones -= index + 1u32;
///     }
///     fn play_out(s: &mut Pile, state: &mut u32) -> u32 {
///         let mut plies = 0u32;
///         while s.stones > 0u32 {
///             let pick = rng::below(state, Self::move_count(s));
///             Self::play(s, pick);
///             plies += 1u32;
///         }
///         plies
///     }
/// }
/// ```
#[cube]
pub trait DeviceGame: 'static + Send + Sync {
    /// A position in registers.
    type State: CubeType + Clone + Copy;

    /// Reads the state stored at `words[offset..offset + STATE_WORDS]`.
    fn load(words: &Array<u32>, offset: usize) -> Self::State;
    /// Stores `state` at `words[offset..offset + STATE_WORDS]`.
    fn store(state: &Self::State, words: &mut Array<u32>, offset: usize);
    /// [`ONGOING`], [`LOSS`], [`WIN`] or [`DRAW`] for the side to move.
    fn outcome(state: &Self::State) -> u32;
    /// The negamax value of `state` for the side to move: exact for a finished game, a heuristic
    /// otherwise (see the host's `Game::score`, which it must equal).
    fn score(state: &Self::State) -> i32;
    /// How many legal moves `state` has.
    fn move_count(state: &Self::State) -> u32;
    /// Plays legal move number `index` (`index < move_count`) in place.
    fn play(state: &mut Self::State, index: u32);
    /// Plays uniformly drawn legal moves in place until the game is over and returns how many it
    /// played: each is move number `next(rng) % move_count`, which is what the host's playouts
    /// draw too. One method for the whole game, not one per move, so a game can carry what it
    /// learns about a position (such as its legal placements) from one move to the next.
    fn play_out(state: &mut Self::State, rng: &mut u32) -> u32;
}

/// A host game with a device twin.
pub trait GpuGame: Game {
    /// The device rules.
    type Device: DeviceGame;
    /// A bound on `|score|`. The `v2` search packs values into 16 bits and refuses a game whose
    /// bound is larger; the default (unknown) is refused.
    const MAX_SCORE: i32 = i32::MAX;
    /// A bound on the loop iterations one step of a device walk takes inside the game's rules
    /// (`play`, then `move_count` and `score` of the child). A device that stops long loops
    /// (lavapipe: 65,535 a unit) gets launches of that budget over this many steps; too low a
    /// bound gives wrong counts, which the parity tests catch, too high only more launches.
    /// An `#[unroll]`ed loop costs none: rules whose loops are all unrolled may set 1, which
    /// made the v1, v2 and v4 root searches 2–3× faster on lavapipe.
    const LOOPS_PER_STEP: u32 = 256;
}
