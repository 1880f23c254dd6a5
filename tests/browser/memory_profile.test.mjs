// memory_profile.test.mjs: the memory profile page. The pure parts of
// web/views/memory_profile.js under plain node (expected values worked out
// by hand next to them), then the page in headless Chromium on the real TF
// GPU profile (numbers from the memory_profile.json.gz TensorFlow itself
// wrote next to the xplane) and the CPU one that has no memory events.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { activeTable, inUseUnknown, rowMeta, timelinePoints, timelineSteps,
         traceWindow } from '../../web/views/memory_profile.js';
import { screenshot, waitForView } from './browser.mjs';
import { TESTDATA, chartShown, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

// One allocator as the server sends it with pv_extras=1: a real row, the
// special row, two reduced snapshots' worth of metadata.
const ALLOC = {
    memoryProfileSnapshots: [
        { timeOffsetPs: '40', activityMetadata: { tfOpName: 'op3', allocationBytes: '2048',
          requestedBytes: '2000', regionType: 'output', dataType: 'float',
          tensorShape: '[512]', stepId: '2' } },
    ],
    activeAllocations: [
        { snapshotIndex: '0', specialIndex: '-1', numOccurrences: '3' },
        { snapshotIndex: '-1', specialIndex: '0', numOccurrences: '1' },
    ],
    specialAllocations: [
        { tfOpName: 'unused preallocated device memory', allocationBytes: '50',
          requestedBytes: '50', regionType: 'persist/dynamic', dataType: 'INVALID',
          tensorShape: 'unknown', stepId: '2' },
    ],
    sampledTimelineSnapshots: [
        { timeOffsetPs: '10', aggregationStats: { heapAllocatedBytes: '100' },
          activityMetadata: { stepId: '1' } },
        { timeOffsetPs: '40', aggregationStats: { heapAllocatedBytes: '250',
          stackReservedBytes: '5', freeMemoryBytes: '7', fragmentation: 0.5 },
          activityMetadata: { stepId: '2' } },
    ],
    pvActiveAllocationTimes: [{ allocPs: '30', freePs: '40000030' }, null],
};

describe('memory profile page (pure parts)', () => {
    test('rowMeta reads a snapshot row and a special row', () => {
        assert.equal(rowMeta(ALLOC, ALLOC.activeAllocations[0]).tfOpName, 'op3');
        assert.equal(rowMeta(ALLOC, ALLOC.activeAllocations[1]).regionType, 'persist/dynamic');
    });

    test('activeTable: sizes, occurrences, step and lifetime', () => {
        const t = activeTable(ALLOC);
        assert.deepEqual(t.cols.map((c) => c.id),
                         ['op', 'size', 'requested', 'count', 'region', 'dtype', 'shape', 'step',
                          'lived']);
        const [a, b] = t.rows.map((r) => r.c);
        assert.equal(a[0].v, 'op3');
        assert.equal(a[1].v, 2048);
        assert.equal(a[1].f, '2 KiB');
        assert.equal(a[3].v, 3);
        assert.equal(a[7].v, 2);
        // freed 40000030 - 30 = 40,000,000 ps = 40 µs after it was made
        assert.equal(a[8].v, 40000000);
        assert.equal(a[8].f, '40 µs');
        // the special row has no lifetime at all
        assert.equal(b[8].v, null);
        assert.equal(b[8].f, '');
    });

    test('activeTable leaves the lifetime empty for files without times', () => {
        const t = activeTable({ ...ALLOC, pvActiveAllocationTimes: undefined });
        assert.equal(t.rows[0].c[8].v, null);
        assert.equal(t.rows[0].c[8].f, '');
    });

    test('timelinePoints prefers profview\'s timeline, else the sampled one', () => {
        const pv = { timeOffsetPs: [5, 9], heapBytes: [1, 3], stackBytes: [0, 0],
                     freeBytes: [9, 7], fragmentation: [0, 0.25], stepId: [0, 1] };
        assert.deepEqual(timelinePoints({ ...ALLOC, pvTimeline: pv })[1],
                         { t: 9, heap: 3, stack: 0, free: 7, frag: 0.25, step: 1 });
        assert.deepEqual(timelinePoints(ALLOC)[1],
                         { t: 40, heap: 250, stack: 5, free: 7, frag: 0.5, step: 2 });
        // TF 2.4 files: no sampled timeline, so every snapshot
        const old = { ...ALLOC, sampledTimelineSnapshots: [] };
        assert.equal(timelinePoints(old).length, 1);
        assert.deepEqual(timelineSteps(timelinePoints(ALLOC)), [1, 2]);
    });

    test('inUseUnknown: allocations without any memory in use, and not otherwise', () => {
        const sizesOnly = { profileSummary: { peakBytesUsageLifetime: '0',
                                              peakStats: { peakBytesInUse: '0' } } };
        const zero = { t: 5, heap: 0, stack: 0, free: 0, frag: 0, step: 0 };
        assert.equal(inUseUnknown(sizesOnly, [zero, { ...zero, t: 9 }]), true);
        assert.equal(inUseUnknown(sizesOnly, []), false, 'no allocation at all: said elsewhere');
        assert.equal(inUseUnknown(sizesOnly, [zero, { ...zero, heap: 512 }]), false);
        const peaked = { profileSummary: { peakBytesUsageLifetime: '4096',
                                           peakStats: { peakBytesInUse: '0' } } };
        assert.equal(inUseUnknown(peaked, [zero]), false);
    });

    test('traceWindow pads a lifetime by a tenth, a live block by 1 µs', () => {
        // 100..1100 ps: pad max(1e5, 100) = 1e5 ps, clamped at 0
        assert.deepEqual(traceWindow({ allocPs: '100', freePs: '1100' }),
                         { start: 0, end: 1100 + 1e5 });
        // 1e7..2e7 ps: pad 1e6 each side
        assert.deepEqual(traceWindow({ allocPs: '10000000', freePs: '20000000' }),
                         { start: 9e6, end: 2.1e7 });
        assert.deepEqual(traceWindow({ allocPs: '5000000', freePs: '' }),
                         { start: 4e6, end: 6e6 });
    });
});

// ---- in the browser ------------------------------------------------------------

const NAME = 'memory_profile.test';
const LOADED_MS = 60000;

const SKIP = skipWithout(NAME);

describe('memory profile page on real TF profiles', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-memory-cache-',
                   wants: [['tf_keras_gpu_gcp/train/2022_11_04_21_26_12', 'instance-ecbm'],
                           ['tf_keras_cpu_macos/train/2022_10_31_19_09_08',
                            'gaoyihaodeMacBook-Pro.local']] });

    test('GPU profile: cards, chart and the 13 rows alive at the peak', { timeout: LOADED_MS },
        async () => {
            const run = 'tf_keras_gpu_gcp/train/2022_11_04_21_26_12';
            const hash = hashOf(run, 'instance-ecbm', 'memory_profile');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, LOADED_MS);
            await h.page.waitForSelector('.data-table tbody tr.clickable');
            const seen = await h.page.evaluate(() => ({
                allocators: [...document.querySelectorAll('.mem-picker select option')]
                    .map((o) => o.value),
                cards: document.querySelector('.cards').innerText,
                rows: document.querySelectorAll('.data-table tbody tr').length,
                first: document.querySelector('.data-table tbody tr').innerText,
            }));
            await screenshot(h.page, 'memory-profile-gpu');
            // TF's memory_profile.json.gz: memoryIds, GPU_0_bfc peak heap
            // 53,543,168 B = 51.06 MiB, 13 active rows, the largest the
            // 31,555,584 B Conv2DBackpropFilter temp buffer
            assert.deepEqual(seen.allocators.slice(0, 2), ['GPU_0_bfc', 'gpu_host_bfc']);
            assert.match(seen.cards, /51\.06 MiB/);
            assert.equal(seen.rows, 13);
            assert.match(seen.first, /Conv2DBackpropFilter/);
            // The chart's peak mark: the route's peak time and bytes.
            const route = await routeData(h, run, 'instance-ecbm', 'memory_profile');
            const sum = route.memoryProfilePerAllocator.GPU_0_bfc.profileSummary;
            const chart = await chartShown(h.page, '.chart-box canvas');
            assert.ok(chart, 'no chart');
            const peak = chart.datasets.find((d) => d.label === 'Peak').data;
            assert.equal(peak.length, 1);
            assert.ok(Math.abs(peak[0].x - Number(sum.peakStatsTimePs) / 1e9) < 1e-9);
            assert.ok(Math.abs(peak[0].y * 1048576 - Number(sum.peakStats.peakBytesInUse)) < 1e-3);
            const heap = chart.datasets.find((d) => d.label === 'Heap (MiB)').data;
            assert.ok(Math.abs(Math.max(...heap.map((p) => p.y)) - peak[0].y) < 1e-9,
                      'the heap line does not reach the peak mark');
            await h.page.click('.data-table tbody tr.clickable >> nth=0');
            await h.page.waitForFunction(() => location.hash.includes('/tool/trace_viewer%40?start='));
            const params = new URLSearchParams((await h.page.evaluate(() => location.hash))
                .split('?')[1]);
            assert.ok(Number(params.get('end')) > Number(params.get('start')));
        });

    test('CPU profile without memory events says so and how to record them',
        { timeout: LOADED_MS }, async () => {
            const hash = hashOf('tf_keras_cpu_macos/train/2022_10_31_19_09_08',
                                'gaoyihaodeMacBook-Pro.local', 'memory_profile');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, LOADED_MS);
            const text = await h.page.evaluate(() => document.getElementById('content').innerText);
            assert.match(text, /No memory allocation events were recorded/);
            assert.match(text, /host_tracer_level/);
        });
});
