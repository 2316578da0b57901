//! The three wordings of every family (docs/traffic.md, "Wordings"): W1, the plain form the
//! template-compiler baseline reads; W2 with synonyms (hosts, links, tag, peers); W3 as an
//! operator would put it (subnets, CIDRs, "inventory"). All three state the same parameters,
//! tie rules, headers and return form, so only the phrasing differs; the tests check that no
//! W2 or W3 question matches a W1 pattern of the baseline.

use super::family::{EDGE_HEADER, LABEL_HEADER, Query, Stat, degree_header, py_list};
use super::flowq::{FlowQuery, hhmm};

const RET_TEXT: &str = "Return the number as text.";
const RET_GRAPH: &str = "Return the graph.";
const RET_LIST: &str = "Return a list.";
const RET_NEW: &str = "Return the new graph as node-link data.";
/// What every flow question adds: the counting rule and the window convention.
const FLOW_RULE: &str = "Count each connection once (records of both ends and directions describe one); \
only allowed connections count unless asked. A connection belongs to the window its start time falls in, \
the first time included and the second excluded.";

/// One of three phrasings by wording index (0 = W1).
fn pick(w: usize, three: [String; 3]) -> String {
    let [a, b, c] = three;
    match w {
        0 => a,
        1 => b,
        _ => c,
    }
}

fn stat_words(stat: Stat) -> String {
    match stat {
        Stat::Median => "the median (mean of the two middle values for an even count)".into(),
        Stat::Mean => "the mean".into(),
        Stat::Percentile(q) => format!("the {q}th percentile (nearest rank)"),
    }
}

