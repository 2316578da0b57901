//! `mock-agent`: the scripted test server of `netpress::agent::mock`, for browser tests and
//! for trying the endpoint agents without a model.

use clap::Args;

use super::{CliResult, Context};
use crate::agent::mock::{MockServer, Script};

#[derive(Args, Debug)]
pub struct MockAgentArgs {
    /// Script of the root namespace (JSON: `{"openai": [{"text": "…"}], "a2a": [...], "cors": true}`;
    /// see the `agent::mock` docs). Tests load more scripts with `PUT /_mock/NAME`.
    #[arg(long)]
    pub script: Option<String>,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

/// Serves until killed; the first line on stdout is `listening on http://127.0.0.1:PORT`.
pub fn mock_agent(cx: &mut Context, args: MockAgentArgs) -> CliResult {
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
            serde_json::from_str::<Script>(&text).map_err(|e| format!("{path}: bad script: {e}"))?
        }
        None => Script::default(),
    };
    let server = MockServer::start(&format!("127.0.0.1:{}", args.port), script)?;
    let out = cx.console.out();
    writeln!(out, "listening on {}", server.url())?;
    out.flush()?;
    server.wait();
    Ok(())
}
