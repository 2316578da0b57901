//! Renders a [`Plan`] as a `process_graph(G)` function in the Python subset, using only the G
//! API. The oracle uses it on a task's resolved plan and the baseline on the plan it parses
//! from a W1 question; because the code re-derives names (the next free port number, the
//! switches of a block) through the API, running it in the sandbox cross-checks the native
//! ground truth.

use std::fmt::Write;

use super::kind::{AttrValue, Kind};
use super::plan::{Action, Child, Plan, Query};

/// A Python string literal.
fn lit(s: &str) -> String {
    AttrValue::Str(s.to_string()).py_repr()
}

/// The helper numbering new children after the highest existing one.
const HIGHEST: &str = "def highest(G, parent, prefix):
    best = 0
    for c in G.children(parent):
        rest = c[len(prefix):]
        if c.startswith(prefix) and rest.isdigit():
            best = max(best, int(rest))
    return best

";

/// Lines of code at one indentation.
struct Code {
    text: String,
    indent: usize,
}

impl Code {
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.text, "{:w$}{s}", "", w = self.indent * 4);
    }

    fn block(&mut self, head: &str, body: impl FnOnce(&mut Code)) {
        self.line(head);
        self.indent += 1;
        body(self);
        self.indent -= 1;
    }
}

/// The whole answer: the helper when needed, then `process_graph`.
pub fn render(plan: &Plan) -> String {
    let mut code = Code { text: String::new(), indent: 1 };
    for action in &plan.actions {
        action_code(&mut code, action);
    }
    query_code(&mut code, &plan.query);
    let needs_helper = code.text.contains("highest(");
    format!("{}def process_graph(G):\n{}", if needs_helper { HIGHEST } else { "" }, code.text)
}

/// Adds a port named by the expression `name` under the switch expression `sw`.
fn port_lines(code: &mut Code, sw: &str, name: &str, cap: i64) {
    code.line(&format!("G.add_node({name}, 'EK_PORT', physical_capacity_bps={cap})"));
    code.line(&format!("G.add_edge({sw}, {name}, 'RK_CONTAINS')"));
}

/// Adds the switch named by the expression `name` under the block expression `block`.
fn switch_lines(code: &mut Code, block: &str, name: &str, stage: i64, ports: u32, cap: i64) {
    code.line(&format!("sw = {name}"));
    code.line(&format!("G.add_node(sw, 'EK_PACKET_SWITCH', stage={stage})"));
    code.line(&format!("G.add_edge({block}, sw, 'RK_CONTAINS')"));
    code.block(&format!("for i in range(1, {}):", ports + 1), |c| port_lines(c, "sw", "f'{sw}.p{i}'", cap));
}

fn agg_lines(code: &mut Code, sb: &str, name: &str) {
    code.line(&format!("G.add_node({name}, 'EK_AGG_BLOCK')"));
    code.line(&format!("G.add_edge({sb}, {name}, 'RK_CONTAINS')"));
}

fn remove_switch_lines(code: &mut Code, sw: &str) {
    code.block(&format!("for p in G.children({sw}, kind='EK_PORT'):"), |c| c.line("G.remove_node(p)"));
    code.line(&format!("G.remove_node({sw})"));
}

fn action_code(code: &mut Code, action: &Action) {
    match action {
        Action::AddPort { switch, port, cap } => port_lines(code, &lit(switch), &lit(port), *cap),
        Action::AddSwitch { block, switch, stage, ports, cap } => {
            switch_lines(code, &lit(block), &lit(switch), *stage, *ports, *cap)
        }
        Action::AddAggBlock { superblock, block } => agg_lines(code, &lit(superblock), &lit(block)),
        Action::RemovePort { port } => code.line(&format!("G.remove_node({})", lit(port))),
        Action::RemoveSwitch { switch } => remove_switch_lines(code, &lit(switch)),
        Action::RemoveAggBlock { block } => {
            code.block(&format!("for s in G.children({}, kind='EK_PACKET_SWITCH'):", lit(block)), |c| {
                remove_switch_lines(c, "s")
            });
            code.line(&format!("G.remove_node({})", lit(block)));
        }
        Action::SetPortCaps { switch, cap } => {
            code.block(&format!("for p in G.children({}, kind='EK_PORT'):", lit(switch)), |c| {
                c.line(&format!("G.set_attr(p, 'physical_capacity_bps', {cap})"))
            });
        }
        Action::SetPortCap { port, cap } => {
            code.line(&format!("G.set_attr({}, 'physical_capacity_bps', {cap})", lit(port)))
        }
        Action::AddPortsEach { block, count, cap } => {
            code.block(&format!("for t in G.children({}, kind='EK_PACKET_SWITCH'):", lit(block)), |c| {
                c.line("m = highest(G, t, t + '.p')");
                c.block(&format!("for i in range(m + 1, m + {}):", count + 1), |c| {
                    port_lines(c, "t", "f'{t}.p{i}'", *cap)
                });
            });
        }
        Action::ForEach { scope, per, what } => {
            code.block(&format!("for t in G.descendants({}, kind='{per}'):", lit(scope)), |c| {
                let prefix = what.prefix("{t}");
                c.line(&format!("name = f'{prefix}' + str(highest(G, t, f'{prefix}') + 1)"));
                match what {
                    Child::Port { cap } => port_lines(c, "t", "name", *cap),
                    Child::Switch { stage, ports, cap } => switch_lines(c, "t", "name", *stage, *ports, *cap),
                    Child::AggBlock => agg_lines(c, "t", "name"),
                }
            });
        }
    }
}

