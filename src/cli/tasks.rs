//! `list` and `generate`: the registry and its tasks.
//!
//! `generate` is a [`TaskSelection`] like a run's, of one level and seed, so which tasks it
//! prints is decided where a run's are.

use clap::{ArgMatches, Args};

use super::{CliResult, Context, knobs};
use crate::QueryId;
use crate::run::TaskSelection;

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Pretty-print the one task this id names (other selection flags are ignored).
    #[arg(long)]
    pub id: Option<String>,
    /// Application: see `netpress list`.
    #[arg(long, required_unless_present = "id")]
    pub app: Option<String>,
    /// Level.
    #[arg(long, required_unless_present = "id")]
    pub level: Option<u8>,
    /// Seed; tasks are seed/0, seed/1, … (index 0..count-1).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of tasks.
    #[arg(long, default_value_t = 1)]
    pub count: u64,
    /// Keep only tasks with this label (indexes are skipped until COUNT tasks match).
    #[arg(long, alias = "family")]
    pub label: Option<String>,
    /// Print each task's question (or prompt) on one line instead of JSON.
    #[arg(long)]
    pub questions: bool,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
}

pub fn list(cx: &mut Context) -> CliResult {
    let mut out = String::new();
    for app in cx.registry.apps() {
        let info = app.info();
        out.push_str(&format!("{} (v{}): {}\n  {}\n", info.name, info.version, info.title, info.summary));
        for l in info.levels {
            out.push_str(&format!("  level {}: {}\n", l.level, l.summary));
        }
        for k in info.knobs {
            out.push_str(&format!("  knob -{} --{} {}: {}\n", k.key, k.name, k.values, k.help));
        }
        for t in app.glossary() {
            out.push_str(&format!("  term {}: {}\n", t.abbr, t.meaning));
        }
        for t in app.tools() {
            out.push_str(&format!("  tool: netpress {} {}: {}\n", info.name, t.name, t.about));
        }
        out.push_str(&format!("  example id: {}\n\n", app.default_id(info.levels[0].level, 42, 0)));
    }
    if out.is_empty() {
        out.push_str("no applications are registered in this build\n");
    }
    cx.console.out().write_all(out.as_bytes())?;
    Ok(())
}

pub fn generate(cx: &mut Context, args: GenerateArgs, matches: &ArgMatches) -> CliResult {
    if let Some(id) = &args.id {
        let task = cx.registry.generate(id)?;
        let json = serde_json::to_string_pretty(task.card())?;
        return cx.console.write_out(args.output.as_deref(), |w| writeln!(w, "{json}"));
    }
    let app = cx.registry.app(args.app.as_deref().unwrap_or_default())?;
    let level = args.level.unwrap_or_default();
    let template = knobs::apply(cx.registry, app, app.default_id(level, args.seed, 0), matches)?;
    let selection = generated(&template, args.count, args.label.clone());
    cx.console.write_out(args.output.as_deref(), |w| {
        for task in selection.stream(app) {
            let task = task.map_err(|e| std::io::Error::other(e.to_string()))?;
            if args.questions {
                let card = task.card();
                let text = card.question.as_deref().unwrap_or(&card.prompt);
                writeln!(w, "{}", text.replace('\n', " "))?;
            } else {
                writeln!(w, "{}", serde_json::to_string(task.card()).expect("cards serialise"))?;
            }
        }
        Ok(())
    })
}

/// What `generate` prints as a selection: the first `count` tasks of the template's level
/// and seed, indexes 0, 1, …; with a label, indexes are scanned until `count` match.
fn generated(template: &QueryId, count: u64, label: Option<String>) -> TaskSelection {
    TaskSelection {
        levels: vec![template.level],
        seeds: (template.seed, template.seed),
        per_seed: count,
        per_label: label.is_some().then_some(count),
        label,
        knobs: template.knobs.clone(),
        ..TaskSelection::default()
    }
}
