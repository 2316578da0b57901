//! The compare view: two or more saved runs side by side, from the library's report model
//! ([`crate::report::build`]) — the leaderboard with 95% Wilson intervals, each pair's
//! interval overlap and the queries that would separate them, the per-label breakdown, the
//! report's charts (bars per label, safety against correctness, a radar per run over task
//! labels, intervals as queries accumulate), and the per-query differences on the query ids
//! the runs share. The chosen runs are in the URL.

use yew::prelude::*;

use super::batch::mark;
use super::go;
use super::show::Wide;
use super::show::chart::chart;
use super::store::{self, RunMeta};
use super::util::{download, duration, event_checked, pct};
use crate::agent::AgentInfo;
use crate::link::{TaskLink, View};
use crate::provenance::Provenance;
use crate::record::ResultRecord;
use crate::report::{Chart, QueryRow, Tables};
use crate::stats::Rate;
use crate::view::count;

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub runs: Vec<String>,
}

/// The report of the chosen runs, and every run for the picker.
#[derive(PartialEq)]
struct Loaded {
    all: Vec<RunMeta>,
    chosen: usize,
    tables: Tables,
    charts: Vec<Chart>,
}

/// Each run's records with the run as their agent, so the report compares runs (two batches
/// of one agent stay two series). Names are made unique.
fn as_runs(runs: Vec<(RunMeta, Vec<ResultRecord>)>) -> Vec<ResultRecord> {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (meta, records) in runs {
        let mut name = meta.name.clone();
        let mut k = 2;
        while names.contains(&name) {
            name = format!("{} #{k}", meta.name);
            k += 1;
        }
        names.push(name.clone());
        out.extend(records.into_iter().map(|mut r| {
            r.agent = AgentInfo::new("run", &name);
            r
        }));
    }
    out
}

async fn load(ids: Vec<String>) -> Result<Loaded, String> {
    let all = store::list().await?;
    let mut runs = Vec::new();
    for id in &ids {
        let meta = all
            .iter()
            .find(|m| &m.id == id)
            .ok_or_else(|| format!("run {id} is not in this browser's history"))?;
        runs.push((meta.clone(), store::records(id).await?));
    }
    let records = as_runs(runs);
    let provenance = Provenance::of_records(&records, &format!("web app: compare {}", ids.join(",")), vec![]);
    let (tables, charts) = crate::report::build(&records, provenance);
    Ok(Loaded { all, chosen: ids.len(), tables, charts })
}

#[function_component(ComparePage)]
pub fn compare_page(props: &CompareProps) -> Html {
    let state = use_state(|| None::<Result<std::rc::Rc<Loaded>, String>>);
    {
        let state = state.clone();
        use_effect_with(props.runs.clone(), move |ids| {
            let ids = ids.clone();
            wasm_bindgen_futures::spawn_local(async move {
                state.set(Some(load(ids).await.map(std::rc::Rc::new)))
            });
        });
    }
    let loaded = match &*state {
        None => return html! { <section><h2>{ "Compare" }</h2><p class="muted">{ "Loading…" }</p></section> },
        Some(Err(e)) => {
            return html! {
                <section class="card notice" role="alert">
                    <h2>{ "These runs cannot be compared" }</h2><p>{ e }</p>
                    <p><a href="#/compare">{ "Pick runs again" }</a>{ " or " }<a href="#/">{ "go home" }</a></p>
                </section>
            };
        }
        Some(Ok(loaded)) => loaded.clone(),
    };
    html! {
        <section class="compare">
            <h2>{ "Compare runs" }</h2>
            { picker(&loaded.all, &props.runs) }
            if loaded.chosen < 2 {
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
                        { format!(" {} — {}, {} correct", m.name, count(m.n, "task", "tasks"), m.correct) }
                    </label></li>
                }
            }) }
            </ul>
        </details>
    }
}

fn rate_cell(r: &Rate) -> Html {
    html! {
        <td>{ format!("{} ", pct(r.rate)) }
            <span class="muted">{ format!("[{}–{}] n={}", pct(r.wilson.lo), pct(r.wilson.hi), r.n) }</span></td>
    }
}

/// A run's name as the report shows it (`run:<name>`, without the kind).
fn short(agent: &str) -> &str {
    agent.strip_prefix("run:").unwrap_or(agent)
}

