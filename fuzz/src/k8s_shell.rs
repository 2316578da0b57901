//! The agent's action path: any reply through the episode (reply parsing, the shell parser,
//! kubectl's argv handling and every verb) must not panic or hang.

use netpress::app::App;
use netpress::k8s::K8sApp;

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    thread_local! {
        static TASK: std::sync::Arc<dyn netpress::app::Task> =
            K8sApp.generate(&"k8s-v1-L3-s1-i0-vacd".parse().expect("valid id")).expect("generates");
    }
    TASK.with(|task| {
        let mut episode = task.start(None);
        let _ = episode.step(text);
        let _ = episode.step(&format!("```bash\n{text}\n```"));
        let _ = episode.score();
    });
}
