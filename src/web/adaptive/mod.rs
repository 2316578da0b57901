//! The Adapt view (`#/adapt`, `#/adapt/<token>`): the library's adaptive search run in the
//! tab against the baseline held to fewer turns or an endpoint agent, with the weakness map
//! and table redrawn after every evaluation, Stop, a link that reopens (and continues) the
//! search, and the state and mixture files. The search is the library's ([`run`] only hosts
//! it); the map is the report's SVG heatmap. docs/ui.md describes the view.

mod run;

pub(super) use run::space_of;

use std::rc::Rc;

use yew::prelude::*;

use super::agents::form::EndpointForm;
use super::latest::{Latest, use_latest};
use super::sandbox::use_workers;
use super::settings::use_settings;
use super::util::{download, duration, event_value, read_file};
use crate::adapt::{ExportFormat, MAX_TOKEN, Pin, Settings, State, Verdict};
use crate::agent::AgentInfo;
use crate::app::AppInfo;
use crate::link::View;
use run::{Agent, Phase, SharedRun, Start};

/// Tasks in a curriculum download: `netpress adapt export`'s default `--count`.
const CURRICULUM_COUNT: usize = 1000;

#[derive(Properties, PartialEq)]
pub struct AdaptProps {
    /// A state token from the link, if any.
    pub token: Option<String>,
}

/// The settings the form holds.
#[derive(Clone)]
struct Form {
    app: &'static AppInfo,
    /// Comma-separated levels; empty: all.
    levels: String,
    /// The turn limit the search is pinned to (`""`: searched).
    turns: String,
    /// `baseline` (held to `held` turns) or `endpoint`.
    agent: String,
    held: u32,
    rounds: u32,
    budget: u32,
    k: u32,
    confirm: u32,
    /// `--allow-xl`: search the values named `xl` (slow builds) too.
    allow_xl: bool,
}

/// What the form offers from the application's space (fetched from its worker): the turn
/// limits a search can be pinned to, and whether any value is `xl`.
#[derive(Clone, PartialEq)]
struct Offered {
    app: &'static str,
    turns: Vec<String>,
    xl: bool,
}

impl Offered {
    fn of(app: &'static AppInfo, space: &crate::adapt::Space) -> Offered {
        let turns = space.dim("turns").map(|(_, d)| d.values.clone()).unwrap_or_default();
        let xl = space.dims.iter().any(|d| d.values.iter().any(|v| v == crate::adapt::XL));
        Offered { app: app.name, turns, xl }
    }
}

impl Form {
    fn new(app: &'static AppInfo) -> Form {
        Form {
            app,
            levels: String::new(),
            turns: String::new(),
            agent: "baseline".into(),
            held: 3,
            rounds: 3,
            budget: 15,
            k: 5,
            confirm: 20,
            allow_xl: false,
        }
    }

    /// The search settings: the space's reference is the default.
    fn settings(&self, reference: crate::adapt::Reference) -> Settings {
        let mut s = Settings::new(reference);
        s.rounds = self.rounds.max(1);
        s.budget = self.budget.max(1);
        s.random = Settings::random_of(s.budget);
        s.k = self.k.max(1);
        s.confirm = self.confirm;
        let levels: Vec<String> =
            self.levels.split(',').map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        if !levels.is_empty() {
            s.pins.push(Pin { dim: "level".into(), values: levels });
        }
        if !self.turns.is_empty() {
            s.pins.push(Pin { dim: "turns".into(), values: vec![self.turns.clone()] });
        }
        if self.agent == "baseline" {
            s.max_turns = Some(self.held.max(1));
        }
        s.allow_xl = self.allow_xl;
        s
    }

    /// The form showing a loaded state's application and, for a held baseline, its turn hold.
    fn of_state(&self, app: &'static AppInfo, state: &State) -> Form {
        let mut f = if app.name == self.app.name { self.clone() } else { Form::new(app) };
        if let Some(t) = state.settings.max_turns {
            (f.agent, f.held) = ("baseline".into(), t);
        }
        f.allow_xl = state.settings.allow_xl;
        f
    }

    fn agent_info(&self) -> AgentInfo {
        match self.agent.as_str() {
            "endpoint" => AgentInfo::new("endpoint", "endpoint"),
            _ => {
                AgentInfo::new("baseline", &format!("{}-baseline held to {} turns", self.app.name, self.held))
            }
        }
    }
}

