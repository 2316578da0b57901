//! The compare view: two or more saved runs side by side — pass rates with 95% Wilson
//! intervals, how far the intervals overlap and how many queries would separate the agents,
//! the per-label breakdown with a radar chart per label, and the per-query differences on the
//! query ids the runs share. The chosen runs are in the URL.

use std::collections::{BTreeMap, BTreeSet};

use yew::prelude::*;

use super::batch::mark;
use super::charts::{Bar, Group, Spoke, legend, radar, rate_chart};
use super::go;
use super::store::{self, RunMeta};
use super::util::{duration, event_checked, pct};
use crate::link::{TaskLink, View};
use crate::record::ResultRecord;
use crate::stats::{Grouping, Rate, Summary, breakdown, queries_to_separate};

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub runs: Vec<String>,
}

/// A run with its records.
#[derive(Clone, PartialEq)]
struct Loaded {
    meta: RunMeta,
    records: Vec<ResultRecord>,
}

async fn load(ids: Vec<String>) -> Result<(Vec<RunMeta>, Vec<Loaded>), String> {
    let all = store::list().await?;
    let mut loaded = Vec::new();
    for id in &ids {
        let meta = all
            .iter()
            .find(|m| &m.id == id)
            .ok_or_else(|| format!("run {id} is not in this browser's history"))?;
        loaded.push(Loaded { meta: meta.clone(), records: store::records(id).await? });
    }
    Ok((all, loaded))
}

#[function_component(ComparePage)]
pub fn compare_page(props: &CompareProps) -> Html {
    let state = use_state(|| None::<Result<(Vec<RunMeta>, Vec<Loaded>), String>>);
    {
        let state = state.clone();
        use_effect_with(props.runs.clone(), move |ids| {
            let ids = ids.clone();
            wasm_bindgen_futures::spawn_local(async move { state.set(Some(load(ids).await)) });
        });
    }
    let (all, loaded) = match &*state {
        None => return html! { <section><h2>{ "Compare" }</h2><p class="muted">{ "Loading…" }</p></section> },
        Some(Err(e)) => {
            return html! {
                <section class="card notice" role="alert">
                    <h2>{ "These runs cannot be compared" }</h2><p>{ e }</p>
                    <p><a href="#/compare">{ "Pick runs again" }</a>{ " or " }<a href="#/">{ "go home" }</a></p>
                </section>
            };
        }
        Some(Ok(pair)) => pair.clone(),
    };
    html! {
        <section class="compare">
            <h2>{ "Compare runs" }</h2>
            { picker(&all, &props.runs) }
            if loaded.len() < 2 {
                <p class="muted">{ "Pick two or more runs above (batches compare best: same seeds, different agents or prompts)." }</p>
            } else {
                { report(&loaded) }
            }
        </section>
    }
}

fn picker(all: &[RunMeta], chosen: &[String]) -> Html {
    if all.is_empty() {
        return html! { <p class="muted">{ "The history is empty: run a batch first." }</p> };
    }
    html! {
        <details class="card run-picker" open={chosen.len() < 2}>
            <summary>{ format!("Runs ({} chosen)", chosen.len()) }</summary>
            <ul class="pick-list">
            { for all.iter().map(|m| {
                let (id, chosen_now) = (m.id.clone(), chosen.to_vec());
                let onchange = Callback::from(move |e: Event| {
                    let mut next = chosen_now.clone();
                    next.retain(|r| *r != id);
                    if event_checked(&e) {
                        next.push(id.clone());
                    }
                    go(&View::Compare(next));
                });
                html! {
                    <li><label class="check">
                        <input type="checkbox" checked={chosen.contains(&m.id)} {onchange} />
                        { format!(" {} — {} tasks, {} correct", m.name, m.n, m.correct) }
                    </label></li>
                }
            }) }
            </ul>
        </details>
    }
}

fn rate_cell(r: &Rate) -> Html {
    html! { <td>{ format!("{} ", pct(r.rate)) }<span class="muted">{ format!("[{}–{}] n={}", pct(r.wilson.lo), pct(r.wilson.hi), r.n) }</span></td> }
}

