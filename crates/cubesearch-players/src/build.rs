//! Players from their specs: [`PlayerSpec::build`].

use crate::alphabeta::AlphaBetaPlayer;
use crate::builtin::{FlatPlayer, MctsPlayer, RandomPlayer, Simulations};
use crate::external::UgiPlayer;
use crate::learned::ValueLeaves;
use crate::player::{NamedPlayers, Player};
use crate::spec::{Exec, PlayerSpec};
use crate::text::SpecText;
use cubesearch_core::backend::Backend;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_search::mcts::{self, Budget, MctsConfig};

impl<G: NamedPlayers> PlayerSpec<G> {
    /// The player this spec names; `backend` is where `exec=gpu` runs, `seed` seeds its random
    /// choices. `human` is the caller's to provide (an error here).
    pub fn build(&self, backend: Backend, seed: u32) -> Result<Box<dyn Player<G>>> {
        match self {
            PlayerSpec::Human => Err(Error::Unsupported(
                "human: the caller provides the terminal player".into(),
            )),
            PlayerSpec::Random => Ok(Box::new(RandomPlayer::new(seed))),
            PlayerSpec::Flat(flat) => {
                let (exec, label) = flat.exec.executor(backend)?;
                Ok(Box::new(FlatPlayer {
                    k: flat.k,
                    time: flat.time,
                    exec,
                    label,
                    seed,
                    batches: 0,
                    stop: Stop::new(),
                }))
            }
            PlayerSpec::Mcts(mcts) => {
                // A timed search on a GPU gets a tree a core but one. A playout budget keeps one
                // tree, so its move is the same on every backend and host.
                let on_device = mcts.exec != Exec::Cpu && matches!(mcts.budget, Budget::Time(_));
                let config = MctsConfig {
                    budget: mcts.budget,
                    c: mcts.c,
                    leaf: mcts.leaf,
                    batch: mcts.batch,
                    trees: mcts.trees.unwrap_or(if on_device {
                        mcts::device_trees()
                    } else {
                        MctsConfig::default().trees
                    }),
                    seed,
                };
                let (exec, label) = match &mcts.weights {
                    Some(path) => (
                        Simulations::Values(ValueLeaves::new(G::learned_evaluation(path)?)),
                        "CPU, learned values".to_string(),
                    ),
                    None => {
                        let (exec, label) = mcts.exec.executor(backend)?;
                        (Simulations::Playouts(exec), label)
                    }
                };
                let mut player = MctsPlayer {
                    config,
                    exec,
                    label,
                    spec: mcts.text.clone(),
                    tree: None,
                    last: None,
                    stop: Stop::new(),
                };
                player.config.budget = player.counted(mcts.budget);
                Ok(Box::new(player))
            }
            PlayerSpec::AlphaBeta(ab) => match ab.exec {
                Exec::Cpu => {
                    let player = AlphaBetaPlayer::<G>::cpu(ab.limit, &ab.text);
                    Ok(Box::new(match &ab.weights {
                        Some(path) => player.with_evaluation(G::learned_evaluation(path)?),
                        None => player,
                    }))
                }
                Exec::Gpu => {
                    let (exec, label) = ab.exec.executor(backend)?;
                    // v1, v2 and v4 are device kernels: the CPU executor has none of them.
                    if exec.is_cpu() && ab.strategy.root_shape().is_some() {
                        return Err(SpecText::new(&ab.text).error(format!(
                            "strategy={} runs on a GPU, and --backend resolved to the CPU (pick split, frontier, cpu or cpu-split)",
                            ab.strategy
                        )));
                    }
                    Ok(Box::new(AlphaBetaPlayer::<G>::gpu(
                        ab.limit,
                        exec,
                        ab.strategy,
                        &label,
                        &ab.text,
                    )))
                }
            },
            PlayerSpec::Named(named) => G::named_player(named, backend, seed),
            PlayerSpec::Ugi(ugi) => Ok(Box::new(UgiPlayer::start(ugi)?)),
        }
    }
}
