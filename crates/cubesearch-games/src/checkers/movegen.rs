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

/// Whether the side to move has any move, ignoring the draw rule: a step or a first jump.
pub fn has_move(state: &CheckersState) -> bool {
    let board = Shifts::of(state);
    (0..4).any(|d| board.jumpers(d) != 0 || board.steppers(d) != 0)
}

/// Index step of each direction (up-right, up-left, down-left, down-right) modulo 32.
const SHIFT: [u32; 4] = [1, 7, 31, 25];

/// Per direction, the squares from which `reach` steps stay on the board.
const fn reach_masks(reach: usize) -> [u32; 4] {
    let mut masks = [0u32; 4];
    let mut d = 0;
    while d < 4 {
        let mut i = 0;
        while i < 32 {
            let mut at = i as u8;
            let mut k = 0;
            while k < reach && at != NONE {
                at = GEOMETRY.neighbour[at as usize][d];
                k += 1;
            }
            if at != NONE {
                masks[d] |= 1 << i;
            }
            i += 1;
        }
        d += 1;
    }
    masks
}

const STEP: [u32; 4] = reach_masks(1);
const JUMP: [u32; 4] = reach_masks(2);

/// The whole-board view of a position that steps and first jumps are read from (the device
/// generator's, see [`device`](super::device)).
struct Shifts {
    me: u32,
    opp: u32,
    kings: u32,
    empty: u32,
    white: bool,
}

impl Shifts {
    fn of(state: &CheckersState) -> Self {
        let (me, opp) = state.sides();
        Shifts {
            me,
            opp,
            kings: state.kings,
            empty: !(state.white | state.black),
            white: state.side() == Side::White,
        }
    }

    /// The side to move's pieces that may go in direction `d` (men only forward).
    fn allowed(&self, d: usize) -> u32 {
        if (d < 2) == self.white {
            self.me
        } else {
            self.me & self.kings
        }
    }

    /// Squares from which a jump in direction `d` takes an opponent's piece and lands on an
    /// empty square, whatever stands on the square itself.
    fn jump_squares(&self, d: usize) -> u32 {
        JUMP[d] & self.opp.rotate_right(SHIFT[d]) & self.empty.rotate_right(2 * SHIFT[d])
    }

    fn jumpers(&self, d: usize) -> u32 {
        self.allowed(d) & self.jump_squares(d)
    }

    fn steppers(&self, d: usize) -> u32 {
        self.allowed(d) & STEP[d] & self.empty.rotate_right(SHIFT[d])
    }
}

/// The moves of `state` when none is a capture of several jumps: per direction, the origins of
/// its steps (`false`) or of its single jumps (`true`), in canonical order the set bits by
/// origin, then direction. `None` when a piece that has jumped could jump again. The draw rule
/// is ignored.
pub fn simple_moves(state: &CheckersState) -> Option<([u32; 4], bool)> {
    let board = Shifts::of(state);
    let e = [0, 1, 2, 3].map(|d| board.jump_squares(d));
    let j = [0, 1, 2, 3].map(|d| board.allowed(d) & e[d]);
    if j == [0; 4] {
        return Some(([0, 1, 2, 3].map(|d| board.steppers(d)), false));
    }
    // A king goes on in any direction but straight back, a man forward unless just crowned;
    // a second jump never lands on the origin, so the board's empty squares tell.
    let men_go_on = if board.white {
        e[0] | e[1]
    } else {
        e[2] | e[3]
    } & !crown_row(state.side());
    let again = (0..4).any(|d| {
        let back = d ^ 2;
        let king_go_on = (0..4).filter(|&x| x != back).fold(0, |a, x| a | e[x]);
        let land = |pieces: u32| pieces.rotate_left(2 * SHIFT[d]);
        (land(j[d] & board.kings) & king_go_on) | (land(j[d] & !board.kings) & men_go_on) != 0
    });
    (!again).then_some((j, true))
}

/// Move number `index` of [`simple_moves`]'s answer.
pub(crate) fn nth_simple_move(origins: [u32; 4], jump: bool, index: u32) -> CheckersMove {
    let mut rest = index;
    let mut pieces = origins[0] | origins[1] | origins[2] | origins[3];
    while pieces != 0 {
        let from = pieces.trailing_zeros();
        pieces &= pieces - 1;
        for (d, mask) in origins.iter().enumerate() {
            if mask >> from & 1 == 0 {
                continue;
            }
            if rest > 0 {
                rest -= 1;
                continue;
            }
            let mid = (from + SHIFT[d]) & 31;
            let (to, captured) = if jump {
                ((mid + SHIFT[d]) & 31, 1 << mid)
            } else {
                (mid, 0)
            };
            return CheckersMove {
                from: from as u8,
                to: to as u8,
                jumps: jump as u8,
                path: (d as u32) << 30,
                captured,
            };
        }
    }
    panic!("move {index} of {} simple moves", index - rest);
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
