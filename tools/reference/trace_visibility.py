#!/usr/bin/env python3
"""Counts the events XProf's trace_viewer@ keeps for a window at a
resolution, from a full Chrome trace JSON (a trace_viewer@ answer with
resolution=0). An independent reading of XProf's rule (TraceViewerVisibility
and the zoom levels of its LevelDB store, xprof/convert/trace_viewer/), in
Python, for checking profview's server/tools/trace_visibility.c: the
expected counts in tests/api/test_trace_api.c come from this script.

Usage: trace_visibility.py FULL.json RESOLUTION [START_MS END_MS]
Prints the number of kept complete/instant events (and counter samples).
Plain Python 3, no dependencies.
"""
import json
import sys

LEVELS = [10 ** (12 - i) for i in range(13)]  # 1 s .. 1 ps


class Visibility:
    """One TraceViewerVisibility: per-row depth stacks, flow map, counters."""

    def __init__(self, res):
        self.res = res
        self.stacks = {}
        self.last_flow = {}
        self.flows = {}
        self.counters = {}

    def _depth(self, stack, begin):
        d = 0
        while d < len(stack) and stack[d] > begin:
            d += 1
        return d

    def test(self, ev):
        """VisibleAtResolution: decides and records."""
        if ev["counter"]:
            key = ev["row"]
            last = self.counters.get(key)
            vis = last is None or ev["ts"] - last >= self.res
            if vis:
                self.counters[key] = ev["ts"]
            return vis
        stack = self.stacks.setdefault(ev["row"], [])
        begin, end = ev["ts"], ev["ts"] + ev["dur"]
        vis = ev["dur"] >= self.res
        d = self._depth(stack, begin)
        if not vis:
            vis = d >= len(stack) or begin - stack[d] >= self.res
        if ev["flow"] is not None:
            fid, direction = ev["flow"]
            if fid not in self.flows:
                if vis:
                    self.flows[fid] = True
                else:
                    last = self.last_flow.get(ev["row"])
                    self.flows[fid] = last is None or end - last >= self.res
            if not vis:
                vis = self.flows[fid]
            if direction == 1:
                del self.flows[fid]
            if vis:
                self.last_flow[ev["row"]] = end
        if vis:
            del stack[d:]
            stack.append(end)
        return vis

    def mark(self, ev):
        """SetVisibleAtResolution: records without deciding."""
        if ev["counter"]:
            self.counters[ev["row"]] = ev["ts"]
            return
        stack = self.stacks.setdefault(ev["row"], [])
        end = ev["ts"] + ev["dur"]
        if ev["flow"] is not None:
            fid, direction = ev["flow"]
            if direction == 1:
                self.flows.pop(fid, None)
            else:
                self.flows.setdefault(fid, True)
            self.last_flow[ev["row"]] = end
        d = self._depth(stack, ev["ts"])
        del stack[d:]
        stack.append(end)


def ps(us):
    """Microseconds as written (exact decimal) to integer picoseconds."""
    s = repr(us) if isinstance(us, float) else str(us)
    if "e" in s or "E" in s:
        return round(us * 1e6)
    whole, _, frac = s.partition(".")
    frac = (frac + "000000")[:6]
    sign = -1 if whole.startswith("-") else 1
    return int(whole) * 1000000 + sign * int(frac)


def load(path):
    with open(path) as f:
        data = json.load(f)
    events = []
    for e in data["traceEvents"]:
        ph = e.get("ph")
        if ph in ("X", "i"):
            flow = (e.get("args") or {}).get("flow")
            if flow is not None:
                flow = ((int(flow) >> 2) & ((1 << 56) - 1), int(flow) & 3)
            events.append({"ts": ps(e["ts"]), "dur": ps(e.get("dur", 0)),
                           "row": (e["pid"], 0, e["tid"]), "counter": False,
                           "name": e["name"], "flow": flow})
        elif ph == "C":
            for entry in e.get("entries", []):
                events.append({"ts": ps(entry[0]), "dur": 0,
                               "row": (e["pid"], 1, e["name"]),
                               "counter": True, "name": e["name"],
                               "flow": None})
    events.sort(key=lambda v: (v["ts"], -v["dur"], v["row"][0], v["row"][1],
                               v["row"][2] if not v["counter"] else 0,
                               v["name"]))
    return events


def levels_of(events):
    """Each event's zoom level over the whole trace."""
    n = len(LEVELS) - 1
    flow_vis = [dict() for _ in range(n)]
    st = [Visibility(LEVELS[z]) for z in range(n)]
    for ev in events:
        if ev["flow"] is None or ev["counter"]:
            continue
        fid = ev["flow"][0]
        z = 0
        while z < n:
            vis = st[z].test(ev)
            flow_vis[z].setdefault(fid, vis)
            if vis:
                break
            z += 1
        for k in range(z + 1, n):
            st[k].mark(ev)
            flow_vis[k].setdefault(fid, True)
    st = [Visibility(LEVELS[z]) for z in range(n)]
    levels = []
    for ev in events:
        z = 0
        if ev["flow"] is not None and not ev["counter"]:
            fid = ev["flow"][0]
            while z < n and not flow_vis[z].get(fid, False) \
                    and ev["dur"] < LEVELS[z]:
                z += 1
            if z < n:
                st[z].mark(ev)
        else:
            while z < n and not st[z].test(ev):
                z += 1
        levels.append(z)
        for k in range(z + 1, n):
            st[k].mark(ev)
    return levels


def main():
    path, resolution = sys.argv[1], int(sys.argv[2])
    events = load(path)
    t0 = min(v["ts"] for v in events)
    t1 = max(v["ts"] + v["dur"] for v in events)
    begin, end = t0, t1
    if len(sys.argv) > 4:
        b, e = int(float(sys.argv[3]) * 1e9), int(float(sys.argv[4]) * 1e9)
        begin, end = max(b, t0) if b else t0, min(e, t1) if e else t1
    res = round((end - begin) / resolution) if resolution and end > begin else 0

    def overlaps(v):
        return end <= begin or (v["ts"] <= end and v["ts"] + v["dur"] >= begin)

    if res == 0:
        kept = [v for v in events if overlaps(v)]
    else:
        read_to = next(i for i, r in enumerate(LEVELS) if res >= r)
        levels = levels_of(events)
        filt = Visibility(res)
        kept = [v for v, lv in zip(events, levels)
                if lv <= read_to and overlaps(v) and filt.test(v)]
    print(sum(1 for v in kept if not v["counter"]),
          sum(1 for v in kept if v["counter"]))


if __name__ == "__main__":
    main()
