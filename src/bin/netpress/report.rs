//! `report`: one self-contained HTML file of result files (tables, charts, per-query table),
//! and optionally every chart as a standalone SVG file.

use clap::Args;
use netpress::provenance::Provenance;
use netpress::report::{self, html};

use crate::CliResult;
use crate::stats_cmd::{command_line, read_inputs};

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

pub fn report(args: ReportArgs) -> CliResult {
    let (records, inputs) = read_inputs(&args.files)?;
    let provenance = Provenance::of_records(&records, &command_line(), inputs);
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
        eprintln!("wrote {} charts to {dir}", charts.len());
    }
    eprintln!("wrote {} ({} episodes, {} agents)", args.output, records.len(), tables.agents.len());
    Ok(())
}
