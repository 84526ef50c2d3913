//! Weights files: safetensors, one `F32` tensor per tuple shape (`tuple0`, `tuple1`, ...), with
//! metadata `format` (`cubesearch-ntuple/1`; `/2` with coherence sums, below), `game`, `bits`,
//! `shapes` (`0,1,2,3;4,5,6,7;...`), `games` (games trained), `mean_score` (mean of the last
//! games trained) and `checksum` (`fnv1a64:` and 16 hex digits: FNV-1a over the weights'
//! tensors' bytes, `tuple0` first). A multi-stage network also has `stages` (its thresholds,
//! `16384` or `16384,24576`), `staged_by` (`stage_progress`: the thresholds are
//! [`TupleBoard::stage_progress`] values, for 2048 the sum of the two largest tiles; a staged
//! file without it counted the largest tile alone, and is refused) and a tensor per shape and
//! stage, stage after stage: with 4 shapes, stage 1's first is `tuple4`. A file without
//! `stages` is a network of one stage.
//!
//! A network that learns with temporal coherence also keeps its two sums a weight, as TDL2048+'s
//! files do, in format `cubesearch-ntuple/2`: tensors `coherence_sums0`, ... (`E`) and
//! `coherence_sizes0`, ... (`A`), one per table as its weights, and metadata
//! `coherence_checksum` over them (the sums' tables, then the sizes').
//! [`NTupleNetwork::load_with_coherence`] takes them, so a resumed run goes on at each weight's
//! own rate; [`NTupleNetwork::load`], for play, leaves them unread.
//!
//! Saving writes a temporary file beside the target and renames it over the target, so a crash
//! never leaves a half-written file where a good one was, and refuses a network with a weight
//! that is NaN or infinite (a diverged run), leaving the file there alone. Loading checks
//! everything it relies on and refuses a file with [`Error::Data`] (never a panic): not
//! safetensors, truncated, another game, other shapes, tensors of the wrong type or size, data
//! that does not match the checksum (files from before the checksum load without that check), a
//! weight that is NaN or infinite.

use crate::game::TupleBoard;
use crate::network::{format_shapes, format_stages, parse_shapes, parse_stages, NTupleNetwork};
use cubesearch_core::io::write_atomically;
use cubesearch_core::{Error, Result};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::HashMap;
use std::path::Path;

/// The `format` metadata value of files this version writes without temporal coherence's sums.
pub const FORMAT: &str = "cubesearch-ntuple/1";

/// The `format` of files that keep temporal coherence's sums too: a version that knows only
/// [`FORMAT`] then says the file is newer instead of miscounting its tensors.
pub const FORMAT_WITH_SUMS: &str = "cubesearch-ntuple/2";

/// The `staged_by` metadata value of multi-stage files: what their thresholds count.
const STAGED_BY: &str = "stage_progress";

/// What a weights file says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsMeta {
    /// The game's name ([`TupleBoard::GAME`]).
    pub game: String,
    /// The tuple shapes.
    pub shapes: Vec<Vec<u8>>,
    /// The stage thresholds (empty: one stage).
    pub stages: Vec<u32>,
    /// Games trained so far.
    pub games: u64,
    /// Mean score of the last games trained.
    pub mean_score: f64,
    /// Whether the file keeps temporal coherence's sums (see the module docs).
    pub coherence: bool,
}

/// Table `t`'s weights are tensor `tuple{t}`; its coherence sums `E` and `A` are
/// `coherence_sums{t}` and `coherence_sizes{t}`.
const WEIGHTS: &str = "tuple";
const COHERENCE: [&str; 2] = ["coherence_sums", "coherence_sizes"];

/// The `checksum` metadata of tensors whose bytes are `tables`, in order.
fn checksum<'a>(tables: impl IntoIterator<Item = &'a [u8]>) -> String {
    cubesearch_core::io::digest(tables)
}

