// xla_unit.test.mjs: the pure parts of the XLA pages under node, on
// hand-made inputs whose answers are worked out here.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { cut, layers, layout } from '../../web/views/graph_viewer.js';
import { byCategory, opKey } from '../../web/views/hlo_stats.js';
import { instructionOf, peakParts, peakTable } from '../../web/views/memory_viewer.js';
import { nodeAt, nodeStats, opName, visibleRows } from '../../web/views/op_profile.js';
import { attainable, hasXlaOps, roofLine, roofsOf } from '../../web/views/roofline_model.js';
import { pickTable, rowObjects } from '../../web/views/lib/datatable.js';
import { eventIsOp, sourceText, traceCandidates, traceNames,
         windowAround } from '../../web/views/lib/xla.js';

const dt = {
    cols: [{ id: 'a', label: 'A', type: 'string' }, { id: 'b', label: 'B', type: 'number' }],
    rows: [{ c: [{ v: 'x' }, { v: 1 }] }, { c: [{ v: 'y' }, { v: 2 }] }],
};

describe('lib/xla and lib/datatable', () => {
    test('rows as objects, and a table of some rows and columns', () => {
        assert.deepEqual(rowObjects(dt), [{ a: 'x', b: 1 }, { a: 'y', b: 2 }]);
        const t = pickTable(dt, ['b', 'missing'], (o) => o.b > 1, { b: 'Bee' });
        assert.deepEqual(t.cols, [{ id: 'b', label: 'Bee', type: 'number' }]);
        assert.deepEqual(t.rows, [{ c: [{ v: 2 }] }]);
    });

    test('the text of an XProf source cell', () => {
        assert.deepEqual(sourceText("<div class='source-info-cell' title='a.py:3:1\nb.py:9:2\n'>" +
                                    'a.py:3</div>'), { text: 'a.py:3', stack: 'a.py:3:1\nb.py:9:2\n' });
        assert.deepEqual(sourceText("<div title='x &amp; y'>f&lt;1&gt;</div>"),
                         { text: 'f<1>', stack: 'x & y' });
        assert.deepEqual(sourceText(''), { text: '', stack: '' });
    });

    test('kernel names of an op, and which search results are its events', () => {
        assert.deepEqual(traceNames('fusion.3'), ['fusion.3', 'fusion_3', 'fusion.3.kd',
                                                  'fusion_3.kd']);
        assert.deepEqual(traceNames('copy'), ['copy', 'copy.kd']);
        const results = [{ id: 1, name: 'fusion.3', track: 5 }, { id: 2, name: 'fusion.31', track: 0 },
                         { id: 3, name: 'fusion_3.kd', track: 0 }, { id: 4, name: 'fusion.3', track: 0 }];
        // device tracks first, time order kept; near misses never
        assert.deepEqual(traceCandidates('fusion.3', results, new Set([0])).map((r) => r.id),
                         [3, 4, 1]);
        // a derived "XLA Ops - from #N" line (track 9) after the kernels, before the rest
        const withDerived = results.concat([{ id: 5, name: 'fusion.3', track: 9 }]);
        assert.deepEqual(traceCandidates('fusion.3', withDerived, new Set([0]), new Set([9]))
            .map((r) => r.id), [3, 4, 5, 1]);
        const ev = (stats, longName) => ({ stats, long_name: longName });
        assert.ok(eventIsOp(ev({ hlo_op: 'fusion.3', program_id: 7 }), 'fusion.3', '7'));
        assert.ok(!eventIsOp(ev({ hlo_op: 'fusion.3', program_id: 8 }), 'fusion.3', '7'));
        assert.ok(!eventIsOp(ev({ hlo_op: 'fusion.4' }), 'fusion.3', '7'));
        assert.ok(eventIsOp(ev({}), 'fusion.3', '7'));
        // a derived XLA op names its program in its long name, "<program>/<op>"
        assert.ok(eventIsOp(ev({}, '7/fusion.3'), 'fusion.3', '7'));
        assert.ok(!eventIsOp(ev({}, '8/fusion.3'), 'fusion.3', '7'));
        assert.ok(eventIsOp(ev({}, '8/fusion.3'), 'fusion.3', null));
    });

    test('a window around an event', () => {
        assert.deepEqual(windowAround({ start_ps: 10e6, dur_ps: 4e6 }), { start: 6e6, end: 18e6 });
        // at least 1 µs, never before 0
        assert.deepEqual(windowAround({ start_ps: 0, dur_ps: 0 }), { start: 0, end: 2e6 });
    });
});

describe('hlo_stats', () => {
    test('self time by category, largest first, with shares', () => {
        const ops = [{ category: 'fusion', total_self_time: 3 }, { category: 'copy', total_self_time: 1 },
                     { category: 'fusion', total_self_time: 4 }];
        assert.deepEqual(byCategory(ops), [{ category: 'fusion', us: 7, share: 7 / 8 },
                                           { category: 'copy', us: 1, share: 1 / 8 }]);
        assert.equal(opKey({ program_id: '12', hlo_op_name: 'dot.1' }), '12/dot.1');
    });
});

