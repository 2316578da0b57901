//! The picture and panels of scored episodes: neutral until scored, then the answer's changes
//! marked as expected, wrong or outside the question's scope (docs/traffic.md, "The picture
//! and panels").

use netpress::app::{App, Episode};
use netpress::malt::sandbox::Limits;
use netpress::traffic::TRAFFIC;
use netpress::traffic::family::code;
use netpress::traffic::task::generate;
use netpress::view::{Panel, Picture, Tone};

/// A colour-label question ("Mark the tier:web group of endpoints in purple").
const COLOUR: &str = "traffic-v1-L1-s0-i5";
/// A read-only question (a count).
const COUNT: &str = "traffic-v1-L1-s0-i0";

fn episode(id: &str, reply: &str) -> Box<dyn Episode> {
    let limits = Limits { time: std::time::Duration::from_secs(120), ..Limits::default() };
    let task = TRAFFIC.generate_limited(&id.parse().unwrap(), &limits).unwrap();
    let mut ep = task.start(None);
    ep.step(reply);
    ep
}

fn tones(p: &Picture) -> Vec<Tone> {
    p.nodes.iter().map(|n| n.tone).filter(|t| *t != Tone::Neutral).collect()
}

fn lines(p: &Panel) -> (&str, &[(Tone, String)]) {
    match p {
        Panel::Lines { summary, lines, .. } => (summary, lines),
        other => panic!("a lines panel, got {other:?}"),
    }
}

#[test]
fn the_task_picture_gives_nothing_away() {
    let task = TRAFFIC.generate(&COLOUR.parse().unwrap()).unwrap();
    let p = task.picture();
    assert!(!p.nodes.is_empty() && !p.edges.is_empty());
    assert!(
        p.nodes.iter().all(|n| n.tone == Tone::Neutral) && p.edges.iter().all(|e| e.tone == Tone::Neutral)
    );
    assert!(p.caption.contains(COLOUR), "{}", p.caption);
}

#[test]
fn a_right_answer_is_marked_as_expected() {
    let g = generate(&COLOUR.parse().unwrap()).unwrap();
    let ep = episode(COLOUR, &code(&g.query));
    assert!(ep.score().correct);
    let p = ep.picture().expect("scored");
    let t = tones(&p);
    assert!(!t.is_empty() && t.iter().all(|t| *t == Tone::Fixed), "{t:?}");
    assert!(p.nodes.iter().filter(|n| n.tone == Tone::Fixed).all(|n| n.label.ends_with(" purple")));
    let panels = ep.panels();
    assert_eq!(lines(&panels[0]).0, "returned graph");
    let (summary, changes) = lines(&panels[1]);
    assert!(
        summary.ends_with(" as expected, 0 wrong or missing, 0 outside the question's scope"),
        "{summary}"
    );
    assert!(changes.iter().all(|(t, _)| *t == Tone::Fixed));
}

#[test]
fn a_wrong_answer_shows_where_it_erred() {
    let every = "def process_graph(G):\n    for n in G.nodes():\n        G.set(n, 'color', 'purple')\n    return {'type': 'graph', 'data': G}\n";
    let ep = episode(COLOUR, every);
    assert!(!ep.score().correct);
    let t = tones(&ep.picture().expect("scored"));
    assert!(t.contains(&Tone::Fixed) && t.contains(&Tone::Bad), "{t:?}");
    // The changes a read-only question did not ask for are outside its scope.
    let paint = "def process_graph(G):\n    for n in G.nodes():\n        G.set(n, 'color', 'red')\n    return {'type': 'text', 'data': 1}\n";
    let ep = episode(COUNT, paint);
    assert!(!ep.score().safe);
    let t = tones(&ep.picture().expect("scored"));
    assert!(!t.is_empty() && t.iter().all(|t| *t == Tone::Broken), "{t:?}");
    let panels = ep.panels();
    let (summary, _) = lines(&panels[1]);
    assert!(summary.contains("0 as expected") && !summary.contains(" 0 outside"), "{summary}");
}

#[test]
fn an_unscored_episode_lists_the_error_and_no_marks() {
    let id = format!("{COLOUR}-t2");
    let ep = episode(&id, "def process_graph(G):\n    G.set(G.nodes()[0], 'color', 'red')\n    return 5\n");
    assert!(ep.finished().is_none(), "an invalid return leaves a second turn");
    assert!(ep.picture().is_none());
    let panels = ep.panels();
    let (summary, answer) = lines(&panels[0]);
    assert_eq!(summary, "no valid return");
    assert!(answer.iter().all(|(t, _)| *t == Tone::Bad));
    let (summary, changes) = lines(&panels[1]);
    assert_eq!(summary, "1 changes to G");
    assert_eq!(changes[0].0, Tone::Neutral);
}
