//! Prompts (docs/malt.md): all four variants render for every family, and the
//! examples extracted from a rendered few-shot prompt pass against the native ground truth.

use netpress::app::{App, PromptVariant};
use netpress::malt::check::judge;
use netpress::malt::extract::extract;
use netpress::malt::generate::ground_truth;
use netpress::malt::graph::Working;
use netpress::malt::kind::Kind;
use netpress::malt::plan::{Action, Plan, Query};
use netpress::malt::prompt::{self, COT, EXAMPLES};
use netpress::malt::sandbox::{self, Limits};
use netpress::malt::topo::{TopoKey, topology};
use netpress::malt::{Family, MALT, answer};
use netpress::reply::fenced_blocks;

#[test]
fn every_variant_renders_for_every_family() {
    for family in Family::ALL {
        let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap();
        let id = format!("malt-v1-L{}-s7-i{pos}", family.level()).parse().unwrap();
        let task = MALT.generate(&id).unwrap();
        let question = task.card().question.clone().unwrap();
        for v in PromptVariant::ALL {
            let p = task.prompt(v);
            assert_eq!(prompt::question_of(&p), Some(question.as_str()), "{id} {v:?}");
            assert_eq!(p.contains(COT), v.chain_of_thought());
            assert_eq!(p.contains("Example 4"), v.few_shot());
        }
        assert_eq!(task.card().prompt, task.prompt(PromptVariant::ZeroshotBase));
    }
}

/// The native plans the four examples answer, on the default shape.
fn example_plans() -> Vec<(Family, Plan)> {
    let sw = "ju1.a2.m1.s3c9".to_string();
    vec![
        (
            Family::L1Count,
            Plan {
                actions: vec![],
                query: Query::Count { kind: Kind::Port, under: Some("ju1.a1.m1".into()) },
            },
        ),
        (
            Family::L2RemoveRank,
            Plan {
                actions: vec![Action::RemovePort { port: "ju1.a1.m1.s2c1.p3".into() }],
                query: Query::Rank { y: "ju1.a1.m1".into(), high: true, k: None },
            },
        ),
        (
            Family::L1Add,
            Plan {
                actions: vec![Action::AddSwitch {
                    block: "ju1.a2.m1".into(),
                    switch: sw,
                    stage: 3,
                    ports: 4,
                    cap: 10_000_000_000,
                }],
                query: Query::Graph,
            },
        ),
        (
            Family::L1Remove,
            Plan {
                actions: vec![Action::RemoveSwitch { switch: "ju1.s1.s1c1".into() }],
                query: Query::Graph,
            },
        ),
    ]
}

#[test]
fn examples_in_a_rendered_prompt_pass() {
    let rendered = prompt::render("Q?", TopoKey::default().shape, PromptVariant::FewshotCot);
    let blocks: Vec<String> = fenced_blocks(&rendered).into_iter().map(|f| f.body).collect();
    assert_eq!(blocks.len(), EXAMPLES.len());
    let base = Working::new(topology(TopoKey::default()));
    for ((block, (question, _)), (family, plan)) in blocks.iter().zip(EXAMPLES).zip(example_plans()) {
        assert!(rendered.contains(&format!("Question: {question}")));
        let expected = ground_truth(&base, family, &plan).expect("the example's plan is valid");
        let source = extract(&format!("```python\n{block}\n```")).unwrap();
        let run = sandbox::run(&source.program(), base.clone(), &Limits::default());
        let answer = run.value.clone().and_then(answer::parse);
        let verdict = judge(&expected, answer.as_ref().map_err(String::as_str), &run.graph);
        assert!(verdict.correct && verdict.safe, "{question}: {verdict:?}");
    }
}
