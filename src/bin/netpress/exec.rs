//! `exec`: drive one task by hand, seeing exactly what an agent sees; and the dispatcher of
//! `netpress <app> …` commands.

use std::io::Read;

use clap::Parser;
use netpress::agent::Agent;
use netpress::agent::replay::ReplaySource;
use netpress::app::PromptVariant;
use netpress::registry;
use netpress::run::{RunSettings, Runner};
use netpress::view::panels_to_text;

use crate::{CliResult, Fail};

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

/// Replies are split as a replay file is: Python apps take the whole input as one answer;
/// others take one reply per non-empty line (`#` lines are comments) or a JSON array.
pub fn exec(args: ExecArgs) -> CliResult {
    let task = registry::generate(&args.task)?;
    let app = registry::app(&task.card().app)?;
    let input = match &args.file {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"))?,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| format!("cannot read stdin: {e}"))?;
            s
        }
    };
    let source = ReplaySource::parse(&input, app.info().answer_of(&*task))?;
    let mut agent = source.agent_for(&task.card().id);
    let settings = RunSettings { variant: PromptVariant::ZeroshotBase, max_turns: args.max_turns };
    let mut runner = Runner::new(task.clone(), settings);
    let card = task.card();
    println!("# {}  content hash {}", card.id, card.content_hash);
    if args.prompt {
        println!("{}\n", runner.messages()[0].content);
    }
    while runner.finished().is_none() {
        let reply = agent.reply(runner.messages());
        let input_done = reply.is_err();
        runner.submit(reply);
        if input_done {
            break;
        }
        let turn = runner.turns().last().expect("a turn was recorded");
        println!("## turn {}: {}", turn.turn, turn.action.lines().next().unwrap_or(""));
        println!("{}", turn.observation);
        if args.panels {
            print!("{}", panels_to_text(&runner.episode().panels()));
        }
    }
    let record = runner.record(&agent.info());
    println!("## score\n{}", record.score.explanation);
    Ok(())
}

/// `netpress <app> exec …` and `netpress <app> <tool> …`.
pub fn app_command(argv: &[String]) -> CliResult {
    let app = registry::app(&argv[0])
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
            print!("{}", usage());
            Ok(())
        }
        Some("exec") => {
            let args = ExecArgs::try_parse_from(&argv[1..]).map_err(|e| {
                let _ = e.print();
                Fail { message: String::new(), code: if e.use_stderr() { 2 } else { 0 } }
            });
            match args {
                Ok(args) => exec(args),
                Err(f) if f.code == 0 => Ok(()),
                Err(f) => Err(f),
            }
        }
        Some(tool_name) => {
            let tool = app.tools().iter().find(|t| t.name == tool_name).ok_or_else(|| Fail {
                message: format!("{name} has no command {tool_name:?}\n{}", usage()),
                code: 2,
            })?;
            let rest = &argv[2..];
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                print!("{}", tool.usage);
                return Ok(());
            }
            let code =
                (tool.run)(rest, &mut std::io::stdin(), &mut std::io::stdout(), &mut std::io::stderr());
            if code == 0 {
                Ok(())
            } else {
                Err(Fail { message: String::new(), code: code.clamp(1, 255) as u8 })
            }
        }
    }
}