#[function_component(AdaptPage)]
pub fn adapt_page(props: &AdaptProps) -> Html {
    let workers = use_workers();
    let settings = use_settings();
    let catalog = crate::registry::catalog();
    // Read at its latest value: a field's change and a click on Run can arrive before a redraw.
    let form = use_latest(|| Form::new(catalog[0]));
    let shown_form = form.get();
    let current = use_mut_ref(|| None::<SharedRun>);
    let error = use_state(|| None::<String>);
    let redraws = use_force_update();
    let redraw = Callback::from(move |_| redraws.force_update());
    let offered = use_state(|| None::<Offered>);

    // The application's space, for the form's turn limits and xl switch. An answer for an
    // application the form has since left is dropped: the workers answer in any order, and a
    // slow one stored last would take the offer away from the application now shown.
    {
        let (workers, offered, app, form) = (workers.clone(), offered.clone(), shown_form.app, form.clone());
        use_effect_with(app.name, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(remote) = run::space_of(&workers, app).await
                    && form.with(|f| f.app.name == app.name)
                {
                    offered.set(Some(Offered::of(app, &crate::App::space(&remote))));
                }
            });
        });
    }

    // A link's state: drawn without running anything.
    {
        let (workers, current, error, redraw, form) =
            (workers.clone(), current.clone(), error.clone(), redraw.clone(), form.clone());
        use_effect_with(props.token.clone(), move |token| {
            if let Some(token) = token.clone() {
                let running = current.borrow().as_ref().is_some_and(|r| r.borrow().running());
                if !running {
                    wasm_bindgen_futures::spawn_local(async move {
                        let state = State::from_token(&token).map_err(|e| e.to_string());
                        show_state(&workers, state, Loaded { current, error, form }).await;
                        redraw.emit(());
                    });
                }
            }
        });
    }

    let run_now = current.borrow().clone();
    let running = run_now.as_ref().is_some_and(|r| r.borrow().running());
    let start = |resume: bool| {
        let (workers, form, current, error, redraw, endpoint) = (
            workers.clone(),
            form.clone(),
            current.clone(),
            error.clone(),
            redraw.clone(),
            settings.endpoint.clone(),
        );
        Callback::from(move |_| {
            let (workers, form, current, error, redraw, endpoint) = (
                workers.clone(),
                form.get(),
                current.clone(),
                error.clone(),
                redraw.clone(),
                endpoint.clone(),
            );
            let previous = current.borrow().as_ref().and_then(|r| r.borrow().state.clone());
            // Continuing a held baseline's search holds it as the state says.
            let held = previous.as_ref().filter(|_| resume).and_then(|s| s.settings.max_turns);
            wasm_bindgen_futures::spawn_local(async move {
                let remote = match run::space_of(&workers, form.app).await {
                    Ok(r) => r,
                    Err(e) => return error.set(Some(e)),
                };
                let (agent, client) = match form.agent.as_str() {
                    "endpoint" => match super::agents::remote::connect(&endpoint).await {
                        Ok(c) => (Agent::Endpoint(c.clone()), Some(c)),
                        Err(e) => return error.set(Some(e)),
                    },
                    _ => (Agent::Baseline(held.unwrap_or(form.held)), None),
                };
                // The built-in agent names itself as the CLI's `--agent baseline` does, so a
                // search here and `netpress adapt` with the same settings share a state hash.
                let info = match form.agent.as_str() {
                    "endpoint" => form.agent_info(),
                    _ => {
                        let first = crate::QueryId::new(form.app.name, form.app.version, 1, 0, 0).to_string();
                        match super::sandbox::Opened::open(&workers, &first).await {
                            Ok(o) => o.view.baseline.clone(),
                            Err(e) => return error.set(Some(e)),
                        }
                    }
                };
                let begin = match previous.filter(|_| resume) {
                    Some(state) => Start::Resume(state, form.rounds),
                    None => Start::New(form.settings(crate::App::space(&remote).reference), info),
                };
                error.set(None);
                let shown = Rc::new(std::cell::RefCell::new(run::shown(form.app, None, client)));
                *current.borrow_mut() = Some(shown.clone());
                redraw.emit(());
                run::run(workers, remote, begin, agent, shown, redraw).await;
            });
        })
    };
    let stop = {
        let run_now = run_now.clone();
        Callback::from(move |_| {
            if let Some(r) = &run_now {
                r.borrow().stop();
            }
        })
    };
    let differs = run_now.as_ref().and_then(|r| {
        let r = r.borrow();
        let state_agent = r.state.as_ref()?.agent.last()?.clone();
        (state_agent.kind != shown_form.agent_info().kind).then(|| state_agent.label())
    });

    html! {
        <section class="adapt">
            <h2>{ "Adapt" }</h2>
            <p class="note">{ "Searches the application's task space for where the agent trails the reference (the baseline, or a perfect score where the application has an oracle) most, promotes those cells into a training mixture and confirms them on fresh seeds. The same search as " }<code>{ "netpress adapt" }</code>{ "." }</p>
            { form_view(&form, offered.as_ref().filter(|o| o.app == shown_form.app.name), running) }
            if shown_form.agent == "endpoint" { <EndpointForm /> }
            <div class="row">
                <button type="button" id="adapt-run" onclick={start(false)} disabled={running}>{ "Run" }</button>
                <button type="button" class="secondary" id="adapt-continue" onclick={start(true)}
                        disabled={running || run_now.as_ref().is_none_or(|r| r.borrow().state.is_none())}>{ "Continue" }</button>
                <button type="button" class="secondary" id="adapt-stop" onclick={stop} disabled={!running}>{ "Stop" }</button>
            </div>
            if let Some(agent) = differs {
                <p class="warn" id="adapt-agent-differs">{ format!("⚠ This search was run by {agent}; Continue runs the agent chosen above.") }</p>
            }
            { import_view(&workers, Loaded { current: current.clone(), error: error.clone(), form: form.clone() }, redraw.clone(), running) }
            if let Some(e) = &*error { <p class="error" role="alert" id="adapt-error">{ e }</p> }
            if let Some(r) = run_now { { progress(&r, &workers, &error) } }
        </section>
    }
}