/// The tensors and the metadata of the safetensors file `bytes` (a cubesearch `what`, which
/// the errors name); `path` only names it in errors.
pub(crate) fn open_safetensors<'b>(
    bytes: &'b [u8],
    path: &Path,
    what: &str,
) -> Result<(SafeTensors<'b>, HashMap<String, String>)> {
    let bad = |why: String| data_error(path, why);
    let tensors = SafeTensors::deserialize(bytes).map_err(|e| {
        bad(format!(
            "not a readable {what} (corrupt or truncated safetensors: {e})"
        ))
    })?;
    let (_, header) = SafeTensors::read_metadata(bytes)
        .map_err(|e| bad(format!("unreadable safetensors header: {e}")))?;
    let meta = header
        .metadata()
        .clone()
        .ok_or_else(|| bad(format!("no metadata: not a cubesearch {what}")))?;
    Ok((tensors, meta))
}

pub(crate) fn data_error(path: &Path, why: impl Into<String>) -> Error {
    Error::Data {
        path: path.display().to_string(),
        why: why.into(),
    }
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
    }
}

impl NTupleNetwork {
    /// Writes the network to `path` (safely: temporary file, then rename). A network with a
    /// weight that is not a finite number (a run that diverged) is refused, and a file already
    /// at `path` stays as it was: [`Self::load`] would refuse what it wrote.
    /// With temporal coherence, its sums go into the file too (see the module docs).
    pub fn save(&self, path: &Path, games: u64, mean_score: f64) -> Result<()> {
        let encode =
            |name: String, values: Vec<f32>| match values.iter().position(|w| !w.is_finite()) {
                Some(i) => Err(data_error(
                    path,
                    format!(
                        "not written: weight {i} of tensor '{name}' is {}, so the training \
                     diverged (a smaller learning rate, --alpha, may hold)",
                        values[i]
                    ),
                )),
                None => Ok((name, values.iter().flat_map(|w| w.to_le_bytes()).collect())),
            };
        let tables = (0..self.tables())
            .map(|t| encode(format!("{WEIGHTS}{t}"), self.table(t)))
            .collect::<Result<Vec<(String, Vec<u8>)>>>()?;
        // E's tables, then A's.
        let mut sums = Vec::new();
        if self.coherent() {
            let mut sizes = Vec::new();
            for t in 0..self.tables() {
                let [e, a] = self.coherence_table(t).expect("coherent");
                sums.push(encode(format!("{}{t}", COHERENCE[0]), e)?);
                sizes.push(encode(format!("{}{t}", COHERENCE[1]), a)?);
            }
            sums.append(&mut sizes);
        }
        let views = tables
            .iter()
            .chain(&sums)
            .map(|(name, bytes)| {
                TensorView::new(Dtype::F32, vec![bytes.len() / 4], bytes).map(|v| (name.clone(), v))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| data_error(path, format!("cannot describe the weights: {e}")))?;
        let bytes_of = |named: &[(String, Vec<u8>)]| checksum(named.iter().map(|(_, b)| &b[..]));
        let coherence_checksum = self
            .coherent()
            .then(|| ("coherence_checksum", bytes_of(&sums)));
        let stages = (!self.stages().is_empty())
            .then(|| {
                [
                    ("stages", format_stages(self.stages())),
                    ("staged_by", STAGED_BY.into()),
                ]
            })
            .into_iter()
            .flatten();
        let meta: HashMap<String, String> = [
            (
                "format",
                if self.coherent() {
                    FORMAT_WITH_SUMS
                } else {
                    FORMAT
                }
                .to_string(),
            ),
            ("game", self.game().to_string()),
            ("bits", self.bits().to_string()),
            ("shapes", format_shapes(self.shapes())),
            ("games", games.to_string()),
            ("mean_score", mean_score.to_string()),
            ("checksum", bytes_of(&tables)),
        ]
        .into_iter()
        .chain(stages)
        .chain(coherence_checksum)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let bytes = safetensors::serialize(views, Some(meta))
            .map_err(|e| data_error(path, format!("cannot serialise the weights: {e}")))?;
        write_atomically(path, &bytes)
    }

    /// Reads a weights file for game `G`. With `shapes`, the file must have exactly those. The
    /// network does not learn with temporal coherence, whatever the file keeps.
    pub fn load<G: TupleBoard>(
        path: &Path,
        shapes: Option<&[Vec<u8>]>,
    ) -> Result<(Self, WeightsMeta)> {
        let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
        Self::from_bytes::<G>(&bytes, path, shapes)
    }

    /// [`Self::load`] for a run that goes on learning with temporal coherence: the network
    /// takes the file's sums, or starts them at zero (every weight at rate 1) where the file
    /// keeps none ([`WeightsMeta::coherence`] says which).
    pub fn load_with_coherence<G: TupleBoard>(
        path: &Path,
        shapes: Option<&[Vec<u8>]>,
    ) -> Result<(Self, WeightsMeta)> {
        let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
        Self::read_bytes::<G>(&bytes, path, shapes, true)
    }

    /// Reads the bytes of a weights file for game `G` as [`Self::load`] reads its file; `path`
    /// only names it in errors.
    pub fn from_bytes<G: TupleBoard>(
        bytes: &[u8],
        path: &Path,
        shapes: Option<&[Vec<u8>]>,
    ) -> Result<(Self, WeightsMeta)> {
        Self::read_bytes::<G>(bytes, path, shapes, false)
    }

    /// With `coherence`, as [`Self::load_with_coherence`] reads a file, else as [`Self::load`].
    fn read_bytes<G: TupleBoard>(
        bytes: &[u8],
        path: &Path,
        shapes: Option<&[Vec<u8>]>,
        coherence: bool,
    ) -> Result<(Self, WeightsMeta)> {
        let bad = |why: String| data_error(path, why);
        let (tensors, meta) = open_safetensors(bytes, path, "weights file")?;
        let field = |key: &str| {
            meta.get(key).ok_or_else(|| {
                bad(format!(
                    "metadata lacks '{key}': not a cubesearch weights file"
                ))
            })
        };
        let format = field("format")?;
        if format != FORMAT && format != FORMAT_WITH_SUMS {
            return Err(bad(format!(
                "format '{format}', expected '{FORMAT}' or '{FORMAT_WITH_SUMS}'"
            )));
        }
        let game = field("game")?;
        if game != G::GAME {
            return Err(bad(format!(
                "these are weights for {game}, not for {}",
                G::GAME
            )));
        }
        let bits: u32 = field("bits")?
            .parse()
            .map_err(|_| bad("metadata 'bits' is not a number".into()))?;
        if bits != G::CELL_BITS {
            return Err(bad(format!(
                "{bits} bits a cell, but {} uses {}",
                G::GAME,
                G::CELL_BITS
            )));
        }
        let file_shapes =
            parse_shapes(field("shapes")?).map_err(|e| bad(format!("metadata 'shapes': {e}")))?;
        if let Some(want) = shapes {
            if want != file_shapes.as_slice() {
                return Err(bad(format!(
                    "tuple shapes {} do not match the requested {}",
                    format_shapes(&file_shapes),
                    format_shapes(want)
                )));
            }
        }
        let games: u64 = field("games")?
            .parse()
            .map_err(|_| bad("metadata 'games' is not a number".into()))?;
        let mean_score: f64 = field("mean_score")?
            .parse()
            .map_err(|_| bad("metadata 'mean_score' is not a number".into()))?;
        let stages = match meta.get("stages") {
            Some(text) => parse_stages(text).map_err(|e| bad(format!("metadata 'stages': {e}")))?,
            None => Vec::new(),
        };
        if !stages.is_empty() {
            match meta.get("staged_by").map(String::as_str) {
                Some(STAGED_BY) => {}
                Some(other) => {
                    return Err(bad(format!(
                        "metadata 'staged_by' is '{other}', not '{STAGED_BY}'"
                    )))
                }
                None => {
                    return Err(bad(
                        "its stages count progress (a file from before 'staged_by'; 2048 and \
                         2584: the largest tile), and this version stages by stage_progress \
                         (2048 and 2584: the sum of the two largest tiles): train it again"
                            .into(),
                    ))
                }
            }
        }
        let mut net = NTupleNetwork::staged::<G>(&file_shapes, &stages)
            .map_err(|e| bad(format!("metadata 'shapes' and 'stages': {e}")))?;
        let names = tensors.names();
        let has_sums = format == FORMAT_WITH_SUMS;
        if has_sums != meta.contains_key("coherence_checksum") {
            return Err(bad(format!(
                "format '{format}' {} 'coherence_checksum'",
                if has_sums { "lacks" } else { "has" }
            )));
        }
        let per_table = if has_sums { 3 } else { 1 };
        if names.len() != per_table * net.tables() {
            return Err(bad(format!(
                "{} tensors for {} tuple shapes in {} stages{}",
                names.len(),
                file_shapes.len(),
                stages.len() + 1,
                if has_sums {
                    ", with temporal coherence's two sums a table"
                } else {
                    ""
                }
            )));
        }
        // Tensors `names` (each with its table's shape), checked against their sizes, against
        // `checksum_key`'s checksum over them in order, and for finite values.
        let shape_of = |t: usize| &file_shapes[t % file_shapes.len()];
        let read_tensors = |names: Vec<(String, usize)>, checksum_key: &str, what: &str| {
            let mut data = Vec::with_capacity(names.len());
            for (name, t) in names {
                let view = tensors
                    .tensor(&name)
                    .map_err(|_| bad(format!("tensor '{name}' is missing")))?;
                let want = 1usize << (G::CELL_BITS as usize * shape_of(t).len());
                if view.dtype() != Dtype::F32 || view.shape() != [want] {
                    return Err(bad(format!(
                        "tensor '{name}' is {:?} {:?}, expected F32 [{want}]",
                        view.dtype(),
                        view.shape()
                    )));
                }
                data.push((name, view.data()));
            }
            if let Some(want) = meta.get(checksum_key) {
                let got = checksum(data.iter().map(|(_, bytes)| *bytes));
                if &got != want {
                    return Err(bad(format!(
                        "the {what} are corrupt: their checksum is {got}, the file says {want}"
                    )));
                }
            }
            data.into_iter()
                .map(|(name, bytes)| {
                    let values: Vec<f32> = bytes
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    match values.iter().position(|w| !w.is_finite()) {
                        Some(i) => Err(bad(format!(
                            "weight {i} of tensor '{name}' is {}: weights must be finite numbers",
                            values[i]
                        ))),
                        None => Ok(values),
                    }
                })
                .collect::<Result<Vec<Vec<f32>>>>()
        };
        let tables = net.tables();
        let weights = read_tensors(
            (0..tables).map(|t| (format!("{WEIGHTS}{t}"), t)).collect(),
            "checksum",
            "weights",
        )?;
        refuse_overflowing_sums::<G>(&weights, file_shapes.len()).map_err(bad)?;
        for (t, weights) in weights.into_iter().enumerate() {
            net.set_table(t, weights.into_iter());
        }
        if coherence {
            net.enable_coherence()?;
            if has_sums {
                let names = COHERENCE
                    .iter()
                    .flat_map(|prefix| (0..tables).map(move |t| (format!("{prefix}{t}"), t)))
                    .collect();
                let sums = read_tensors(names, "coherence_checksum", "coherence sums")?;
                let (e, a) = sums.split_at(tables);
                net.set_coherence_tables(e, a)?;
            }
        }
        let meta = WeightsMeta {
            game: game.clone(),
            shapes: file_shapes,
            stages,
            games,
            mean_score,
            coherence: has_sums,
        };
        Ok((net, meta))
    }
}

/// Refuses tables (stage after stage, `shapes` a stage) whose largest possible value, each
/// lookup's largest |w| summed over a stage's lookups (every shape in each of `G`'s
/// symmetries), is past f32's range: an evaluation could then be infinite.
fn refuse_overflowing_sums<G: TupleBoard>(
    tables: &[Vec<f32>],
    shapes: usize,
) -> std::result::Result<(), String> {
    let symmetries = G::SYMMETRIES.len() as f64;
    for (stage, stage_tables) in tables.chunks(shapes.max(1)).enumerate() {
        let largest: f64 = stage_tables
            .iter()
            .map(|t| t.iter().fold(0f64, |m, w| m.max(f64::from(w.abs()))))
            .sum::<f64>()
            * symmetries;
        if largest > f64::from(f32::MAX) {
            return Err(format!(
                "the weights of stage {stage} can sum to {largest:.1e}, past the largest f32 \
                 ({:.1e}): an evaluation could be infinite",
                f32::MAX
            ));
        }
    }
    Ok(())
}