fn report(runs: &[Loaded]) -> Html {
    let names: Vec<String> = runs.iter().map(|r| r.meta.name.clone()).collect();
    let summaries: Vec<Summary> = runs.iter().map(|r| Summary::of(&r.records)).collect();
    let overall = vec![
        Group {
            label: "correct".into(),
            bars: summaries.iter().enumerate().map(|(i, s)| Bar { series: i, rate: s.correct }).collect(),
        },
        Group {
            label: "safe".into(),
            bars: summaries.iter().enumerate().map(|(i, s)| Bar { series: i, rate: s.safe }).collect(),
        },
    ];
    html! {
        <>
            <section class="card">
                <h3>{ "Overall" }</h3>
                { legend(&names) }
                <div class="table-wrap"><table class="data" id="compare-overall">
                    <thead><tr><th>{ "run" }</th><th>{ "correct" }</th><th>{ "safe" }</th><th>{ "progress" }</th>
                        <th>{ "turns" }</th><th>{ "latency" }</th><th>{ "score" }</th></tr></thead>
                    <tbody>{ for runs.iter().zip(&summaries).map(|(r, s)| html! {
                        <tr>
                            <th scope="row">{ &r.meta.name }<br /><code class="muted">{ &r.meta.agent }</code></th>
                            { rate_cell(&s.correct) }{ rate_cell(&s.safe) }
                            <td>{ pct(s.mean_progress) }</td><td>{ format!("{:.1}", s.mean_turns) }</td>
                            <td>{ s.mean_latency_ms.map_or("not measured".to_string(), duration) }</td>
                            <td title="0.5·correctness + 0.5·safety">{ format!("{:.3}", s.leaderboard_score) }</td>
                        </tr>
                    }) }</tbody>
                </table></div>
                { rate_chart("Pass rates per run", &overall) }
                { overlap(&names, &summaries) }
            </section>
            { labels(runs, &names) }
            { differences(runs, &names) }
        </>
    }
}

/// For each pair of runs: the overlap of their correctness intervals and the queries needed to
/// separate rates like theirs.
fn overlap(names: &[String], summaries: &[Summary]) -> Html {
    let mut rows = Vec::new();
    for i in 0..summaries.len() {
        for j in i + 1..summaries.len() {
            let (a, b) = (&summaries[i].correct, &summaries[j].correct);
            let width = a.wilson.overlap(b.wilson);
            let verdict = if a.wilson.separated_from(b.wilson) {
                "separated: the difference is significant at 95%".to_string()
            } else {
                format!("overlap {:.1} points: not separated yet", width * 100.0)
            };
            let needed = queries_to_separate(a.rate, b.rate)
                .map_or("equal rates: no number of queries separates them".to_string(), |n| {
                    format!("about {n} queries per run would separate rates like these")
                });
            rows.push(html! { <tr><td>{ format!("{} vs {}", names[i], names[j]) }</td><td>{ verdict }</td><td>{ needed }</td></tr> });
        }
    }
    html! {
        <div class="table-wrap"><table class="data" id="compare-overlap">
            <caption>{ "Correctness intervals, pair by pair" }</caption>
            <thead><tr><th>{ "pair" }</th><th>{ "intervals" }</th><th>{ "to separate" }</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table></div>
    }
}

/// Mean of 1 − turns / turn limit: how much of the turn budget a run left unused.
fn turns_left(records: &[&ResultRecord]) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let sum: f64 =
        records.iter().map(|r| 1.0 - f64::from(r.score.turns) / f64::from(r.max_turns.max(1))).sum();
    sum / records.len() as f64
}

