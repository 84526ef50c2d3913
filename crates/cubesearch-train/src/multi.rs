//! TD(0) on several GPUs of one process (`train --gpus K`, the seed's 4.6): a rank a device
//! ([`RankTd`]), each on a thread of its own, meeting through a [`LocalCollective`], which sums
//! their changes in host memory. Ranks in processes of their own, on one host or many, meet
//! through NCCL on the devices instead (`crate::ranks`, `cubesearch launch`); the meetings
//! are the same.

use crate::collective::LocalCollective;
use crate::engine::{TdEngine, TdGames};
use crate::gpu::GpuTd;
use crate::ranks::RankTd;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{Episode, NTupleNetwork, TupleGame};

/// TD(0) of game `G` on several GPUs (see the module docs).
pub struct MultiGpuTd<R: Runtime, G: GpuStochasticGame> {
    ranks: Vec<RankTd<R, G, LocalCollective>>,
}

impl<R: Runtime, G: GpuStochasticGame> MultiGpuTd<R, G> {
    /// A rank per client (a client per device; tests may pass one device twice).
    pub fn new(clients: &[ComputeClient<R>], units: Option<u32>, loop_budget: Option<u32>) -> Self {
        Self {
            ranks: clients
                .iter()
                .zip(LocalCollective::group(clients.len()))
                .map(|(c, group)| RankTd::new(GpuTd::new(c, units, loop_budget), group))
                .collect(),
        }
    }

    /// Every rank learning in `order` ([`GpuTd::with_order`]).
    pub fn with_order(self, order: cubesearch_learn::TdOrder) -> Self {
        self.map(|r| r.with_order(order))
    }

    /// Every rank meeting about every `interval` ([`RankTd::meeting_interval`]).
    pub fn meeting_interval(self, interval: std::time::Duration) -> Self {
        self.map(|r| r.meeting_interval(interval))
    }

    /// Every rank meeting every `launches` launches ([`RankTd::meeting_every`]).
    pub fn meeting_every(self, launches: u64) -> Self {
        self.map(|r| r.meeting_every(launches))
    }

    fn map(
        self,
        f: impl Fn(RankTd<R, G, LocalCollective>) -> RankTd<R, G, LocalCollective>,
    ) -> Self {
        Self {
            ranks: self.ranks.into_iter().map(f).collect(),
        }
    }

    /// Meetings held so far ([`RankTd::meetings`]).
    pub fn meetings(&self) -> u64 {
        self.ranks.first().map_or(0, |r| r.meetings())
    }
}

impl<R: Runtime, G: GpuStochasticGame + TupleGame> TdEngine<G> for MultiGpuTd<R, G> {
    /// Rank 0 plays the call on this thread while the others follow it on theirs.
    fn play(
        &mut self,
        game: &G,
        net: &NTupleNetwork,
        batch: TdGames,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let Some((leader, followers)) = self.ranks.split_first_mut() else {
            return Err(Error::Unsupported("multi-GPU training needs a GPU".into()));
        };
        std::thread::scope(|s| {
            let handles: Vec<_> = followers
                .iter_mut()
                .map(|f| {
                    s.spawn(move || {
                        let followed =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                f.follow(net)
                            }));
                        followed.unwrap_or_else(|_| {
                            // Let the others go rather than wait for this rank.
                            f.abandon();
                            Err(Error::Unsupported("a GPU rank's thread panicked".into()))
                        })
                    })
                })
                .collect();
            let led = leader
                .play(game, net, batch, on_game)
                .and_then(|_| leader.finish());
            let mut result = led;
            for h in handles {
                let followed = h.join().unwrap_or_else(|_| {
                    Err(Error::Unsupported("a GPU rank's thread panicked".into()))
                });
                result = result.and(followed.map(|_| ()));
            }
            result
        })
    }

    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        // Every rank holds the same weights after every call.
        match self.ranks.first_mut() {
            Some(rank) => rank.sync(net),
            None => Ok(()),
        }
    }

    fn parallelism(&self) -> usize {
        self.ranks.first().map_or(0, |r| r.parallelism())
    }

    fn set_stop(&mut self, stop: &Stop) {
        // The leader sends the time left with every call.
        if let Some(rank) = self.ranks.first_mut() {
            rank.set_stop(stop);
        }
    }

    fn games_between_clock_checks(&self) -> u64 {
        self.ranks
            .first()
            .map_or(1, |r| r.games_between_clock_checks())
    }

    fn occupancy(&self) -> Option<f64> {
        let seen: Vec<f64> = self.ranks.iter().filter_map(|r| r.occupancy()).collect();
        (!seen.is_empty()).then(|| seen.iter().sum::<f64>() / seen.len() as f64)
    }
}
