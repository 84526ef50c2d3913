//! MCTS on checkers from code: a search with a playout budget on the GPU (or the CPU when none is
//! found), its statistics, and a few moves of a game that keeps the tree between moves.
//!
//! ```text
//! cargo run --release --example mcts_checkers
//! ```

use cubesearch::games::Checkers;
use cubesearch::mcts::{Budget, Mcts, MctsConfig};
use cubesearch::{Backend, Executor, Game};

fn main() -> cubesearch::Result<()> {
    let (mut exec, device) = Executor::new(Backend::Auto)?;
    let game = Checkers::default(); // the seed's rules: the longest capture is forced
    let config = MctsConfig {
        budget: Budget::Playouts(20_000),
        trees: 2, // root parallelism: two trees fill one launch
        seed: 7,
        ..MctsConfig::default()
    };
    let mut state = game.initial();
    let mut search = Mcts::new(state, config);
    println!("checkers on {device}");
    for ply in 1..=4 {
        let (Some(mv), stats) = search.search(&mut exec, &game)? else {
            break;
        };
        println!(
            "ply {ply}: {} ({} playouts, {} tree nodes, {:.2} s, waited for the device {:.0} %)",
            game.format_move(&state, mv),
            stats.playouts,
            stats.nodes,
            stats.seconds,
            100.0 * stats.wait_seconds / stats.seconds.max(1e-9)
        );
        // Keep the subtree under the move played for the next search.
        search.advance(&game, mv);
        state = game.apply(&state, mv);
    }
    println!("{}", game.display(&state));
    Ok(())
}
