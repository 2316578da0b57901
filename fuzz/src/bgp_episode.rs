//! The investigator's action path: any reply through a BGP episode (the verdict reader, the
//! action parser, the shell, bgpdump's and RIPEstat's argument and URL parsing, asrel, vrps,
//! atlas) must not panic or hang.

use netpress::app::App;
use netpress::bgp::BgpApp;

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    thread_local! {
        static TASK: std::sync::Arc<dyn netpress::app::Task> =
            BgpApp.generate(&"bgp-v1-L2-s1-i0".parse().expect("valid id")).expect("generates");
    }
    TASK.with(|task| {
        let mut episode = task.start(None);
        let _ = episode.step(text);
        let _ = episode.step(&format!("```bash\n{text}\n```"));
        let _ = episode.step(&format!("```bash\nripestat {text}\n```"));
        let _ = episode.step(&format!("```bash\ncurl -s 'https://stat.ripe.net/data/{text}'\n```"));
        let _ = episode.step(&format!("submit {{\"incident_type\": {text}}}"));
        let _ = episode.score();
    });
}
