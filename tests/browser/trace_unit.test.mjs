// trace_unit.test.mjs: the pure modules of the trace viewer (web/timeline/,
// web/draw/colors.js, the label fitting of web/draw/slices.js) under plain
// node, no browser. Every expected value is worked out by hand in the
// comment next to it (or, for the colour hash, by the published FNV-1a
// test vector and an independent Python one-liner).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { colorIndex, PALETTE } from '../../web/draw/colors.js';
import { fitName } from '../../web/draw/gutter.js';
import { fitLabel } from '../../web/draw/slices.js';
import { hitTest, findDrawn } from '../../web/timeline/hit.js';
import { computeLayout, depthAt, displayOrder, rowAt,
         toggle } from '../../web/timeline/layout.js';
import { TraceSearch } from '../../web/timeline/search.js';
import { computeTicks, niceStepPs } from '../../web/timeline/ticks.js';
import { TileCache } from '../../web/timeline/tile_cache.js';
import { decodeTile, decodeTileBin, findEvent } from '../../web/timeline/tile_data.js';
import { formatKeys, formatParams, formatTimes, parseKeys, parseSelection, parseSpan,
         parseTimes, parseWindow, urlWriter } from '../../web/timeline/url_state.js';
import { aggregateTable, detailTabs } from '../../web/timeline/details.js';
import { trackList } from '../../web/timeline/tracks_panel.js';
import * as V from '../../web/timeline/viewport.js';

describe('viewport', () => {
    test('clampWindow keeps the window inside the trace', () => {
        // [-10, 90] in a 1e6 ps trace: width 100 is below the 1000 ps
        // minimum, so it becomes [0, 1000].
        assert.deepEqual(V.clampWindow(-10, 90, 1e6, 100),
                         { startPs: 0, endPs: 1000, widthPx: 100 });
        // Past the end: shifted back to end at the span.
        assert.deepEqual(V.clampWindow(999500, 1002500, 1e6, 100),
                         { startPs: 997000, endPs: 1e6, widthPx: 100 });
        // Wider than the trace: the whole trace.
        assert.deepEqual(V.clampWindow(-5, 5e6, 1e6, 10), { startPs: 0, endPs: 1e6, widthPx: 10 });
    });

    test('zoomAt keeps the time under the pointer in place', () => {
        // [0, 1e6] over 100 px; pixel 25 is t = 250000. Zooming 2x makes the
        // window 500000 wide with t at a quarter of it: [125000, 625000].
        const v = V.zoomAt({ startPs: 0, endPs: 1e6, widthPx: 100 }, 2, 25, 1e6);
        assert.deepEqual(v, { startPs: 125000, endPs: 625000, widthPx: 100 });
        assert.equal(V.timeToPx(v, 250000), 25);
        assert.equal(V.pxToTime(v, 25), 250000);
    });

    test('panByPx moves by pixels of the current zoom', () => {
        // 1e4 ps per pixel; 10 px is 1e5 ps.
        const v = V.panByPx({ startPs: 0, endPs: 1e6, widthPx: 100 }, 10, 2e6);
        assert.deepEqual(v, { startPs: 1e5, endPs: 1.1e6, widthPx: 100 });
        // Cannot pan before 0.
        assert.equal(V.panByPx(v, -1000, 2e6).startPs, 0);
    });

    test('revealRange centres an event and zooms only when it must', () => {
        const v = { startPs: 0, endPs: 1e6, widthPx: 1000 };  // 1000 ps per pixel
        // 100000 ps fits: same width, centred on 550000.
        assert.deepEqual(V.revealRange(v, 500000, 100000, 1e7),
                         { startPs: 50000, endPs: 1050000, widthPx: 1000 });
        // An event of 100 ps in a 1e9 ps window (1e6 ps per pixel) is
        // invisible: the window becomes REVEAL_MIN_WINDOW_PS (1e7) wide,
        // centred on 5e8 + 50.
        const w = { startPs: 0, endPs: 1e9, widthPx: 1000 };
        assert.deepEqual(V.revealRange(w, 5e8, 100, 1e10),
                         { startPs: 495000050, endPs: 505000050, widthPx: 1000 });
        // An event longer than 80% of the window: window = 2 x 9e8 = 1.8e9,
        // centred on 5e8 + 4.5e8.
        assert.deepEqual(V.revealRange(w, 5e8, 9e8, 1e10),
                         { startPs: 5e7, endPs: 1.85e9, widthPx: 1000 });
    });

    test('tileLevel picks tiles no wider than tile_px screen pixels', () => {
        // Whole 1e6 ps trace over 1000 px: one 1024-px tile covers it: level 0.
        assert.equal(V.tileLevel({ startPs: 0, endPs: 1e6, widthPx: 1000 }, 1e6, 1024, 20), 0);
        // 1e4 ps over 1000 px = 10 ps/px. Level 7 tiles are 1e6/128 =
        // 7812.5 ps = 781 px (<= 1024); level 6 would be 1562 px.
        assert.equal(V.tileLevel({ startPs: 0, endPs: 1e4, widthPx: 1000 }, 1e6, 1024, 20), 7);
        assert.equal(V.tileLevel({ startPs: 0, endPs: 1e4, widthPx: 1000 }, 1e6, 1024, 5), 5);
    });

    test('tileRange and tileBounds', () => {
        // Level 7 of 1e6: tiles are 7812.5 wide. [3w + 1, 5w) touches 3 and 4.
        const w = 7812.5;
        assert.deepEqual(V.tileRange(3 * w + 1, 5 * w, 1e6, 7), { first: 3, last: 4 });
        assert.deepEqual(V.tileRange(0, 1e6, 1e6, 0), { first: 0, last: 0 });
        assert.deepEqual(V.tileBounds(1e6, 2, 3), { startPs: 750000, endPs: 1e6 });
    });
});

