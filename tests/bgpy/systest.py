"""BGPy's own engine-test configurations as NetPress routing cases (tests/bgp/systest.rs).

bgpy-pkg ships its system tests: small AS graphs (`as_graph_info_000` and graphs written inline
in the configurations) paired with a scenario and a policy per AS, in
`bgpy.tests.engine_tests.engine_test_configs`. This script takes every configuration from the
installed package, runs it the way BGPy's engine tester does (its own graph, engine, scenario
and propagation rounds), and prints one JSON line per configuration:

  {"name": str, "variant_of": str | null, "graph": str, "scenario": str, "in_model": bool,
   "reason": str | null, "kind": "policy" | "rounds" | "announcement" | null,
   "case": CASE | null, "ribs": {"<asn>": {"<prefix>": [path]}} | null, "same_as": str?}

`case` is the configuration in the oracle's format (tests/bgpy/oracle.py), `ribs` BGPy's local
RIBs at the end of the run. A configuration is in the shared model when every AS runs BGP or ROV
(or their Full variants, which add Adj-RIBs and withdrawals but decide the same way), nothing
changes the routing state between rounds except an accidental route leak, and every seeded
announcement starts with the AS that seeds it. Otherwise `reason` says what falls outside.

After the configurations come their *plain variants*: each one refused for its policies alone,
run again with those policies replaced by BGP (`variant_of` names it). A variant that repeats a
case already printed has no case or RIBs, only `same_as`, the name of the first.

Requires bgpy-pkg 13.0.x (PyPI `bgpy-pkg`, not `bgpy`).
"""

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from frozendict import frozendict

from bgpy.as_graphs import ASGraphInfo
from bgpy.shared.enums import Relationships
from bgpy.simulation_engine import BGP, ROV, BGPFull, ROVFull
from bgpy.simulation_framework import AccidentalRouteLeak, Scenario, ShortestPathPrefixHijack
from bgpy.tests.engine_tests.engine_test_configs import engine_test_configs
from bgpy.utils import EngineRunConfig, EngineRunner

# Policy classes our model has: plain speakers and ROV deployers.
PLAIN = (BGP, BGPFull)
ROV_CLASSES = (ROV, ROVFull)
# Scenarios whose hook between rounds we understand: none at all; the accidental route leak
# (the leaker re-seeds the path it held after round 0); the shortest-path hijack, which re-seeds
# only against BGP-iSec adopters (a policy outside the model, refused before the hook matters).
KNOWN_HOOKS = (Scenario, AccidentalRouteLeak, ShortestPathPrefixHijack)


def graph_names() -> dict:
    """id(ASGraphInfo) -> a readable name: the shared graph's own name, else module.variable."""
    names: dict = {}
    for mod_name, mod in list(sys.modules.items()):
        if not mod_name.startswith("bgpy.tests.engine_tests.engine_test_configs"):
            continue
        for var, value in vars(mod).items():
            if isinstance(value, ASGraphInfo):
                short = var if var.startswith("as_graph_info_0") else f"{mod_name.rsplit('.', 1)[-1]}.{var}"
                if id(value) not in names or short.startswith("as_graph_info_0"):
                    names[id(value)] = short
    return names


def run_native(conf, workdir: Path):
    """BGPy's engine-test run of `conf`, without writing its YAML or diagrams."""
    runner = EngineRunner(conf=conf, base_dir=workdir)
    engine, scenario = runner._get_engine_and_scenario()  # noqa: SLF001 (pinned to 13.0.x)
    for round_ in range(conf.scenario_config.propagation_rounds):
        engine.run(propagation_round=round_, scenario=scenario)
        for hook in (scenario.pre_aggregation_hook, scenario.post_propagation_hook):
            hook(engine=engine, propagation_round=round_, trial=0, percent_adopt=0)
    return engine, scenario


def outside(engine, scenario) -> tuple[str, str] | None:
    """Why the configuration is outside the shared model (a kind and a sentence), or None."""
    cls = type(scenario)
    if cls.pre_aggregation_hook is not Scenario.pre_aggregation_hook or not any(
        cls.post_propagation_hook is known.post_propagation_hook for known in KNOWN_HOOKS
    ):
        return "rounds", (
            f"{cls.__name__} withdraws or re-seeds routes between rounds; our model has one "
            "stable state per set of seeds"
        )
    odd = sorted(
        (type(as_obj.policy).__name__, as_obj.asn)
        for as_obj in engine.as_graph
        if type(as_obj.policy) not in PLAIN + ROV_CLASSES
    )
    if odd:
        kinds = sorted({k for k, _ in odd})
        where = ", ".join(f"{k} at AS{a}" for k, a in odd)
        return "policy", f"policy {'/'.join(kinds)} is not in our model ({where})"
    for ann in scenario.announcements:
        if ann.recv_relationship != Relationships.ORIGIN:
            rel = ann.recv_relationship.name.lower()
            return "announcement", f"{cls.__name__} seeds a route as received from {rel}"
        if not ann.as_path or ann.as_path[0] != ann.seed_asn:
            return "announcement", (
                f"{cls.__name__}: AS{ann.seed_asn} announces {list(ann.as_path)} without its own ASN "
                "first (neighbour spoofing); our originations start with the originating AS"
            )
    return None


