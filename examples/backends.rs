//! Choosing a backend and reporting it: what each backend would use here, then one executor from
//! `--backend` (default `auto`: CUDA, then wgpu, then the CPU) and a first batch of work on it.
//!
//! ```text
//! cargo run --release --example backends -- --backend wgpu
//! ```

use cubesearch::games::Nim;
use cubesearch::{backend, Backend, Executor, Game, Playouts};

fn main() -> cubesearch::Result<()> {
    for info in backend::info() {
        let status = match (&info.device, &info.why) {
            (Some(device), _) => device.clone(),
            (None, Some(why)) => format!("unavailable: {why}"),
            (None, None) => "unavailable".into(),
        };
        println!("{:<5} {status}", info.name);
    }
    let wanted = std::env::args()
        .skip_while(|a| a != "--backend")
        .nth(1)
        .unwrap_or_else(|| "auto".into());
    let (mut exec, device) = Executor::new(wanted.parse::<Backend>()?)?;
    println!("running on {device}");
    let root = Nim.parse_position("1,3,5,7")?;
    let counts = exec.playouts(&Nim, &[root], 1 << 16, 42)?;
    println!(
        "Nim 1,3,5,7: the side to move wins {} of {} random games",
        counts[0].wins, counts[0].games
    );
    Ok(())
}
