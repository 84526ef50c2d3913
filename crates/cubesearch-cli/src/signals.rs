//! SIGINT and SIGTERM as a stop request. The commands that run long and keep their work
//! (`train`, `match`) take [`stop_on_signals`]: the first signal raises the request, the work
//! keeps what it has (a checkpoint, the results file) and the command exits 128 + the signal's
//! number (130, 143). A second signal ends the process at once.

use cubesearch_core::Stop;
use std::sync::OnceLock;

/// The stop request SIGINT and SIGTERM raise (the signal's number its reason), the handlers
/// installed on first use. Without them (not a Unix system), nothing raises it.
pub fn stop_on_signals() -> Stop {
    static STOP: OnceLock<Stop> = OnceLock::new();
    STOP.get_or_init(|| {
        let stop = Stop::new();
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            use std::sync::atomic::AtomicBool;
            use std::sync::Arc;
            let seen = Arc::new(AtomicBool::new(false));
            for signal in [SIGINT, SIGTERM] {
                // In the order they run: a signal after the first ends the process; the first
                // marks itself seen and raises the request.
                let installed = signal_hook::flag::register_conditional_shutdown(
                    signal,
                    128 + signal,
                    seen.clone(),
                )
                .and_then(|_| signal_hook::flag::register(signal, seen.clone()))
                .and_then(|_| {
                    signal_hook::flag::register_usize(signal, stop.flag(), signal as usize)
                });
                // Without a handler the signal keeps its default action: the process ends.
                let _ = installed;
            }
        }
        stop
    })
    .clone()
}

/// The exit status for work ended by a stop request: 128 + the signal's number.
pub fn exit_status(stop: &Stop) -> u8 {
    stop.reason()
        .and_then(|signal| u8::try_from(128 + signal).ok())
        .unwrap_or(130)
}

/// The signal's name for a message: `SIGINT`, `SIGTERM`.
pub fn name(stop: &Stop) -> String {
    match stop.reason() {
        Some(2) => "SIGINT".into(),
        Some(15) => "SIGTERM".into(),
        Some(n) => format!("signal {n}"),
        None => "a stop request".into(),
    }
}
