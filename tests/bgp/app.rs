//! The application end to end: golden ids pin generation (label and content hash), and the
//! baseline plays whole episodes through the shared runner.

use netpress::registry;
use netpress::run::{RunSettings, run_episode};

/// Ids across levels and knobs, their labels and content hashes, in generator versions v1 and v2
/// (which must never change) and v3. A change here means the generator or the prompt changed: say why
/// in the commit.
const GOLDEN: &[(&str, &str, &str)] = &[
    ("bgp-v1-L1-s0-i0", "L1:RL1", "c75822d545e48473e1b25c5989e07d510ff7418ebca40691f8f4bca5f18318a8"),
    ("bgp-v1-L2-s7-i0", "L2:SH", "c2feae3f8792abcdf15f526dd39f2d1dc433a91815a9977351f0c17e26ae4e3d"),
    ("bgp-v1-L3-s5-i0-n200-fRO", "L3:RO", "35da9f9d7fa423d52e1f11eadbf3c7f582be682cbd2d840a1b69351f371a5f10"),
    ("bgp-v1-L3-s1-i0", "L3:OW", "b29893378fda9bfa8ea2afda0f9d854d90668037a5e782bddfaa000c7eae22d6"),
    ("bgp-v1-L4-s2-i0-n700", "L4:BA", "9501453a44708ba44bbc5748b0a9fb80b276a2e22410835d55271d72091ecd36"),
    (
        "bgp-v1-L2-s3-i1-fRL2+LF-c2-v9-w12-t25",
        "L2:RL2",
        "b9f2420a1ed95a3def72d5aa1ddecd049c66e05efe3c4e47d3d82d6e07674e78",
    ),
    ("bgp-v2-L1-s0-i0", "L1:RL1", "c881769d81d6651cf289262007d99553167fa1cd59185a7a2de9d946079fad09"),
    ("bgp-v2-L2-s7-i0", "L2:RL3", "e898d3222b8669a37667b1db1956236bbecbbf70375482be11d94517f01ed7d3"),
    ("bgp-v2-L3-s5-i0-n200-fRO", "L3:RO", "4265a125f6ddb4394270432e6d0a2389d09dcc81bfcc64186996c82c4ef8c98a"),
    ("bgp-v2-L3-s1-i0", "L3:MS", "7514e8fed48895373e07dea579a906d7c32b2bceed7eefcbbe0b08c498252b8f"),
    ("bgp-v2-L4-s2-i0-n700", "L4:RO", "5635b74e9f9df23da9931f985eac2728297fa70931630d893035cfaae77e28c6"),
    (
        "bgp-v2-L2-s3-i1-fRL2+LF-c2-v9-w12-t25",
        "L2:LF",
        "5c50e2ffa937e6f90264121fc81d1fc12127968dac16a050c328a567cc4d11fd",
    ),
    ("bgp-v3-L1-s0-i0", "L1:BM", "ac029c02d23c008700dd57471e7a248eec3b54174bf42221ee2c7632afe629d9"),
    ("bgp-v3-L2-s7-i0", "L2:RL1", "8a7c9d70fc211c991c2aa144df505cac2abf8b65121f22f59bd03ae2d96493ad"),
    ("bgp-v3-L3-s5-i0-n200-fRO", "L3:RO", "9904dd3d3f528139064a61a78b3e95f3d260e02d83e0d079052d523b040cec4f"),
    ("bgp-v3-L3-s1-i0", "L3:RL4", "5600e70de5ef6105b7d085f43a7f0c6d07b7e7668aade742c74861a248c021d1"),
    ("bgp-v3-L4-s2-i0-n700", "L4:MS", "b8fa7880a249e2f60415ee882615b37070aed074b7edefe662a9038c366f240a"),
    (
        "bgp-v3-L2-s3-i1-fRL2+LF-c2-v9-w12-t25",
        "L2:LF",
        "be5b8ede432ddad6cd87586d3ab30fb6204a79d48f6b0c96b49dbd780fc33c04",
    ),
];

#[test]
fn golden_ids_keep_their_label_and_hash() {
    for (id, label, hash) in GOLDEN {
        let task = registry::generate(id).unwrap();
        let card = task.card();
        assert_eq!((card.label.as_str(), card.content_hash.as_str()), (*label, *hash), "{id}");
        assert_eq!(registry::generate(id).unwrap().card(), card, "{id}: same id, same card");
    }
}

#[test]
fn the_baseline_investigates_through_the_runner() {
    let app = registry::app("bgp").unwrap();
    let mut correct = 0;
    for seed in 0..10 {
        let task = app.generate(&app.default_id(1, seed, 0)).unwrap();
        let record = run_episode(task.clone(), app.baseline().as_mut(), RunSettings::default());
        assert!(record.score.safe, "{}: {}", record.id, record.score.explanation);
        assert!(record.turns.len() >= 4 && record.turns.len() <= 12, "{}", record.id);
        let last = record.turns.last().unwrap();
        assert!(last.reply.starts_with("submit {"), "{}: {}", record.id, last.reply);
        correct += usize::from(record.score.correct);
    }
    assert!(correct >= 9, "the baseline solves L1 tasks: {correct}/10");
}

