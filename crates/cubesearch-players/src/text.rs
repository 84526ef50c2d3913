//! The grammar every player spec is written in: `name:key=value,key=value` ([`SpecText`]),
//! and durations (`500ms`, `1s`, `2m`). Errors about a spec name the whole spec.

use cubesearch_core::{Error, Result};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A spec's text split into its name and its options: `name:key=value,key=value`. Errors about
/// it name the whole spec: `bad player 'mcts:c=x': c must be a number, got 'x'`.
#[derive(Clone, Copy, Debug)]
pub struct SpecText<'a> {
    text: &'a str,
    name: &'a str,
    /// What follows the first `:`; `None` without one.
    body: Option<&'a str>,
}

impl<'a> SpecText<'a> {
    /// Splits `text` at its first `:`.
    pub fn new(text: &'a str) -> Self {
        let (name, body) = match text.split_once(':') {
            Some((name, body)) => (name, Some(body)),
            None => (text, None),
        };
        Self {
            text,
            name: name.trim(),
            body,
        }
    }

    /// The spec as written.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The name before the first `:` (`mcts`), trimmed.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The options after the `:` in order, trimmed; an error unless each is `key=value` with
    /// `key` one of `allowed`, given once. A `:` with nothing after it, or an empty option
    /// between commas, is an error too: it is most likely a value lost in quoting.
    pub fn options(&self, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
        match self.body {
            None => Ok(Vec::new()),
            Some(body) if body.trim().is_empty() => Err(self.error(format!(
                "nothing follows ':' ({} takes {})",
                self.name,
                takes(allowed)
            ))),
            Some(body) => self.options_in(body, allowed),
        }
    }

    /// An error where `options` hold two of a pair of [`EXCLUSIVE`] options (`depth=` and
    /// `time=`), of which the search would drop one.
    pub fn exclusive(&self, options: &[(&str, &str)]) -> Result<()> {
        for pair in EXCLUSIVE {
            let given: Vec<&str> = options
                .iter()
                .map(|&(key, _)| key)
                .filter(|key| pair.contains(key))
                .collect();
            if let [first, second, ..] = given.as_slice() {
                return Err(self.error(format!(
                    "{first}= and {second}= exclude each other: give one"
                )));
            }
        }
        Ok(())
    }

    /// An outside program's spec, `name:key=value,…,last=VALUE`: the options before `last=`
    /// as [`options`](Self::options) reads them, and everything after it verbatim (a command
    /// line or a path, which may hold commas and `=`). Without `last=` the whole of what
    /// follows the `:` is that value; an empty one is an error asking for `what`, and so is
    /// one that begins with an option of `allowed` (`ugi:time=1s`: the `cmd=` is missing).
    pub fn options_then(
        &self,
        last: &str,
        allowed: &[&str],
        what: &str,
    ) -> Result<(Vec<(&'a str, &'a str)>, &'a str)> {
        let body = self.body.unwrap_or_default();
        let marker = format!("{last}=");
        let at = body.find(&marker);
        let (options, value) = match at {
            // The options' own last comma comes before `last=`.
            Some(i) => {
                let options = body[..i].trim_end();
                let options = options.strip_suffix(',').unwrap_or(options);
                (options, &body[i + marker.len()..])
            }
            None => ("", body),
        };
        // `ugi:time=1s` has options and no `cmd=`: run as it stands, the options would be
        // taken for the command line itself.
        let first = body.split(',').next().unwrap_or_default();
        let option_first = first
            .split_once('=')
            .is_some_and(|(key, _)| allowed.contains(&key.trim()));
        if at.is_none() && option_first {
            return Err(self.error(format!(
                "{last}= is missing: give {what} last, after {last}= ({name}:{first},{last}={upper})",
                name = self.name,
                first = first.trim(),
                upper = last.to_uppercase(),
            )));
        }
        if value.trim().is_empty() {
            return Err(self.error(format!(
                "give {what}: {name}:{upper} or {name}:{},{last}={upper}",
                allowed
                    .iter()
                    .map(|k| format!("{k}=…"))
                    .collect::<Vec<_>>()
                    .join(","),
                name = self.name,
                upper = last.to_uppercase(),
            )));
        }
        if options.trim().is_empty() {
            return Ok((Vec::new(), value.trim()));
        }
        Ok((self.options_in(options, allowed)?, value.trim()))
    }

