//! The CPU move generator: a recursive walk over the geometry tables.
//!
//! Canonical order (the device twin reproduces it): moves by origin bit index, then by the
//! sequence of directions taken (up-right, up-left, down-left, down-right), compared step by step.

use super::board::{CheckersState, Rules, Side, GEOMETRY, NONE, ROW_1, ROW_8};

/// Most captures one move records (the packed path holds 15 directions).
pub const MAX_JUMPS: u32 = 15;

/// A move: a step or a capture sequence, told apart by its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckersMove {
    /// Origin bit index.
    pub from: u8,
    /// Destination bit index.
    pub to: u8,
    /// Pieces captured (0 for a step).
    pub jumps: u8,
    /// Directions taken, the first in bits 31..30, the next in 29..28, ... (a step has one).
    pub path: u32,
    /// Bits of the captured pieces.
    pub captured: u32,
}

impl CheckersMove {
    /// The direction of step `k`.
    pub fn direction(&self, k: u32) -> usize {
        ((self.path >> (30 - 2 * k)) & 3) as usize
    }

    /// The squares the piece stands on, origin first (bit indices).
    pub fn squares(&self) -> Vec<u8> {
        let mut out = vec![self.from];
        let mut at = self.from;
        for k in 0..(self.jumps as u32).max(1) {
            let d = self.direction(k);
            at = GEOMETRY.neighbour[at as usize][d];
            if self.jumps > 0 {
                at = GEOMETRY.neighbour[at as usize][d];
            }
            out.push(at);
        }
        out
    }

    /// The canonical sort key.
    pub fn key(&self) -> (u8, u32) {
        (self.from, self.path)
    }
}

fn man_directions(side: Side) -> &'static [usize] {
    match side {
        Side::Black => &[2, 3],
        Side::White => &[0, 1],
    }
}

fn crown_row(side: Side) -> u32 {
    match side {
        Side::Black => ROW_1,
        Side::White => ROW_8,
    }
}

struct Walk<'a> {
    from: u8,
    opp: u32,
    /// Occupied squares, the moving piece's origin excluded.
    blocked: u32,
    dirs: &'static [usize],
    /// Where a man is crowned (0 for a king).
    crown: u32,
    out: &'a mut Vec<CheckersMove>,
}

impl Walk<'_> {
    fn jump(&mut self, at: u8, captured: u32, path: u32, jumps: u32) {
        let mut extended = false;
        for &d in self.dirs {
            let mid = GEOMETRY.neighbour[at as usize][d];
            if mid == NONE {
                continue;
            }
            let land = GEOMETRY.neighbour[mid as usize][d];
            let mid_bit = 1u32 << mid;
            if land == NONE
                || self.opp & mid_bit == 0
                || captured & mid_bit != 0
                || self.blocked & (1 << land) != 0
            {
                continue;
            }
            extended = true;
            assert!(jumps < MAX_JUMPS, "capture sequence too long");
            let path = path | (d as u32) << (30 - 2 * jumps);
            if self.crown & (1 << land) != 0 {
                // A man crowned by a capture stops there.
                self.push(land, captured | mid_bit, path, jumps + 1);
            } else {
                self.jump(land, captured | mid_bit, path, jumps + 1);
            }
        }
        if !extended && jumps > 0 {
            self.push(at, captured, path, jumps);
        }
    }

    fn push(&mut self, to: u8, captured: u32, path: u32, jumps: u32) {
        self.out.push(CheckersMove {
            from: self.from,
            to,
            jumps: jumps as u8,
            path,
            captured,
        });
    }
}

/// Appends every legal move of `state`, ignoring the draw rule, in canonical order.
pub fn generate(state: &CheckersState, out: &mut Vec<CheckersMove>) {
    let start = out.len();
    let side = state.side();
    let (me, opp) = state.sides();
    let occupied = state.white | state.black;
    for from in 0..32u8 {
        if me & (1 << from) == 0 {
            continue;
        }
        let king = state.kings & (1 << from) != 0;
        let mut walk = Walk {
            from,
            opp,
            blocked: occupied & !(1 << from),
            dirs: if king {
                &[0, 1, 2, 3]
            } else {
                man_directions(side)
            },
            crown: if king { 0 } else { crown_row(side) },
            out,
        };
        walk.jump(from, 0, 0, 0);
    }
    if out.len() > start {
        if state.rules() == Rules::Longest {
            let most = out[start..].iter().map(|m| m.jumps).max().unwrap_or(0);
            let mut k = start;
            for i in start..out.len() {
                if out[i].jumps == most {
                    out[k] = out[i];
                    k += 1;
                }
            }
            out.truncate(k);
        }
    } else {
        for from in 0..32u8 {
            if me & (1 << from) == 0 {
                continue;
            }
            let king = state.kings & (1 << from) != 0;
            let dirs: &[usize] = if king {
                &[0, 1, 2, 3]
            } else {
                man_directions(side)
            };
            for &d in dirs {
                let to = GEOMETRY.neighbour[from as usize][d];
                if to != NONE && occupied & (1 << to) == 0 {
                    out.push(CheckersMove {
                        from,
                        to,
                        jumps: 0,
                        path: (d as u32) << 30,
                        captured: 0,
                    });
                }
            }
        }
    }
    debug_assert!(out[start..].windows(2).all(|w| w[0].key() < w[1].key()));
}

/// Whether the side to move has any move, ignoring the draw rule.
pub fn has_move(state: &CheckersState) -> bool {
    let mut moves = Vec::new();
    generate(state, &mut moves);
    !moves.is_empty()
}

/// The position after `mv`.
pub fn apply(state: &CheckersState, mv: CheckersMove) -> CheckersState {
    let side = state.side();
    let from = 1u32 << mv.from;
    let to = 1u32 << mv.to;
    let mut next = *state;
    let was_king = state.kings & from != 0;
    let (me, opp) = match side {
        Side::Black => (&mut next.black, &mut next.white),
        Side::White => (&mut next.white, &mut next.black),
    };
    *me = (*me & !from) | to;
    *opp &= !mv.captured;
    next.kings &= !(from | mv.captured);
    if was_king || crown_row(side) & to != 0 {
        next.kings |= to;
    }
    let plies = if mv.captured != 0 {
        0
    } else {
        (state.quiet_plies() + 1).min(255)
    };
    next.info = (state.info ^ 1) & !(0xFF << 8) | plies << 8;
    next
}
