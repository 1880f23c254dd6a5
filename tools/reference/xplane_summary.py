#!/usr/bin/env python3
"""Prints what an .xplane.pb holds: planes, lines, event counts, and how many
events carry a given name (e.g. MemoryAllocation). Dev tooling: needs the
TensorFlow venv (it reads the XSpace proto with TF's generated module).

Usage: xplane_summary.py FILE.xplane.pb [--events NAME ...]
"""
import argparse
import collections

from tensorflow.tsl.profiler.protobuf import xplane_pb2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xplane")
    ap.add_argument("--events", nargs="*", default=[],
                    help="event names to count over all planes")
    ap.add_argument("--top", type=int, default=0,
                    help="also print the N most frequent event names per plane")
    args = ap.parse_args()

    space = xplane_pb2.XSpace()
    with open(args.xplane, "rb") as f:
        space.ParseFromString(f.read())
    print(f"hostnames: {list(space.hostnames)}")
    wanted = collections.Counter()
    for plane in space.planes:
        n_events = sum(len(line.events) for line in plane.lines)
        print(f"plane {plane.id} {plane.name!r}: {len(plane.lines)} lines, "
              f"{n_events} events, {len(plane.event_metadata)} event metadata,"
              f" {len(plane.stat_metadata)} stat metadata")
        names = collections.Counter()
        for line in plane.lines:
            print(f"  line {line.id} {line.name!r} ({line.display_name!r}): "
                  f"{len(line.events)} events")
            for ev in line.events:
                name = plane.event_metadata[ev.metadata_id].name
                names[name] += 1
                if name in args.events:
                    wanted[name] += 1
        for name, count in names.most_common(args.top):
            print(f"    {count:>7} {name}")
    for name in args.events:
        print(f"events named {name!r}: {wanted[name]}")


if __name__ == "__main__":
    main()
