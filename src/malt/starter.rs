//! Answers a person can start from ([`crate::app::Task::starters`]): a runnable template for
//! the task, then worked examples of the G API on questions no family asks.
//!
//! The template defines `process_graph`, lists what G offers, and returns the dict shape of the
//! task's answer type with a placeholder value that is never the right answer: the natural
//! empty value (`0`, `''`, `[]`) unless the checker would accept it for this task, then one that
//! no task expects (`-1`, a list with a name no node can have). The examples discover names
//! through the API, so they run on every shape, and answer questions of other kinds (a switch
//! by port count, a table of counts, a printed walk): they cannot be a task's answer.

use serde_json::Value;

use crate::app::Starter;

use super::answer::{Answer, AnswerType, Text};
use super::check;
use super::generate::Generated;
use super::graph::Working;

/// What G offers, as comment lines of the template.
const G_OFFERS: &str = "\
    # G offers (every list is in the graph's canonical order):
    #   read:   G.nodes(kind=None), G.has_node(n), G.kind(n), G.node(n), G.get_attr(n, key),
    #           G.children(n, kind=None), G.parents(n, kind=None), G.descendants(n, kind=None),
    #           G.ancestors(n, kind=None), G.successors(n, rel=None), G.predecessors(n, rel=None),
    #           G.count(kind, under=None), G.capacity(n)  (total bps of n's ports)
    #   change: G.add_node(n, kind, **attrs), G.add_edge(u, v, 'RK_CONTAINS'),
    #           G.remove_node(n), G.remove_edge(u, v), G.set_attr(n, key, value)
";

/// The starters of a task: the template, then the examples.
pub fn starters(task: &Generated) -> Vec<Starter> {
    let mut out = vec![Starter { title: "Template for this task".into(), text: template(task) }];
    out.extend(EXAMPLES.iter().map(|(title, text)| Starter { title: (*title).into(), text: (*text).into() }));
    out
}

/// A placeholder value: its Python literal and the answer it makes.
struct Placeholder {
    python: &'static str,
    answer: Answer,
}

/// The natural placeholder of an answer type, then one that is never right.
fn placeholders(ty: AnswerType, name: bool) -> [Placeholder; 2] {
    let text = |python, t| Placeholder { python, answer: Answer::Text(t) };
    match ty {
        AnswerType::Text if name => {
            [text("''", Text::Str(String::new())), text("'?'", Text::Str("?".into()))]
        }
        AnswerType::Text => [text("0", Text::Number(0.0)), text("-1", Text::Number(-1.0))],
        AnswerType::List => [
            Placeholder { python: "[]", answer: Answer::List(vec![]) },
            Placeholder { python: "['?']", answer: Answer::List(vec!["?".into()]) },
        ],
        AnswerType::Table => [
            Placeholder { python: "[]", answer: Answer::Table(vec![]) },
            Placeholder { python: "[['?', -1]]", answer: Answer::Table(vec![("?".into(), -1.0)]) },
        ],
        AnswerType::Graph => [
            Placeholder { python: "None", answer: Answer::Graph },
            Placeholder { python: "None", answer: Answer::Graph },
        ],
    }
}

/// The first placeholder the checker rejects on the untouched graph.
fn placeholder(task: &Generated) -> &'static str {
    let name = matches!(task.expected.value, Value::String(_));
    let fresh = Working::new(task.topology.clone());
    let [natural, never] = placeholders(task.expected.ty, name);
    if check::judge(&task.expected, Ok(&natural.answer), &fresh).correct {
        never.python
    } else {
        natural.python
    }
}

/// What the template's body says about the value to compute.
fn what_to_return(ty: AnswerType, name: bool, read_only: bool) -> &'static str {
    match ty {
        AnswerType::Text if name => "the name the question asks for (a str)",
        AnswerType::Text => "the number the question asks for (an int or float, in bps for capacities)",
        AnswerType::List => "the node names the question asks for",
        AnswerType::Table => "[name, number] rows, in the order the question asks",
        AnswerType::Graph if read_only => "nothing: the graph is the answer",
        AnswerType::Graph => "nothing: make the changes; the graph you leave is the answer",
    }
}

fn template(task: &Generated) -> String {
    let e = &task.expected;
    let name = matches!(e.value, Value::String(_));
    let mut text = format!("# Question: {}\n\ndef process_graph(G):\n{G_OFFERS}", task.question);
    text.push_str(if e.read_only {
        "    # This question only reads: leave G unchanged.\n"
    } else {
        "    # This question changes G: make the changes on G first, then answer about the changed graph.\n"
    });
    let value = placeholder(task);
    if e.ty == AnswerType::Graph {
        text.push_str(&format!(
            "    # Return: {}\n    return {{'type': 'graph', 'data': None}}\n",
            what_to_return(e.ty, name, e.read_only)
        ));
    } else {
        text.push_str(&format!(
            "    answer = {value}  # replace with {}\n    return {{'type': '{}', 'data': answer}}\n",
            what_to_return(e.ty, name, e.read_only),
            e.ty
        ));
    }
    text
}

/// Worked examples on questions no task asks; each runs on every shape.
pub const EXAMPLES: [(&str, &str); 3] = [
    (
        "Example: the switch with the most ports in a block (text)",
        "# Question: which packet switch of the first aggregation block has the most ports?
def process_graph(G):
    block = G.nodes(kind='EK_AGG_BLOCK')[0]
    best, most = '', -1
    for sw in G.children(block, kind='EK_PACKET_SWITCH'):
        n = len(G.children(sw, kind='EK_PORT'))
        if n > most:
            best, most = sw, n
    print(block, 'has', G.count('EK_PACKET_SWITCH', under=block), 'switches')
    return {'type': 'text', 'data': best}
",
    ),
    (
        "Example: switches per superblock (table)",
        "# Question: how many packet switches does each superblock hold, most first?
def process_graph(G):
    rows = [[z, G.count('EK_PACKET_SWITCH', under=z)] for z in G.nodes(kind='EK_SUPERBLOCK')]
    rows.sort(key=lambda r: (-r[1], r[0]))
    return {'type': 'table', 'data': rows}
",
    ),
    (
        "Example: control points and the switches they control (list)",
        "# Question: which control points of the first control domain control a switch with a port
# faster than 1 Gbps?
def process_graph(G):
    domain = G.nodes(kind='EK_CONTROL_DOMAIN')[0]
    found = []
    for cp in G.children(domain, kind='EK_CONTROL_POINT'):
        for sw in G.successors(cp, rel='RK_CONTROLS'):
            speeds = [G.get_attr(p, 'physical_capacity_bps', 0) for p in G.children(sw, kind='EK_PORT')]
            if speeds and max(speeds) > 10**9:
                found.append(cp)
                break
    return {'type': 'list', 'data': found}
",
    ),
];
