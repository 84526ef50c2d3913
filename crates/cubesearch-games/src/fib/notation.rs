//! Board text: the 16 tile values row by row from the top-left, comma-separated, 0 = empty
//! (`1,2,0,0,...`). Blanks around values are ignored. Moves: `left`, `right`, `up`, `down`, and
//! for a person at a keyboard `a`, `d`, `w`, `s` or an arrow key (the terminal sends `ESC [ A`
//! for up, `B` down, `C` right, `D` left; `ESC O A`… in application mode).

use super::{Board, BoardOf, Dir, TileRule};
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

/// Reads a move: its name, a WASD letter or an arrow key's escape sequence (any case, blanks
/// around it ignored).
pub fn parse_dir(text: &str) -> Option<Dir> {
    let key = text.trim().to_ascii_lowercase();
    let arrow = key
        .strip_prefix("\u{1b}[")
        .or_else(|| key.strip_prefix("\u{1b}o"));
    Some(match (key.as_str(), arrow) {
        ("left" | "a", _) | (_, Some("d")) => Dir::Left,
        ("right" | "d", _) | (_, Some("c")) => Dir::Right,
        ("up" | "w", _) | (_, Some("a")) => Dir::Up,
        ("down" | "s", _) | (_, Some("b")) => Dir::Down,
        _ => return None,
    })
}

/// The board as a grid of right-aligned tile values, `.` for an empty cell.
pub fn display_board<R: TileRule>(b: BoardOf<R>) -> String {
    let cells: Vec<String> = b
        .cells(R::BITS)
        .iter()
        .map(|&k| match k {
            0 => ".".to_string(),
            k => R::value(k).to_string(),
        })
        .collect();
    let width = cells.iter().map(String::len).max().unwrap_or(1);
    cells
        .chunks(4)
        .map(|row| {
            row.iter()
                .map(|c| format!("{c:>width$}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
