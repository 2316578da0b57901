//! `exec`: drive one task by hand, seeing exactly what an agent sees; and the dispatcher of
//! `netpress <app> …` commands.

use clap::Parser;

use super::{CliResult, Context, Fail};
use crate::agent::Agent;
use crate::agent::replay::ReplaySource;
use crate::answer::{AnswerKind, Pasting};
use crate::app::{Episode, PromptVariant};
use crate::paste::{Piece, split_paste};
use crate::run::{RunSettings, Runner};
use crate::view::panels_to_text;

#[derive(Parser, Debug)]
#[command(name = "exec")]
pub struct ExecArgs {
    /// The task's query id.
    #[arg(long)]
    pub task: String,
    /// Read replies from this file instead of standard input.
    #[arg(long)]
    pub file: Option<String>,
    /// Print the full prompt first.
    #[arg(long)]
    pub prompt: bool,
    /// Print the state panels (matrix, mismatches, diff) after each step.
    #[arg(long)]
    pub panels: bool,
    /// Turn limit (default: the task's).
    #[arg(long)]
    pub max_turns: Option<u32>,
}

/// A JSON array of replies or a results file is read as a replay; anything else as the web
/// app's paste box splits it (`paste::split_paste`): a program is one answer, otherwise a
/// transcript's replies, fenced blocks or one command per line (`#` lines are comments), each
/// typed command composed into a reply by the episode as the page's terminal does.
fn replies(input: &str, answer: AnswerKind, episode: &dyn Episode) -> crate::error::Result<ReplaySource> {
    let head = input.trim_start();
    if answer.pasting() == Pasting::Whole || head.starts_with('[') || head.starts_with('{') {
        return ReplaySource::parse(input, answer);
    }
    let targets = episode.targets();
    let replies = split_paste(input, answer, &targets)
        .into_iter()
        .map(|piece| match piece {
            Piece::Reply(r) => r,
            Piece::Command(line) => episode.compose(line.target.as_deref(), &line.command),
        })
        .collect();
    Ok(ReplaySource::Same(replies))
}

pub fn exec(cx: &mut Context, args: ExecArgs) -> CliResult {
    let task = cx.registry.generate(&args.task)?;
    let app = cx.registry.app(&task.card().app)?;
    let input = match &args.file {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))?,
        None => {
            let mut s = String::new();
            cx.console.input().read_to_string(&mut s).map_err(|e| format!("cannot read stdin: {e}"))?;
            s
        }
    };
    let out = cx.console.out();
    let settings = RunSettings { variant: PromptVariant::ZeroshotBase, max_turns: args.max_turns };
    let mut runner = Runner::new(task.clone(), settings);
    let source = replies(&input, app.info().answer_of(&*task), runner.episode())?;
    let mut agent = source.agent_for(&task.card().id);
    let card = task.card();
    writeln!(out, "# {}  content hash {}", card.id, card.content_hash)?;
    if args.prompt {
        writeln!(out, "{}\n", runner.messages()[0].content)?;
    }
    while runner.finished().is_none() {
        let reply = agent.reply(runner.messages());
        let input_done = reply.is_err();
        runner.submit(reply);
        if input_done {
            break;
        }
        let turn = runner.turns().last().expect("a turn was recorded");
        writeln!(out, "## turn {}: {}", turn.turn, turn.action.lines().next().unwrap_or(""))?;
        writeln!(out, "{}", turn.observation)?;
        if args.panels {
            write!(out, "{}", panels_to_text(&runner.episode().panels()))?;
        }
    }
    let record = runner.record(&agent.info());
    writeln!(out, "## score\n{}", record.score.explanation)?;
    Ok(())
}

/// `netpress <app> exec …` and `netpress <app> <tool> …`.
pub fn app_command(cx: &mut Context, argv: &[String]) -> CliResult {
    let app = cx
        .registry
        .app(&argv[0])
        .map_err(|e| Fail { message: format!("{e}; see `netpress --help`"), code: 2 })?;
    let name = app.info().name;
    let usage = || {
        let mut s = format!(
            "usage: netpress {name} <command> [ARGS]\n\ncommands:\n  exec   drive one task by hand (netpress {name} exec --task ID)\n"
        );
        for t in app.tools() {
            s.push_str(&format!("  {:<6} {}\n", t.name, t.about));
        }
        s
    };
    match argv.get(1).map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            write!(cx.console.out(), "{}", usage())?;
            Ok(())
        }
        Some("exec") => match ExecArgs::try_parse_from(&argv[1..]) {
            Ok(args) => exec(cx, args),
            Err(e) => match cx.console.clap_message(&e) {
                0 => Ok(()),
                code => Err(Fail { message: String::new(), code }),
            },
        },
        Some(tool_name) => {
            let tool = app.tools().iter().find(|t| t.name == tool_name).ok_or_else(|| Fail {
                message: format!("{name} has no command {tool_name:?}\n{}", usage()),
                code: 2,
            })?;
            let rest = &argv[2..];
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                write!(cx.console.out(), "{}", tool.usage)?;
                return Ok(());
            }
            let console = &mut cx.console;
            let code = (tool.run)(rest, &mut *console.stdin, &mut *console.stdout, &mut *console.stderr);
            if code == 0 {
                Ok(())
            } else {
                Err(Fail { message: String::new(), code: code.clamp(1, 255) as u8 })
            }
        }
    }
}
