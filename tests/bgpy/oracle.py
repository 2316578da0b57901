"""BGPy oracle for NetPress's BGP routing model (tests/bgp, docs/bgp.md).

Reads one JSON document on stdin, {"cases": [CASE, ...]}, where a CASE is
  {"id": str, "asns": [int], "p2c": [[customer, provider]], "p2p": [[a, b]],
   "rov": [asn], "roas": [[prefix, origin, max_length]],
   "seeds": [{"asn": int, "prefix": str, "path": [int],
              "prepend": {"all": int, "toward": [[neighbour, extra]]}}],
   "leaks": [{"at": int, "from": int, "prefix": str, "path": [int],
              "rel": "customers" | "peers" | "providers"}]}
and writes one JSON line per case: {"id": str, "ribs": {"<asn>": {"<prefix>": [path]}}},
each AS's local RIB after BGPy's propagation (paths start with the AS itself).

Requires bgpy-pkg 13.0.x (PyPI `bgpy-pkg`, not `bgpy`).
"""

import json
import sys
from ipaddress import ip_network

from frozendict import frozendict
from roa_checker import ROA

from bgpy.as_graphs import ASGraph, ASGraphInfo, CustomerProviderLink, PeerLink
from bgpy.shared.enums import Relationships
from bgpy.simulation_engine import BGP, ROV, Announcement, SimulationEngine
from bgpy.simulation_framework import ScenarioConfig, ValidPrefix

RELS = {
    "customers": Relationships.CUSTOMERS,
    "peers": Relationships.PEERS,
    "providers": Relationships.PROVIDERS,
}

# (origin asn, prefix) -> (extra copies toward everyone, {neighbour asn: extra copies})
PREPENDS: dict = {}


class Prepending:
    """Origin prepending, through BGPy's per-session propagation hook."""

    def _policy_propagate(self, neighbor, ann, propagate_to, send_rels):
        rule = PREPENDS.get((self.as_.asn, ann.prefix))
        if rule is None or ann.recv_relationship != Relationships.ORIGIN:
            return False
        extra = rule[1].get(neighbor.asn, rule[0])
        if extra == 0:
            return False
        path = (ann.as_path[0],) * extra + ann.as_path
        self._process_outgoing_ann(neighbor, ann.copy({"as_path": path}), propagate_to, send_rels)
        return True


class PrependingBGP(Prepending, BGP):
    name = "PrependingBGP"


class PrependingROV(Prepending, ROV):
    name = "PrependingROV"


class OriginsKeepTheirPolicy(ValidPrefix):
    """ValidPrefix, except that victims (here: every originating AS) keep the policy the case
    gives them. BGPy makes victims adopt by default, which would turn an ROV-deploying origin
    into a plain BGP speaker for every other prefix it receives."""

    @property
    def _default_adopters(self) -> frozenset:
        return frozenset()


def run_case(case: dict) -> dict:
    """Both address families, one scenario each: BGPy 13.0's scenario compares every pair of
    prefixes for containment, which Python's ipaddress refuses across families."""
    linked = {a for link in case["p2c"] + case["p2p"] for a in link}
    info = ASGraphInfo(
        customer_provider_links=frozenset(
            CustomerProviderLink(customer_asn=c, provider_asn=p) for c, p in case["p2c"]
        ),
        peer_links=frozenset(PeerLink(a, b) for a, b in case["p2p"]),
        unlinked_asns=frozenset(case["asns"]) - linked,
    )
    engine = SimulationEngine(ASGraph(as_graph_info=info, BasePolicyCls=PrependingBGP))
    ribs: dict = {}
    for version in (4, 6):
        def same(prefix: str) -> bool:
            return ip_network(prefix).version == version

        part = dict(case)
        part["seeds"] = [s for s in case["seeds"] if same(s["prefix"])]
        part["leaks"] = [x for x in case["leaks"] if same(x["prefix"])]
        part["roas"] = [r for r in case["roas"] if same(r[0])]
        if part["seeds"] or part["leaks"]:
            run_family(engine, part, ribs)
    return {"id": case["id"], "ribs": ribs}


def run_family(engine: SimulationEngine, case: dict, ribs: dict) -> None:
    """Seeds one family's announcements, propagates, and adds every local RIB to `ribs`."""
    PREPENDS.clear()
    anns = []
    for s in case["seeds"]:
        anns.append(
            Announcement(
                prefix=s["prefix"],
                as_path=tuple(s["path"]),
                next_hop_asn=s["asn"],
                seed_asn=s["asn"],
                recv_relationship=Relationships.ORIGIN,
            )
        )
        pre = s.get("prepend") or {}
        if pre.get("all") or pre.get("toward"):
            PREPENDS[(s["asn"], s["prefix"])] = (pre.get("all", 0), dict(map(tuple, pre.get("toward", []))))
    for leak in case["leaks"]:
        anns.append(
            Announcement(
                prefix=leak["prefix"],
                as_path=(leak["at"], *leak["path"]),
                next_hop_asn=leak["from"],
                seed_asn=leak["at"],
                recv_relationship=RELS[leak["rel"]],
            )
        )
    victims = frozenset(s["asn"] for s in case["seeds"])
    config = ScenarioConfig(
        ScenarioCls=OriginsKeepTheirPolicy,
        BasePolicyCls=PrependingBGP,
        hardcoded_asn_cls_dict=frozendict({a: PrependingROV for a in case["rov"]}),
        num_victims=len(victims),
        override_victim_asns=victims,
        override_attacker_asns=frozenset(),
        override_announcements=tuple(anns),
        override_roas=tuple(ROA(ip_network(p), o, m) for p, o, m in case["roas"]),
    )
    scenario = OriginsKeepTheirPolicy(scenario_config=config, engine=engine)
    scenario.setup_engine(engine)
    engine.run(propagation_round=0, scenario=scenario)
    for as_obj in engine.as_graph:
        for prefix, ann in as_obj.policy.local_rib.items():
            ribs.setdefault(str(as_obj.asn), {})[prefix] = list(ann.as_path)


def main() -> None:
    doc = json.load(sys.stdin)
    for case in doc["cases"]:
        print(json.dumps(run_case(case), sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