describe('ticks', () => {
    test('niceStepPs rounds up to 1, 2 or 5 times a power of ten', () => {
        assert.equal(niceStepPs(1e6, 90), 1e8);    // 9e7 -> 1e8
        assert.equal(niceStepPs(1000, 90), 1e5);   // 9e4 -> 1e5
        assert.equal(niceStepPs(1000, 150), 2e5);  // 1.5e5 -> 2e5
        assert.equal(niceStepPs(4000, 90), 5e5);   // 3.6e5 -> 5e5
    });

    test('computeTicks labels a 1 ms window in ms with one decimal', () => {
        // 1e6 ps/px, step 1e8 ps (0.1 ms); the largest time is 1e9 ps, so ms.
        const t = computeTicks(0, 1e9, 1000, 90);
        assert.equal(t.stepPs, 1e8);
        assert.equal(t.unit, 'ms');
        assert.equal(t.ticks.length, 11);
        assert.deepEqual(t.ticks.slice(0, 3).map((k) => k.label), ['0.0 ms', '0.1 ms', '0.2 ms']);
        assert.equal(t.ticks[10].label, '1.0 ms');
    });

    test('computeTicks deep in a long trace keeps enough decimals', () => {
        // 4e6 ps over 1000 px: step 5e5 ps; unit s; decimals = ceil(log10(1e12 /
        // 5e5)) = 7. The first mark is 1.234566e12 = 2469132 * 5e5.
        const t = computeTicks(1.234566e12, 1.23457e12, 1000, 90);
        assert.equal(t.stepPs, 5e5);
        assert.equal(t.ticks[0].label, '1.2345660 s');
        assert.equal(t.ticks[1].label, '1.2345665 s');
    });
});

describe('layout', () => {
    const meta = {
        processes: [{ pid: 1, name: '/host:CPU', threads: [
            { tid: 10, track: 0, name: 'python3', n_events: 5, depths: 3 },
            { tid: 11, track: 1, name: 'worker', n_events: 1, depths: 1 }] }],
        counters: [{ id: 0, pid: 1, name: 'Memory in use (bytes)', min: 0, max: 10 }],
    };

    test('rows stack process header, threads by depth, counters', () => {
        // Heights: header 24; python3 3*18+3 = 57; worker 18+3 = 21; counter 40.
        const l = computeLayout(meta);
        assert.deepEqual(l.rows.map((r) => [r.kind, r.y, r.h]),
                         [['process', 0, 24], ['thread', 24, 57], ['thread', 81, 21],
                          ['counter', 102, 40]]);
        assert.equal(l.height, 142);
        assert.equal(l.byTrack.get(1).y, 81);
        assert.equal(l.byCounter.get(0).y, 102);
        assert.equal(l.rows[0].sub, '2 threads, 6 events');
        assert.deepEqual(l.rows[0].tracks, [0, 1]);   // for the collapsed summary
        assert.equal(l.rows[3].sub, 'max 10 B');
    });

    test('devices are shown before the host, each group in the server\'s order', () => {
        const ps = ['/host:CPU', '/device:GPU:0', 'Task Environment', '/device:GPU:1']
            .map((name, pid) => ({ pid, name }));
        assert.deepEqual(displayOrder(ps).map((p) => p.name),
                         ['/device:GPU:0', '/device:GPU:1', '/host:CPU', 'Task Environment']);
    });

    test('hidden, pinned and filtered rows', () => {
        const two = {
            processes: [
                { pid: 1, name: '/host:CPU', threads: [
                    { tid: 10, track: 0, name: 'python3', n_events: 5, depths: 3 },
                    { tid: 11, track: 1, name: 'worker', n_events: 1, depths: 1 }] },
                { pid: 2, name: '/device:GPU:0', threads: [
                    { tid: 5, track: 2, name: 'Stream #5', n_events: 2, depths: 1 },
                    { tid: 6, track: 3, name: 'Stream #6', n_events: 2, depths: 1 }] }],
            counters: [{ id: 0, pid: 1, name: 'Memory in use (bytes)', min: 0, max: 10 }],
        };
        const keys = (l) => l.rows.map((r) => r.key);
        // devices first; a pinned thread first in its process, a pinned
        // process first of all
        assert.deepEqual(keys(computeLayout(two, new Set(), { pinned: new Set(['t:3', 'p:1']) })),
                         ['p:1', 't:0', 't:1', 'c:0', 'p:2', 't:3', 't:2']);
        const hid = computeLayout(two, new Set(), { hidden: new Set(['t:0', 'p:2']) });
        assert.deepEqual(keys(hid), ['p:1', 't:1', 'c:0']);
        assert.equal(hid.nHidden, 2);
        // 'stream' matches no process name: only the streams stay, under
        // their header; the host's three rows are left out, and so is it
        const f = computeLayout(two, new Set(), { filter: 'STREAM' });
        assert.deepEqual(keys(f), ['p:2', 't:2', 't:3']);
        assert.equal(f.nFiltered, 3);
        // a process whose name matches keeps all its rows
        assert.deepEqual(keys(computeLayout(two, new Set(), { filter: 'gpu' })),
                         ['p:2', 't:2', 't:3']);
    });

    test('collapsing a process hides its rows; a thread keeps its top level', () => {
        assert.equal(computeLayout(meta, new Set(['p:1'])).height, 24);
        const l = computeLayout(meta, toggle(new Set(), 't:0'));
        assert.equal(l.byTrack.get(0).h, 21);
        assert.equal(l.byTrack.get(0).shownDepths, 1);
        assert.deepEqual(toggle(new Set(['t:0']), 't:0'), new Set());
    });

    test('rowAt and depthAt', () => {
        const l = computeLayout(meta);
        assert.equal(rowAt(l, 30).track, 0);
        assert.equal(rowAt(l, 81).track, 1);
        assert.equal(rowAt(l, 141).kind, 'counter');
        assert.equal(rowAt(l, 142), null);
        const py = l.byTrack.get(0);
        assert.equal(depthAt(py, 24 + 2 * 18 + 1), 2);
        assert.equal(depthAt(py, 24 + 3 * 18 + 1), -1);  // the 3-px gap
    });
});

