//! The fuzz targets' bodies, one module each, so that libFuzzer's entries
//! (`fuzz_targets/*.rs`) and the `slowest` replayer (`src/bin/slowest.rs`) run the same code.

pub mod adapt_state;
pub mod agent_replies;
pub mod bgp_episode;
pub mod bgp_jq;
pub mod bgp_mrt;
pub mod bgp_ripestat;
pub mod bgp_verdict;
pub mod env_protocol;
pub mod flows_api;
pub mod flows_logs;
pub mod k8s_connectivity;
pub mod k8s_patch;
pub mod k8s_shell;
pub mod k8s_yaml;
pub mod malt_answer;
pub mod malt_api;
pub mod microseg_nsg;
pub mod microseg_policy;
pub mod microseg_repair;
pub mod microseg_sg;
pub mod route_reply;
pub mod route_shell;
pub mod shell_tools;
pub mod traffic_check;
pub mod traffic_straw;
pub mod ui_link;
pub mod worker_protocol;

/// Every target by name.
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("adapt_state", adapt_state::fuzz),
    ("agent_replies", agent_replies::fuzz),
    ("bgp_episode", bgp_episode::fuzz),
    ("bgp_jq", bgp_jq::fuzz),
    ("bgp_mrt", bgp_mrt::fuzz),
    ("bgp_ripestat", bgp_ripestat::fuzz),
    ("bgp_verdict", bgp_verdict::fuzz),
    ("env_protocol", env_protocol::fuzz),
    ("flows_api", flows_api::fuzz),
    ("flows_logs", flows_logs::fuzz),
    ("k8s_connectivity", k8s_connectivity::fuzz),
    ("k8s_patch", k8s_patch::fuzz),
    ("k8s_shell", k8s_shell::fuzz),
    ("k8s_yaml", k8s_yaml::fuzz),
    ("malt_answer", malt_answer::fuzz),
    ("malt_api", malt_api::fuzz),
    ("microseg_nsg", microseg_nsg::fuzz),
    ("microseg_policy", microseg_policy::fuzz),
    ("microseg_repair", microseg_repair::fuzz),
    ("microseg_sg", microseg_sg::fuzz),
    ("route_reply", route_reply::fuzz),
    ("route_shell", route_shell::fuzz),
    ("shell_tools", shell_tools::fuzz),
    ("traffic_check", traffic_check::fuzz),
    ("traffic_straw", traffic_straw::fuzz),
    ("ui_link", ui_link::fuzz),
    ("worker_protocol", worker_protocol::fuzz),
];
