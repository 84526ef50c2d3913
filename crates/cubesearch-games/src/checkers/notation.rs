//! Text: PDN FEN positions (`B:W21,...,K30:B1,...`) and moves (`11-15`, `15x24x31`), in standard
//! square numbers 1–32 (square 1 on Black's side).

use super::board::{CheckersState, Side, GEOMETRY, ROW_1, ROW_8};
use super::movegen::CheckersMove;
use cubesearch_core::{Error, Result};

fn fen_error(text: &str, why: &str) -> Error {
    Error::parse(format!(
        "bad checkers position '{text}': {why} (expected PDN FEN like \
         B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12, K before a king)"
    ))
}

/// Parses a square number 1..=32 to its bit index.
fn square(text: &str) -> Option<u8> {
    let n: u8 = text.trim().parse().ok()?;
    (1..=32)
        .contains(&n)
        .then(|| GEOMETRY.index[n as usize - 1])
}

/// Reads the pieces of a PDN FEN: (white, black, kings, side to move).
pub fn parse_fen(text: &str) -> Result<(u32, u32, u32, Side)> {
    let body = text.trim().trim_end_matches('.');
    let mut parts = body.split(':');
    let side = match parts.next().map(|s| s.trim().to_ascii_uppercase()) {
        Some(s) if s == "B" => Side::Black,
        Some(s) if s == "W" => Side::White,
        _ => return Err(fen_error(text, "the side to move must be B or W")),
    };
    let (mut white, mut black, mut kings) = (0u32, 0u32, 0u32);
    let mut seen = [false; 2];
    for part in parts {
        let part = part.trim();
        let mut chars = part.chars();
        let colour = match chars.next().map(|c| c.to_ascii_uppercase()) {
            Some('W') => 0,
            Some('B') => 1,
            _ => return Err(fen_error(text, "each piece list starts with W or B")),
        };
        if seen[colour] {
            return Err(fen_error(text, "a colour is listed twice"));
        }
        seen[colour] = true;
        let list = chars.as_str().trim();
        if list.is_empty() {
            continue;
        }
        for item in list.split(',') {
            let item = item.trim();
            let (king, squares) = match item.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let range: Vec<u8> = match squares.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (a.trim().parse::<u8>(), b.trim().parse::<u8>());
                    match (a, b) {
                        (Ok(a), Ok(b)) if (1..=32).contains(&a) && (a..=32).contains(&b) => {
                            (a..=b).collect()
                        }
                        _ => return Err(fen_error(text, &format!("bad square range '{item}'"))),
                    }
                }
                None => match squares.trim().parse::<u8>() {
                    Ok(n) if (1..=32).contains(&n) => vec![n],
                    _ => return Err(fen_error(text, &format!("bad square '{item}'"))),
                },
            };
            for n in range {
                let bit = 1u32 << GEOMETRY.index[n as usize - 1];
                if (white | black) & bit != 0 {
                    return Err(fen_error(text, &format!("square {n} is listed twice")));
                }
                if colour == 0 {
                    white |= bit;
                } else {
                    black |= bit;
                }
                if king {
                    kings |= bit;
                }
            }
        }
    }
    if seen != [true, true] {
        return Err(fen_error(text, "both piece lists (W and B) are needed"));
    }
    // Pieces are only ever taken off: no side has more than its 12 men of the start.
    for (name, pieces) in [("white", white), ("black", black)] {
        if pieces.count_ones() > 12 {
            return Err(fen_error(
                text,
                &format!(
                    "{name} has {} pieces; a side has at most 12",
                    pieces.count_ones()
                ),
            ));
        }
    }
    if (white & !kings & ROW_8) | (black & !kings & ROW_1) != 0 {
        return Err(fen_error(
            text,
            "a man stands on the row where it would be crowned",
        ));
    }
    Ok((white, black, kings, side))
}

fn list(pieces: u32, kings: u32) -> String {
    (1..=32u8)
        .filter(|&n| pieces & (1 << GEOMETRY.index[n as usize - 1]) != 0)
        .map(|n| {
            let king = kings & (1 << GEOMETRY.index[n as usize - 1]) != 0;
            format!("{}{n}", if king { "K" } else { "" })
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes the PDN FEN of `state`.
pub fn format_fen(state: &CheckersState) -> String {
    let side = match state.side() {
        Side::Black => 'B',
        Side::White => 'W',
    };
    format!(
        "{side}:W{}:B{}",
        list(state.white, state.kings),
        list(state.black, state.kings)
    )
}

/// Writes a move: `11-15` for a step, `15x24x31` for a capture sequence.
pub fn format_move(mv: &CheckersMove) -> String {
    let sep = if mv.jumps == 0 { "-" } else { "x" };
    mv.squares()
        .iter()
        .map(|&i| GEOMETRY.number[i as usize].to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// Reads move text into its squares (bit indices) and whether it is a capture.
pub fn parse_move_text(text: &str) -> Result<(Vec<u8>, bool)> {
    let t = text.trim();
    let malformed = || {
        Error::parse(format!(
            "bad checkers move '{t}': expected squares 1-32 like 11-15, or 15x24x31 for a capture"
        ))
    };
    let (parts, capture): (Vec<&str>, bool) = if t.contains(['x', 'X']) {
        (t.split(['x', 'X']).collect(), true)
    } else {
        (t.split('-').collect(), false)
    };
    if parts.len() < 2 || (!capture && parts.len() != 2) {
        return Err(malformed());
    }
    let squares = parts
        .iter()
        .map(|p| square(p).ok_or_else(malformed))
        .collect::<Result<Vec<_>>>()?;
    Ok((squares, capture))
}
