//! How a two-player game learns its evaluation (`train`), and the evaluation a weights file
//! gives its alpha-beta player (`alphabeta:weights=W`).

use cubesearch_core::{Game, Result, Stop};
use cubesearch_kernels::selfplay::DeviceTupleGame;
use cubesearch_kernels::GpuGame;
use cubesearch_learn::labels::{generate_positions, Generate, Label};
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{shapes_for, Dataset, NTupleNetwork};
use cubesearch_players::learned::Evaluated;
use cubesearch_search::Executor;
use cubesearch_train::{label_on, train, Fit, SelfPlayTd, TrainConfig, TrainProgress, TrainReport};
use std::path::Path;

/// What `train` and `label` need of a two-player game that learns its evaluation, by
/// self-play ([`SelfPlayTd`]) or fitted to labelled positions ([`Fit`]), made for it once: the
/// functions the command line cannot write without naming the game's learning bounds.
pub struct Learner<G: Game> {
    /// Tuple shapes from text: a named set of the game's or cell lists.
    pub shapes: fn(&str) -> Result<Vec<Vec<u8>>>,
    /// The one training loop, learning by self-play.
    pub train: TrainFn<G>,
    /// The one training loop, fitting the network to a dataset.
    pub fit: FitFn<G>,
    /// Reads a weights file of the game.
    pub load: fn(&Path) -> Result<NTupleNetwork>,
    /// Plays self-play games on a network and keeps their positions
    /// ([`generate_positions`]).
    pub generate: fn(&G, &NTupleNetwork, Generate, &Stop) -> Vec<G::State>,
    /// Labels positions by a search on a network, on the CPU or a GPU ([`label_on`]).
    pub label: LabelFn<G>,
}

/// [`Learner::train`].
pub type TrainFn<G> =
    fn(&G, &TrainConfig, &mut dyn FnMut(&TrainProgress)) -> Result<(NTupleNetwork, TrainReport)>;

/// [`Learner::fit`].
pub type FitFn<G> = fn(
    &G,
    &Dataset<G>,
    &TrainConfig,
    &mut dyn FnMut(&TrainProgress),
) -> Result<(NTupleNetwork, TrainReport)>;

/// [`Learner::label`].
pub type LabelFn<G> =
    fn(&Executor, &G, &NTupleNetwork, &[<G as Game>::State], &Label<G>) -> Result<Option<Vec<f32>>>;

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
            fit: |game, data, cfg, progress| train(Fit(game, data), cfg, progress),
            load: |path| Ok(NTupleNetwork::load::<G>(path, None)?.0),
            generate: generate_positions::<G>,
            label: label_on::<G>,
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