const TILE_JSON = {
    level: 1, index: 0, start_ps: 0, end_ps: 500,
    tracks: [{ track: 5,
               events: [[1, 100, 50, 0, 0], [2, 300, 10, 0, 1], [3, 105, 20, 1, 1]],
               boxes: [[200, 250, 0, 4, 20]] }],
    names: ['MatMul', 'Conv2D'],
    counters: [{ id: 0, points: [[0, 1], [250, 3]] }],
};

// TILE_JSON in the binary encoding (docs/trace_api.md, "Binary tiles"),
// worked out by hand: varints, zigzag deltas, little-endian doubles.
const TILE_BIN = Uint8Array.from([
    0x50, 0x56, 0x54, 0x31,         // "PVT1"
    0x01, 0x00, 0x00,               // level 1, index 0, start 0
    0xf4, 0x03,                     // end - start 500 = 3*128 + 116
    0x01,                           // time unit 1 ps (105 and 5 are not multiples of 10)
    0x01, 0x05, 0x03, 0x01,         // 1 track: track 5, 3 events, 1 box
    0x02, 0x02, 0x02,               // ids 1, 2, 3: deltas +1 -> zz 2
    0xc8, 0x01,                     // start 100 -> zz 200 = 128 + 72
    0x90, 0x03,                     // 300 - 100 -> zz 400 = 3*128 + 16
    0x85, 0x03,                     // 105 - 300 = -195 -> zz 389 = 3*128 + 5
    0x32, 0x0a, 0x14,               // durations 50, 10, 20
    0x00, 0x00, 0x01,               // depths
    0x00, 0x01, 0x01,               // name indices
    0x90, 0x03, 0x32, 0x00, 0x04, 0x14,   // box: start 200, end - start 50, depth 0, 4, busy 20
    0x02, 0x0d,                     // 2 names in 13 bytes
    0x4d, 0x61, 0x74, 0x4d, 0x75, 0x6c, 0x00, 0x43, 0x6f, 0x6e, 0x76, 0x32, 0x44,
    0x01, 0x00, 0x02,               // 1 counter: id 0, 2 points
    0x00, 0xf4, 0x03,               // t 0, then +250 -> zz 500
    0, 0, 0, 0, 0, 0, 0xf0, 0x3f,   // 1.0
    0, 0, 0, 0, 0, 0, 0x08, 0x40,   // 3.0
]);

