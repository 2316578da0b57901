"""Recompute traffic tasks' truths with networkx (docs/traffic.md, "The networkx differential test").

Reads JSON lines as `netpress traffic export` writes them (id, family, query, truth, graph,
expected_graph) on standard input. For each task it loads the base graph with
networkx.node_link_graph, computes the family's answer independently (networkx for graph work,
plain Python for statistics) and compares it with the Rust truth: the value for questions, the
whole node-link document for changes. Prints one JSON summary line; exits 1 on any disagreement.
"""

import collections
import csv
import io
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
    if f == "min-cut":
        return nx.minimum_cut(g, q["u"], q["v"], capacity="connection_weight")[0]
    if f == "cliques":
        return sum(1 for _ in nx.find_cliques(g))
    if f == "nbr-count":
        labels = set(q["labels"])
        return sum(
            1
            for n in g.nodes
            if not has_any(g, n, labels) and any(has_any(g, m, labels) for m in g.neighbors(n))
        )
    return None


T0 = 1736121600


def connections(text):
    """Connections from the log rows: the higher port initiates, each vantage sums its own
    records, the largest sum is the connection's and its earliest record its start."""
    at = collections.defaultdict(lambda: [0, 0])
    start, allowed = {}, {}
    for r in csv.DictReader(io.StringIO(text)):
        r = {k: int(v) for k, v in r.items()}
        if r["sport"] > r["dport"]:
            key, f, b = (r["src"], r["sport"], r["dst"], r["dport"], r["proto"]), r["bytes"], r["bytes_rev"]
        else:
            key, f, b = (r["dst"], r["dport"], r["src"], r["sport"], r["proto"]), r["bytes_rev"], r["bytes"]
        s = at[(key, r["vantage"])]
        s[0] += f
        s[1] += b
        start[key] = min(start.get(key, r["t"]), r["t"])
        allowed[key] = allowed.get(key, True) and r["allow"] == 1
    fwd, rev = collections.Counter(), collections.Counter()
    for (key, _), (f, b) in at.items():
        fwd[key] = max(fwd[key], f)
        rev[key] = max(rev[key], b)
    return [
        {"src": k[0], "dst": k[2], "dport": k[3], "proto": k[4], "start": start[k] - T0,
         "allow": allowed[k], "fwd": fwd[k], "rev": rev[k]}
        for k in start
    ]


def dotted(n):
    return str(ipaddress.ip_address(n))


def internet(n):
    a = ipaddress.ip_address(n)
    return a not in ipaddress.ip_network("10.0.0.0/8") and a not in ipaddress.ip_network("100.64.0.0/10")


def flow_question(conns, q):
    f = q["family"]
    lo, hi = q["t1"] * 60, q["t2"] * 60
    inside = [c for c in conns if lo <= c["start"] < hi]
    if f == "top-talkers":
        sent = collections.Counter()
        for c in inside:
            if c["allow"]:
                sent[c["src"]] += c["fwd"]
        ranked = sorted(sent.items(), key=lambda x: (-x[1], x[0]))[: q["k"]]
        return [[dotted(a), b] for a, b in ranked]
    if f == "time-series":
        proto = 17 if q["proto"] == "udp" else 6
        counts = collections.OrderedDict((m, 0) for m in range(q["t1"], q["t2"], q["bucket"]))
        for c in inside:
            if c["allow"] and c["proto"] == proto and c["dport"] == q["port"]:
                m = c["start"] // 60
                counts[q["t1"] + (m - q["t1"]) // q["bucket"] * q["bucket"]] += 1
        return [[f"{m // 60:02d}:{m % 60:02d}", n] for m, n in counts.items()]
    if f == "port-scan":
        ports, hosts = collections.defaultdict(set), collections.defaultdict(set)
        for c in inside:
            if internet(c["src"]):
                minute = c["start"] // 60
                ports[(c["src"], minute, c["dst"])].add(c["dport"])
                hosts[(c["src"], minute, c["dport"])].add(c["dst"])
        hits = {k[0] for k, v in ports.items() if len(v) >= q["ports"]}
        hits |= {k[0] for k, v in hosts.items() if len(v) >= q["hosts"]}
        return sorted(dotted(a) for a in hits)
    if f == "heavy-hitters":
        pairs = collections.Counter()
        for c in inside:
            if c["allow"]:
                pairs[(c["src"], c["dst"])] += c["fwd"] + c["rev"]
        total = sum(pairs.values())
        return sorted(f"{dotted(a)}>{dotted(b)}" for (a, b), v in pairs.items() if v * 100 > q["percent"] * total)
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
    if truth["type"] == "list" and not truth["ordered"]:
        return sorted(json.dumps(x) for x in mine) == sorted(json.dumps(x) for x in data)
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


TENANT = {}


def check(task):
    q = task["query"]
    if "tenant" in task:
        if "records" in task:
            TENANT.clear()
            TENANT[task["tenant"]] = connections(task["records"])
        conns = TENANT.get(task["tenant"])
        if conns is None:
            return False, "no records for tenant " + task["tenant"]
        mine = flow_question(conns, q)
        return same_value(mine, task["truth"]), mine
    g = nx.node_link_graph(task["graph"], edges="links")
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
