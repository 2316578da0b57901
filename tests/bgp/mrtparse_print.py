"""Prints MRT files as `bgpdump -m` lines, read with mrtparse (tests/bgp/mrtparse.rs).

Each file given on the command line is printed after a line `== PATH`; RIB entries carry their
originated time, as bgpkit-parser also gives them. A record mrtparse cannot read, or one of a
kind NetPress does not write, stops the run with a message naming the file and the record.
"""

import sys

from mrtparse import Reader


def one(d):
    """The one value of mrtparse's `{code: name}` dicts."""
    return next(iter(d.values()))


def attrs(attributes):
    """(AS path, next hop, communities) of a path attribute list."""
    path, hop, comm = "", "", ""
    for a in attributes:
        kind = one(a["type"])
        if kind == "AS_PATH":
            path = " ".join(" ".join(seg["value"]) for seg in a["value"])
        elif kind == "NEXT_HOP":
            hop = a["value"]
        elif kind == "MP_REACH_NLRI":
            hop = a["value"]["next_hop"][0]
        elif kind == "COMMUNITY":
            comm = " ".join(a["value"])
    return path, hop, comm


def route(peer, peer_as, prefix, attributes):
    path, hop, comm = attrs(attributes)
    return f"{peer}|{peer_as}|{prefix}|{path}|IGP|{hop}|0|0|{comm}|NAG||"


def lines(path):
    peers = []
    for entry in Reader(path):
        if entry.err:
            sys.exit(f"{path}: mrtparse cannot read a record: {entry.err_msg}")
        d = entry.data
        kind = one(d["subtype"])
        if kind == "PEER_INDEX_TABLE":
            peers = d["peer_entries"]
        elif kind in ("RIB_IPV4_UNICAST", "RIB_IPV6_UNICAST"):
            prefix = f"{d['prefix']}/{d['length']}"
            for e in d["rib_entries"]:
                p = peers[e["peer_index"]]
                t = next(iter(e["originated_time"]))
                yield f"TABLE_DUMP2|{t}|B|" + route(p["peer_ip"], p["peer_as"], prefix, e["path_attributes"])
        elif kind == "BGP4MP_MESSAGE_AS4":
            t = next(iter(d["timestamp"]))
            m = d["bgp_message"]
            withdrawn = list(m["withdrawn_routes"])
            announced = list(m["nlri"])
            for a in m["path_attributes"]:
                if one(a["type"]) == "MP_REACH_NLRI":
                    announced += a["value"]["nlri"]
                elif one(a["type"]) == "MP_UNREACH_NLRI":
                    withdrawn += a["value"]["withdrawn_routes"]
            for w in withdrawn:
                yield f"BGP4MP|{t}|W|{d['peer_ip']}|{d['peer_as']}|{w['prefix']}/{w['length']}"
            for n in announced:
                prefix = f"{n['prefix']}/{n['length']}"
                yield f"BGP4MP|{t}|A|" + route(d["peer_ip"], d["peer_as"], prefix, m["path_attributes"])
        else:
            sys.exit(f"{path}: a record NetPress does not write: {kind}")


for path in sys.argv[1:]:
    print(f"== {path}")
    for line in lines(path):
        print(line)
