//! How trainers on several GPUs sum what they learned: a [`Collective`] is one rank's end of
//! an all-reduce. NCCL is the real one (`crate::nccl`, CUDA, one process a GPU, on one host or
//! many); [`LocalCollective`] is a stand-in of threads in one process that sums through host
//! memory, so the meeting logic (`crate::ranks`) runs wherever a GPU trainer runs, CI's
//! lavapipe included.

use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{Error, Result};
use std::sync::{Arc, Condvar, Mutex};

/// One rank's end of an all-reduce over `world` ranks. Every rank makes the same calls in the
/// same order; each call returns when every rank has made it, with the same sums on every rank.
pub trait Collective<R: Runtime>: Send {
    /// This rank, `0..world`.
    fn rank(&self) -> usize;
    /// Ranks taking part.
    fn world(&self) -> usize;
    /// Sums `values` element by element over every rank, in place (small host data: control
    /// words and finished games).
    fn sum_u64(&mut self, values: &mut [u64]) -> Result<()>;
    /// Sums the `len` f32 of `values`, a buffer on `client`'s device, over every rank; returns
    /// the buffer holding the sums (`values` itself, or a new one).
    fn sum_f32(&mut self, client: &ComputeClient<R>, values: Handle, len: usize) -> Result<Handle>;
    /// Called after this rank failed: the other ranks' calls should fail rather than wait for
    /// it (where the collective can tell them; NCCL ranks are stopped by their launcher).
    fn abandon(&mut self) {}
}

/// What one round of a [`LocalCollective`] sums.
#[derive(Clone, Debug)]
enum Values {
    U64(Vec<u64>),
    F32(Vec<f32>),
}

impl Values {
    /// Adds `other` element by element (rank order: the sum's bits do not depend on timing).
    fn add(&mut self, other: &Values) -> Result<()> {
        match (self, other) {
            (Values::U64(a), Values::U64(b)) if a.len() == b.len() => {
                a.iter_mut()
                    .zip(b)
                    .for_each(|(a, b)| *a = a.wrapping_add(*b));
            }
            (Values::F32(a), Values::F32(b)) if a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
            }
            _ => return Err(left("ranks made different calls")),
        }
        Ok(())
    }
}

fn left(why: &str) -> Error {
    Error::Unsupported(format!("a collective of local ranks failed: {why}"))
}

struct Round {
    /// Rounds completed.
    done: u64,
    /// This round's contributions, by rank.
    slots: Vec<Option<Values>>,
    /// The last completed round's sum.
    sum: Option<Arc<Values>>,
    /// Set when a rank is dropped: its partners would wait for it forever.
    broken: bool,
}

struct Shared {
    round: Mutex<Round>,
    completed: Condvar,
}

/// A rank of an all-reduce among threads of one process, through host memory: each rank's
/// values are read back from its device, summed on the host in rank order, and written to a
/// new device buffer. Dropping a rank breaks its group: the others' calls fail instead of
/// waiting for it.
pub struct LocalCollective {
    rank: usize,
    world: usize,
    shared: Arc<Shared>,
}

impl LocalCollective {
    /// The `world` ranks of one group, rank `i` at index `i`.
    pub fn group(world: usize) -> Vec<LocalCollective> {
        let shared = Arc::new(Shared {
            round: Mutex::new(Round {
                done: 0,
                slots: vec![None; world],
                sum: None,
                broken: false,
            }),
            completed: Condvar::new(),
        });
        (0..world)
            .map(|rank| LocalCollective {
                rank,
                world,
                shared: shared.clone(),
            })
            .collect()
    }

    /// Hands in `mine` and waits for the round's sum.
    fn exchange(&self, mine: Values) -> Result<Arc<Values>> {
        let mut round = self
            .shared
            .round
            .lock()
            .map_err(|_| left("a rank panicked"))?;
        if round.broken {
            return Err(left("a rank left the group"));
        }
        let this = round.done;
        round.slots[self.rank] = Some(mine);
        if round.slots.iter().all(Option::is_some) {
            let mut slots = round.slots.iter_mut().map(|s| s.take().expect("all in"));
            let mut sum = slots.next().expect("one rank at least");
            for other in slots {
                sum.add(&other)?;
            }
            round.sum = Some(Arc::new(sum));
            round.done += 1;
            self.shared.completed.notify_all();
        }
        while round.done == this {
            if round.broken {
                return Err(left("a rank left the group"));
            }
            round = self
                .shared
                .completed
                .wait(round)
                .map_err(|_| left("a rank panicked"))?;
        }
        // The next round cannot complete before this rank hands in again, so the sum is this
        // round's.
        Ok(round.sum.clone().expect("set when the round completed"))
    }
}

impl LocalCollective {
    /// Breaks the group: every call of every rank fails from now on.
    fn break_group(&self) {
        let mut round = self.shared.round.lock().unwrap_or_else(|e| e.into_inner());
        round.broken = true;
        self.shared.completed.notify_all();
    }
}

impl Drop for LocalCollective {
    fn drop(&mut self) {
        self.break_group();
    }
}

impl<R: Runtime> Collective<R> for LocalCollective {
    fn rank(&self) -> usize {
        self.rank
    }

    fn world(&self) -> usize {
        self.world
    }

    fn sum_u64(&mut self, values: &mut [u64]) -> Result<()> {
        match &*self.exchange(Values::U64(values.to_vec()))? {
            Values::U64(sum) => values.copy_from_slice(sum),
            Values::F32(_) => return Err(left("ranks made different calls")),
        }
        Ok(())
    }

    fn sum_f32(&mut self, client: &ComputeClient<R>, values: Handle, len: usize) -> Result<Handle> {
        let mine = cubesearch_kernels::launch::read::<R, f32>(client, values)?;
        if mine.len() < len {
            return Err(left("a buffer shorter than its length"));
        }
        match &*self.exchange(Values::F32(mine[..len].to_vec()))? {
            Values::F32(sum) => Ok(client.create_from_slice(f32::as_bytes(sum))),
            Values::U64(_) => Err(left("ranks made different calls")),
        }
    }

    fn abandon(&mut self) {
        self.break_group();
    }
}
