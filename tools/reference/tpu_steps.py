#!/usr/bin/env python3
"""tpu_steps: expected TPU steps for profview's step test, from XProf's own
trace_viewer answer (plain Python 3, no venv).

XProf 2.24.2 shows "No step time measured" for the TPU profile, but its
trace_viewer answer carries the step group it gave every TPU op
(args.group_id on the "XLA Ops" lines of the /device:TPU:N processes).
profview deliberately shows steps there: a group's step on one core spans
its first op's start to its last op's end, and the group's step time is
the longest of those spans over the cores (steps.c, FORMATS.md §4.4).
This script computes those spans from XProf's group ids, in integer
picoseconds (the trace prints microseconds with six decimals), and prints
one line per group, in group order:

  <group_id> <TAB> <cores> <TAB> <step time in ps>

Usage:
  tools/reference/tpu_steps.py \\
      tests/data/reference/shared_golden/logdirs/jax_tpu_v6e_inference/plugins/profile/tpu_inference/tpu_inference_2.trace_viewer.json.gz \\
      > tests/data/steps/tpu_inference_2.steps.tsv
Dev tooling only: the test reads the committed file.
"""
import gzip
import json
import sys


def main(path):
    with gzip.open(path, 'rt') as f:
        events = json.load(f)['traceEvents']
    process, thread = {}, {}
    for e in events:
        if e.get('ph') != 'M':
            continue
        if e.get('name') == 'process_name':
            process[e['pid']] = e['args']['name']
        elif e.get('name') == 'thread_name':
            thread[(e['pid'], e['tid'])] = e['args']['name']
    spans = {}   # group -> core -> [begin_ps, end_ps]
    for e in events:
        if e.get('ph') == 'M' or 'pid' not in e:
            continue
        core = process.get(e['pid'], '')
        if not core.startswith('/device:TPU:'):
            continue
        if thread.get((e['pid'], e.get('tid'))) != 'XLA Ops':
            continue
        group = e.get('args', {}).get('group_id')
        if group is None:
            continue
        begin = round(e['ts'] * 1e6)
        end = begin + round(e.get('dur', 0) * 1e6)
        s = spans.setdefault(int(group), {}).setdefault(core, [begin, end])
        s[0] = min(s[0], begin)
        s[1] = max(s[1], end)
    print('# group_id\tcores\tstep_ps (from %s)' % path.split('/')[-1])
    for group in sorted(spans):
        cores = spans[group]
        print('%d\t%d\t%d' % (group, len(cores), max(e - b for b, e in cores.values())))


if __name__ == '__main__':
    main(sys.argv[1])
