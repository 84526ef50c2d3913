//! The learning curve as a PNG: mean score per curve window (blue) over the best score of each
//! window (grey), games on x from 0, score on y from 0.
//!
//! Drawn with plotters' bitmap backend without any font support: plotters' `ttf` feature needs
//! fontconfig and FreeType on the build machine, and plotters panics when asked to draw text
//! without it. So the picture carries no text: the axes' ranges are the CSV's (`--curve`), and
//! the caller prints them.

use crate::train::CurvePoint;
use cubesearch_core::io::write_atomically;
use cubesearch_core::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// Image size in pixels.
const SIZE: (u32, u32) = (800, 500);

/// Renders `curve` as PNG bytes; the axis ranges are `0..=games` and `0..=best score`.
pub fn curve_png(curve: &[CurvePoint]) -> Result<Vec<u8>> {
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    let max_games = curve.iter().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let max_score = curve.iter().map(|p| p.max_score).max().unwrap_or(1).max(1) as f64;
    let draw = |rgb: &mut [u8]| -> std::result::Result<(), Box<dyn std::error::Error + '_>> {
        let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(16)
            .build_cartesian_2d(0f64..max_games, 0f64..max_score * 1.05)?;
        // Grid lines only: labels would need fonts.
        chart
            .configure_mesh()
            .x_labels(10)
            .y_labels(10)
            .disable_x_axis()
            .disable_y_axis()
            .draw()?;
        let grey = RGBColor(170, 170, 170);
        chart.draw_series(LineSeries::new(
            curve.iter().map(|p| (p.games as f64, p.max_score as f64)),
            grey.stroke_width(1),
        ))?;
        chart.draw_series(LineSeries::new(
            curve.iter().map(|p| (p.games as f64, p.mean_score)),
            BLUE.stroke_width(2),
        ))?;
        root.present()?;
        Ok(())
    };
    draw(&mut rgb).map_err(|e| Error::Unsupported(format!("drawing the learning curve: {e}")))?;
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

/// Writes the learning curve as a PNG at `path` (through a temporary file and a rename).
pub fn write_curve_png(curve: &[CurvePoint], path: &Path) -> Result<()> {
    write_atomically(path, &curve_png(curve)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_renders_as_a_png_of_the_stated_size_with_the_curve_in_blue() {
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
        // An empty curve still gives a (blank) picture rather than an error.
        assert!(curve_png(&[]).is_ok());
    }
}