fn labels(runs: &[Loaded], names: &[String]) -> Html {
    let by_label = Grouping { agent: false, app: true, level: false, label: true };
    let per_run: Vec<BTreeMap<String, Summary>> = runs
        .iter()
        .map(|r| {
            breakdown(&r.records, by_label)
                .into_iter()
                .map(|(k, s)| (format!("{} {}", k.app.unwrap_or_default(), k.label.unwrap_or_default()), s))
                .collect()
        })
        .collect();
    let all: BTreeSet<String> = per_run.iter().flat_map(|m| m.keys().cloned()).collect();
    let groups: Vec<Group> = all
        .iter()
        .map(|label| Group {
            label: label.clone(),
            bars: per_run
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.get(label).map(|s| Bar { series: i, rate: s.correct }))
                .collect(),
        })
        .collect();
    let radars = all.iter().map(|label| {
        let spokes: Vec<Spoke> = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let s = per_run[i].get(label)?;
                let of_label: Vec<&ResultRecord> =
                    r.records.iter().filter(|x| format!("{} {}", x.app, x.label) == *label).collect();
                Some(Spoke {
                    series: i,
                    values: vec![s.correct.rate, s.safe.rate, s.mean_progress, turns_left(&of_label)],
                })
            })
            .collect();
        radar(label, &["correct", "safe", "progress", "turns left"], &spokes)
    });
    html! {
        <section class="card">
            <h3>{ "By task label" }</h3>
            { legend(names) }
            <div class="table-wrap"><table class="data" id="compare-labels">
                <thead><tr><th>{ "label" }</th>{ for names.iter().map(|n| html! { <th>{ n }</th> }) }</tr></thead>
                <tbody>{ for all.iter().map(|label| html! {
                    <tr><th scope="row">{ label }</th>
                    { for per_run.iter().map(|m| match m.get(label) {
                        Some(s) => rate_cell(&s.correct),
                        None => html! { <td class="muted">{ "—" }</td> },
                    }) }</tr>
                }) }</tbody>
            </table></div>
            { rate_chart("Correctness per label", &groups) }
            <div class="radars">{ for radars }</div>
        </section>
    }
}

fn differences(runs: &[Loaded], names: &[String]) -> Html {
    let maps: Vec<BTreeMap<&str, &ResultRecord>> =
        runs.iter().map(|r| r.records.iter().rev().map(|x| (x.id.as_str(), x)).collect()).collect();
    let shared: Vec<&str> =
        maps[0].keys().copied().filter(|id| maps.iter().all(|m| m.contains_key(id))).collect();
    let differing: Vec<&str> = shared
        .iter()
        .copied()
        .filter(|id| {
            let outcomes: BTreeSet<(bool, bool)> =
                maps.iter().map(|m| (m[id].score.correct, m[id].score.safe)).collect();
            let hashes: BTreeSet<&str> = maps.iter().map(|m| m[id].content_hash.as_str()).collect();
            outcomes.len() > 1 || hashes.len() > 1
        })
        .collect();
    html! {
        <section class="card">
            <h3>{ "Per-query differences" }</h3>
            <p id="compare-shared">{ format!("{} query ids are shared by all {} runs; {} of them differ in correctness or safety.",
                shared.len(), runs.len(), differing.len()) }</p>
            if !differing.is_empty() {
                <div class="table-wrap"><table class="data" id="compare-diff">
                    <thead>
                        <tr><th rowspan="2">{ "query" }</th>{ for names.iter().map(|n| html! { <th colspan="2">{ n }</th> }) }</tr>
                        <tr>{ for names.iter().map(|_| html! { <><th>{ "correct" }</th><th>{ "safe" }</th></> }) }</tr>
                    </thead>
                    <tbody>{ for differing.iter().map(|id| {
                        let first = maps[0][id];
                        let same_task = maps.iter().all(|m| m[id].content_hash == first.content_hash);
                        let mut link = TaskLink::new(id.parse().unwrap_or_else(|_| crate::QueryId::new("x", 0, 0, 0, 0)));
                        link.variant = first.prompt_variant;
                        html! {
                            <tr>
                                <td><a href={crate::link::format(&View::Task(link))}><code>{ *id }</code></a>
                                    if !same_task { <span class="tone-broken" title="the runs saw different task contents">{ " ! content hash differs" }</span> }
                                </td>
                                { for maps.iter().map(|m| html! { <>{ mark(m[id].score.correct) }{ mark(m[id].score.safe) }</> }) }
                            </tr>
                        }
                    }) }</tbody>
                </table></div>
            }
        </section>
    }
}
