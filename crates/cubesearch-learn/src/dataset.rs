//! Labelled positions: a game's positions, each with its value for the side to move in the
//! network's units, and where they came from. A network is fitted to them
//! (`cubesearch_train::Fit`); [`crate::labels`] makes them.
//!
//! The file is safetensors: tensor `positions` (`U32`, one row of [`Game::STATE_WORDS`] words a
//! position, as [`Game::encode`] writes it) and tensor `labels` (`F32`, one a position), with
//! metadata `format` (`cubesearch-dataset/1`), `game`, `count`, `checksum` (over both tensors'
//! bytes) and the provenance ([`Provenance`]: `generator`, `evaluation`, `depth`, `exact`,
//! `seed`, `games`). Saving goes through a temporary file and a rename; loading refuses, with
//! [`Error::Data`], a file of another game, a truncated or altered one, a position the game
//! does not write back as the same words, and a label that is not a finite number.

use crate::file::{data_error, open_safetensors};
use cubesearch_core::io::{digest, write_atomically};
use cubesearch_core::{Error, Game, Result};
use safetensors::tensor::{Dtype, TensorView};
use std::collections::HashMap;
use std::path::Path;

/// The `format` metadata value of dataset files.
pub const DATASET_FORMAT: &str = "cubesearch-dataset/1";

/// Where a dataset's positions and labels came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// How the positions were played (`self-play, 8 random plies, epsilon 0.1`).
    pub generator: String,
    /// The evaluation at the search's leaves: a weights file, or `final values only`.
    pub evaluation: String,
    /// Plies each label's search looked ahead.
    pub depth: u32,
    /// Where labels are exact (`14 empties`), if anywhere before the end of the game.
    pub exact: String,
    /// The seed the games were played from.
    pub seed: u32,
    /// Games played.
    pub games: u64,
}

/// Positions of game `G` and their labels: values for the side to move in the network's units
/// (Reversi: the disc difference).
#[derive(Clone, Debug)]
pub struct Dataset<G: Game> {
    /// The positions.
    pub positions: Vec<G::State>,
    /// Each position's label.
    pub labels: Vec<f32>,
    /// Where they came from.
    pub provenance: Provenance,
}

/// Equal positions, labels (bit for bit) and provenance.
impl<G: Game> PartialEq for Dataset<G> {
    fn eq(&self, other: &Self) -> bool {
        self.positions == other.positions
            && self.labels.len() == other.labels.len()
            && self
                .labels
                .iter()
                .zip(&other.labels)
                .all(|(a, b)| a.to_bits() == b.to_bits())
            && self.provenance == other.provenance
    }
}