/// The question in wording `w` (0, 1 or 2).
pub fn question(q: &Query, w: usize) -> String {
    match q {
        Query::Count { case, label, k, prefix } => {
            let l = label.as_deref().unwrap_or("");
            let k = k.unwrap_or(0);
            let p = prefix.as_deref().unwrap_or("");
            let body = match case {
                'a' => pick(
                    w,
                    [
                        "How many nodes are in the graph?".into(),
                        "What is the number of hosts in the graph?".into(),
                        "Give me the size of the endpoint inventory.".into(),
                    ],
                ),
                'b' => pick(
                    w,
                    [
                        "How many edges are in the graph?".into(),
                        "What is the number of links in the graph?".into(),
                        "How many communicating endpoint pairs does the inventory show?".into(),
                    ],
                ),
                'c' => pick(
                    w,
                    [
                        "How many nodes and edges are in the graph?".into(),
                        "What are the numbers of hosts and of links in the graph?".into(),
                        "Report the endpoint count and the count of communicating pairs.".into(),
                    ],
                ),
                'd' => pick(
                    w,
                    [
                        format!("How many nodes have the label {l}?"),
                        format!("How many hosts are tagged {l}?"),
                        format!("Size of the {l} group of endpoints?"),
                    ],
                ),
                'f' => pick(
                    w,
                    [
                        format!("How many nodes have an IP address in {p}?"),
                        format!("How many hosts sit in the address block {p}?"),
                        format!("How many endpoints does the {p} subnet hold?"),
                    ],
                ),
                'g' => pick(
                    w,
                    [
                        format!("How many edges join a node in {p} to a node outside {p}?"),
                        format!("How many links connect a host in the block {p} with a host outside it?"),
                        format!("How many communicating pairs cross the boundary of the {p} subnet?"),
                    ],
                ),
                _ => pick(
                    w,
                    [
                        format!("How many nodes have degree {k}?"),
                        format!("How many hosts have exactly {k} peers?"),
                        format!("Count the endpoints that talk to exactly {k} distinct others."),
                    ],
                ),
            };
            let ret = if *case == 'c' { "Return a list of the two numbers, nodes first." } else { RET_TEXT };
            format!("{body} {ret}")
        }
        Query::DegreeStat { weight } => {
            let body = match weight {
                None => pick(
                    w,
                    [
                        "What are the maximum and minimum degree in the graph?".into(),
                        "Which are the largest and the smallest peer counts of a host?".into(),
                        "Report the busiest and the quietest endpoint's number of distinct peers.".into(),
                    ],
                ),
                Some(x) => pick(
                    w,
                    [
                        format!("What are the maximum and minimum total {x} weight of a node?"),
                        format!(
                            "Which are the largest and the smallest sums of {x} weight over a host's links?"
                        ),
                        format!(
                            "Report the highest and the lowest {x} volume of one endpoint, over all its pairs."
                        ),
                    ],
                ),
            };
            format!(
                "{body} Return a table with the header row {} first.",
                py_list(&degree_header(weight.as_deref()))
            )
        }
        Query::LabelTable => {
            let body = pick(
                w,
                [
                    "List every distinct label and the number of nodes that carry it.".into(),
                    "Give every distinct tag and how many hosts carry it.".into(),
                    "Break the inventory down by tag: each tag once, with its endpoint count.".into(),
                ],
            );
            format!("{body} Return a table with the header row {} first.", py_list(&LABEL_HEADER))
        }
        Query::LabelPrefix { pairs } => {
            let body = match pairs.as_slice() {
                [(p1, l1), (p2, l2)] => pick(
                    w,
                    [
                        format!(
                            "Add the label {l1} to every node in {p1} and the label {l2} to every node in {p2}."
                        ),
                        format!("Tag every host in {p1} with {l1} and every host in {p2} with {l2}."),
                        format!(
                            "Apply the {l1} tag to all endpoints of subnet {p1} and the {l2} tag to all endpoints of subnet {p2}."
                        ),
                    ],
                ),
                _ => {
                    let (p1, l1) = pairs.first().map_or(("", ""), |(p, l)| (p.as_str(), l.as_str()));
                    pick(
                        w,
                        [
                            format!("Add the label {l1} to every node in {p1}."),
                            format!("Tag every host in {p1} with {l1}."),
                            format!("Apply the {l1} tag to all endpoints of subnet {p1}."),
                        ],
                    )
                }
            };
            format!("{body} {RET_GRAPH}")
        }
        Query::EdgeStat { label } => {
            let body = pick(
                w,
                [
                    format!(
                        "What are the average byte weight and the average connection weight of the edges incident on nodes with the label {label}?"
                    ),
                    format!(
                        "Over the links that touch at least one host tagged {label}, each link once, what are the mean byte weight and the mean connection weight?"
                    ),
                    format!(
                        "For the pairs involving an endpoint of the {label} group (each pair counted once), report the average byte volume and the average connection count."
                    ),
                ],
            );
            format!("{body} Return a table with the header row {} first.", py_list(&EDGE_HEADER))
        }
        Query::ColorExtreme { case, c1, c2 } => {
            let body = match (case, c2) {
                ('a', Some(c2)) => pick(
                    w,
                    [
                        format!(
                            "Color the node with the highest degree {c1} and the node with the lowest degree {c2} (ties: the lowest IP address)."
                        ),
                        format!(
                            "Paint {c1} the host with the most peers and {c2} the host with the fewest peers; on ties take the lower IP address."
                        ),
                        format!(
                            "Highlight the best-connected endpoint (most distinct peers) in {c1} and the least-connected one in {c2}, the lowest address winning ties."
                        ),
                    ],
                ),
                _ => pick(
                    w,
                    [
                        format!(
                            "Color the node with the highest degree {c1} and double its size (ties: the lowest IP address)."
                        ),
                        format!(
                            "Paint {c1} the host with the most peers and make it twice as large; on ties take the lower IP address."
                        ),
                        format!(
                            "Highlight the best-connected endpoint (most distinct peers) in {c1} and double its node size, the lowest address winning ties."
                        ),
                    ],
                ),
            };
            format!("{body} {RET_GRAPH}")
        }
        Query::LabelGraph { prefix: Some(p) } => {
            let body = pick(
                w,
                [
                    format!(
                        "Create a new graph with one node per distinct label of the nodes in {p}, joining two labels, or a label with itself, when some edge between two nodes in {p} joins a node carrying one to a node carrying the other."
                    ),
                    format!(
                        "Build a new graph whose nodes are the distinct tags of the hosts in the block {p}, linking two tags, or a tag to itself, whenever some link between two hosts of the block joins a host carrying one to a host carrying the other."
                    ),
                    format!(
                        "Summarise the {p} subnet as a tag-level graph: one node per distinct tag of its endpoints, and an edge between two tags (a self-loop for one tag) when two of its endpoints, one with each, talk to each other."
                    ),
                ],
            );
            format!("{body} {RET_NEW}")
        }
        Query::LabelGraph { prefix: None } => {
            let body = pick(
                w,
                [
                    "Create a new graph with one node per distinct label, joining two labels, or a label with itself, when some edge joins a node carrying one to a node carrying the other.".into(),
                    "Build a new graph whose nodes are the distinct tags, linking two tags, or a tag to itself, whenever some link joins a host carrying one to a host carrying the other.".into(),
                    "Summarise the inventory as a tag-level graph: one node per distinct tag, and an edge between two tags (a self-loop for one tag) when an endpoint with one talks to an endpoint with the other.".into(),
                ],
            );
            format!("{body} {RET_NEW}")
        }
        Query::PrefixGraph => {
            let body = pick(
                w,
                [
                    "Create a new graph with one node per /16 prefix (id like 10.1.0.0/16) and an edge, or a self-loop, between prefixes whose nodes are joined by an edge, with byte_weight the sum of those edges' byte weights.".into(),
                    "Build a new graph with one node per /16 subnet (named like 10.1.0.0/16) and a link, or a self-loop, between two subnets whose hosts share a link, its byte_weight the sum of those links' byte weights.".into(),
                    "Aggregate the inventory to /16 subnets: one node per subnet in CIDR form (like 10.1.0.0/16), an edge (a self-loop inside one subnet) between subnets with talking endpoints, carrying byte_weight, the summed byte weight of those pairs.".into(),
                ],
            );
            format!("{body} {RET_NEW}")
        }
        Query::LabelRemove { label } => {
            let body = pick(
                w,
                [
                    format!("Remove the label {label} from every node."),
                    format!("Strip the tag {label} from all hosts."),
                    format!("Retire the {label} tag across the inventory."),
                ],
            );
            format!("{body} {RET_GRAPH}")
        }
        Query::ColorLabel { label, color } => {
            let body = pick(
                w,
                [
                    format!("Color every node that has the label {label} {color}."),
                    format!("Paint {color} all hosts tagged {label}."),
                    format!("Mark the {label} group of endpoints in {color}."),
                ],
            );
            format!("{body} {RET_GRAPH}")
        }
        Query::PrefixCount { bits } => {
            let body = pick(
                w,
                [
                    format!("Count the nodes in each /{bits} prefix of their IP addresses."),
                    format!("For each /{bits} subnet, how many hosts have an address in it?"),
                    format!("Give the endpoint count per /{bits} subnet of the address plan."),
                ],
            );
            format!(
                "{body} Return a table of [prefix, count] rows in any order, without header, prefixes written like 10.0.0.0/{bits}."
            )
        }
        Query::TopDegree { k } => {
            let body = pick(
                w,
                [
                    format!("List the {k} nodes with the highest degree, ties by IP address ascending."),
                    format!("Which {k} hosts have the most peers? Break ties by the lower IP address."),
                    format!(
                        "Show the top {k} endpoints by number of distinct peers; on equal counts the lower address first."
                    ),
                ],
            );
            format!(
                "{body} Return a table of [node, sorted labels, degree] rows in that order, without header."
            )
        }
        Query::NbrCount { labels, prefix } => {
            let body = match (labels.as_slice(), prefix) {
                (_, Some(p)) => pick(
                    w,
                    [
                        format!("How many nodes outside {p} have an edge to a node in {p}?"),
                        format!("How many hosts outside the block {p} are linked to a host inside it?"),
                        format!("Beyond the {p} subnet, how many endpoints talk to one inside it?"),
                    ],
                ),
                ([a, b], None) => pick(
                    w,
                    [
                        format!(
                            "How many nodes that have neither {a} nor {b} have an edge to a node with {a} or {b}?"
                        ),
                        format!(
                            "How many hosts tagged neither {a} nor {b} are linked to a host tagged {a} or {b}?"
                        ),
                        format!(
                            "Outside the {a} and {b} groups, how many endpoints talk to a member of either group?"
                        ),
                    ],
                ),
                (l, None) => {
                    let a = l.first().map_or("", String::as_str);
                    pick(
                        w,
                        [
                            format!("How many nodes that do not have {a} have an edge to a node with {a}?"),
                            format!("How many hosts not tagged {a} are linked to a host tagged {a}?"),
                            format!("Outside the {a} group, how many endpoints talk to a member of it?"),
                        ],
                    )
                }
            };
            format!("{body} {RET_TEXT}")
        }
        Query::NbrColor { label, color } => {
            let body = pick(
                w,
                [
                    format!("Color {color} every node that has an edge to a node with the label {label}."),
                    format!("Paint {color} every host linked to a host tagged {label}."),
                    format!(
                        "Mark in {color} each endpoint that talks to a member of the {label} group, members included when they talk to one."
                    ),
                ],
            );
            format!("{body} {RET_GRAPH}")
        }
        Query::EdgeFilter { weight, strict, stat } => {
            let cmp = if *strict { "below" } else { "at most" };
            let st = stat_words(*stat);
            let body = pick(
                w,
                [
                    format!(
                        "Delete every edge whose {weight} weight is {cmp} {st} of all edge {weight} weights."
                    ),
                    format!(
                        "Drop every link whose {weight} weight is {cmp} {st} of all link {weight} weights."
                    ),
                    format!(
                        "Prune the pairs whose {weight} volume is {cmp} {st} of the {weight} volumes of all pairs."
                    ),
                ],
            );
            format!("{body} {RET_GRAPH}")
        }
        Query::MinCut { u, v } => {
            let body = pick(
                w,
                [
                    format!(
                        "What is the smallest total connection weight of a set of edges whose removal disconnects {u} from {v}?"
                    ),
                    format!(
                        "What is the least total connection weight of links that must be cut to separate host {u} from host {v}?"
                    ),
                    format!(
                        "How much connection volume, at minimum, must be blocked so that {u} can no longer reach {v} through the inventory's pairs?"
                    ),
                ],
            );
            format!("{body} {RET_TEXT}")
        }
        Query::Cliques { node: Some(u) } => {
            let body = pick(
                w,
                [
                    format!(
                        "How many maximal cliques of the graph contain the node {u}? A node without edges is in one, itself."
                    ),
                    format!(
                        "In how many maximal groups of hosts that are all linked to one another is the host {u}? A host with no links is a group of one."
                    ),
                    format!(
                        "How many maximal all-to-all talking endpoint sets of the inventory include {u} (an endpoint with no peers counts as a set of one)?"
                    ),
                ],
            );
            format!("{body} {RET_TEXT}")
        }
        Query::Cliques { node: None } => {
            let body = pick(w, [
                "How many maximal cliques does the graph have? An isolated node counts as one.".into(),
                "Count the maximal groups of hosts that are all linked to one another; a host with no links is a group of one.".into(),
                "How many maximal all-to-all talking endpoint sets does the inventory hold (an endpoint with no peers counts as a set of one)?".into(),
            ]);
            format!("{body} {RET_TEXT}")
        }
        Query::RemoveIsolated => {
            let body = pick(
                w,
                [
                    "Remove every node with no edges.".into(),
                    "Drop every host that has no links.".into(),
                    "Decommission the endpoints without a single peer from the inventory.".into(),
                ],
            );
            format!("{body} {RET_GRAPH}")
        }
        Query::Compose { steps, question: q } => composed(steps, q, w),
        Query::FlowGraph { t1, t2, question: q } => flow_graph_question(*t1, *t2, q, w),
        Query::Flow(f) => flow_question(f, w),
        prop => format!("{} {RET_GRAPH}", property_question(prop, w)),
    }
}

