//! Random reachable positions, the inputs of property and parity tests.

use cubesearch_core::rng::XorShift32;
use cubesearch_core::Game;

/// `count` positions reached by random games from the start, each cut after
/// `rng.below(max_plies)` plies or at the game's end (finished positions included). Deterministic
/// for a seed.
pub fn random_positions<G: Game>(
    game: &G,
    count: usize,
    max_plies: u32,
    seed: u32,
) -> Vec<G::State> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut moves = Vec::new();
    (0..count)
        .map(|_| {
            let mut board = game.initial();
            for _ in 0..rng.below(max_plies) {
                moves.clear();
                game.legal_moves(&board, &mut moves);
                if moves.is_empty() {
                    break;
                }
                board = game.apply(&board, moves[rng.below(moves.len() as u32) as usize]);
            }
            board
        })
        .collect()
}
