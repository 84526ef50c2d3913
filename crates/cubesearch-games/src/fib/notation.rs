//! Board text: the 16 tile values row by row from the top-left, comma-separated, 0 = empty
//! (`1,2,0,0,...`). Blanks around values are ignored. Moves: `left`, `right`, `up`, `down`, and
//! for a person at a keyboard their first letters `l`, `r`, `u`, `d` or an arrow key (the
//! terminal sends `ESC [ A` for up, `B` down, `C` right, `D` left; `ESC O A`… in application
//! mode). WASD is not read: its `d` (right) would be the first letter of down.

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

/// Reads a move: its name, its first letter or an arrow key's escape sequence (any case, blanks
/// around it ignored).
pub fn parse_dir(text: &str) -> Option<Dir> {
    let key = text.trim().to_ascii_lowercase();
    let arrow = key
        .strip_prefix("\u{1b}[")
        .or_else(|| key.strip_prefix("\u{1b}o"));
    Some(match (key.as_str(), arrow) {
        ("left" | "l", _) | (_, Some("d")) => Dir::Left,
        ("right" | "r", _) | (_, Some("c")) => Dir::Right,
        ("up" | "u", _) | (_, Some("a")) => Dir::Up,
        ("down" | "d", _) | (_, Some("b")) => Dir::Down,
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

#[cfg(test)]
mod tests {
    use super::parse_dir;
    use crate::fib::Dir;

    #[test]
    fn a_slide_is_its_name_its_first_letter_or_an_arrow_key() {
        for (dir, keys) in [
            (Dir::Left, ["left", "l", "\u{1b}[D", "\u{1b}OD"]),
            (Dir::Right, ["right", "R", "\u{1b}[C", "\u{1b}OC"]),
            (Dir::Up, ["up", "u", "\u{1b}[A", "\u{1b}OA"]),
            (Dir::Down, ["Down", "d", "\u{1b}[B", "\u{1b}OB"]),
        ] {
            for key in keys {
                assert_eq!(parse_dir(key), Some(dir), "{key:?}");
            }
        }
        // WASD's letters would clash with the first letters (its d is right): refused.
        for key in ["w", "a", "s", "x", ""] {
            assert_eq!(parse_dir(key), None, "{key:?}");
        }
    }
}
