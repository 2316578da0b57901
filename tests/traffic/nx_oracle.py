"""Recompute traffic tasks' truths with networkx (docs/traffic.md, "The networkx differential test").

Reads JSON lines as `netpress traffic export` writes them (id, family, query, truth, graph,
expected_graph) on standard input. For each task it loads the base graph with
networkx.node_link_graph, computes the family's answer independently (networkx for graph work,
plain Python for statistics) and compares it with the Rust truth: the value for questions, the
whole node-link document for changes. Prints one JSON summary line; exits 1 on any disagreement.
"""

import ipaddress
import json
import math
import statistics
import sys

import networkx as nx

WEIGHT = {"byte": "byte_weight", "connection": "connection_weight", "packet": "packet_weight"}


def ip_key(n):
    return int(ipaddress.ip_address(n))


def has_any(g, n, labels):
    return any(l in labels for l in g.nodes[n]["labels"])


def question(g, q):
    f = q["family"]
    if f == "count":
        case = q["case"]
        if case == "a":
            return g.number_of_nodes()
        if case == "b":
            return g.number_of_edges()
        if case == "c":
            return [g.number_of_nodes(), g.number_of_edges()]
        if case == "d":
            return sum(1 for _, ls in g.nodes(data="labels") if q["label"] in ls)
        return sum(1 for _, d in g.degree() if d == q["k"])
    if f == "degree-stat":
        w = q.get("weight")
        if w is None:
            vals = [d for _, d in g.degree()]
            header = ["Max degree", "Min degree"]
        else:
            vals = [d for _, d in g.degree(weight=WEIGHT[w])]
            header = [f"Max total {w} weight", f"Min total {w} weight"]
        return [header, [max(vals), min(vals)]]
    if f == "label-table":
        counts = {}
        for _, ls in g.nodes(data="labels"):
            for l in set(ls):
                counts[l] = counts.get(l, 0) + 1
        return [["Label", "Number of Nodes"]] + [[l, c] for l, c in counts.items()]
    if f == "prefix-count":
        counts = {}
        for n in g.nodes:
            p = str(ipaddress.ip_network(f"{n}/{q['bits']}", strict=False))
            counts[p] = counts.get(p, 0) + 1
        return [[p, c] for p, c in counts.items()]
    if f == "top-degree":
        ranked = sorted(g.degree(), key=lambda x: (-x[1], ip_key(x[0])))[: q["k"]]
        return [[n, sorted(set(g.nodes[n]["labels"])), d] for n, d in ranked]
    if f == "nbr-count":
        labels = set(q["labels"])
        return sum(
            1
            for n in g.nodes
            if not has_any(g, n, labels) and any(has_any(g, m, labels) for m in g.neighbors(n))
        )
    return None


def threshold(ws, stat):
    ws = sorted(ws)
    if stat == "median":
        return statistics.median(ws)
    if stat == "mean":
        return statistics.fmean(ws)
    q = stat["percentile"]
    return ws[max(1, math.ceil(q * len(ws) / 100)) - 1]


def change(g, q):
    f = q["family"]
    if f == "label-remove":
        for n in g.nodes:
            g.nodes[n]["labels"] = [l for l in g.nodes[n]["labels"] if l != q["label"]]
    elif f == "color-label":
        for n in g.nodes:
            if q["label"] in g.nodes[n]["labels"]:
                g.nodes[n]["color"] = q["color"]
    elif f == "nbr-color":
        marked = {n for n in g.nodes if q["label"] in g.nodes[n]["labels"]}
        hits = [n for n in g.nodes if any(m in marked for m in g.neighbors(n))]
        for n in hits:
            g.nodes[n]["color"] = q["color"]
    elif f == "edge-filter":
        key = WEIGHT[q["weight"]]
        t = threshold([w for _, _, w in g.edges(data=key)], q["stat"])
        drop = [(u, v) for u, v, w in g.edges(data=key) if (w < t if q["strict"] else w <= t)]
        g.remove_edges_from(drop)
    return g


def close(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def same_value(mine, truth):
    data = truth["data"]
    if truth["type"] == "table" and not truth["ordered"]:
        h = truth["header"]
        key = lambda rows: sorted(json.dumps(r) for r in rows)
        return close(mine[:h], data[:h]) and key(mine[h:]) == key(data[h:])
    return close(mine, data)


def graph_doc(g):
    nodes = {n: (a["color"], a["size"], sorted(set(a["labels"]))) for n, a in g.nodes(data=True)}
    edges = {}
    for u, v, a in g.edges(data=True):
        k = tuple(sorted((u, v), key=ip_key))
        edges[k] = (a["byte_weight"], a["connection_weight"], a["packet_weight"])
    return nodes, edges


def check(task):
    g = nx.node_link_graph(task["graph"], edges="links")
    q = task["query"]
    if task["truth"] is not None:
        mine = question(g, q)
        return same_value(mine, task["truth"]), mine
    mine = graph_doc(change(g, q))
    want = graph_doc(nx.node_link_graph(task["expected_graph"], edges="links"))
    return mine == want, "graph differs"


def main():
    checked, agree, bad = 0, 0, []
    for line in sys.stdin:
        if not line.strip():
            continue
        task = json.loads(line)
        ok, mine = check(task)
        checked += 1
        if ok:
            agree += 1
        elif len(bad) < 5:
            bad.append({"id": task["id"], "networkx": mine, "rust": task["truth"]})
    print(json.dumps({"checked": checked, "agree": agree, "disagreements": bad, "networkx": nx.__version__}))
    sys.exit(0 if checked == agree and checked > 0 else 1)


if __name__ == "__main__":
    main()