/// Where a loaded state (a link's or an imported file's) goes.
#[derive(Clone)]
struct Loaded {
    current: Rc<std::cell::RefCell<Option<SharedRun>>>,
    error: UseStateHandle<Option<String>>,
    form: Latest<Form>,
}

/// Draws a state from a link or a file (or says why it cannot), running nothing.
async fn show_state(workers: &super::sandbox::Workers, state: Result<State, String>, to: Loaded) {
    match async { open(workers, state?).await }.await {
        Ok(shown) => {
            let (app, state) = {
                let s = shown.borrow();
                (s.app, s.state.clone())
            };
            if let Some(state) = state {
                to.form.update(|f| *f = f.of_state(app, &state));
            }
            *to.current.borrow_mut() = Some(shown);
            to.error.set(None);
        }
        Err(e) => to.error.set(Some(e)),
    }
}

/// Import of a state file (`netpress adapt --state`'s, or this view's Save state).
fn import_view(workers: &super::sandbox::Workers, to: Loaded, redraw: Callback<()>, running: bool) -> Html {
    let workers = workers.clone();
    let on_import = Callback::from(move |e: Event| {
        let Some(file) = file_of(&e) else { return };
        let (workers, to, redraw) = (workers.clone(), to.clone(), redraw.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.name();
            let state = read_file(&file)
                .await
                .and_then(|text| State::parse(&text).map_err(|e| e.to_string()))
                .map_err(|e| format!("{name}: {e}"));
            show_state(&workers, state, to).await;
            redraw.emit(());
        });
    });
    html! {
        <p class="row">
            <label for="adapt-import">{ "Open a state file" }</label>
            <input id="adapt-import" class="file" type="file" accept=".json,application/json" disabled={running} onchange={on_import} />
        </p>
    }
}

/// The file an `<input type=file>` change event picked, if any.
fn file_of(e: &Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    e.target()?.dyn_into::<web_sys::HtmlInputElement>().ok()?.files()?.get(0)
}

/// Fetches a state's application space and draws the state.
async fn open(workers: &super::sandbox::Workers, state: State) -> Result<SharedRun, String> {
    let app = crate::registry::info(&state.app).map_err(|e| e.to_string())?;
    let remote = run::space_of(workers, app).await?;
    let (svg, rows, state) = run::draw(&remote, state)?;
    let mut shown = run::shown(app, Some(state), None);
    (shown.svg, shown.rows, shown.phase) = (svg, rows, Phase::Loaded);
    Ok(Rc::new(std::cell::RefCell::new(shown)))
}