/// Prepending is traffic engineering, not an incident: it moves vantage points onto paths whose
/// links the relationships may mislabel or miss (L3 and up), which must not read as a leak or a
/// forged origin. Before the baseline set aside paths its origin's prepending explains, it
/// accused someone in about a quarter of these controls: the three drawn ids below (a peer
/// valley faked by a mislabelled link twice, a missing link read as a forged origin once).
#[test]
fn the_baseline_accuses_no_one_over_prepending() {
    let app = registry::app("bgp").unwrap();
    let drawn = ["bgp-v1-L3-s49-i0", "bgp-v1-L3-s105-i0", "bgp-v1-L3-s118-i0"].map(String::from);
    let forced = (0..16)
        .map(|s| format!("bgp-v1-L3-s{s}-i0-fBP"))
        .chain((0..4).map(|s| format!("bgp-v1-L2-s{s}-i0-fBP")));
    for id in drawn.into_iter().chain(forced) {
        let task = registry::generate(&id).unwrap();
        assert_eq!(task.card().label.split(':').nth(1), Some("BP"), "{id}");
        let record = run_episode(task, app.baseline().as_mut(), RunSettings::default());
        assert!(record.score.correct && record.score.safe, "{}: {}", record.id, record.score.explanation);
    }
}

#[test]
fn bad_verdicts_cost_a_turn_and_end_nothing() {
    let task = registry::generate("bgp-v1-L1-s0-i0").unwrap();
    let mut ep = task.start(None);
    let out = ep.step("submit {\"incident_type\": \"outage\", \"offender_asn\": \"ASx\"}");
    assert!(
        out.observation.starts_with("Error: verdict rejected: offender_asn: not an AS number"),
        "{}",
        out.observation
    );
    assert!(ep.finished().is_none());
    let out = ep.step("I think it is fine.");
    assert!(out.observation.starts_with("Error: no command found"), "{}", out.observation);
    let out = ep.step("```\n$ ls\n```");
    assert_eq!((out.action.as_str(), out.observation.as_str()), ("ls", "rc00\n"));
    let truth = task.card().expected.clone();
    ep.step(&format!("submit {truth}"));
    assert!(ep.finished().is_some());
    let s = ep.score();
    assert!(s.correct && s.safe, "{}", s.explanation);
}

/// Generator v2 and later prompts list every command `help` lists (v1's list predates
/// `visibility`, `routing-status` and `atlas traceroute`, and v1 ids keep it: the v1 rows of
/// [`GOLDEN`] pin their prompts); new ids are v3, and an unknown version is refused by name.
#[test]
fn v2_prompts_name_every_command_help_lists() {
    use netpress::app::PromptVariant;
    let app = registry::app("bgp").unwrap();
    assert_eq!(app.default_id(1, 0, 0).to_string(), "bgp-v3-L1-s0-i0");
    for (id, version) in
        [("bgp-v3-L1-s0-i0", 3), ("bgp-v2-L1-s0-i0", 2), ("bgp-v2-L3-s1-i0", 2), ("bgp-v1-L1-s0-i0", 1)]
    {
        let task = registry::generate(id).unwrap();
        assert_eq!(task.card().version, version, "{id}");
        let prompt = task.prompt(PromptVariant::ZeroshotBase);
        let help = task.start(None).step("```bash\nhelp\n```").observation;
        for command in ["visibility", "routing-status", "atlas traceroute --probes", "atlas probes", "whois"]
        {
            assert!(help.contains(command), "{id}: help lacks {command}");
            assert_eq!(
                prompt.contains(command),
                version >= 2 || command.starts_with("atlas p") || command == "whois",
                "{id}: {command}"
            );
        }
        if version >= 2 {
            let listed = prompt.split("fenced block):\n").nth(1).unwrap();
            assert!(listed.starts_with(&help), "{id}: the prompt quotes help's list whole");
        }
    }
    let err = app.generate(&"bgp-v4-L1-s0-i0".parse().unwrap()).err().unwrap().to_string();
    assert_eq!(err, "unknown generator version v4 for bgp (this build has v3)");
}

#[test]
fn netpress_bgp_topo_prints_the_neighbourhood_through_the_cli() {
    use netpress::cli::Console;
    use netpress::registry::Registry;
    let run = |args: &[&str]| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv = ["netpress", "bgp", "topo"].iter().chain(args);
        let code =
            netpress::cli::main(Registry::standard(), argv, Console::new(&b""[..], &mut out, &mut err));
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    let (code, out, err) = run(&["--task", "bgp-v1-L1-s0-i0"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# AS neighbourhood of bgp-v1-L1-s0-i0 around "), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.ends_with("|-1") || r.ends_with("|0")), "{out}");
    let (code, _, err) = run(&["--task", "bgp-v1-L1-s0-i0", "--format", "png"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown format \"png\""), "{err}");
}