describe('tile_data', () => {
    test('decodeTileBin reads the same tile as decodeTile', () => {
        const want = decodeTile(TILE_JSON);
        const t = decodeTileBin(TILE_BIN.buffer);
        assert.deepEqual(t, want);
        assert.deepEqual([...t.tracks.get(5).ev.start], [100, 300, 105]);
        assert.deepEqual([...t.tracks.get(5).box.end], [250]);
        assert.deepEqual(t.names, ['MatMul', 'Conv2D']);
    });

    test('decodeTileBin scales times by the tile\'s unit', () => {
        // Tile [0, 10000) in units of 1000 ps: event 7 at 3000 for 2000 ps.
        const t = decodeTileBin(Uint8Array.from([
            0x50, 0x56, 0x54, 0x31, 0, 0, 0,
            0x90, 0x4e,                 // span 10000 = 78*128 + 16
            0xe8, 0x07,                 // unit 1000 = 7*128 + 104
            0x01, 0x00, 0x01, 0x00,     // track 0: 1 event, no box
            0x0e, 0x06, 0x02, 0x00, 0x00,   // id 7 (zz 14), start 3 (zz 6), dur 2, depth, name
            0x01, 0x01, 0x61,           // one name, "a"
            0x00,                       // no counters
        ]));
        const ev = t.tracks.get(0).ev;
        assert.deepEqual([...ev.id], [7]);
        assert.deepEqual([...ev.start], [3000]);
        assert.deepEqual([...ev.dur], [2000]);
        assert.deepEqual(t.names, ['a']);
    });

    test('decodeTileBin keeps integers past 2^32 exact and rejects other bytes', () => {
        // An empty tile whose span is 2^35 + 1: 0x81, then four 0x80, then 1.
        const big = Uint8Array.from([0x50, 0x56, 0x54, 0x31, 0, 0, 0,
                                     0x81, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01, 0, 0, 0, 0]);
        const t = decodeTileBin(big);
        assert.equal(t.endPs, 2 ** 35 + 1);
        assert.equal(t.tracks.size, 0);
        assert.deepEqual(t.names, []);
        assert.throws(() => decodeTileBin(new TextEncoder().encode('{"level":0}')));
        assert.throws(() => decodeTileBin(big.subarray(0, 10)));
    });

    test('decodeTile builds columns and colours per name', () => {
        const t = decodeTile(TILE_JSON);
        const tr = t.tracks.get(5);
        assert.equal(tr.ev.n, 3);
        assert.deepEqual([...tr.ev.start], [100, 300, 105]);
        assert.deepEqual([...tr.ev.depth], [0, 0, 1]);
        assert.deepEqual([...tr.box.count], [4]);
        assert.deepEqual([...t.colors], [5, 9]);  // see the colors test
        assert.deepEqual([...t.counters.get(0).v], [1, 3]);
        assert.deepEqual(findEvent(t, 2), { track: 5, i: 1 });
        assert.equal(findEvent(t, 99), null);
    });

    test('a tile with nothing in it decodes to empty maps', () => {
        const t = decodeTile({ level: 0, index: 0, start_ps: 0, end_ps: 1 });
        assert.equal(t.tracks.size, 0);
        assert.equal(t.counters.size, 0);
    });
});

describe('hit', () => {
    const pieces = [{ tile: decodeTile(TILE_JSON), clipStart: 0, clipEnd: 500 }];

    test('an event under the pointer, or the nearest within tolerance', () => {
        assert.equal(hitTest(pieces, 5, 0, 120, 5).id, 1);
        assert.equal(hitTest(pieces, 5, 0, 297, 5).id, 2);   // 3 ps before it
        assert.equal(hitTest(pieces, 5, 1, 110, 0).name, 'Conv2D');
        assert.equal(hitTest(pieces, 5, 0, 160, 5), null);   // 10 ps from event 1
        assert.equal(hitTest(pieces, 6, 0, 120, 5), null);   // no such track
    });

    test('a box answers with its count and busy time', () => {
        const b = hitTest(pieces, 5, 0, 225, 0);
        assert.deepEqual(b, { kind: 'box', track: 5, depth: 0, start: 200, end: 250, count: 4,
                              busy: 20 });
    });

    test('nextOnLevel steps along one level', async () => {
        const { nextOnLevel } = await import('../../web/timeline/hit.js');
        // Level 0 of track 5 holds events 1 (start 100) and 2 (start 300).
        assert.equal(nextOnLevel(pieces, 5, 0, 100, 1).id, 2);
        assert.equal(nextOnLevel(pieces, 5, 0, 300, -1).id, 1);
        assert.equal(nextOnLevel(pieces, 5, 0, 300, 1), null);
        assert.equal(nextOnLevel(pieces, 5, 1, 105, 1), null);   // level 1 has one event
    });

    test('findDrawn locates an event by id', () => {
        assert.deepEqual(findDrawn(pieces, 3),
                         { track: 5, depth: 1, start: 105, dur: 20, name: 'Conv2D' });
        assert.equal(findDrawn(pieces, 42), null);
    });
});

