//! Board text: the 16 tile values row by row from the top-left, comma-separated, 0 = empty
//! (`1,2,0,0,...`). Blanks around values are ignored.

use super::{Board, BoardOf, TileRule};
use cubesearch_core::{Error, Result};

/// Reads a board of game `R`.
pub fn parse_board<R: TileRule>(text: &str) -> Result<BoardOf<R>> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 16 {
        return Err(Error::parse(format!(
            "bad {} position '{text}': expected 16 tile values separated by commas (0 = empty), got {}",
            R::NAME,
            parts.len()
        )));
    }
    let mut cells = [0u8; 16];
    for (i, part) in parts.iter().enumerate() {
        let value: u64 = part.parse().map_err(|_| {
            Error::parse(format!(
                "bad {} position '{text}': cell {i} is '{part}', not a number",
                R::NAME
            ))
        })?;
        cells[i] = R::index_of(value).ok_or_else(|| {
            Error::parse(format!(
                "bad {} position '{text}': cell {i} holds {value}, which is not a {} tile",
                R::NAME,
                R::NAME
            ))
        })?;
    }
    Ok(Board::from_cells(&cells, R::BITS))
}

/// Writes a board of game `R`.
pub fn format_board<R: TileRule>(b: BoardOf<R>) -> String {
    b.cells(R::BITS)
        .iter()
        .map(|&k| R::value(k).to_string())
        .collect::<Vec<_>>()
        .join(",")
}
