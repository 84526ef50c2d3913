//! How a two-player game learns its evaluation (`train`), and the evaluation a weights file
//! gives its alpha-beta player (`alphabeta:weights=W`).

use cubesearch_core::{Game, Result};
use cubesearch_kernels::selfplay::DeviceTupleGame;
use cubesearch_kernels::GpuGame;
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{shapes_for, NTupleNetwork};
use cubesearch_players::learned::Evaluated;
use cubesearch_train::{train, SelfPlayTd, TrainConfig, TrainProgress, TrainReport};
use std::path::Path;

/// What `train` needs of a two-player game that learns its evaluation by self-play
/// ([`SelfPlayTd`]), made for it once: the functions the command line cannot write without
/// naming the game's learning bounds.
pub struct Learner<G: Game> {
    /// Tuple shapes from text: a named set of the game's or cell lists.
    pub shapes: fn(&str) -> Result<Vec<Vec<u8>>>,
    /// The one training loop, learning by self-play.
    pub train: TrainFn<G>,
}

/// [`Learner::train`].
pub type TrainFn<G> =
    fn(&G, &TrainConfig, &mut dyn FnMut(&TrainProgress)) -> Result<(NTupleNetwork, TrainReport)>;

impl<G> Learner<G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    /// The learner of game `G`, on CPU threads or a GPU.
    pub const fn of() -> Self {
        Learner {
            shapes: shapes_for::<G>,
            train: |game, cfg, progress| train(SelfPlayTd(game), cfg, progress),
        }
    }
}

/// `game` scored by the network in weights file `path` (`alphabeta:weights=W`): its value times
/// `per_unit`, kept inside ±(`win` − 1) so that a won game (scored `win` or more) still ranks
/// above any position in play.
pub fn network_evaluation<G: TwoPlayerTupleGame>(
    path: &Path,
    game: G,
    per_unit: f32,
    win: i32,
) -> Result<Evaluated<G>> {
    let (net, _) = NTupleNetwork::load::<G>(path, None)?;
    Ok(Evaluated::new(
        game,
        Box::new(move |game, state| {
            let value = (net.value(game, *state) * per_unit).round();
            (value as i32).clamp(1 - win, win - 1)
        }),
    ))
}