function deferred() {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
    });
    return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('tile_cache', () => {
    const bounds = (l, i) => ({ startPs: (i * 1000) / 2 ** l, endPs: ((i + 1) * 1000) / 2 ** l });
    const fake = (level, index) => ({ level, index, bytes: 10 });

    test('cover stands in the nearest loaded ancestor, merged per ancestor', () => {
        const c = new TileCache({ load: () => new Promise(() => {}) });
        c.insert(0, 0, fake(0, 0));
        c.insert(1, 1, fake(1, 1));
        // Level 2 (tiles 250 wide): 0 and 1 fall back to level 0, 2 and 3 to
        // tile 1/1.
        const got = c.cover(2, 0, 3, bounds);
        assert.deepEqual(got.map((p) => [p.tile.level, p.tile.index, p.clipStart, p.clipEnd]),
                         [[0, 0, 0, 500], [1, 1, 500, 1000]]);
    });

    test('requests run maxInFlight at a time, most wanted first, never twice', async () => {
        const calls = [];
        const waits = new Map();
        const c = new TileCache({
            maxInFlight: 2,
            load: (l, i) => {
                calls.push(`${l}/${i}`);
                const d = deferred();
                waits.set(`${l}/${i}`, d);
                return d.promise;
            },
        });
        c.want([[0, 0], [1, 0]], [[1, 1]]);
        assert.deepEqual(calls, ['0/0', '1/0']);
        c.want([[0, 0], [1, 0]], [[1, 1]]);   // in flight: not asked again
        assert.deepEqual(calls, ['0/0', '1/0']);
        waits.get('0/0').resolve(fake(0, 0));
        await tick();
        assert.deepEqual(calls, ['0/0', '1/0', '1/1']);
        assert.ok(c.has(0, 0));
        c.want([[0, 0]]);                      // held: not asked again
        assert.equal(calls.length, 3);
        c.close();
    });

    test('a request the view no longer wants is cancelled', () => {
        const signals = new Map();
        const c = new TileCache({
            maxInFlight: 1,
            load: (l, i, signal) => {
                signals.set(`${l}/${i}`, signal);
                return new Promise(() => {});
            },
        });
        c.want([[5, 1]]);
        c.want([[5, 2]]);   // panned on: 5/1 is dropped, 5/2 starts at once
        assert.equal(signals.get('5/1').aborted, true);
        assert.equal(signals.get('5/2').aborted, false);
        c.want([[5, 2]], [[5, 3]]);   // still wanted: kept
        assert.equal(signals.get('5/2').aborted, false);
        c.close();
    });

    test('a failed tile is reported once and not retried', async () => {
        const errors = [];
        let n = 0;
        const c = new TileCache({
            load: () => {
                n += 1;
                return Promise.reject(new Error('HTTP 500'));
            },
            onError: (e, l, i) => errors.push(`${l}/${i} ${e.message}`),
        });
        c.want([[3, 2]]);
        await tick();
        c.want([[3, 2]]);
        await tick();
        assert.equal(n, 1);
        assert.deepEqual(errors, ['3/2 HTTP 500']);
    });

    test('eviction drops the least recently drawn tiles but keeps level 0', () => {
        const c = new TileCache({ load: () => new Promise(() => {}), maxBytes: 38 });
        c.insert(0, 0, fake(0, 0));
        c.insert(1, 0, fake(1, 0));
        c.insert(1, 1, fake(1, 1));
        c.cover(1, 0, 0, bounds);              // 1/0 is now newer than 1/1
        // 40 bytes > 38: evict, oldest first, down to 0.8 * 38 = 30.4, so
        // dropping 1/1 (10 bytes) is enough.
        c.insert(2, 0, fake(2, 0));
        assert.ok(c.has(0, 0));
        assert.ok(c.has(1, 0));
        assert.ok(!c.has(1, 1));
        assert.ok(c.has(2, 0));
    });
});

describe('url_state', () => {
    test('parseWindow and parseSelection accept only sane values', () => {
        assert.deepEqual(parseWindow({ start: '100', end: '200' }), { startPs: 100, endPs: 200 });
        assert.equal(parseWindow({ start: 'x', end: '200' }), null);
        assert.equal(parseWindow({ start: '300', end: '200' }), null);
        assert.equal(parseWindow({}), null);
        assert.equal(parseSelection({ sel: '42' }), 42);
        assert.equal(parseSelection({ sel: '-1' }), null);
        assert.equal(parseSelection({ sel: '1.5' }), null);
        assert.equal(parseSelection({}), null);
    });

    test('formatParams writes integer ps and drops an empty selection', () => {
        assert.deepEqual(formatParams({ startPs: 100.4, endPs: 200.6 }, 7),
                         { start: '100', end: '201', sel: '7' });
        assert.deepEqual(formatParams({ startPs: 0, endPs: 5 }, null),
                         { start: '0', end: '5', sel: undefined });
    });

    test('urlWriter coalesces a burst into one write of the state at that time', () => {
        const timers = [];
        const win = {
            setTimeout: (fn) => timers.push(fn),
            clearTimeout: () => {},
        };
        let state = { start: '1' };
        const written = [];
        const w = urlWriter(() => state, (p) => written.push(p), win);
        w.write();
        state = { start: '2' };
        w.write();
        assert.deepEqual(written, []);
        timers[timers.length - 1]();
        assert.deepEqual(written, [{ start: '2' }]);
        w.write();
        w.cancel();
        w.flush();   // nothing pending
        assert.deepEqual(written, [{ start: '2' }]);
    });
});

describe('url_state: marks, spans, row keys', () => {
    test('times, spans and keys round-trip; junk is dropped', () => {
        assert.deepEqual(parseTimes('5,12.6,x,-3'), [5, 13]);
        assert.deepEqual(parseTimes(undefined), []);
        assert.equal(formatTimes([1.4, 20]), '1,20');
        assert.equal(formatTimes([]), undefined);
        assert.deepEqual(parseSpan('900,100'), { t0: 100, t1: 900 });
        assert.equal(parseSpan('5,5'), null);
        assert.equal(parseSpan('5'), null);
        assert.deepEqual(parseKeys('p:1,t:4,x:2,c:-1,t:'), new Set(['p:1', 't:4', 'c:-1']));
        assert.equal(formatKeys(new Set(['p:1', 't:4'])), 'p:1,t:4');
        assert.equal(formatKeys(new Set()), undefined);
    });
});