    /// `key=value` options separated by commas, none of them empty.
    fn options_in(&self, body: &'a str, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
        let mut seen: Vec<&str> = Vec::new();
        body.split(',')
            .enumerate()
            .map(|(i, pair)| {
                if pair.trim().is_empty() {
                    return Err(self.error(format!("option {} is empty: a comma too many", i + 1)));
                }
                let (key, value) = pair
                    .split_once('=')
                    .ok_or_else(|| self.error(format!("expected key=value, got '{pair}'")))?;
                let key = key.trim();
                if !allowed.contains(&key) {
                    return Err(self.error(format!(
                        "unknown option '{key}': {} takes {}",
                        self.name,
                        takes(allowed)
                    )));
                }
                if seen.contains(&key) {
                    return Err(self.error(format!("{key} is given twice")));
                }
                if value.trim().is_empty() {
                    return Err(self.error(format!("{key}= has no value")));
                }
                seen.push(key);
                Ok((key, value.trim()))
            })
            .collect()
    }

    /// An error about this spec: `bad player '<spec>': <why>`.
    pub fn error(&self, why: impl fmt::Display) -> Error {
        Error::parse(format!("bad player '{}': {why}", self.text))
    }

    /// `value` as the number `key` holds, which must lie in `low..=high` (NaN never does). A
    /// number outside the range is refused naming the range, also one its type cannot hold
    /// (`depth=-1`, `playouts=99999999999999999999`), not the type's own.
    pub fn number_in<T: FromStr + PartialOrd + fmt::Display>(
        &self,
        key: &str,
        value: &str,
        low: T,
        high: T,
    ) -> Result<T> {
        match value.parse::<T>() {
            Ok(n) if n >= low && n <= high => Ok(n),
            Ok(_) => Err(self.error(format!("{key} goes from {low} to {high}, got {value}"))),
            // A number, but not one of the type: negative, too large, or not whole.
            Err(_) if value.trim().parse::<f64>().is_ok() => Err(self.error(format!(
                "{key} goes from {low} to {high} in whole numbers, got {value}"
            ))),
            Err(_) => Err(self.error(format!("{key} must be a number, got '{value}'"))),
        }
    }

    /// `value` read by its type (an [`Exec`](crate::spec::Exec), a `Strategy`, an `ExpectimaxMethod`), its
    /// error naming the valid choices.
    pub fn parse<T: FromStr<Err = Error>>(&self, value: &str) -> Result<T> {
        value.parse().map_err(|e| self.error(e))
    }

    /// `value` as a duration ([`parse_duration`]).
    pub fn duration(&self, value: &str) -> Result<Duration> {
        parse_duration(value).map_err(|e| self.error(e))
    }

    /// `value` as the switch `key`: `on`, `1` or `true`; `off`, `0` or `false`.
    pub fn switch(&self, key: &str, value: &str) -> Result<bool> {
        match value {
            "on" | "1" | "true" => Ok(true),
            "off" | "0" | "false" => Ok(false),
            _ => Err(self.error(format!("{key} is on or off, got '{value}'"))),
        }
    }
}

/// Options that set one thing (how long a search runs), of which a spec gives one at most.
pub const EXCLUSIVE: [[&str; 2]; 2] = [["depth", "time"], ["time", "playouts"]];

/// `spec` with `key=value`: replaced where the spec has `key`, added otherwise, and an option
/// that excludes `key` ([`EXCLUSIVE`]) dropped (an engine's `setoption name playouts` on
/// `mcts:time=1s` gives `mcts:playouts=…`).
pub fn with_option(spec: &str, key: &str, value: &str) -> String {
    let excluded = |k: &str| {
        k == key
            || EXCLUSIVE
                .iter()
                .any(|pair| pair.contains(&key) && pair.contains(&k))
    };
    let (name, body) = spec.split_once(':').unwrap_or((spec, ""));
    let set = format!("{key}={value}");
    let pairs: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && p.split_once('=').is_none_or(|(k, _)| !excluded(k.trim())))
        .chain([set.as_str()])
        .collect();
    format!("{}:{}", name.trim(), pairs.join(","))
}

/// The options a spec takes, for its errors.
fn takes(allowed: &[&str]) -> String {
    if allowed.is_empty() {
        "no options".to_string()
    } else {
        allowed.join(", ")
    }
}

/// Shortest duration taken: below it a search or a run does nothing (`1e-300s`).
const SHORTEST: Duration = Duration::from_millis(1);
/// Longest duration taken: a year.
const LONGEST: Duration = Duration::from_secs(365 * 24 * 3600);

