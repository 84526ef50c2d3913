//! The limits of a network and the text its shapes and stages are written in: `0,1,2,3;4,5,6,7`
//! or a game's named set (`6tuple`), and stage thresholds (`16384,24576`).

use crate::game::TupleBoard;
use cubesearch_core::{Error, Result};

/// Most cells in one tuple: Edax's largest Othello patterns (edge + 2X, corner 2 × 5) have 10.
pub const MAX_TUPLE: usize = 10;
/// Most symmetries a game may share a tuple's weights over.
pub const MAX_SYMMETRIES: usize = 8;
/// Most index bits of one table (2^28 weights, 1 GiB).
pub const MAX_TABLE_BITS: u32 = 28;
/// Most weights in all tables and the gaps after them together (8 GiB): the trainer's AVX2
/// gathers take a weight's index as a signed 32-bit offset.
pub const MAX_WEIGHTS: usize = 1 << 31;
/// Most stages of a multi-stage network.
pub const MAX_STAGES: usize = 8;

/// Weights left unused after each table in the CPU's weights: 129 cache lines (8 KiB + 64 B).
///
/// 2048's `4x6patt` tables are 64 MiB each: back to back, each would start at the same place
/// in every cache's sets, and on the 2 MiB pages the trainer asks for, the caches index those
/// bits by the virtual address. A board's lookups of two tables whose shapes begin with the same
/// cells (`0,1,2,3,4,5` and `0,1,2,4,5,6`) then fall in the same sets and evict each other.
/// With the gap, table `t` moves `t ·` 129 lines on: `t` sets on in a 64-set L1, `129 t` in
/// a 2048-set L2. Of the gaps cachegrind tried (0 to 1,025 lines) this one missed least:
/// a fifth fewer L1 and a quarter fewer L2 misses a move than none. The
/// device keeps the tables packed ([`NTupleNetwork::lookup_layout`](super::NTupleNetwork::lookup_layout)).
pub const TABLE_GAP: usize = 129 * 16;

/// Reads stage thresholds written as stage-progress values ([`TupleBoard::stage_progress`]),
/// `16384` or `16384,24576` (empty: one stage).
pub fn parse_stages(text: &str) -> Result<Vec<u32>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|t| {
            t.trim().parse::<u32>().map_err(|_| {
                Error::parse(format!(
                    "bad stage thresholds '{text}': expected stage-progress values like 16384,24576"
                ))
            })
        })
        .collect()
}

/// Fails unless `thresholds` can be a network's: at most [`MAX_STAGES`] stages, stage-progress
/// values above 0, ascending.
pub fn check_stages(thresholds: &[u32]) -> Result<()> {
    if thresholds.len() >= MAX_STAGES {
        return Err(Error::parse(format!(
            "{} stages: a network has at most {MAX_STAGES}",
            thresholds.len() + 1
        )));
    }
    if thresholds.first() == Some(&0) || thresholds.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::parse(format!(
            "bad stage thresholds {}: stage-progress values above 0, ascending",
            format_stages(thresholds)
        )));
    }
    Ok(())
}

/// Writes stage thresholds as `8192,16384`.
pub fn format_stages(thresholds: &[u32]) -> String {
    thresholds
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads shapes written as cell lists, `0,1,2,3;4,5,6,7`.
pub fn parse_shapes(text: &str) -> Result<Vec<Vec<u8>>> {
    text.split(';')
        .map(|shape| {
            shape
                .split(',')
                .map(|c| {
                    c.trim().parse::<u8>().map_err(|_| {
                        Error::parse(format!(
                            "bad tuple shapes '{text}': expected cell lists like 0,1,2,3;4,5,6,7"
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

/// Reads shapes for game `G`: one of its named sets ([`TupleBoard::SHAPES`]) or cell lists
/// ([`parse_shapes`]).
pub fn shapes_for<G: TupleBoard>(text: &str) -> Result<Vec<Vec<u8>>> {
    let name = text.trim();
    if let Some((_, shapes)) = G::SHAPES.iter().find(|(n, _)| *n == name) {
        return Ok(shapes.iter().map(|s| s.to_vec()).collect());
    }
    parse_shapes(text).map_err(|_| {
        let names: Vec<&str> = G::SHAPES.iter().map(|(n, _)| *n).collect();
        Error::parse(format!(
            "bad tuple shapes '{text}': expected cell lists like 0,1,2,3;4,5,6,7 (or {})",
            names.join(", ")
        ))
    })
}

/// Game `G`'s default shapes: the first of its named sets.
pub fn default_shapes<G: TupleBoard>() -> Vec<Vec<u8>> {
    G::SHAPES.first().map_or_else(Vec::new, |(_, shapes)| {
        shapes.iter().map(|s| s.to_vec()).collect()
    })
}

/// Writes shapes as `0,1,2,3;4,5,6,7`.
pub fn format_shapes(shapes: &[Vec<u8>]) -> String {
    shapes
        .iter()
        .map(|s| {
            s.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}