impl<G: Game> Dataset<G> {
    /// Writes the dataset to `path` (temporary file, then rename); `game` encodes the positions.
    pub fn save(&self, game: &G, path: &Path) -> Result<()> {
        if self.positions.len() != self.labels.len() {
            return Err(data_error(
                path,
                format!(
                    "not written: {} positions but {} labels",
                    self.positions.len(),
                    self.labels.len()
                ),
            ));
        }
        if let Some(i) = self.labels.iter().position(|l| !l.is_finite()) {
            return Err(data_error(
                path,
                format!("not written: label {i} is {}", self.labels[i]),
            ));
        }
        let positions: Vec<u8> = game
            .encode_all(&self.positions)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let labels: Vec<u8> = self.labels.iter().flat_map(|l| l.to_le_bytes()).collect();
        let count = self.positions.len();
        let describe = |e| data_error(path, format!("cannot describe the dataset: {e}"));
        let views = vec![
            (
                "positions".to_string(),
                TensorView::new(Dtype::U32, vec![count, G::STATE_WORDS], &positions)
                    .map_err(describe)?,
            ),
            (
                "labels".to_string(),
                TensorView::new(Dtype::F32, vec![count], &labels).map_err(describe)?,
            ),
        ];
        let p = &self.provenance;
        let meta: HashMap<String, String> = [
            ("format", DATASET_FORMAT.to_string()),
            ("game", G::NAME.to_string()),
            ("count", count.to_string()),
            ("checksum", digest([&positions[..], &labels[..]])),
            ("generator", p.generator.clone()),
            ("evaluation", p.evaluation.clone()),
            ("depth", p.depth.to_string()),
            ("exact", p.exact.clone()),
            ("seed", p.seed.to_string()),
            ("games", p.games.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let bytes = safetensors::serialize(views, Some(meta))
            .map_err(|e| data_error(path, format!("cannot serialise the dataset: {e}")))?;
        write_atomically(path, &bytes)
    }

    /// Reads a dataset of `game` from `path`.
    pub fn load(game: &G, path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes(game, &bytes, path)
    }

    /// Reads the bytes of a dataset file as [`Self::load`] reads its file; `path` only names it
    /// in errors.
    pub fn from_bytes(game: &G, bytes: &[u8], path: &Path) -> Result<Self> {
        let bad = |why: String| data_error(path, why);
        let (tensors, meta) = open_safetensors(bytes, path, "dataset")?;
        let field = |key: &str| {
            meta.get(key)
                .cloned()
                .ok_or_else(|| bad(format!("metadata lacks '{key}': not a cubesearch dataset")))
        };
        let number = |key: &str| -> Result<u64> {
            field(key)?
                .parse()
                .map_err(|_| bad(format!("metadata '{key}' is not a number")))
        };
        let format = field("format")?;
        if format != DATASET_FORMAT {
            return Err(bad(format!(
                "format '{format}', expected '{DATASET_FORMAT}'"
            )));
        }
        let name = field("game")?;
        if name != G::NAME {
            return Err(bad(format!(
                "these are positions of {name}, not of {}",
                G::NAME
            )));
        }
        let count = number("count")? as usize;
        let tensor = |name: &str, dtype: Dtype, shape: Vec<usize>| {
            let t = tensors
                .tensor(name)
                .map_err(|_| bad(format!("no tensor '{name}'")))?;
            if t.dtype() != dtype || t.shape() != shape.as_slice() {
                return Err(bad(format!(
                    "tensor '{name}' is {:?} {:?}, expected {dtype:?} {shape:?}",
                    t.dtype(),
                    t.shape()
                )));
            }
            Ok(t.data().to_vec())
        };
        let positions = tensor("positions", Dtype::U32, vec![count, G::STATE_WORDS])?;
        let labels = tensor("labels", Dtype::F32, vec![count])?;
        if digest([&positions[..], &labels[..]]) != field("checksum")? {
            return Err(bad(
                "the data does not match its checksum: the file was altered or damaged".into(),
            ));
        }
        let words: Vec<u32> = positions
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let labels: Vec<f32> = labels
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if let Some(i) = labels.iter().position(|l| !l.is_finite()) {
            return Err(bad(format!("label {i} is {}", labels[i])));
        }
        // Each position is read back and written again: words the game does not write are not
        // one of its positions.
        let mut again = vec![0u32; G::STATE_WORDS];
        let positions = words
            .chunks_exact(G::STATE_WORDS.max(1))
            .enumerate()
            .map(|(i, w)| {
                let p = game.decode(w);
                game.encode(&p, &mut again);
                match again == w {
                    true => Ok(p),
                    false => Err(bad(format!(
                        "position {i} is not a position of {}",
                        G::NAME
                    ))),
                }
            })
            .collect::<Result<Vec<G::State>>>()?;
        let provenance = Provenance {
            generator: field("generator")?,
            evaluation: field("evaluation")?,
            depth: number("depth")? as u32,
            exact: field("exact")?,
            seed: number("seed")? as u32,
            games: number("games")?,
        };
        Ok(Self {
            positions,
            labels,
            provenance,
        })
    }
}
