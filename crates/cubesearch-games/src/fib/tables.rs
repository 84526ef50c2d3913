//! Row tables: for every row value, the row after sliding it toward cell 0 and toward cell 3,
//! and the rewards. 2584 rows have 4 × 5 = 20 bits (about a million row values, 16 MiB); 2048
//! rows 16 bits. Up and down reuse the same table on columns (see [`super::board`]).

use super::TileRule;

/// One table entry: the row after the move and the points it scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowMove {
    /// The resulting row value.
    pub row: u32,
    /// The sum of the values of the tiles the merges made.
    pub reward: u32,
}

/// Which way a row slides: toward cell 0 (left, or up along a column) or toward cell 3 (right,
/// or down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toward {
    /// Toward cell 0.
    Low = 0,
    /// Toward cell 3.
    High = 1,
}

/// The precomputed moves of every row value for one rule, both directions side by side: the
/// left and right moves of a row (the up and down moves of a column) read one cache line, not
/// two, which saves the trainer about 2.7 last-level cache misses a move.
#[derive(Debug)]
pub struct RowTables {
    moves: Box<[[RowMove; 2]]>,
}

impl RowTables {
    /// Builds both tables for rule `R` by running [`slide_row`] on every row value.
    pub fn build<R: TileRule>() -> Self {
        let bits = R::BITS;
        let count = 1usize << (4 * bits);
        let moves = (0..count as u32)
            .map(|v| {
                let cells = unpack(v, bits);
                let (out, reward) = slide_row::<R>(cells);
                let low = RowMove {
                    row: pack(out, bits),
                    reward,
                };
                let mut rev = cells;
                rev.reverse();
                let (mut out, reward) = slide_row::<R>(rev);
                out.reverse();
                let high = RowMove {
                    row: pack(out, bits),
                    reward,
                };
                [low, high]
            })
            .collect();
        RowTables { moves }
    }

    /// The move of row value `row` toward `side`.
    #[inline(always)]
    pub fn get(&self, row: u32, side: Toward) -> RowMove {
        self.moves[row as usize][side as usize]
    }

    /// Both moves of every row value of `bits`-bit cells, toward [`Toward::Low`] first: a
    /// slice of constant length once inlined, so indexing it with a row value (masked to
    /// `4·bits` bits) needs no bounds check.
    #[inline(always)]
    pub fn moves(&self, bits: u32) -> &[[RowMove; 2]] {
        &self.moves[..1 << (4 * bits)]
    }
}

/// The four tile indices of a row value, cell 0 first.
pub fn unpack(v: u32, bits: u32) -> [u8; 4] {
    std::array::from_fn(|j| ((v >> (j as u32 * bits)) & ((1 << bits) - 1)) as u8)
}

/// The row value of four tile indices, cell 0 first.
pub fn pack(cells: [u8; 4], bits: u32) -> u32 {
    cells
        .iter()
        .enumerate()
        .fold(0, |v, (j, &k)| v | (k as u32) << (j as u32 * bits))
}

/// The reference row move, toward cell 0: tiles slide together; walking from cell 0, each tile
/// merges into the tile before it when the rule allows and that tile was not itself made by a
/// merge in this move. Returns the new row and the sum of the merged tiles' values.
pub fn slide_row<R: TileRule>(cells: [u8; 4]) -> ([u8; 4], u32) {
    let mut out = [0u8; 4];
    let mut len = 0;
    let mut last_merged = false;
    let mut reward = 0;
    for &k in cells.iter().filter(|&&k| k != 0) {
        if len > 0 && !last_merged {
            if let Some(m) = R::merge(out[len - 1], k) {
                out[len - 1] = m;
                reward += R::value(m);
                last_merged = true;
                continue;
            }
        }
        out[len] = k;
        len += 1;
        last_merged = false;
    }
    (out, reward)
}