fn form_view(form: &Latest<Form>, offered: Option<&Offered>, running: bool) -> Html {
    let f = form.get();
    let edit = |set: fn(&mut Form, String)| {
        let form = form.clone();
        Callback::from(move |e: Event| form.update(|f| set(f, event_value(&e))))
    };
    let number = |id: &'static str, label: &'static str, value: u32, set: fn(&mut Form, String)| {
        html! {
            <div class="field num">
                <label for={id}>{ label }</label>
                <input {id} type="number" min="0" value={value.to_string()} onchange={edit(set)} />
            </div>
        }
    };
    let turns: &[String] = offered.map_or(&[], |o| &o.turns);
    let xl = offered.is_some_and(|o| o.xl);
    let on_xl = {
        let form = form.clone();
        Callback::from(move |e: Event| {
            use wasm_bindgen::JsCast;
            let checked = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .is_some_and(|i| i.checked());
            form.update(|f| f.allow_xl = checked);
        })
    };
    html! {
        <form class="card batch-form" aria-label="Adapt settings" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <fieldset disabled={running}>
                <div class="field">
                    <label for="a-app">{ "Application" }</label>
                    <select id="a-app" onchange={edit(|f, v| if let Ok(a) = crate::registry::info(&v) { *f = Form { app: a, ..Form::new(a) } })}>
                    { for crate::registry::catalog().iter().map(|a| html! {
                        <option value={a.name} selected={a.name == f.app.name}>{ a.title }</option>
                    }) }
                    </select>
                </div>
                <div class="field">
                    <label for="a-levels">{ "Levels" }</label>
                    <input id="a-levels" size="6" placeholder="all" value={f.levels.clone()} onchange={edit(|f, v| f.levels = v)} />
                </div>
                if !turns.is_empty() {
                    <div class="field">
                        <label for="a-turns">{ "Turn limit" }</label>
                        <select id="a-turns" onchange={edit(|f, v| f.turns = v)}>
                            <option value="" selected={f.turns.is_empty()}>{ "searched" }</option>
                            { for turns.iter().map(|t| html! { <option value={t.clone()} selected={f.turns == *t}>{ t.clone() }</option> }) }
                        </select>
                    </div>
                }
                if xl {
                    <div class="field">
                        <label for="a-allow-xl" title="as netpress adapt --allow-xl: cells of the xl size too (one build takes about half a second)">
                            <input id="a-allow-xl" type="checkbox" checked={f.allow_xl} onchange={on_xl} />
                            { " Search xl sizes (slow)" }
                        </label>
                    </div>
                }
                <div class="field">
                    <label for="a-agent">{ "Agent" }</label>
                    <select id="a-agent" onchange={edit(|f, v| f.agent = v)}>
                        <option value="baseline" selected={f.agent == "baseline"}>{ "baseline held to fewer turns" }</option>
                        <option value="endpoint" selected={f.agent == "endpoint"}>{ "endpoint (settings below)" }</option>
                    </select>
                </div>
                if f.agent == "baseline" { { number("a-held", "Held to turns", f.held, |f, v| f.held = v.parse().unwrap_or(f.held).max(1)) } }
                { number("a-rounds", "Rounds", f.rounds, |f, v| f.rounds = v.parse().unwrap_or(f.rounds).max(1)) }
                { number("a-budget", "Points per round", f.budget, |f, v| f.budget = v.parse().unwrap_or(f.budget).max(1)) }
                { number("a-k", "Seeds per point", f.k, |f, v| f.k = v.parse().unwrap_or(f.k).max(1)) }
                { number("a-confirm", "Confirmation seeds", f.confirm, |f, v| f.confirm = v.parse().unwrap_or(f.confirm)) }
            </fieldset>
        </form>
    }
}

