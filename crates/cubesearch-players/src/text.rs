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
    body: &'a str,
}

impl<'a> SpecText<'a> {
    /// Splits `text` at its first `:`.
    pub fn new(text: &'a str) -> Self {
        let (name, body) = text.split_once(':').unwrap_or((text, ""));
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
    /// `key` one of `allowed`, given once.
    pub fn options(&self, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
        self.options_in(self.body, allowed)
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
        let marker = format!("{last}=");
        let at = self.body.find(&marker);
        let (options, value) = match at {
            Some(i) => (&self.body[..i], &self.body[i + marker.len()..]),
            None => ("", self.body),
        };
        // `ugi:time=1s` has options and no `cmd=`: run as it stands, the options would be
        // taken for the command line itself.
        let first = self.body.split(',').next().unwrap_or_default();
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
        Ok((self.options_in(options, allowed)?, value.trim()))
    }

    fn options_in(&self, body: &'a str, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
        let mut seen: Vec<&str> = Vec::new();
        body.split(',')
            .filter(|pair| !pair.trim().is_empty())
            .map(|pair| {
                let (key, value) = pair
                    .split_once('=')
                    .ok_or_else(|| self.error(format!("expected key=value, got '{pair}'")))?;
                let key = key.trim();
                if !allowed.contains(&key) {
                    let takes = if allowed.is_empty() {
                        "no options".to_string()
                    } else {
                        allowed.join(", ")
                    };
                    return Err(self.error(format!(
                        "unknown option '{key}': {} takes {takes}",
                        self.name
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

    /// `value` as the number `key` holds.
    pub fn number<T: FromStr>(&self, key: &str, value: &str) -> Result<T> {
        value
            .parse()
            .map_err(|_| self.error(format!("{key} must be a number, got '{value}'")))
    }

    /// `value` as the number `key` holds, which must lie in `low..=high` (NaN never does).
    pub fn number_in<T: FromStr + PartialOrd + fmt::Display>(
        &self,
        key: &str,
        value: &str,
        low: T,
        high: T,
    ) -> Result<T> {
        let n: T = self.number(key, value)?;
        if n >= low && n <= high {
            Ok(n)
        } else {
            Err(self.error(format!("{key} goes from {low} to {high}, got {value}")))
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
    use super::parse_duration;
    use std::time::Duration;

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