/// A sentence continued after a connective: its first letter in lower case.
fn continued(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

/// A change step's text in wording `w`: its question without the return form.
fn step_text(q: &Query, w: usize) -> String {
    let full = question(q, w);
    full.strip_suffix(&format!(" {RET_GRAPH}")).map_or(full.clone(), str::to_string)
}

/// A composed question (level 4): the steps' and the question's own texts in wording `w`,
/// joined by the wording's connectives; the question keeps its return form.
fn composed(steps: &[Query], q: &Query, w: usize) -> String {
    let texts: Vec<String> = steps.iter().map(|s| step_text(s, w)).collect();
    let last = question(q, w);
    match w {
        0 => {
            let rest: Vec<String> = texts[1..].iter().map(|t| format!(" Then {}", continued(t))).collect();
            format!("{}{} Finally, {}", texts[0], rest.concat(), continued(&last))
        }
        1 => {
            let rest: Vec<String> = texts[1..].iter().map(|t| format!(" Next, {}", continued(t))).collect();
            format!("First, {}{} Last, {}", continued(&texts[0]), rest.concat(), continued(&last))
        }
        _ => {
            let numbered: Vec<String> =
                texts.iter().enumerate().map(|(i, t)| format!("({}) {t}", i + 1)).collect();
            format!(
                "Change ticket, in this order: {} Once the changes are made, on the changed inventory: {last}",
                numbered.join(" ")
            )
        }
    }
}

/// What a flow-graph question adds: how the window's graph is weighted and labelled.
const WINDOW_RULE: &str = "Weights as in G: byte_weight the bytes of both directions, packet_weight the \
packets of both directions, connection_weight the number of connections; each node keeps its labels in G.";

/// A flow-graph question (level 4): the window's communication graph, then the question on it.
fn flow_graph_question(t1: u32, t2: u32, q: &Query, w: usize) -> String {
    let (a, b) = (hhmm(t1), hhmm(t2));
    let last = continued(&question(q, w));
    let body = pick(
        w,
        [
            format!(
                "Build the communication graph of the connections starting between {a} and {b} UTC (one node per IP, one edge per communicating pair, weights summed). Then {last}"
            ),
            format!(
                "From the flow records, make the graph of who talked to whom in the connections opened between {a} and {b} UTC (a host per address, a link per pair of hosts that talked, its weights added up over their connections). On that graph: {last}"
            ),
            format!(
                "Take the flow logs' connections opened {a}–{b} UTC and draw them as an endpoint graph (endpoints as nodes, one edge per talking pair with summed volumes); then answer on it: {last}"
            ),
        ],
    );
    format!("{body} {WINDOW_RULE} {FLOW_RULE}")
}

/// The property families' questions (the return form is added by the caller).
fn property_question(q: &Query, w: usize) -> String {
    match q {
        Query::ColorPrefix => pick(
            w,
            [
                "Give each /16 prefix its own color and color every node with the color of its prefix.".into(),
                "Paint every host in the colour of its /16 subnet, a different colour for each /16 subnet.".into(),
                "Color-code the address plan: one distinct colour per /16 subnet (a.b.0.0/16), every endpoint painted with its subnet's colour.".into(),
            ],
        ),
        Query::Bisect { c1, c2 } => pick(
            w,
            [
                format!("Split the nodes into two groups whose sizes differ by at most one; color one group {c1} and the other {c2}."),
                format!("Divide the hosts into two halves whose sizes differ by one host at most; paint one half {c1} and the other {c2}."),
                format!("Partition the endpoint inventory into two sets of equal size (one apart for an odd count) and mark one set {c1}, the other {c2}."),
            ],
        ),
        Query::CutBalanced { c1, c2, d } => pick(
            w,
            [
                format!("Color every node {c1} or {c2} so that the number of edges with both ends {c1} and the number with both ends {c2} differ by at most {d}."),
                format!("Paint each host {c1} or {c2} such that the count of links between two {c1} hosts and the count of links between two {c2} hosts are at most {d} apart."),
                format!("Mark every endpoint {c1} or {c2}, keeping the pairs inside the {c1} set and the pairs inside the {c2} set balanced: their counts may differ by {d} at most."),
            ],
        ),
        Query::Kmeans { k, color } => {
            let top = k - 1;
            let (c1, c2, c3) = if *color {
                (
                    " and color each cluster with its own color",
                    ", painting each cluster in a colour of its own",
                    ", and give each group a distinct colour",
                )
            } else {
                ("", "", "")
            };
            pick(
                w,
                [
                    format!("Compute each node's total byte weight. Partition the nodes into {k} clusters minimising the within-cluster sum of squared deviations of these totals (optimal 1-D k-means) and add the label cluster=i (i from 0 to {top}) to each node{c1}."),
                    format!("Sum the byte weight over each host's links. Group the hosts into {k} clusters with the least possible total of squared distances of these sums to their cluster's mean (exact one-dimensional k-means) and tag every host cluster=i for its cluster i in 0..{top}, keeping its other tags{c2}."),
                    format!("Bucket the endpoints by byte volume (the sum over all their pairs) into {k} groups by exact 1-D k-means, the grouping with the least within-group sum of squared deviations; add the tag cluster=<group number>, numbers 0 to {top}, to each endpoint{c3}."),
                ],
            )
        }
        Query::Heatmap { palette } => {
            let list = palette.join(", ");
            let (cold, hot) = (&palette[0], &palette[palette.len() - 1]);
            pick(
                w,
                [
                    format!("Color the nodes as a heatmap of their total byte weight with the palette {list} from coldest to hottest: a heavier node never gets a colder color, the lightest node gets {cold} and the heaviest {hot}."),
                    format!("Paint the hosts as a heat map of the byte weight summed over their links, using the colours {list} from cold to hot: no host is colder than a lighter host, the lightest hosts get {cold} and the heaviest {hot}."),
                    format!("Render a byte-volume heat map of the inventory (volume summed over each endpoint's pairs) with the ramp {list}, coldest first: a busier endpoint is never colder than a quieter one, the quietest get {cold} and the busiest {hot}."),
                ],
            )
        }
        _ => String::new(),
    }
}

fn flow_question(q: &FlowQuery, w: usize) -> String {
    let span = |t1: u32, t2: u32| (hhmm(t1), hhmm(t2));
    let (body, ret) = match q {
        FlowQuery::TopTalkers { k, t1, t2 } => {
            let (a, b) = span(*t1, *t2);
            (
                pick(
                    w,
                    [
                        format!(
                            "From the flow logs, list the {k} initiators that sent the most bytes to responders in connections starting between {a} and {b} UTC, ties by IP ascending."
                        ),
                        format!(
                            "Using the flow records, which {k} client hosts pushed the most bytes to the servers they opened connections to between {a} and {b} UTC? Break ties by the lower IP address."
                        ),
                        format!(
                            "Top {k} talkers by bytes sent as the connection's initiator, for connections opened {a}–{b} UTC per the flow logs; on equal bytes the lower address first."
                        ),
                    ],
                ),
                "Return a table of [ip, bytes] rows in that order, without header.".to_string(),
            )
        }
        FlowQuery::TimeSeries { proto, port, bucket, t1, t2 } => {
            let (a, b) = span(*t1, *t2);
            (
                pick(w, [
                    format!("From the flow logs, count the connections to {proto} port {port} starting in each {bucket}-minute interval from {a} to {b} UTC, empty intervals included."),
                    format!("Using the flow records, how many connections were opened to {proto} port {port} in every {bucket}-minute slot from {a} to {b} UTC? Give empty slots too."),
                    format!("Per-{bucket}-minute connection counts to {proto}/{port} over {a}–{b} UTC from the flow logs, zero buckets included."),
                ]),
                "Return a table of [HH:MM, count] rows in that order, without header, one per interval, each named by its start time.".to_string(),
            )
        }
        FlowQuery::PortScan { ports, hosts, t1, t2 } => {
            let (a, b) = span(*t1, *t2);
            (
                pick(
                    w,
                    [
                        format!(
                            "From the flow logs, which Internet IPs (outside 10.0.0.0/8 and 100.64.0.0/10) scanned between {a} and {b} UTC, i.e. within one clock minute tried at least {ports} distinct ports of one host or one port on at least {hosts} distinct hosts, denied attempts included?"
                        ),
                        format!(
                            "Using the flow records, which external addresses (not in 10.0.0.0/8 or 100.64.0.0/10) probed us between {a} and {b} UTC, meaning that in a single clock minute they hit {ports} or more different ports on one host, or one port on {hosts} or more different hosts, blocked attempts counted?"
                        ),
                        format!(
                            "Scanner hunt, {a}–{b} UTC: list the sources outside 10.0.0.0/8 and 100.64.0.0/10 that, inside one wall-clock minute, touched ≥ {ports} distinct ports of a single target or one port across ≥ {hosts} distinct targets; rejected flows count."
                        ),
                    ],
                ),
                RET_LIST.to_string(),
            )
        }
        FlowQuery::HeavyHitters { percent, t1, t2 } => {
            let (a, b) = span(*t1, *t2);
            (
                pick(
                    w,
                    [
                        format!(
                            "From the flow logs, which initiator–responder IP pairs carried more than {percent}% of all bytes (both directions) of the connections starting between {a} and {b} UTC?"
                        ),
                        format!(
                            "Using the flow records, which client–server address pairs account for over {percent}% of the total bytes, counting both directions, of the connections opened between {a} and {b} UTC?"
                        ),
                        format!(
                            "Heavy hitters {a}–{b} UTC: the (initiator, responder) pairs whose two-way bytes exceed {percent}% of all two-way bytes of the connections opened in that window, per the flow logs."
                        ),
                    ],
                ),
                "Return a list of strings written initiator>responder, e.g. '10.0.0.1>10.0.0.2'.".to_string(),
            )
        }
    };
    format!("{body} {ret} {FLOW_RULE}")
}
