"""Reads an AWS VPC Flow Logs file (header line first) with flowlogs-reader's FlowRecord and
prints each record as one JSON line, times as Unix seconds. Used by tests/flows/reader.rs."""
import calendar
import json
import sys

from flowlogs_reader import FlowRecord

lines = open(sys.argv[1]).read().splitlines()
fields = tuple(name.replace("-", "_") for name in lines[0].split())
for line in lines[1:]:
    record = FlowRecord.from_cwl_event({"message": line}, fields=fields).to_dict()
    for key in ("start", "end"):
        if key in record:
            record[key] = calendar.timegm(record[key].utctimetuple())
    print(json.dumps(record, sort_keys=True))