describe('op_profile', () => {
    const leaf = (name, t) => ({ name, metrics: { rawTime: t }, children: [] });
    const root = { name: 'root', metrics: { rawTime: 100 }, children: [
        { name: 'p1', metrics: { rawTime: 60, flops: 0.5, bandwidthUtils: [0.25, 0, 0] },
          children: Array.from({ length: 12 }, (_, i) => leaf(`op${i}`, 5)) },
        leaf('IDLE', 40)] };

    test('nodes by path and their numbers', () => {
        assert.equal(nodeAt(root, ['p1', 'op3']).name, 'op3');
        assert.equal(nodeAt(root, ['p1', 'nope']), null);
        assert.deepEqual(nodeStats(root.children[0], 100),
                         { ps: 60, share: 0.6, flops: 0.5, hbm: 0.25, occurrences: 0 });
        assert.equal(opName('fusion.2 and its duplicate(s)'), 'fusion.2');
        assert.equal(opName('fusion.2'), 'fusion.2');
    });

    test('the rows shown: open nodes only, ten children, then "more"', () => {
        const closed = visibleRows(root, () => false, () => undefined);
        assert.deepEqual(closed.map((r) => r.node.name), ['p1', 'IDLE']);
        const open = visibleRows(root, (p) => p.length === 1 && p[0] === 'p1', () => undefined);
        assert.equal(open.length, 1 + 10 + 1 + 1);
        assert.deepEqual(open[11], { node: null, path: ['p1'], depth: 1, open: false, more: 2 });
        const all = visibleRows(root, (p) => p[0] === 'p1', () => Infinity);
        assert.equal(all.length, 1 + 12 + 1);
    });
});

describe('roofline_model', () => {
    test('roofs from the device peaks, and the attainable rate under one', () => {
        const r = roofsOf({ peak_flop_rate: '1000', peak_hbm_bw: '10', hbm_ridge_point: '100',
                            peak_vmem_write_bw: '0', vmem_write_ridge_point: '5' });
        assert.deepEqual(r, { peak: 1000, roofs: [{ name: 'HBM', bw: 10, ridge: 100 }] });
        assert.equal(attainable(1000, 100, 10), 100);
        assert.equal(attainable(1000, 100, 400), 1000);
        assert.deepEqual(roofLine(1000, 100, 1, 1000), [{ x: 1, y: 10 }, { x: 100, y: 1000 },
                                                        { x: 1000, y: 1000 }]);
    });
    test('a profile without XLA ops: only per-program totals of zero time', () => {
        // What XProf answers for TensorFlow without XLA (the TF GPU profile's route).
        assert.equal(hasXlaOps([{ category: 'Program', total_self_time: 0 }]), false);
        assert.equal(hasXlaOps([]), false);
        assert.equal(hasXlaOps([{ category: 'Program', total_self_time: 12.5 }]), true);
        assert.equal(hasXlaOps([{ category: 'Program', total_self_time: 0 },
                                { category: 'convolution', total_self_time: 0 }]), true);
    });
});

describe('memory_viewer', () => {
    test('the peak\'s parts, the instruction of a buffer, the peak table', () => {
        assert.deepEqual(peakParts({ peakHeapMib: 10, indefiniteBufferAllocationMib: 6 }),
                         { peak: 10, indefinite: 6, temporary: 4 });
        assert.equal(instructionOf('custom-call.1{1}'), 'custom-call.1');
        assert.equal(instructionOf('fusion.3{0,2}'), 'fusion.3');
        assert.equal(instructionOf('a.1'), 'a.1');
        const t = peakTable({ maxHeapBySize: [{ logicalBufferSizeMib: 4, instructionName: 'x{1}',
                                                groupName: 'Temporary',
                                                sourceInfo: { fileName: 'f.py', lineNumber: 3 } }] });
        assert.deepEqual(t.rows[0].c.map((c) => c.v), [4, 0, 'Temporary', 'x{1}', '', '', 'f.py:3']);
    });
});

describe('graph_viewer', () => {
    // a -> c, b -> c, c -> d, a -> d
    const edges = [{ from: 0, to: 2 }, { from: 1, to: 2 }, { from: 2, to: 3 }, { from: 0, to: 3 }];
    test('layers by the longest path from the inputs', () => {
        assert.deepEqual(layers(4, edges), [0, 0, 1, 2]);
    });
    test('rows centered, users under their operands', () => {
        const { pos, height } = layout(4, edges);
        assert.equal(pos[0].y, pos[1].y);
        assert.ok(pos[2].y > pos[0].y && pos[3].y > pos[2].y);
        assert.equal(pos[2].x, (pos[0].x + pos[1].x) / 2);   /* one node under two */
        assert.equal(height, 3 * (44 + 46));
        assert.equal(cut('abcdef', 4), 'abc…');
    });
});