def to_case(name: str, engine, scenario) -> dict:
    """The run as the oracle's case. An accidental route leak (the leaker re-seeds the path it
    held after round 0 as its own) becomes our leak: that path placed at each neighbour of the
    leaker that is not on it."""
    graph = engine.as_graph
    p2c = sorted((as_obj.asn, p.asn) for as_obj in graph for p in as_obj.providers)
    p2p = sorted((as_obj.asn, p.asn) for as_obj in graph for p in as_obj.peers if as_obj.asn < p.asn)
    rov = sorted(as_obj.asn for as_obj in graph if isinstance(as_obj.policy, ROV_CLASSES))
    leakers = scenario.attacker_asns if isinstance(scenario, AccidentalRouteLeak) else frozenset()
    seeds, leaks = [], []
    for ann in scenario.announcements:
        prefix, path, at = str(ann.prefix), list(ann.as_path), ann.seed_asn
        if at in leakers and len(path) > 1:
            nbrs = sorted(n.asn for n in graph.as_dict[at].neighbors)
            for b in nbrs:
                if b not in path:
                    leaks.append({"at": b, "from": at, "prefix": prefix, "path": path})
        else:
            seeds.append({"asn": at, "prefix": prefix, "path": path, "prepend": {"all": 0, "toward": []}})
    return {
        "id": name,
        "asns": sorted(as_obj.asn for as_obj in graph),
        "p2c": [list(x) for x in p2c],
        "p2p": [list(x) for x in p2p],
        "rov": rov,
        "roas": [[str(r.prefix), r.origin, r.max_length] for r in scenario.roas],
        "seeds": seeds,
        "leaks": leaks,
    }


def ribs_of(engine) -> dict:
    out: dict = {}
    for as_obj in engine.as_graph:
        for prefix, ann in as_obj.policy.local_rib.items():
            out.setdefault(str(as_obj.asn), {})[str(prefix)] = list(ann.as_path)
    return out


def plain(cls):
    """A policy class our model has (BGP, ROV and their Full variants stay), else BGP."""
    return cls if cls in PLAIN + ROV_CLASSES else BGP


def plain_variant(conf) -> EngineRunConfig:
    """`conf` with every policy outside the model replaced by BGP: the same graph, scenario,
    victims and attackers. BGPy stores no expectation for it; it is checked live only."""
    sc = conf.scenario_config
    return EngineRunConfig(
        name=f"{conf.name}@bgp",
        desc=conf.desc,
        scenario_config=replace(
            sc,
            BasePolicyCls=plain(sc.BasePolicyCls),
            AdoptPolicyCls=plain(sc.AdoptPolicyCls),
            AttackerBasePolicyCls=None,
            hardcoded_asn_cls_dict=frozendict({a: plain(c) for a, c in sc.hardcoded_asn_cls_dict.items()}),
        ),
        as_graph_info=conf.as_graph_info,
    )


def describe(conf, names: dict, workdir: Path, variant_of: str | None = None) -> dict:
    engine, scenario = run_native(conf, workdir)
    kind, reason = outside(engine, scenario) or (None, None)
    return {
        "name": conf.name,
        "variant_of": variant_of,
        "graph": names.get(id(conf.as_graph_info), "unnamed"),
        "scenario": type(scenario).__name__,
        "in_model": reason is None,
        "reason": reason,
        "kind": kind,
        "case": None if reason else to_case(conf.name, engine, scenario),
        "ribs": None if reason else ribs_of(engine),
    }


def main() -> None:
    """Every configuration, then a plain variant of each one refused for its policies alone
    (a variant that repeats a case already printed keeps only `same_as`, naming the first)."""
    names = graph_names()
    seen: dict = {}

    def emit(line: dict) -> None:
        if line["case"] is not None:
            key = json.dumps({k: v for k, v in line["case"].items() if k != "id"}, sort_keys=True)
            first = seen.setdefault(key, line["name"])
            if line["variant_of"] and first != line["name"]:
                line["same_as"], line["case"], line["ribs"] = first, None, None
        print(json.dumps(line, sort_keys=True), flush=True)

    with tempfile.TemporaryDirectory(prefix="netpress-bgpy-systest-") as tmp:
        refused = []
        for conf in engine_test_configs:
            line = describe(conf, names, Path(tmp))
            emit(line)
            if line["kind"] == "policy":
                refused.append(conf)
        for conf in refused:
            emit(describe(plain_variant(conf), names, Path(tmp), variant_of=conf.name))


if __name__ == "__main__":
    main()