fn report(l: &Loaded) -> Html {
    let t = &l.tables;
    let save = {
        let (tables, charts) = (t.clone(), l.charts.clone());
        Callback::from(move |_| {
            let page = crate::report::html::document("NetPress comparison", &tables, &charts);
            let _ = download("netpress-comparison.html", "text/html", &page);
        })
    };
    html! {
        <>
            <section class="card">
                <div class="row spread">
                    <h3>{ "Leaderboard" }</h3>
                    <button type="button" class="secondary" onclick={save}>{ "Download the report (HTML)" }</button>
                </div>
                <Wide label="leaderboard"><table class="data" id="compare-overall">
                    <thead><tr><th>{ "#" }</th><th>{ "run" }</th><th>{ "correct" }</th><th>{ "safe" }</th><th>{ "progress" }</th>
                        <th>{ "turns" }</th><th>{ "latency" }</th><th title="0.5·correctness + 0.5·safety">{ "score" }</th></tr></thead>
                    <tbody>{ for t.leaderboard.iter().map(|s| html! {
                        <tr>
                            <td>{ s.rank }</td>
                            <th scope="row">{ short(&s.agent) }</th>
                            { rate_cell(&s.summary.correct) }{ rate_cell(&s.summary.safe) }
                            <td>{ pct(s.summary.mean_progress) }</td><td>{ format!("{:.1}", s.summary.mean_turns) }</td>
                            <td>{ s.summary.mean_latency_ms.map_or("not measured".to_string(), duration) }</td>
                            <td>{ format!("{:.3}", s.summary.leaderboard_score) }</td>
                        </tr>
                    }) }</tbody>
                </table></Wide>
                <Wide label="pair by pair"><table class="data" id="compare-overlap">
                    <caption>{ "Pair by pair: overlap of the 95% intervals and the queries that would separate the rates" }</caption>
                    <thead><tr><th>{ "pair" }</th><th>{ "correctness" }</th><th>{ "safety" }</th></tr></thead>
                    <tbody>{ for t.comparisons.iter().map(|c| html! {
                        <tr>
                            <td>{ format!("{} vs {}", short(&c.a), short(&c.b)) }</td>
                            <td>{ format!("overlap {:.1} points; {}", c.correctness.overlap * 100.0, c.correctness.advice()) }</td>
                            <td>{ format!("overlap {:.1} points; {}", c.safety.overlap * 100.0, c.safety.advice()) }</td>
                        </tr>
                    }) }</tbody>
                </table></Wide>
            </section>
            { labels(t) }
            <section class="card">
                <h3>{ "Charts" }</h3>
                <div class="charts">{ for l.charts.iter().map(chart) }</div>
            </section>
            { differences(t) }
        </>
    }
}

fn labels(t: &Tables) -> Html {
    let Some(section) = t.section("label") else { return html! {} };
    let mut keys: Vec<(String, String)> = section
        .rows
        .iter()
        .map(|(k, _)| (k.app.clone().unwrap_or_default(), k.label.clone().unwrap_or_default()))
        .collect();
    keys.dedup();
    keys.sort();
    keys.dedup();
    let cell = |key: &(String, String), agent: &str| {
        section
            .rows
            .iter()
            .find(|(k, _)| {
                k.agent.as_deref() == Some(agent)
                    && k.app.as_deref() == Some(key.0.as_str())
                    && k.label.as_deref() == Some(key.1.as_str())
            })
            .map_or_else(|| html! { <td class="muted">{ "—" }</td> }, |(_, s)| rate_cell(&s.correct))
    };
    html! {
        <section class="card">
            <h3>{ "Correctness by task label" }</h3>
            <Wide label="correctness by task label"><table class="data" id="compare-labels">
                <thead><tr><th>{ "label" }</th>{ for t.agents.iter().map(|a| html! { <th>{ short(a) }</th> }) }</tr></thead>
                <tbody>{ for keys.iter().map(|key| html! {
                    <tr><th scope="row">{ format!("{} {}", key.0, key.1) }</th>{ for t.agents.iter().map(|a| cell(key, a)) }</tr>
                }) }</tbody>
            </table></Wide>
        </section>
    }
}

/// A query every run has, whose runs disagree on correctness or safety or saw different
/// task contents.
fn differs(q: &QueryRow) -> bool {
    if q.results.iter().any(Vec::is_empty) {
        return false;
    }
    let firsts: Vec<(bool, bool)> = q.results.iter().map(|r| (r[0].correct, r[0].safe)).collect();
    firsts.windows(2).any(|w| w[0] != w[1])
}

fn differences(t: &Tables) -> Html {
    let shared = t.queries.iter().filter(|q| q.results.iter().all(|r| !r.is_empty())).count();
    let differing: Vec<&QueryRow> = t.queries.iter().filter(|q| differs(q)).collect();
    html! {
        <section class="card">
            <h3>{ "Per-query differences" }</h3>
            <p id="compare-shared">{ format!("{} shared by all {}; {} of them {} in correctness or safety.",
                count(shared, "query id is", "query ids are"), count(t.agents.len(), "run", "runs"), differing.len(),
                if differing.len() == 1 { "differs" } else { "differ" }) }</p>
            if !differing.is_empty() {
                <Wide label="per-query differences"><table class="data" id="compare-diff">
                    <thead>
                        <tr><th rowspan="2">{ "query" }</th><th rowspan="2">{ "label" }</th>
                            { for t.agents.iter().map(|n| html! { <th colspan="2">{ short(n) }</th> }) }</tr>
                        <tr>{ for t.agents.iter().map(|_| html! { <><th>{ "correct" }</th><th>{ "safe" }</th></> }) }</tr>
                    </thead>
                    <tbody>{ for differing.iter().map(|q| {
                        let link = q.id.parse().map(|id| crate::link::format(&View::Task(TaskLink::new(id)))).unwrap_or_default();
                        html! {
                            <tr>
                                <td><a href={link}><code>{ &q.id }</code></a></td>
                                <td>{ &q.label }</td>
                                { for q.results.iter().map(|r| html! { <>{ mark(r[0].correct) }{ mark(r[0].safe) }</> }) }
                            </tr>
                        }
                    }) }</tbody>
                </table></Wide>
            }
        </section>
    }
}
