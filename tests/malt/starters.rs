//! `Task::starters` for MALT: a runnable template for the task's answer type, then worked
//! examples of the G API; none of them solves the task it is offered for.

use netpress::app::{Episode, Task};
use netpress::malt::sandbox::Limits;
use netpress::malt::{Family, MaltTask, generate::generate};

/// Ids over every family, both generator versions and three shapes.
fn ids() -> Vec<String> {
    let mut ids = Vec::new();
    // (version, knobs, tasks per family): the large shape is slow to walk in a debug build.
    for (version, knob, per) in [(2, "", 3), (1, "", 3), (2, "-k2x2x4x4", 3), (2, "-k8x8x32x32-t5", 1)] {
        for level in 1..=4u8 {
            let n = Family::of_level(level).len() as u64;
            for index in 0..per * n {
                ids.push(format!("malt-v{version}-L{level}-s{}-i{index}{knob}", index % 4));
            }
        }
    }
    ids
}

#[test]
fn template_first_then_examples_and_none_solves_its_task() {
    let mut templates = 0;
    for id in ids() {
        let generated = generate(&id.parse().unwrap()).unwrap();
        let ty = generated.expected.ty;
        let task = MaltTask::new(generated);
        let starters = task.starters();
        assert!(starters.len() >= 3, "{id}: a template and at least two examples");
        assert!(starters[0].title.starts_with("Template"), "{id}: {}", starters[0].title);
        let question = task.card().question.clone().unwrap();
        assert!(starters[0].text.contains(&question), "{id}: the template names its question");
        for (i, starter) in starters.iter().enumerate() {
            let mut ep = task.start_with(None, Limits::default());
            let step = ep.step(&starter.text);
            assert!(
                step.observation.starts_with("Answer received ("),
                "{id} starter {i} ({}) must run and return a valid dict: {}",
                starter.title,
                step.observation
            );
            if i == 0 {
                let shape = format!("Answer received (type {ty}");
                assert!(step.observation.starts_with(&shape), "{id}: {}", step.observation);
                templates += 1;
            }
            let score = ep.score();
            assert!(!score.correct, "{id}: starter {i} ({}) solves its task", starter.title);
            assert!(starter.text.contains("def process_graph(G):"), "{id}: {}", starter.title);
        }
    }
    assert!(templates > 100, "{templates}");
}

#[test]
fn templates_say_whether_to_change_g() {
    for (id, says) in [("malt-v2-L1-s0-i3", "only reads"), ("malt-v2-L1-s0-i0", "changes G")] {
        let task = MaltTask::new(generate(&id.parse().unwrap()).unwrap());
        let template = &task.starters()[0].text;
        assert!(template.contains(says), "{id}: {template}");
        assert!(template.contains("G.capacity(n)") && template.contains("G.add_node("), "{template}");
    }
}