describe('details: box sums and tabs', () => {
    test('aggregateTable gives durations in µs and the average per event', () => {
        const t = aggregateTable({ n_events: 3, rows: [
            { name: 'op', count: 2, wall_ps: 3000000, self_ps: 1000000, min_ps: 1000000,
              max_ps: 2000000 }] });
        assert.deepEqual(t.cols.map((c) => c.id), ['name', 'count', 'wall', 'self', 'avg', 'min',
                                                  'max']);
        // 3,000,000 ps = 3 µs over 2 events: 1.5 µs each
        assert.deepEqual(t.rows[0].c.map((c) => c.v), ['op', 2, 3, 1, 1.5, 1, 2]);
    });
    test('an event has an Event tab and a Flow events tab with its count', () => {
        assert.deepEqual(detailTabs({ flows: [{}, {}] }),
                         [['event', 'Event'], ['flows', 'Flow events (2)']]);
    });
    test('trackList lists devices first, each with its threads and counters', () => {
        const l = trackList({
            processes: [{ pid: 701, name: '/host:CPU', threads: [{ tid: 1, track: 0, name: 'py' }] },
                        { pid: 1, name: '/device:GPU:0', threads: [] }],
            counters: [{ id: 3, pid: 701, name: 'mem' }],
        });
        assert.deepEqual(l, [
            { key: 'p:1', label: '/device:GPU:0', rows: [] },
            { key: 'p:701', label: '/host:CPU', rows: [{ key: 't:0', label: 'py', derived: false },
                                                      { key: 'c:3', label: 'mem' }] },
        ]);
    });

    test('a line derived from a stream is marked so, under its stream', () => {
        const meta = { processes: [{ pid: 1, name: '/device:GPU:0', threads: [
            { tid: 16, track: 2, name: 'Stream #16(Kernel)', n_events: 3, depths: 1 },
            { tid: 5, track: 46, name: 'XLA Ops - from #16', n_events: 2, depths: 1,
              derived: true }] }] };
        assert.deepEqual(trackList(meta)[0].rows.map((r) => r.derived), [false, true]);
        const rows = computeLayout(meta).rows.filter((r) => r.kind === 'thread');
        assert.deepEqual(rows.map((r) => [r.label, r.derived]),
                         [['Stream #16(Kernel)', false], ['XLA Ops - from #16', true]]);
    });
});

describe('gutter names', () => {
    // 7 px a character
    const ctx = { measureText: (t) => ({ width: 7 * [...t].length }) };

    test('a name that fits is drawn whole, a longer one cut with an ellipsis', () => {
        assert.equal(fitName(ctx, 'python3', 70), 'python3');
        assert.equal(fitName(ctx, 'py_xla_execute/-6306536523122645091', 70), 'py_xla_ex…');
        assert.equal(fitName(ctx, 'python3', 5), '');
    });

    test('a derived line keeps the stream it comes from', () => {
        // 31 characters in 25: the kind is cut, " - from #16" stays
        assert.equal(fitName(ctx, 'Framework Name Scope - from #16', 175),
                     'Framework Nam… - from #16');
        assert.equal(fitName(ctx, 'XLA Ops - from #16', 175), 'XLA Ops - from #16');
        // no room for the stream either: cut at the end as any name
        assert.equal(fitName(ctx, 'Framework Name Scope - from #16', 70), 'Framework…');
    });
});

describe('colors', () => {
    test('colorIndex is FNV-1a 32 of the name modulo the palette size', () => {
        assert.equal(PALETTE.length, 18);
        // FNV-1a('a') = 0xe40c292c (the published test vector) = 3826002220;
        // 3826002220 mod 18 = 16.
        assert.equal(colorIndex('a'), 16);
        // The offset basis 0x811c9dc5 = 2166136261; mod 18 = 7.
        assert.equal(colorIndex(''), 7);
        // 'MatMul' -> 0xca9f4fc9, 'Conv2D' -> 0xfc2e3011 (Python one-liner).
        assert.equal(colorIndex('MatMul'), 0xca9f4fc9 % 18);
        assert.equal(colorIndex('Conv2D'), 0xfc2e3011 % 18);
    });
});

describe('labels', () => {
    test('fitLabel cuts with an ellipsis or gives up below three characters', () => {
        assert.equal(fitLabel('MatMulFusion', 50, 5), 'MatMulFus…');  // 10 chars fit
        assert.equal(fitLabel('MatMul', 50, 5), 'MatMul');
        assert.equal(fitLabel('abc', 10, 5), '');
        assert.equal(fitLabel('ab', 10, 5), 'ab');
    });
});

describe('search', () => {
    const all = [{ id: 1, name: 'MatMul' }, { id: 2, name: 'matmul_1' },
                 { id: 3, name: 'MatMulGrad' }];
    const make = (log) => new TraceSearch({
        search: async (q, offset, limit) => {
            log.push(`q=${q} offset=${offset} limit=${limit}`);
            const hits = q === 'none' ? [] : all;
            return { total: hits.length, results: hits.slice(offset, offset + limit) };
        },
        onResult: (r) => log.push(`result ${r.id}`),
        onInfo: (text) => log.push(`info ${text}`),
    });

    test('Enter steps forward and wraps; Shift+Enter steps back', async () => {
        const log = [];
        const s = make(log);
        await s.run('mat');
        await s.run('mat');
        await s.run('mat');
        await s.run('mat');       // wraps to the first
        await s.run('mat', -1);   // back to the last
        assert.deepEqual(log.filter((l) => l.startsWith('result')),
                         ['result 1', 'result 2', 'result 3', 'result 1', 'result 3']);
        // One page fetched for all of it.
        assert.deepEqual(log.filter((l) => l.startsWith('q=')), ['q=mat offset=0 limit=100']);
        assert.ok(log.includes('info 3 of 3'));
    });

    test('no match is said in words', async () => {
        const log = [];
        await make(log).run('none');
        assert.equal(log[log.length - 1], 'info No event name contains “none”.');
    });
});

