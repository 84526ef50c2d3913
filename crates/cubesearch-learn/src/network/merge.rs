//! Copies of a network that threads learn on, and how their changes merge back.

use super::coherence::Coherence;
use super::sums::read;
use super::{NTupleNetwork, NEXT_ID};
use crate::memory::WeightMemory;
use std::sync::atomic::Ordering::Relaxed;

impl NTupleNetwork {
    /// Refuses `count` replicas of this network when they, with it, would not fit in memory.
    pub fn check_replicas_fit(&self, count: usize) -> cubesearch_core::Result<()> {
        let tables = 1 + if self.coherence.is_some() { 2 } else { 0 };
        let bytes = (self.weights.len() * tables * std::mem::size_of::<u32>()) as u64;
        crate::memory::check_fits(
            bytes.saturating_mul(count as u64 + 1),
            &format!("{count} copies of the network (one a thread) and the network"),
        )
    }

    /// A network with the same shapes and weights (and its own [`Self::id`]). Its memory is
    /// the caller's to check first ([`Self::check_replicas_fit`]).
    pub fn replica(&self) -> NTupleNetwork {
        let copy_of = |from: &WeightMemory| {
            let copy = WeightMemory::zeroed(from.len())
                .expect("replicas' memory is checked before they are made");
            for (c, w) in copy.iter().zip(from.iter()) {
                c.store(w.load(Relaxed), Relaxed);
            }
            copy
        };
        let weights = copy_of(&self.weights);
        let coherence = self.coherence.as_ref().map(|c| Coherence {
            sums: copy_of(&c.sums),
            sizes: copy_of(&c.sizes),
        });
        NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: self.game.clone(),
            bits: self.bits,
            cells: self.cells,
            shapes: self.shapes.clone(),
            lookups: self.lookups.clone(),
            readers: self.readers.clone(),
            weights,
            tables: self.tables.clone(),
            stages: self.stages.clone(),
            stage_len: self.stage_len,
            stage_stride: self.stage_stride,
            coherence,
        }
    }

    /// Over the weights in `range`: moves each weight by the mean change of the copies that
    /// changed it (summed in the copies' order), then sets every copy to the result. Each copy
    /// is a [`Self::replica`] of this network, learned on since it last equalled it; only the
    /// copies numbered in `learners` (in order) may have changed these weights.
    ///
    /// The mean, not the sum: copies that learned from the same common positions each moved
    /// those weights most of the way, and their sum overshoots (training diverged with it);
    /// a weight one copy alone changed keeps that copy's change. With temporal coherence, each
    /// weight's two sums take every copy's additions: they count every change asked of the
    /// weight.
    pub fn merge_copies(
        &self,
        copies: &[&NTupleNetwork],
        learners: &[usize],
        range: std::ops::Range<usize>,
    ) {
        for i in range.clone() {
            let base = read(&self.weights[i]);
            let (sum, changed) = learners.iter().fold((0.0, 0u32), |(sum, changed), &c| {
                let change = read(&copies[c].weights[i]) - base;
                (sum + change, changed + (change != 0.0) as u32)
            });
            let merged = (base + sum / changed.max(1) as f32).to_bits();
            self.weights[i].store(merged, Relaxed);
            for c in copies {
                c.weights[i].store(merged, Relaxed);
            }
        }
        if let Some(own) = &self.coherence {
            let theirs: Vec<&Coherence> = copies
                .iter()
                .map(|c| {
                    c.coherence
                        .as_ref()
                        .expect("a copy has its network's coherence")
                })
                .collect();
            own.merge(&theirs, learners, range);
        }
    }
}
