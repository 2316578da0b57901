//! The agent's action path: any reply through the episode (reply parsing, the shell parser,
//! kubectl's argv handling and every verb, on the admin policies too) must not panic or hang.

use netpress::app::App;
use netpress::k8s::K8sApp;

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    thread_local! {
        // Level 3 for the NetworkPolicy faults, level 4 for a cluster with ANPs and the BANP
        // (and the admin hygiene notes); the input's length picks one.
        static TASKS: [std::sync::Arc<dyn netpress::app::Task>; 2] = ["k8s-v1-L3-s1-i0-vacd", "k8s-v1-L4-s1-i0-vacd"]
            .map(|id| K8sApp.generate(&id.parse().expect("valid id")).expect("generates"));
    }
    TASKS.with(|tasks| {
        let mut episode = tasks[text.len() % 2].start(None);
        let _ = episode.step(text);
        let _ = episode.step(&format!("```bash\n{text}\n```"));
        let _ = episode.score();
    });
}
