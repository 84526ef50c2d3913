//! Temporal coherence (see the parent module's docs): two sums a weight beside the weights, and
//! each change scaled by its weight's rate.

use super::sums::{add, floats, read};
use super::NTupleNetwork;
use crate::memory::WeightMemory;
use cubesearch_core::Result;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Temporal coherence's two sums per weight (see the module docs).
#[derive(Debug)]
pub(super) struct Coherence {
    /// `E`: the sum of the changes asked of each weight.
    pub(super) sums: WeightMemory,
    /// `A`: the sum of their sizes.
    pub(super) sizes: WeightMemory,
}

impl Coherence {
    pub(super) fn zeroed(len: usize) -> Result<Self> {
        Ok(Coherence {
            sums: WeightMemory::zeroed(len)?,
            sizes: WeightMemory::zeroed(len)?,
        })
    }

    /// `E` (`k` = 0) or `A` (1).
    pub(super) fn table(&self, k: usize) -> &WeightMemory {
        if k == 0 {
            &self.sums
        } else {
            &self.sizes
        }
    }

    /// Over `range`: each sum takes what the `learners` among `copies` (copies of these sums)
    /// added to it, in their order, and every copy takes the result.
    pub(super) fn merge(
        &self,
        copies: &[&Coherence],
        learners: &[usize],
        range: std::ops::Range<usize>,
    ) {
        for i in range {
            for k in 0..2 {
                let base = read(&self.table(k)[i]);
                let added = learners
                    .iter()
                    .fold(0.0, |sum, &c| sum + (read(&copies[c].table(k)[i]) - base));
                let merged = (base + added).to_bits();
                self.table(k)[i].store(merged, Relaxed);
                for c in copies {
                    c.table(k)[i].store(merged, Relaxed);
                }
            }
        }
    }

    /// Asks `delta` of weight `i` of `weights`: it moves by `delta ·` [`coherence_rate`], and
    /// the sums take the change.
    #[inline(always)]
    pub(super) fn add(&self, weights: &[AtomicU32], i: usize, delta: f32) {
        let (sum, size) = (&self.sums[i], &self.sizes[i]);
        let (e, a) = (read(sum), read(size));
        add(&weights[i], delta * coherence_rate(e, a));
        sum.store((e + delta).to_bits(), Relaxed);
        size.store((a + delta.abs()).to_bits(), Relaxed);
    }
}

/// Temporal coherence's rate for a weight whose changes so far sum to `sum` and whose
/// changes' sizes sum to `size`: `|sum| / size`, 1 before any change (see the module docs),
/// and never above 1. `|sum|` cannot pass `size` unless threads that share one table without
/// locks store one thread's sum beside another's size; a rate above 1 would then multiply the
/// weight's changes for as long as the two stay apart. Every trainer, CPU and device, computes
/// it so.
#[inline(always)]
pub fn coherence_rate(sum: f32, size: f32) -> f32 {
    if size > 0.0 {
        (sum.abs() / size).min(1.0)
    } else {
        1.0
    }
}

impl NTupleNetwork {
    /// Turns temporal coherence on (see the module docs), every weight's sums at zero (its
    /// rate 1): the trainers then scale each change by its weight's rate.
    /// An error when its sums do not fit in memory.
    pub fn enable_coherence(&mut self) -> Result<()> {
        self.coherence = Some(Coherence::zeroed(self.weights.len())?);
        Ok(())
    }

    /// Whether the network learns with temporal coherence.
    pub fn coherent(&self) -> bool {
        self.coherence.is_some()
    }

    /// Temporal coherence's sums over table `t`, `E` then `A` (see the module docs), as
    /// [`Self::table`] gives its weights; `None` without coherence.
    pub fn coherence_table(&self, t: usize) -> Option<[Vec<f32>; 2]> {
        let range = self.table_range(t);
        let c = self.coherence.as_ref()?;
        Some([&c.sums, &c.sizes].map(|m| floats(&m[range.clone()])))
    }

    /// Temporal coherence's sums of every table, `E`'s tables then `A`'s, each as
    /// [`Self::coherence_table`] gives it; `None` without coherence.
    pub fn coherence_tables(&self) -> Option<[Vec<Vec<f32>>; 2]> {
        let c = self.coherence.as_ref()?;
        Some([&c.sums, &c.sizes].map(|m| {
            (0..self.tables())
                .map(|t| floats(&m[self.table_range(t)]))
                .collect()
        }))
    }

    /// [`Self::set_coherence_table`] for every table: `sums[t]` and `sizes[t]` are table `t`'s.
    pub fn set_coherence_tables(&mut self, sums: &[Vec<f32>], sizes: &[Vec<f32>]) -> Result<()> {
        for (t, (e, a)) in sums.iter().zip(sizes).enumerate() {
            self.set_coherence_table(t, e, a)?;
        }
        Ok(())
    }

    /// Overwrites temporal coherence's sums over table `t` (each as long as the table),
    /// turning coherence on first if it is off (every other weight's sums at zero).
    pub fn set_coherence_table(&mut self, t: usize, sums: &[f32], sizes: &[f32]) -> Result<()> {
        if self.coherence.is_none() {
            self.enable_coherence()?;
        }
        let range = self.table_range(t);
        let c = self.coherence.as_mut().expect("enabled above");
        for (memory, values) in [(&mut c.sums, sums), (&mut c.sizes, sizes)] {
            for (w, v) in memory[range.clone()].iter_mut().zip(values) {
                *w.get_mut() = v.to_bits();
            }
        }
        Ok(())
    }
}
