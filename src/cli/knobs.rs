//! Knob flags built from the registry the command line runs over: every knob of every application becomes a
//! `--<name> VALUE` flag of `generate`, `run` and `export` (e.g. route's `-n` knob is `--subnets 8`).
//! The chosen application checks that the knobs given are its own.

use clap::{Arg, ArgMatches, Command};

use super::{CliResult, Fail};
use crate::QueryId;
use crate::app::App;
use crate::registry::Registry;

/// The subcommands that take knob flags.
const WITH_KNOBS: [&str; 4] = ["generate", "run", "export", "adapt"];

/// Distinct knob names over all applications, with the first help text seen.
fn knob_flags(registry: &Registry) -> Vec<(&'static str, String)> {
    let mut flags: Vec<(&'static str, String)> = Vec::new();
    for app in registry.apps() {
        for knob in app.info().knobs {
            let help = format!("[{}] {} ({})", app.info().name, knob.help, knob.values);
            match flags.iter_mut().find(|(n, _)| *n == knob.name) {
                Some((_, h)) => {
                    h.push_str("; ");
                    h.push_str(&help);
                }
                None => flags.push((knob.name, help)),
            }
        }
    }
    flags
}

/// `command` with the knob flags of `registry`'s applications on the subcommands that take them.
pub fn add_knob_args(mut command: Command, registry: &Registry) -> Command {
    let flags = knob_flags(registry);
    for sub in WITH_KNOBS {
        command = command.mut_subcommand(sub, |mut c| {
            for (name, help) in &flags {
                let name = *name;
                c = c.arg(
                    Arg::new(name).long(name).value_name("VALUE").help(help.clone()).help_heading("Knobs"),
                );
            }
            c
        });
    }
    command
}

/// Applies the knob flags given on the command line to an id of `app`.
pub fn apply(registry: &Registry, app: &dyn App, id: QueryId, matches: &ArgMatches) -> CliResult<QueryId> {
    let info = app.info();
    let order = info.knob_order();
    let mut id = id;
    for (name, _) in knob_flags(registry) {
        let Some(value) = matches.try_get_one::<String>(name).ok().flatten() else { continue };
        let knob = info
            .knobs
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| Fail { message: format!("{} has no knob --{name}", info.name), code: 2 })?;
        id = id.with_knob(knob.key, value.clone(), &order);
    }
    info.check_id(&id)?;
    Ok(id)
}

/// The knob flags given on the command line, as `(knob name, value)` in flag order (`adapt`
/// turns them into pins of the dimensions of the same names).
pub fn given(registry: &Registry, matches: &ArgMatches) -> Vec<(String, String)> {
    knob_flags(registry)
        .into_iter()
        .filter_map(|(name, _)| {
            let value = matches.try_get_one::<String>(name).ok().flatten()?;
            Some((name.to_string(), value.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// A knob named like a subcommand's own flag (traffic's `mode` against `adapt --mode`) makes
    /// clap refuse the whole command line at startup; its debug checks catch that here.
    #[test]
    fn knob_flags_never_clash_with_a_subcommand_flag() {
        add_knob_args(super::super::Cli::command(), Registry::standard()).debug_assert();
    }

    /// A knob's name is its flag (`--ases`), so it must be one shell word: BGP's was once
    /// "vantage points", a flag nobody could type without quotes.
    #[test]
    fn knob_names_are_flags_one_can_type() {
        for (name, _) in knob_flags(Registry::standard()) {
            let word = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
            assert!(word, "--{name} is not a flag one can type");
        }
    }
}
