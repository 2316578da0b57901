//! `report`: one self-contained HTML file of result files (tables, charts, per-query table),
//! and optionally every chart as a standalone SVG file.

use clap::Args;

use super::stats_cmd::read_inputs;
use super::{CliResult, Context};
use crate::provenance::Provenance;
use crate::report::{self, html};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Result files (JSONL); `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// The HTML file to write.
    #[arg(short, long, default_value = "report.html")]
    pub output: String,
    /// The report's title.
    #[arg(long, default_value = "NetPress report")]
    pub title: String,
    /// Also write every chart as DIR/<chart id>.svg (for README figures).
    #[arg(long, value_name = "DIR")]
    pub svg_dir: Option<String>,
}

pub fn report(cx: &mut Context, args: ReportArgs) -> CliResult {
    let (records, inputs) = read_inputs(cx, &args.files)?;
    let provenance = Provenance::of_records(&records, &cx.command_line, inputs);
    let (tables, charts) = report::build(&records, provenance);
    let page = html::document(&args.title, &tables, &charts);
    std::fs::write(&args.output, page).map_err(|e| format!("cannot write {}: {e}", args.output))?;
    if let Some(dir) = &args.svg_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
        let meta = serde_json::to_value(&tables.provenance)?;
        for chart in &charts {
            let path = std::path::Path::new(dir).join(format!("{}.svg", chart.id));
            std::fs::write(&path, chart.svg_file(&meta))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        writeln!(cx.console.err(), "wrote {} charts to {dir}", charts.len())?;
    }
    let agents = tables.agents.len();
    writeln!(cx.console.err(), "wrote {} ({} episodes, {agents} agents)", args.output, records.len())?;
    Ok(())
}
