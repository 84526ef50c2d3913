//! The learning curve as a picture: mean score per curve window (blue) and the best score of
//! each window (grey) against games played, with numbered axes, their labels and a legend, as
//! PNG or SVG ([`ImageFormat`], from the file's extension).
//!
//! Text is laid out (and in a PNG drawn) with a font bundled in the build (DejaVu Sans,
//! `fonts/`, through plotters' `ab_glyph` feature), so drawing needs no fonts on the machine;
//! an SVG keeps its text as text.

use cubesearch_core::io::write_atomically;
use cubesearch_core::{Error, Result};
use cubesearch_train::CurvePoint;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

/// Image size in pixels.
const SIZE: (u32, u32) = (800, 500);

/// The bundled font (see `fonts/LICENSE-DejaVu.txt`).
const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The picture formats a learning curve is drawn in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// A bitmap (`.png`).
    Png,
    /// Vector graphics (`.svg`).
    Svg,
}

impl ImageFormat {
    /// The format `path`'s extension names (`.png` or `.svg`, any case); any other is refused.
    pub fn of_path(path: &Path) -> Result<Self> {
        let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        match extension.as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(Error::parse(format!(
                "{}: a learning curve is drawn as PNG or SVG: name the file .png or .svg",
                path.display()
            ))),
        }
    }
}

/// Registers the bundled font as plotters' `sans-serif` once per process.
fn register_bundled_font() -> Result<()> {
    static REGISTER: Once = Once::new();
    let mut failed = false;
    REGISTER.call_once(|| failed = register_font("sans-serif", FontStyle::Normal, FONT).is_err());
    if failed {
        return Err(Error::Unsupported(
            "the bundled font cannot be read: the learning curve cannot be labelled".into(),
        ));
    }
    Ok(())
}

/// Draws `curve` on `root`; the axis ranges are `0..=games` and `0..=best score`.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curve: &[CurvePoint],
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let max_games = curve.iter().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let max_score = curve.iter().map(|p| p.max_score).max().unwrap_or(1).max(1) as f64;
    let grey = RGBColor(150, 150, 150);
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("TD learning curve", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(0f64..max_games, 0f64..max_score * 1.05)?;
    chart
        .configure_mesh()
        .x_labels(10)
        .y_labels(10)
        .x_desc("games")
        .y_desc("score")
        .x_label_formatter(&|x| compact(*x))
        .y_label_formatter(&|y| compact(*y))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            curve.iter().map(|p| (p.games as f64, p.max_score as f64)),
            grey.stroke_width(1),
        ))?
        .label("best score of each window")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            curve.iter().map(|p| (p.games as f64, p.mean_score)),
            BLUE.stroke_width(2),
        ))?
        .label("mean score")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()
}

/// The error drawing failed with.
fn drawing_failed(e: impl std::fmt::Display) -> Error {
    Error::Unsupported(format!("drawing the learning curve: {e}"))
}

/// Renders `curve` as PNG bytes.
pub fn curve_png(curve: &[CurvePoint]) -> Result<Vec<u8>> {
    register_bundled_font()?;
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    draw(
        BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area(),
        curve,
    )
    .map_err(drawing_failed)?;
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut wr| {
                wr.write_image_data(&rgb)?;
                wr.finish()
            })
            .map_err(|e| Error::Unsupported(format!("encoding the learning curve: {e}")))?;
    }
    Ok(out)
}

/// Renders `curve` as an SVG document.
pub fn curve_svg(curve: &[CurvePoint]) -> Result<String> {
    // The text is laid out with the bundled font's measures.
    register_bundled_font()?;
    let mut svg = String::new();
    draw(
        SVGBackend::with_string(&mut svg, SIZE).into_drawing_area(),
        curve,
    )
    .map_err(drawing_failed)?;
    Ok(svg)
}

/// A tick label: `950`, `12.5k`, `1.2M`.
fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

/// At most one decimal, none when it is zero.
fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Writes the learning curve at `path` in the format its extension names ([`ImageFormat`]),
/// through a temporary file and a rename.
pub fn write_curve(curve: &[CurvePoint], path: &Path) -> Result<()> {
    let bytes = match ImageFormat::of_path(path)? {
        ImageFormat::Png => curve_png(curve)?,
        ImageFormat::Svg => curve_svg(curve)?.into_bytes(),
    };
    write_atomically(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_renders_as_a_png_of_the_stated_size_with_the_curve_in_blue_and_labels() {
        let curve: Vec<CurvePoint> = (1..=50)
            .map(|i| CurvePoint {
                games: i * 100,
                mean_score: 1000.0 + 50.0 * i as f64,
                max_score: 4000 + 60 * i,
            })
            .collect();
        let bytes = curve_png(&curve).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), SIZE);
        let blue = buf
            .chunks_exact(3)
            .filter(|p| p[0] < 40 && p[1] < 40 && p[2] > 200)
            .count();
        assert!(blue > 500, "{blue} blue pixels");
        // Text: the y axis's label and tick numbers darken the strip left of the axis, which
        // holds nothing else.
        let row_bytes = SIZE.0 as usize * 3;
        let dark_left = buf
            .chunks_exact(row_bytes)
            .flat_map(|row| row[..60 * 3].chunks_exact(3))
            .filter(|p| p.iter().all(|&c| c < 180))
            .count();
        assert!(
            dark_left > 100,
            "{dark_left} dark pixels left of the y axis"
        );
        // An empty curve still gives a (blank) picture rather than an error.
        assert!(curve_png(&[]).is_ok());
    }

    #[test]
    fn the_extension_names_the_format_and_svg_keeps_the_curve_and_its_text() {
        let curve = [1, 2, 3].map(|i| CurvePoint {
            games: i * 10,
            mean_score: 100.0 * i as f64,
            max_score: 200 * i,
        });
        let svg = curve_svg(&curve).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        for text in ["TD learning curve", "mean score", "games"] {
            assert!(svg.contains(text), "{text}");
        }
        assert!(svg.contains("polyline"), "{svg}");
        let dir = tempfile::tempdir().unwrap();
        for (name, starts) in [("c.svg", &b"<svg"[..]), ("c.PNG", &b"\x89PNG"[..])] {
            let path = dir.path().join(name);
            write_curve(&curve, &path).unwrap();
            assert!(std::fs::read(&path).unwrap().starts_with(starts), "{name}");
        }
        for name in ["c.jpg", "c"] {
            let err = write_curve(&curve, &dir.path().join(name)).unwrap_err();
            assert!(err.to_string().contains(".png or .svg"), "{err}");
        }
    }
}
