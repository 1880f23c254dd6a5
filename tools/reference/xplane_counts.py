#!/usr/bin/env python3
"""xplane_counts: expected values for the XSpace decoder test, from an
independent decoder.

Runs `protoc --decode=tensorflow.profiler.XSpace` (Debian's
protobuf-compiler, with the repository's proto/xplane.proto) on every
.xplane.pb under a test-data folder, parses protoc's text output (no
protobuf Python package involved) and prints tab-separated lines:

  file   <relpath> <planes> <hostnames> <errors> <warnings>
  plane  <relpath> <plane#> <lines> <events> <event stats> <plane stats>
         <metas> <meta stats> <name>
  depths <relpath> <plane#> <events at depth 0>,<at depth 1>,...
  groups <relpath> <plane#> <events with a group_id> <distinct group ids>
         (only for files that carry group_id stats; an event's own stat
         wins over its metadata's)
  event  <relpath> <plane#> <line#> <start_ps> <dur_ps> <own stats> <name>
         [<stat name>=<i|u|d|s>:<value>]...

Events with num_occurrences are not timeline events and are not counted.
Depths: per line, events sorted by start (longer first on ties, then file
order); an event sits one level below the innermost earlier event that
has not ended by its start (end = start + duration).
<metas> counts event_metadata entries plus one per metadata id that events
use but the plane does not define (the decoder adds an empty one).
Specific events per plane: first, middle and last of the plane's busiest
line, and the plane's event with the most own stats. Stats whose name or
value holds a tab, newline or '=' are left out of event lines.

Usage: tools/reference/xplane_counts.py [TESTDATA_DIR] > tests/data/xplane/expected_counts.tsv
Dev tooling only: nothing in the build or the tests runs it.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ESC = {'n': 10, 't': 9, 'r': 13, '"': 34, "'": 39, '\\': 92, 'a': 7, 'b': 8, 'f': 12, 'v': 11}


def unescape(s):
    """protoc text-format string literal body -> bytes."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
            continue
        n = s[i + 1]
        if n in ESC:
            out.append(ESC[n])
            i += 2
        elif n == 'x':
            m = re.match(r'[0-9a-fA-F]{1,2}', s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        elif n in '01234567':
            m = re.match(r'[0-7]{1,3}', s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
        else:
            out.append(ord(n))
            i += 2
    return bytes(out)


def parse(text):
    """Text format -> nested dicts {field: [values]} (messages are dicts)."""
    root = {}
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == '}':
            stack.pop()
            continue
        if line.endswith('{'):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
            continue
        key, _, val = line.partition(': ')
        if val.startswith('"'):
            val = unescape(val[1:-1])
        stack[-1].setdefault(key, []).append(val)
    return root


def one(msg, key, default=None):
    v = msg.get(key)
    return v[0] if v else default


def stat_value(stat, stat_names):
    for key, kind in (('int64_value', 'i'), ('uint64_value', 'u'), ('double_value', 'd')):
        if key in stat:
            return kind, stat[key][0]
    if 'str_value' in stat:
        return 's', stat['str_value'][0]
    if 'ref_value' in stat:
        return 's', stat_names.get(int(stat['ref_value'][0]), b'')
    if 'bytes_value' in stat:
        return None, None
    return 'i', '0'


def clean(b):
    s = b.decode('utf-8', 'replace') if isinstance(b, bytes) else b
    return None if any(c in s for c in '\t\n=') else s


def event_line(rel, p, li, line, ev, metas, stat_names):
    ts_ps = int(one(line, 'timestamp_ns', '0')) * 1000
    start = ts_ps + int(one(ev, 'offset_ps', '0'))
    dur = int(one(ev, 'duration_ps', '0'))
    mid = int(one(ev, 'metadata_id', '0'))
    name = metas.get(mid, b'')
    stats = ev.get('stats', [])
    cols = ['event', rel, str(p), str(li), str(start), str(dur), str(len(stats)),
            name.decode('utf-8', 'replace')]
    for st in stats:
        sname = clean(stat_names.get(int(one(st, 'metadata_id', '0')), b''))
        kind, val = stat_value(st, stat_names)
        if kind is None or sname is None or sname == '':
            continue
        val = clean(val)
        if val is None:
            continue
        cols.append('%s=%s:%s' % (sname, kind, val))
    return '\t'.join(cols)


def depth_histogram(lines):
    hist = []
    for line in lines:
        ts_ps = int(one(line, 'timestamp_ns', '0')) * 1000
        evs = []
        for i, ev in enumerate(line.get('events', [])):
            if 'num_occurrences' in ev:
                continue
            start = ts_ps + int(one(ev, 'offset_ps', '0'))
            dur = int(one(ev, 'duration_ps', '0'))
            evs.append((start, -dur, i, start + max(dur, 0)))
        evs.sort()
        open_ends = []
        for start, _, _, end in evs:
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            depth = len(open_ends)
            while len(hist) <= depth:
                hist.append(0)
            hist[depth] += 1
            open_ends.append(end)
    return hist


def count_file(path, rel, proto_dir):
    with open(path, 'rb') as f:
        text = subprocess.run(['protoc', '--decode=tensorflow.profiler.XSpace',
                               '--proto_path=' + proto_dir,
                               os.path.join(proto_dir, 'xplane.proto')],
                              stdin=f, check=True, capture_output=True).stdout.decode('latin-1')
    # latin-1 keeps protoc's bytes; string bodies are re-encoded by unescape
    space = parse(text.encode('latin-1').decode('utf-8', 'replace'))
    planes = space.get('planes', [])
    out = ['\t'.join(['file', rel, str(len(planes)), str(len(space.get('hostnames', []))),
                      str(len(space.get('errors', []))), str(len(space.get('warnings', [])))])]
    has_groups_file = [False]
    group_lines = []
    for p, plane in enumerate(planes):
        stat_names = {}
        for e in plane.get('stat_metadata', []):
            v = one(e, 'value', {})
            stat_names[int(one(e, 'key', '0'))] = one(v, 'name', b'')
        metas = {}
        meta_stats = 0
        for e in plane.get('event_metadata', []):
            v = one(e, 'value', {})
            metas[int(one(e, 'key', '0'))] = one(v, 'name', b'')
            meta_stats += len(v.get('stats', []))
        lines = plane.get('lines', [])
        n_events = n_stats = 0
        missing = set()
        best = None  # (stats, plane line, event)
        busiest = None
        for li, line in enumerate(lines):
            evs = [e for e in line.get('events', []) if 'num_occurrences' not in e]
            n_events += len(evs)
            for ev in evs:
                n_stats += len(ev.get('stats', []))
                mid = int(one(ev, 'metadata_id', '0'))
                if mid not in metas:
                    missing.add(mid)
                if best is None or len(ev.get('stats', [])) > best[0]:
                    best = (len(ev.get('stats', [])), li, ev)
            if evs and (busiest is None or len(evs) > len(busiest[1])):
                busiest = (li, evs)
        name = one(plane, 'name', b'').decode('utf-8', 'replace')
        out.append('\t'.join(['plane', rel, str(p), str(len(lines)), str(n_events), str(n_stats),
                              str(len(plane.get('stats', []))), str(len(metas) + len(missing)),
                              str(meta_stats), name]))
        group_stat = [k for k, v in stat_names.items() if v == b'group_id']
        if group_stat:
            has_groups_file[0] = True
        meta_group = {}
        for e in plane.get('event_metadata', []):
            v = one(e, 'value', {})
            for st in v.get('stats', []):
                if int(one(st, 'metadata_id', '0')) in group_stat:
                    kind, val = stat_value(st, stat_names)
                    if kind in ('i', 'u'):
                        meta_group[int(one(e, 'key', '0'))] = int(val)
        n_grouped = 0
        gids = set()
        for line in lines:
            for ev in line.get('events', []):
                if 'num_occurrences' in ev:
                    continue
                g = meta_group.get(int(one(ev, 'metadata_id', '0')))
                for st in ev.get('stats', []):
                    if int(one(st, 'metadata_id', '0')) in group_stat:
                        kind, val = stat_value(st, stat_names)
                        if kind in ('i', 'u'):
                            g = int(val)
                if g is not None and 0 <= g <= 2**31 - 1:
                    n_grouped += 1
                    gids.add(g)
        group_lines.append('\t'.join(['groups', rel, str(p), str(n_grouped), str(len(gids))]))
        hist = depth_histogram(lines)
        if hist:
            out.append('\t'.join(['depths', rel, str(p), ','.join(str(h) for h in hist)]))
        if busiest is None:
            continue
        li, evs = busiest
        for ev in (evs[0], evs[len(evs) // 2], evs[-1]):
            out.append(event_line(rel, p, li, lines[li], ev, metas, stat_names))
        out.append(event_line(rel, p, best[1], lines[best[1]], best[2], metas, stat_names))
    if has_groups_file[0]:
        out.extend(group_lines)
    return out


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, '..', 'shared', 'testdata')
    data = os.path.abspath(data)
    proto_dir = os.path.join(ROOT, 'proto')
    print('# generated by tools/reference/xplane_counts.py from protoc --decode; do not edit')
    for dirpath, dirnames, filenames in sorted(os.walk(data)):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith('.xplane.pb'):
                path = os.path.join(dirpath, fn)
                for line in count_file(path, os.path.relpath(path, data), proto_dir):
                    print(line)


if __name__ == '__main__':
    main()