/// Parses a duration like `500ms`, `1s`, `1.5s` or `2m`, from 1 ms to a year.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let bad = || {
        Error::parse(format!(
            "bad duration '{text}': use e.g. 500ms, 1s, 1.5s or 2m"
        ))
    };
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else {
        return Err(bad());
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !(value.is_finite() && value > 0.0) {
        return Err(bad());
    }
    let duration = Duration::try_from_secs_f64(value * scale).map_err(|_| bad())?;
    if !(SHORTEST..=LONGEST).contains(&duration) {
        return Err(Error::parse(format!(
            "duration '{text}' is outside 1ms to a year (365 days)"
        )));
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::{parse_duration, SpecText};
    use std::time::Duration;

    fn refusal(text: &str, read: impl Fn(&SpecText) -> cubesearch_core::Result<()>) -> String {
        read(&SpecText::new(text)).expect_err(text).to_string()
    }

    #[test]
    fn empty_options_are_refused() {
        let keys = ["a", "b"];
        let read = |spec: &SpecText| spec.options(&keys).map(drop);
        for (text, says) in [
            ("p:", "nothing follows ':'"),
            ("p: ", "nothing follows ':'"),
            ("p:,", "option 1 is empty"),
            ("p:a=1,,b=2", "option 2 is empty"),
            ("p:a=1,", "option 2 is empty"),
            ("p:a=1,a=2", "a is given twice"),
        ] {
            let err = refusal(text, read);
            assert!(err.contains(says), "{text}: {err}");
        }
        assert!(SpecText::new("p").options(&keys).unwrap().is_empty());
        // Before the verbatim last option, the options' own comma is not an empty option.
        let spec = SpecText::new("p:a=1,cmd=x,,y");
        let (options, last) = spec.options_then("cmd", &keys, "a command").unwrap();
        assert_eq!((options, last), (vec![("a", "1")], "x,,y"));
        let spec = SpecText::new("p:cmd=x");
        assert!(spec
            .options_then("cmd", &keys, "a command")
            .unwrap()
            .0
            .is_empty());
        let spec = SpecText::new("p:a=1,,cmd=x");
        let err = spec.options_then("cmd", &keys, "a command").unwrap_err();
        assert!(err.to_string().contains("option 2 is empty"), "{err}");
    }

    #[test]
    fn exclusive_options_are_refused_together_and_replace_each_other() {
        let keys = ["depth", "time", "playouts", "c"];
        let spec = SpecText::new("p:playouts=1,c=3,time=2s");
        let err = spec.exclusive(&spec.options(&keys).unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .contains("playouts= and time= exclude each other"),
            "{err}"
        );
        let spec = SpecText::new("p:depth=1,c=3");
        assert!(spec.exclusive(&spec.options(&keys).unwrap()).is_ok());
        for (spec, key, value, gives) in [
            ("mcts:time=1s,c=2", "time", "500ms", "mcts:c=2,time=500ms"),
            (
                "mcts:time=1s,c=2",
                "playouts",
                "300",
                "mcts:c=2,playouts=300",
            ),
            ("alphabeta:depth=4", "time", "1s", "alphabeta:time=1s"),
            (
                "alphabeta:time=1s,exec=gpu",
                "depth",
                "3",
                "alphabeta:exec=gpu,depth=3",
            ),
            ("random", "k", "3", "random:k=3"),
        ] {
            assert_eq!(super::with_option(spec, key, value), gives);
        }
    }

    #[test]
    fn numbers_are_refused_with_their_range_not_their_type() {
        let spec = SpecText::new("p:n=…");
        for (value, says) in [
            ("0", "n goes from 1 to 40, got 0"),
            ("41", "n goes from 1 to 40, got 41"),
            ("-1", "n goes from 1 to 40 in whole numbers, got -1"),
            (
                "4294967296",
                "n goes from 1 to 40 in whole numbers, got 4294967296",
            ),
            ("2.5", "n goes from 1 to 40 in whole numbers, got 2.5"),
        ] {
            let err = spec.number_in::<u32>("n", value, 1, 40).unwrap_err();
            assert!(err.to_string().contains(says), "{value}: {err}");
        }
        for value in ["x", "", "4O"] {
            let err = spec.number_in::<u32>("n", value, 1, 40).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("n must be a number, got '{value}'")),
                "{value}: {err}"
            );
        }
        assert_eq!(spec.number_in::<u32>("n", "40", 1, 40).unwrap(), 40);
        let err = spec.number_in("c", "NaN", 0.0, 100.0).unwrap_err();
        assert!(
            err.to_string().contains("c goes from 0 to 100, got NaN"),
            "{err}"
        );
    }

    #[test]
    fn durations_run_from_a_millisecond_to_a_year() {
        assert_eq!(parse_duration("1ms").unwrap(), Duration::from_millis(1));
        assert_eq!(
            parse_duration("525600m").unwrap().as_secs(),
            365 * 24 * 3600
        );
        for bad in ["1e-300s", "0.5ms", "525601m"] {
            let err = parse_duration(bad).unwrap_err().to_string();
            assert!(err.contains("outside 1ms to a year"), "{bad}: {err}");
        }
    }
}
