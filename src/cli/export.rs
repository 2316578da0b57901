//! `export`: the NetArena leaderboard file (`--leaderboard`), chat-format SFT JSONL (`--sft`)
//! and RL JSONL (`--rl`) from result files, or RL JSONL straight from task generation.

use clap::{ArgGroup, ArgMatches, Args, ValueEnum};

use super::stats_cmd::read_inputs;
use super::{CliResult, Context, Fail, knobs};
use crate::app::{AppKind, PromptVariant};
use crate::export::leaderboard::{self, LeaderboardOptions};
use crate::export::{rl, sft};
use crate::provenance::Provenance;
use crate::record::ResultRecord;
use crate::registry::Registry;
use crate::run::TaskSelection;
use crate::stats::agent_names;

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("what").required(true).args(["leaderboard", "sft", "rl"])))]
pub struct ExportArgs {
    /// Result files (JSONL); `-` reads standard input. `--rl` without files generates tasks.
    pub files: Vec<String>,
    /// Write the NetArena leaderboard's results file (JSON) of one agent on one application.
    #[arg(long)]
    pub leaderboard: bool,
    /// Write chat-format JSONL for supervised fine-tuning.
    #[arg(long)]
    pub sft: bool,
    /// Write (prompt, task id, reward fields) JSONL for reinforcement learning.
    #[arg(long)]
    pub rl: bool,
    /// Write here instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Keep only records of this application; with `--rl` and no files, generate its tasks.
    #[arg(long)]
    pub app: Option<String>,
    /// Keep only records of this agent, named as `netpress stats` names it.
    #[arg(long)]
    pub agent: Option<String>,

    /// [--leaderboard] Participant name (default: APP_operator, as NetArena names them).
    #[arg(long, help_heading = "Leaderboard")]
    pub participant: Option<String>,
    /// [--leaderboard] Participant id, e.g. the agent's registered id (default: the agent's name).
    #[arg(long, help_heading = "Leaderboard")]
    pub participant_id: Option<String>,
    /// [--leaderboard] Result shape (default: from the application): reactive (Route/K8s-like)
    /// or constructive (MALT-like).
    #[arg(long, value_enum, help_heading = "Leaderboard")]
    pub kind: Option<Kind>,

    /// [--sft] One line per episode or one per assistant turn.
    #[arg(long, value_enum, default_value_t = Per::Episode, help_heading = "SFT")]
    pub per: Per,
    /// [--sft] Keep only episodes that are both correct and safe.
    #[arg(long, help_heading = "SFT")]
    pub successful: bool,
    /// [--sft] The system message (default: a short generic one; see docs/results.md).
    #[arg(long, conflicts_with = "no_system", help_heading = "SFT")]
    pub system: Option<String>,
    /// [--sft] No system message.
    #[arg(long, help_heading = "SFT")]
    pub no_system: bool,
    /// [--sft] Assistant messages hold the agent's reply or only the parsed action.
    #[arg(long, value_enum, default_value_t = Assistant::Reply, help_heading = "SFT")]
    pub assistant: Assistant,

