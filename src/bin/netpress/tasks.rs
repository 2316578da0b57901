//! `list` and `generate`: the registry and its tasks.

use std::io::Write;

use clap::{ArgMatches, Args};
use netpress::QueryId;
use netpress::app::App;
use netpress::registry::{self, apps};

use crate::{CliResult, Fail, knobs};

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

pub fn list() -> CliResult {
    let mut out = String::new();
    for app in apps() {
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
    print!("{out}");
    Ok(())
}

pub fn generate(args: GenerateArgs, matches: &ArgMatches) -> CliResult {
    if let Some(id) = &args.id {
        let task = registry::generate(id)?;
        let json = serde_json::to_string_pretty(task.card())?;
        return write_out(args.output.as_deref(), |w| writeln!(w, "{json}"));
    }
    let app = registry::app(args.app.as_deref().unwrap_or_default())?;
    let level = args.level.unwrap_or_default();
    let template = knobs::apply(app, app.default_id(level, args.seed, 0), matches)?;
    write_out(args.output.as_deref(), |w| {
        for task in matching_tasks(app, &template, args.count, args.label.as_deref()) {
            let task = match task {
                Ok(t) => t,
                Err(e) => return Err(std::io::Error::other(e.to_string())),
            };
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

/// The first `count` tasks of `template`'s seed with index 0, 1, … whose label matches.
/// With a label filter, gives up after 1,000 indexes per wanted task.
pub fn matching_tasks<'a>(
    app: &'a dyn App,
    template: &'a QueryId,
    count: u64,
    label: Option<&'a str>,
) -> impl Iterator<Item = netpress::Result<std::sync::Arc<dyn netpress::Task>>> + 'a {
    let limit = if label.is_some() { count.saturating_mul(1000) } else { count };
    (0..limit)
        .map(move |index| app.generate(&QueryId { index, ..template.clone() }))
        .filter(move |t| match (t, label) {
            (Ok(task), Some(l)) => task.card().label == l,
            _ => true,
        })
        .take(count as usize)
}

/// Runs `body` on a buffered stdout or file; a closed pipe (`| head`) ends quietly.
pub fn write_out(path: Option<&str>, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> CliResult {
    let result = match path {
        Some(p) => {
            let file = std::fs::File::create(p).map_err(|e| Fail::from(format!("cannot write {p}: {e}")))?;
            let mut w = std::io::BufWriter::new(file);
            body(&mut w).and_then(|_| w.flush())
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            body(&mut w).and_then(|_| w.flush())
        }
    };
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(Fail::from),
    }
}