fn kind_arg(kind: Option<Kind>) -> String {
    kind.map(|k| format!(", kind='{k}'")).unwrap_or_default()
}

fn ret(code: &mut Code, ty: &str, data: &str) {
    code.line(&format!("return {{'type': '{ty}', 'data': {data}}}"));
}

fn query_code(code: &mut Code, query: &Query) {
    match query {
        Query::Graph => ret(code, "graph", "None"),
        Query::Children { y, kind } => {
            ret(code, "list", &format!("G.children({}{})", lit(y), kind_arg(*kind)))
        }
        Query::Descendants { y, kind } => {
            ret(code, "list", &format!("G.descendants({}, kind='{kind}')", lit(y)))
        }
        Query::Count { kind, under } => {
            let under = under.as_ref().map(|u| format!(", under={}", lit(u))).unwrap_or_default();
            ret(code, "text", &format!("G.count('{kind}'{under})"));
        }
        Query::Rank { y, high, k } => {
            code.line(&format!("rows = [[c, G.capacity(c)] for c in G.children({})]", lit(y)));
            code.line(&format!("rows.sort(key=lambda r: ({}r[1], r[0]))", if *high { "-" } else { "" }));
            ret(code, "table", &k.map_or_else(|| "rows".to_string(), |k| format!("rows[:{k}]")));
        }
        Query::Capacity { y } => ret(code, "text", &format!("G.capacity({})", lit(y))),
        Query::Extreme { z, least } => {
            let sign = if *least { "" } else { "-" };
            code.line(&format!("rows = [[G.capacity(b), b] for b in G.children({})]", lit(z)));
            code.line(&format!("best = min(rows, key=lambda r: ({sign}r[0], r[1]))"));
            ret(code, "text", "best[1]");
        }
        Query::SharedRisk { x, x2 } => {
            code.block("def domains(s):", |c| {
                c.line("kinds = ['EK_AGG_BLOCK', 'EK_SPINEBLOCK', 'EK_SUPERBLOCK', 'EK_RACK']");
                c.line("found = [a for a in G.ancestors(s) if G.kind(a) in kinds]");
                c.block("for cp in G.predecessors(s, rel='RK_CONTROLS'):", |c| {
                    c.line("found.extend(G.ancestors(cp, kind='EK_CONTROL_DOMAIN'))")
                });
                c.line("return found");
            });
            code.line(&format!("other = domains({})", lit(x2)));
            ret(code, "list", &format!("[d for d in domains({}) if d in other]", lit(x)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_rank_answer() {
        let plan = Plan {
            actions: vec![Action::RemovePort { port: "ju1.a1.m1.s2c1.p3".into() }],
            query: Query::Rank { y: "ju1.a1.m1".into(), high: true, k: None },
        };
        assert_eq!(
            render(&plan),
            "def process_graph(G):
    G.remove_node('ju1.a1.m1.s2c1.p3')
    rows = [[c, G.capacity(c)] for c in G.children('ju1.a1.m1')]
    rows.sort(key=lambda r: (-r[1], r[0]))
    return {'type': 'table', 'data': rows}
"
        );
    }

    #[test]
    fn the_helper_comes_only_when_used() {
        let each = Plan {
            actions: vec![Action::ForEach {
                scope: "ju1".into(),
                per: Kind::Superblock,
                what: Child::AggBlock,
            }],
            query: Query::Graph,
        };
        let code = render(&each);
        assert!(code.starts_with("def highest(G, parent, prefix):"));
        assert!(code.contains("name = f'{t}.m' + str(highest(G, t, f'{t}.m') + 1)"), "{code}");
        let plain = Plan { actions: vec![], query: Query::Capacity { y: "ju1".into() } };
        assert!(render(&plain).starts_with("def process_graph(G):"));
    }
}