    /// [--rl, generating] Levels, comma-separated (default: every level of the app).
    #[arg(long, value_delimiter = ',', help_heading = "RL from generation")]
    pub levels: Vec<u8>,
    /// [--rl, generating] Seeds `A..B` (inclusive) or one seed.
    #[arg(long, default_value = "0..9", help_heading = "RL from generation")]
    pub seeds: String,
    /// [--rl, generating] Tasks per seed (indexes 0..K-1).
    #[arg(long, default_value_t = 1, help_heading = "RL from generation")]
    pub per_seed: u64,
    /// [--rl, generating] Keep only tasks with this label.
    #[arg(long, help_heading = "RL from generation")]
    pub label: Option<String>,
    /// [--rl, generating] Prompt variant: zeroshot_base, zeroshot_cot, fewshot_base, fewshot_cot.
    #[arg(long = "prompt", default_value = "zeroshot_base", help_heading = "RL from generation")]
    pub prompt_variant: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Reactive,
    Constructive,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Per {
    Episode,
    Turn,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Assistant {
    Reply,
    Action,
}

pub fn export(cx: &mut Context, args: ExportArgs, matches: &ArgMatches) -> CliResult {
    if args.rl && args.files.is_empty() {
        return rl_from_generation(cx, &args, matches);
    }
    if args.files.is_empty() {
        return Err(Fail {
            message: "give result files to export (JSONL; - reads standard input)".into(),
            code: 2,
        });
    }
    let (records, inputs) = read_inputs(cx, &args.files)?;
    let records = select(records, args.app.as_deref(), args.agent.as_deref())?;
    let command = cx.command_line.clone();
    if args.leaderboard {
        let provenance = Provenance::of_records(&records, &command, inputs);
        let doc = leaderboard_file(cx.registry, &args, &records, &provenance)?;
        let text = serde_json::to_string_pretty(&doc)?;
        return cx.console.write_out(args.output.as_deref(), |w| writeln!(w, "{text}"));
    }
    let mut written = 0;
    cx.console.write_out(args.output.as_deref(), |w| {
        written = if args.sft {
            sft::write(&records, &sft_options(&args, command.clone()), w)?
        } else {
            rl::write_records(&records, &command, w)?
        };
        Ok(())
    })?;
    if let Some(path) = &args.output {
        writeln!(cx.console.err(), "wrote {written} lines from {} episodes to {path}", records.len())?;
    }
    Ok(())
}

/// The records of one application and one agent when asked.
fn select(
    records: Vec<ResultRecord>,
    app: Option<&str>,
    agent: Option<&str>,
) -> CliResult<Vec<ResultRecord>> {
    let names = agent_names(&records);
    let known: std::collections::BTreeSet<&String> = names.iter().collect();
    if let Some(a) = agent.filter(|a| !known.iter().any(|k| k == a)) {
        let list: Vec<&str> = known.iter().map(|k| k.as_str()).collect();
        return Err(Fail {
            message: format!("no agent {a:?} in these results (agents: {})", list.join(", ")),
            code: 2,
        });
    }
    let kept: Vec<ResultRecord> = records
        .into_iter()
        .zip(names)
        .filter(|(r, name)| app.is_none_or(|a| r.app == a) && agent.is_none_or(|a| name == a))
        .map(|(r, _)| r)
        .collect();
    if kept.is_empty() {
        return Err(Fail::from(format!("no records of app {:?} in these results", app.unwrap_or_default())));
    }
    Ok(kept)
}

fn leaderboard_file(
    registry: &Registry,
    args: &ExportArgs,
    records: &[ResultRecord],
    provenance: &Provenance,
) -> CliResult<serde_json::Value> {
    let app = records.first().map(|r| r.app.clone()).unwrap_or_default();
    let kind = match args.kind {
        Some(Kind::Reactive) => AppKind::Reactive,
        Some(Kind::Constructive) => AppKind::Constructive,
        None => registry
            .app(&app)
            .map(|a| a.info().kind)
            .map_err(|e| Fail { message: format!("{e}; give the result shape with --kind"), code: 2 })?,
    };
    let opts = LeaderboardOptions {
        kind,
        participant: args.participant.clone().unwrap_or_else(|| format!("{app}_operator")),
        participant_id: args
            .participant_id
            .clone()
            .unwrap_or_else(|| agent_names(records).into_iter().next().unwrap_or_default()),
    };
    let lookup = |id: &str| registry.generate(id).ok().map(|t| t.card().clone());
    leaderboard::export(records, &opts, &lookup, provenance).map_err(Fail::from)
}

fn sft_options(args: &ExportArgs, command: String) -> sft::SftOptions {
    sft::SftOptions {
        per: match args.per {
            Per::Episode => sft::Granularity::Episode,
            Per::Turn => sft::Granularity::Turn,
        },
        successful_only: args.successful,
        system: if args.no_system {
            None
        } else {
            Some(args.system.clone().unwrap_or_else(|| sft::DEFAULT_SYSTEM.to_string()))
        },
        assistant: match args.assistant {
            Assistant::Reply => sft::AssistantText::Reply,
            Assistant::Action => sft::AssistantText::Action,
        },
        command,
    }
}

/// RL lines for the tasks of (app, levels, seeds, per-seed, label, knobs): a run's task
/// selection, generated in run order and streamed out.
fn rl_from_generation(cx: &mut Context, args: &ExportArgs, matches: &ArgMatches) -> CliResult {
    let name = args.app.as_deref().ok_or_else(|| Fail {
        message: "--rl needs result files, or --app (with --levels, --seeds, --per-seed) to generate tasks"
            .into(),
        code: 2,
    })?;
    let app = cx.registry.app(name)?;
    let variant = PromptVariant::parse(&args.prompt_variant)?;
    let seeds = super::run::parse_seeds(&args.seeds)?;
    let first_level = args.levels.first().copied().unwrap_or(app.info().levels[0].level);
    let selection = TaskSelection {
        levels: args.levels.clone(),
        seeds,
        per_seed: args.per_seed,
        label: args.label.clone(),
        knobs: knobs::apply(cx.registry, app, app.default_id(first_level, seeds.0, 0), matches)?.knobs,
        ..TaskSelection::default()
    };
    // Refused levels and knobs are refused before the output file is created.
    selection.check(app.info())?;
    let command = cx.command_line.clone();
    let mut written = 0;
    cx.console.write_out(args.output.as_deref(), |w| {
        written = rl::write_tasks(selection.stream(app), variant, &command, w)?;
        Ok(())
    })?;
    if let Some(path) = &args.output {
        writeln!(cx.console.err(), "wrote {written} generated tasks to {path}")?;
    }
    Ok(())
}