describe('counterAt', () => {
    test('the last point at or before t', async () => {
        const { counterAt } = await import('../../web/timeline/hit.js');
        // TILE_JSON's counter 0: (0, 1), (250, 3).
        const pieces = [{ tile: decodeTile(TILE_JSON), clipStart: 0, clipEnd: 500 }];
        assert.deepEqual(counterAt(pieces, 0, 100), { t: 0, value: 1 });
        assert.deepEqual(counterAt(pieces, 0, 250), { t: 250, value: 3 });
        assert.equal(counterAt(pieces, 1, 100), null);
    });
});

describe('slices', () => {
    // A view of [0, 1000] ps over 100 px starting at canvas x 0: 10 ps per
    // pixel; content y is canvas y.
    const view = { vp: { startPs: 0, endPs: 1000, widthPx: 100 }, x0: 0, clipX0: 0, clipX1: 100,
                   rowPx: 18, yOf: (y) => y };
    const row = { track: 5, y: 0, shownDepths: 2 };

    async function collect(json) {
        const { collectSlices, newBatches } = await import('../../web/draw/slices.js');
        const b = newBatches();
        collectSlices(b, { tile: decodeTile(json), clipStart: 0, clipEnd: 1000 }, row, view);
        const rects = (lists) => lists.flatMap((l, k) => {
            const out = [];
            for (let i = 0; i < l.length; i += 4)
                out.push([k, l[i], l[i + 1], l[i + 2], l[i + 3]]);
            return out;
        });
        return { ev: rects(b.ev), box: rects(b.box), labels: b.labels };
    }

    test('wide events keep their colour and get a label when there is room', async () => {
        // Event 1: [100, 150] ps = x 10..15 (5 px), no label; event 2:
        // [300, 700] = x 30..70 (40 px >= 28), labelled. Row height 17.
        const got = await collect({ level: 0, index: 0, start_ps: 0, end_ps: 1000,
            tracks: [{ track: 5, events: [[1, 100, 50, 0, 0], [2, 300, 400, 1, 1]] }],
            names: ['MatMul', 'Conv2D'] });
        assert.deepEqual(got.ev, [[colorIndex('MatMul'), 10, 0, 5, 17],
                                  [colorIndex('Conv2D'), 30, 18, 40, 17]]);
        assert.deepEqual(got.labels, [[30, 18, 40, 'Conv2D']]);
        assert.deepEqual(got.box, []);
    });

    test('neighbouring narrow events merge into one shaded run', async () => {
        // Three 1-px events at x 10, 11.5, 13 (each 10 ps = 1 px): each
        // starts within a pixel of the run's end, so one run x 10..14, 3 px
        // of events in 4 px = 75% busy -> opacity step floor(0.75 * 8) = 6.
        // A lone narrow event at x 50 keeps its own colour.
        const got = await collect({ level: 0, index: 0, start_ps: 0, end_ps: 1000,
            tracks: [{ track: 5, events: [[1, 100, 10, 0, 0], [2, 115, 10, 0, 0],
                                          [3, 130, 10, 0, 1],
                                          [4, 500, 10, 0, 1]] }],
            names: ['a', 'b'] });
        assert.deepEqual(got.box, [[6, 10, 0, 4, 17]]);
        assert.deepEqual(got.ev, [[colorIndex('b'), 50, 0, 1, 17]]);
    });

    test('a box is shaded by its busy share and clipped to the view', async () => {
        // Box [900, 1200] ps, busy 150: x 90..120 clipped to 90..100;
        // 150 ps = 15 px busy of 10 drawn px -> capped at 100% -> step 7.
        const got = await collect({ level: 0, index: 0, start_ps: 0, end_ps: 1000,
            tracks: [{ track: 5, boxes: [[900, 1200, 1, 7, 150]] }], names: [] });
        assert.deepEqual(got.box, [[7, 90, 18, 10, 17]]);
    });

    test('a box runs on past the end of its tile piece', async () => {
        // The piece covers [0, 500] ps (x 0..50); the box [400, 600] ps, busy
        // 50, starts in it and is drawn to x 60: 5 px busy of 20 = 25% -> step 2.
        const { collectSlices, newBatches } = await import('../../web/draw/slices.js');
        const b = newBatches();
        const tile = decodeTile({ level: 1, index: 0, start_ps: 0, end_ps: 500,
            tracks: [{ track: 5, boxes: [[400, 600, 0, 3, 50]] }], names: [] });
        collectSlices(b, { tile, clipStart: 0, clipEnd: 500 }, row, view);
        assert.deepEqual(b.box[2], [40, 0, 20, 17]);
    });
});

// A 2D context that records what is drawn: every method call as [name,
// ...args] and every property set as ['set', name, value]. measureText
// makes each character 6 px wide.
function recordingCtx() {
    const calls = [];
    const props = {};
    return new Proxy(props, {
        get(t, k) {
            if (k === 'calls')
                return calls;
            if (k === 'measureText')
                return (s) => ({ width: s.length * 6 });
            if (k in t)
                return t[k];
            return (...a) => calls.push([k, ...a]);
        },
        set(t, k, v) {
            t[k] = v;
            calls.push(['set', k, v]);
            return true;
        },
    });
}