/// Progress, the link and files, the map and the table.
fn progress(
    shown: &SharedRun,
    workers: &super::sandbox::Workers,
    error: &UseStateHandle<Option<String>>,
) -> Html {
    let r = shown.borrow();
    let Some(state) = &r.state else {
        return html! { <p class="muted" id="adapt-status" role="status">{ "Starting the search…" }</p> };
    };
    let s = &state.settings;
    let evaluated = state.evaluations.len();
    let planned = (s.rounds * s.budget) as usize;
    let phase = match &r.phase {
        Phase::Loaded => "loaded from the link: nothing was run".to_string(),
        Phase::Running => "running".into(),
        Phase::Done => "done".into(),
        Phase::Stopped => "stopped; Continue resumes it".into(),
        Phase::Failed(e) => format!("failed: {e}"),
    };
    let status = format!(
        "{phase} · {evaluated}/{planned} points · round {}/{} · {}+{} episodes · search time {}",
        state.rounds.len().min(s.rounds as usize),
        s.rounds,
        r.episodes.0,
        r.episodes.1,
        duration(r.search_ms)
    );
    let token = state.token();
    let link = (token.len() <= MAX_TOKEN).then(|| crate::link::format(&View::Adapt(Some(token.clone()))));
    // The address bar follows the run, so a reload or a copied URL reopens it.
    if link.is_some() && r.phase != Phase::Loaded {
        super::replace(&View::Adapt(Some(token.clone())));
    }
    let json = state.to_json();
    let on_state = Callback::from(move |_| {
        let _ = download("adapt-state.json", "application/json", &json);
    });
    let curriculum = |format: ExportFormat| {
        let (workers, error, state, app) = (workers.clone(), error.clone(), state.clone(), r.app);
        Callback::from(move |_| {
            let (workers, error, state) = (workers.clone(), error.clone(), state.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let file = run::export(&workers, app, state, format, CURRICULUM_COUNT).await;
                match file.and_then(|text| download(format.file_name(), "application/json", &text)) {
                    Ok(()) => error.set(None),
                    Err(e) => error.set(Some(format!("curriculum export: {e}"))),
                }
            });
        })
    };
    let weak = r.rows.iter().filter(|w| w.verdict == Verdict::Weak).count();
    html! {
        <div class="adapt-run">
            <p class="muted" id="adapt-status" role="status" aria-live="polite" data-phase={phase_name(&r.phase)}>{ status }</p>
            <p class="row">
                if let Some(l) = link {
                    <a id="adapt-link" href={l}>{ "Link to this search" }</a>
                } else {
                    <span class="muted">{ format!("This state ({} bytes as a link) is longer than a link holds; save the state file instead.", token.len()) }</span>
                }
                <button type="button" class="secondary" id="adapt-state" onclick={on_state}>{ "Save state (JSON)" }</button>
                <button type="button" class="secondary" id="adapt-rl" onclick={curriculum(ExportFormat::Rl)}
                        title={format!("the first {CURRICULUM_COUNT} tasks, as netpress adapt export --format rl writes them")}>{ "Curriculum (rl)" }</button>
                <button type="button" class="secondary" id="adapt-mixture" onclick={curriculum(ExportFormat::Mixture)}>{ "Mixture file" }</button>
                <span class="muted">{ "state hash " }<code id="adapt-hash">{ state.hash() }</code></span>
            </p>
            if !r.cut_short.is_empty() {
                <p class="warn" id="adapt-cut-short">
                    { format!("{} episode(s) ended on a failed agent call, scored as they ended: {}", r.cut_short.len(), r.cut_short.join("; ")) }
                </p>
            }
            if !r.svg.is_empty() {
                <div class="wide" id="adapt-map" aria-label="weakness map">{ Html::from_html_unchecked(AttrValue::from(r.svg.clone())) }</div>
            }
            <p id="adapt-promotions">{ format!("{} promoted, {weak} confirmed weak", state.promotions.len()) }</p>
            if !r.rows.is_empty() {
                <table class="data" id="adapt-table">
                    <thead><tr><th>{ "rank" }</th><th>{ "cell" }</th><th>{ "search gap (k)" }</th><th>{ "agent [CI]" }</th><th>{ "reference [CI]" }</th><th>{ "shrinkage" }</th><th>{ "verdict" }</th></tr></thead>
                    <tbody>
                    { for r.rows.iter().map(|w| html! {
                        <tr>
                            <td>{ w.rank }</td><td>{ &w.cell }</td>
                            <td>{ format!("{:.2} ({})", w.search_gap, w.k) }</td>
                            <td>{ format!("{:.2} [{:.2}, {:.2}]", w.agent.rate, w.agent.lo, w.agent.hi) }</td>
                            <td>{ format!("{:.2} [{:.2}, {:.2}]", w.reference.rate, w.reference.lo, w.reference.hi) }</td>
                            <td>{ format!("{:+.2}", w.shrinkage) }</td>
                            <td>{ match w.verdict { Verdict::Weak => "✗ weak", Verdict::Better => "✓ better", Verdict::NotConfirmed => "– not confirmed" } }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            }
        </div>
    }
}

fn phase_name(p: &Phase) -> &'static str {
    match p {
        Phase::Loaded => "loaded",
        Phase::Running => "running",
        Phase::Done => "done",
        Phase::Stopped => "stopped",
        Phase::Failed(_) => "failed",
    }
}
