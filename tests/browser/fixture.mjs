// fixture.mjs: builds the small logdir the browser test serves, in a fresh
// temporary folder, from the hand-written content below. Built at run time
// rather than committed because its names carry spaces and unicode (to
// test URL encoding end to end), which a source tarball handles badly.
//
//   logdir/plugins/profile/run_a/host1.op_profile.json        run "run_a"
//   logdir/plugins/profile/run_a/host1.memory_viewer.json
//   logdir/plugins/profile/run_a/host2.op_profile.json
//   logdir/train/plugins/profile/run b ü/worker 1.xplane.pb   run "train/run b ü"
//
// run_a uses legacy JSON files, which the server passes through as they
// are, of tools that have no view of their own (so the generic view shows
// their tables); the test checks that they still have none.
//
// The .xplane.pb is 16 bytes of 0xff: not a protobuf (an all-ones varint
// never ends inside 10 bytes), so loading it must fail with an error that
// the page shows in words.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// What the test expects to see; the runs in the order /runs lists them
// (reverse lexicographic: 't' > 'r').
export const RUN_A = 'run_a';
export const RUN_BAD = 'train/run b ü';
export const HOST_BAD = 'worker 1';
export const RUNS = [RUN_BAD, RUN_A];
// Every [run, host] the server lists once it has read the logdir.
export const LISTED = [[RUN_A, 'host1'], [RUN_A, 'host2'], [RUN_BAD, HOST_BAD]];

// A DataTable (FORMATS.md §4.0) whose cells the test can find on the page.
function table(rows) {
    return {
        cols: [
            { id: 'metric', label: 'Metric', type: 'string' },
            { id: 'value', label: 'Value (ms)', type: 'number' },
        ],
        rows: rows.map(([m, v]) => ({ c: [{ v: m }, { v }] })),
        p: { fixture: 'profview browser test' },
    };
}

export const TOOL_A = 'op_profile';      // host1 and host2 have it
export const TOOL_B = 'memory_viewer';   // only host1 has it
export const TOOL_MISSING = 'pod_viewer';  // no host has it
export const HOST1_A = [['step time host1', 12.5], ['idle host1', 0.25]];
export const HOST2_A = [['step time host2', 40], ['idle host2', 3]];
export const HOST1_B = [['input wait host1', 7]];

// Files older than the server's settle window (2 s) are offered on its
// first scan; brand-new ones would wait for the next rescan.
const OLD_MTIME_S = Date.now() / 1000 - 3600;

function write(file, content) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    fs.utimesSync(file, OLD_MTIME_S, OLD_MTIME_S);
}

// Adds run <name> with one host file <host>.op_profile.json while the
// server runs (the test of runs appearing without a reload).
export function addRun(logdir, name, host, rows) {
    write(path.join(logdir, 'plugins', 'profile', name, `${host}.op_profile.json`),
          JSON.stringify([table(rows)]));
}

// Creates the logdir and an empty cache dir under a new temporary folder.
// Returns {root, logdir, cacheDir, remove()}.
export function makeFixture() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'profview-browser-'));
    const logdir = path.join(root, 'logdir');
    const runA = path.join(logdir, 'plugins', 'profile', RUN_A);
    write(path.join(runA, 'host1.op_profile.json'), JSON.stringify([table(HOST1_A)]));
    write(path.join(runA, 'host2.op_profile.json'), JSON.stringify([table(HOST2_A)]));
    write(path.join(runA, 'host1.memory_viewer.json'), JSON.stringify([table(HOST1_B)]));
    const bad = path.join(logdir, 'train', 'plugins', 'profile', 'run b ü', `${HOST_BAD}.xplane.pb`);
    write(bad, Buffer.alloc(16, 0xff));
    const cacheDir = path.join(root, 'cache');
    fs.mkdirSync(cacheDir);
    return { root, logdir, cacheDir, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