describe('drawing for a fast pan', () => {
    test('flatten works a translucent colour out against the background', async () => {
        const { flatten, parseColor } = await import('../../web/draw/colors.js');
        // 70 * 0.5 + 255 * 0.5 = 162.5 -> 163; 90 -> 172.5 -> 173; 120 -> 187.5 -> 188.
        assert.equal(flatten('rgba(70, 90, 120, 0.5)', '#fff'), 'rgb(163, 173, 188)');
        // Dark page #0f1419 = (15, 20, 25) under rgba(31, 78, 121, 0.10):
        // 3.1 + 13.5 = 16.6 -> 17; 7.8 + 18 = 25.8 -> 26; 12.1 + 22.5 = 34.6 -> 35.
        assert.equal(flatten('rgba(31,78,121,0.10)', '#0f1419'), 'rgb(17, 26, 35)');
        // Opaque stays itself: #abc = (0xaa, 0xbb, 0xcc) = (170, 187, 204).
        assert.equal(flatten('#abc', '#000000'), 'rgb(170, 187, 204)');
        // What cannot be parsed, or a background that is not opaque, is left alone.
        assert.equal(flatten('red', '#fff'), 'red');
        assert.equal(flatten('rgba(1, 2, 3, 0.5)', 'rgba(0, 0, 0, 0.5)'), 'rgba(1, 2, 3, 0.5)');
        assert.deepEqual(parseColor(' rgb(1, 2, 3) '), [1, 2, 3, 1]);
        assert.equal(parseColor('var(--bg)'), null);
    });

    test('rectangles are filled on whole pixels, opaque', async () => {
        const { fillBatches, newBatches } = await import('../../web/draw/slices.js');
        const b = newBatches();
        // x 10.4 .. 14.7 -> 10 .. 15 (5 px); x 20.2 .. 20.4 -> 20, at least 1 px;
        // y 3.6 -> 4.
        b.ev[2].push(10.4, 3.6, 4.3, 17, 20.2, 0, 0.2, 17);
        // A box of opacity step 0: alpha 0.15 + 0.85 * (0.5 / 8) = 0.203, written
        // with two decimals as 0.20, of (70, 90, 120) over white:
        // 255 - 0.2 * (255 - c) = 218, 222, 228.
        b.box[0].push(0, 0, 1, 17);
        const ctx = recordingCtx();
        fillBatches(ctx, b, { boxRgb: '70, 90, 120', bg: '#ffffff' });
        const rects = ctx.calls.filter((c) => c[0] === 'fillRect');
        const styles = ctx.calls.filter((c) => c[0] === 'set' && c[1] === 'fillStyle');
        assert.deepEqual(rects, [['fillRect', 0, 0, 1, 17], ['fillRect', 10, 4, 5, 17],
                                 ['fillRect', 20, 0, 1, 17]]);
        assert.deepEqual(styles.map((c) => c[2]), ['rgb(218, 222, 228)', PALETTE[2]]);
    });

    test('a frame that keeps the names column draws only the time area', async () => {
        const { drawFrame } = await import('../../web/draw/frame.js');
        const meta = { processes: [{ pid: 1, name: 'host', threads: [
            { tid: 10, track: 0, name: 'python3', n_events: 0, depths: 1 }] }] };
        const theme = { bg: '#ffffff', processBg: 'rgba(0, 0, 0, 0.5)', boxRgb: '0, 0, 0',
                        grid: '#eee', separator: '#ddd', gutterBg: '#f4f6f8', fg: '#000',
                        muted: '#555', border: '#ccc', rulerBg: '#f4f6f8', rulerFg: '#555',
                        font: '12px sans-serif', boldFont: '600 12px sans-serif',
                        labelFont: '11px sans-serif', labelFg: '#000', charPx: 6 };
        const scene = (gutterKept) => ({
            width: 400, height: 100, gutterPx: 100, rulerPx: 26, scrollY: 0,
            vp: { startPs: 0, endPs: 3000, widthPx: 300 }, layout: computeLayout(meta),
            pieces: [], ticks: computeTicks(0, 3000, 300), theme, hover: null,
            selection: null, flows: [], range: null, complete: false, gutterKept });
        const texts = (ctx) => ctx.calls.filter((c) => c[0] === 'fillText').map((c) => c[1]);
        const full = recordingCtx();
        drawFrame(full, scene(false));
        assert.ok(texts(full).includes('python3'), 'a full frame names the thread');
        assert.ok(!full.calls.some((c) => c[0] === 'clip'));
        const kept = recordingCtx();
        drawFrame(kept, scene(true));
        assert.ok(!texts(kept).includes('python3'), 'the names column is left as it was');
        // Clipped to x 100 .. 400 (the time area), all 100 px of height, and
        // the clip is undone at the end.
        assert.deepEqual(kept.calls.find((c) => c[0] === 'rect'), ['rect', 100, 0, 300, 100]);
        assert.equal(kept.calls.findIndex((c) => c[0] === 'clip') >= 0, true);
        assert.equal(kept.calls[kept.calls.length - 1][0], 'restore');
        // The process band is opaque: black at 0.5 over white = 127.5 -> 128.
        assert.ok(kept.calls.some((c) => c[0] === 'set' && c[1] === 'fillStyle' &&
                                          c[2] === 'rgb(128, 128, 128)'));
    });
});
