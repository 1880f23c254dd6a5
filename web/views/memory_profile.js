// memory_profile.js: the memory profile page. For one allocator at a time:
// summary cards (peak, what the peak is made of, event counts), a Chart.js
// timeline of heap, stack, free memory and fragmentation with the peak
// marked and a step range to zoom to, and the table of allocations alive at
// the peak. Clicking a row opens the trace viewer over that allocation's
// lifetime.
//
// Data: the reference's memory_profile JSON (FORMATS.md §4.7) plus
// profview's pv_extras (allocation/free times, event counts). Tool state
// in the URL: memory_id, step_from, step_to.

import { toolDataUrl } from '../api.js';
import { createChart } from '../chart.js';
import { h } from '../dom.js';
import { formatBytes, formatCount, formatDurationPs, formatPercent } from '../format.js';
import * as router from '../router.js';
import { showError, showMessage } from '../status.js';
import { createTable, tableUrl } from '../table.js';
import { card } from './lib/cards.js';
import { dataPage } from './lib/page.js';

const MIB = 1024 * 1024;
const PS_PER_MS = 1e9;
// A never-freed allocation opens the trace this far either side of its
// allocation; a freed one opens its lifetime plus this share either side.
const TRACE_PAD_PS = 1e6;
const TRACE_PAD_SHARE = 0.1;

const NO_EVENTS = 'No memory allocation events were recorded in this profile.';
const NO_EVENTS_HINT = 'They come from TensorFlow\'s BFC allocators (GPU memory, and host memory ' +
    'used by GPU jobs) and from XLA\'s GPU allocators, and are written only when the host ' +
    'tracer records them: profile with tf.profiler.experimental.ProfilerOptions(' +
    'host_tracer_level=2) or higher (3 records everything), e.g. ' +
    'tf.profiler.experimental.start(logdir, options=ProfilerOptions(host_tracer_level=3)).';

// ---- reading the JSON (pure) ---------------------------------------------------

const num = (s) => Number(s || 0);

// The metadata of active row i of allocator a.
export function rowMeta(a, row) {
    const snap = num(row.snapshotIndex);
    if (snap >= 0)
        return (a.memoryProfileSnapshots[snap] || {}).activityMetadata || {};
    return (a.specialAllocations || [])[num(row.specialIndex)] || {};
}

// The points to draw as [{t (ps), heap, stack, free (bytes), frag (0..1),
// step}]: profview's timeline of window minima and maxima when the server
// sent it, else the reference's sampled timeline, else (files TensorFlow
// 2.4 wrote, before sampling existed) every snapshot.
export function timelinePoints(a) {
    const pv = a.pvTimeline;
    if (pv && Array.isArray(pv.timeOffsetPs)) {
        return pv.timeOffsetPs.map((t, i) => ({
            t, heap: pv.heapBytes[i], stack: pv.stackBytes[i], free: pv.freeBytes[i],
            frag: pv.fragmentation[i], step: pv.stepId[i] }));
    }
    const sampled = a.sampledTimelineSnapshots || [];
    const snaps = sampled.length > 0 ? sampled : (a.memoryProfileSnapshots || []);
    return snaps.map((snap) => {
        const g = snap.aggregationStats || {};
        return { t: num(snap.timeOffsetPs), heap: num(g.heapAllocatedBytes),
                 stack: num(g.stackReservedBytes), free: num(g.freeMemoryBytes),
                 frag: Number(g.fragmentation) || 0,
                 step: num(snap.activityMetadata && snap.activityMetadata.stepId) };
    });
}

// True when allocator a recorded allocations but never its memory in use:
// PyTorch 1.8 and earlier wrote each [memory] event's size without the
// allocator's "Total Allocated", so a curve or a peak of 0 would be wrong.
export function inUseUnknown(a, points) {
    const s = a.profileSummary || {};
    return points.length > 0 && num(s.peakBytesUsageLifetime) === 0 &&
        num((s.peakStats || {}).peakBytesInUse) === 0 &&
        points.every((p) => p.heap === 0 && p.stack === 0);
}

const IN_USE_UNKNOWN = 'This profile records the allocations and frees of this allocator ' +
    'but not how much memory it had in use (a PyTorch trace from before PyTorch 1.9 has no ' +
    '"Total Allocated" on its [memory] events), so there is no curve or peak to draw. Each ' +
    'allocation is a [memory] event on its thread in the trace viewer.';

// Sorted distinct step ids of the timeline.
export function timelineSteps(points) {
    return [...new Set(points.map((p) => p.step))].sort((x, y) => x - y);
}

// The trace-viewer window (ps relative to the trace start) for an active
// row with times t = {allocPs, freePs}.
export function traceWindow(t) {
    const start = num(t.allocPs);
    if (t.freePs === '' || t.freePs === undefined)
        return { start: Math.max(0, start - TRACE_PAD_PS), end: start + TRACE_PAD_PS };
    const end = num(t.freePs);
    const pad = Math.max(TRACE_PAD_PS / 10, (end - start) * TRACE_PAD_SHARE);
    return { start: Math.max(0, start - pad), end: end + pad };
}

// A recorded text that says nothing: empty, or TensorFlow's placeholders
// for a field it did not know (DataType INVALID, shape "unknown").
function known(text) {
    const t = String(text || '');
    return t === '' || t === 'INVALID' || t === 'unknown' ? null : t;
}

// Shown in a cell the allocator left empty.
const NOT_RECORDED = { p: { pv_missing: '—' } };

// The active allocations as a DataTable (FORMATS.md §4.0) for table.js.
// Fields the allocator did not record are empty (shown as a dash, sorted
// last, empty in the CSV), not its placeholders.
export function activeTable(a) {
    const times = a.pvActiveAllocationTimes || [];
    const cols = [
        { id: 'op', label: 'Op name', type: 'string', ...NOT_RECORDED },
        { id: 'size', label: 'Size', type: 'number' },
        { id: 'requested', label: 'Requested size', type: 'number' },
        { id: 'count', label: 'Occurrences', type: 'number' },
        { id: 'region', label: 'Region', type: 'string', ...NOT_RECORDED },
        { id: 'dtype', label: 'Data type', type: 'string', ...NOT_RECORDED },
        { id: 'shape', label: 'Shape', type: 'string', ...NOT_RECORDED },
        { id: 'step', label: 'Step', type: 'number' },
        { id: 'lived', label: 'Lived', type: 'number' },
    ];
    const rows = (a.activeAllocations || []).map((row, i) => {
        const m = rowMeta(a, row);
        const t = times[i];
        // Files written by TensorFlow itself carry no times: leave the cell
        // empty rather than claim the allocation outlived the profile.
        let lived = { v: null, f: t ? 'still alive at the end' : '' };
        if (t && t.freePs !== '') {
            const ps = num(t.freePs) - num(t.allocPs);
            lived = { v: ps, f: formatDurationPs(ps) };
        }
        const size = num(m.allocationBytes);
        const req = num(m.requestedBytes);
        return { c: [
            { v: known(m.tfOpName) },
            { v: size, f: formatBytes(size) },
            { v: req, f: formatBytes(req) },
            { v: num(row.numOccurrences) },
            { v: known(m.regionType) },
            { v: known(m.dataType) },
            { v: known(m.tensorShape) },
            { v: num(m.stepId) },
            lived,
        ] };
    });
    return { cols, rows };
}

// ---- drawing ----------------------------------------------------------------

function renderCards(el, a, countsOnly) {
    const s = a.profileSummary || {};
    const p = s.peakStats || {};
    const c = a.pvCounts;
    const unmatched = c ? num(c.unmatchedDeallocations) : 0;
    const count = (v) => (c ? formatCount(num(v)) : '—');
    const countNote = c ? null : 'not in this file';
    const counts = [
        card('Allocations', count(c && c.allocations), countNote),
        card('Deallocations', count(c && c.deallocations),
             unmatched > 0 ? `${formatCount(unmatched)} of them free memory allocated before ` +
                 'the profile started' : countNote)];
    if (countsOnly) {
        el.replaceChildren(...counts);
        return;
    }
    el.replaceChildren(
        card('Peak memory in profile', formatBytes(num(p.peakBytesInUse)),
             `at ${formatDurationPs(num(s.peakStatsTimePs))}`),
        card('Peak heap', formatBytes(num(p.heapAllocatedBytes))),
        card('Reserved (stack) at peak', formatBytes(num(p.stackReservedBytes))),
        card('Free at peak', formatBytes(num(p.freeMemoryBytes)),
             `capacity ${formatBytes(num(s.memoryCapacity))}`),
        card('Fragmentation at peak', formatPercent(Number(p.fragmentation) || 0)),
        card('Lifetime peak', formatBytes(num(s.peakBytesUsageLifetime)),
             'as the allocator reported it'),
        ...counts);
}

// Memory stays as an event left it until the next event, so the series
// are drawn as steps ('after': hold the value, then jump).
function chartData(a, points, from, to) {
    const pts = points.filter((p) => p.step >= from && p.step <= to);
    const series = (pick) => pts.map((p) => ({ x: p.t / PS_PER_MS, y: pick(p) }));
    const s = a.profileSummary || {};
    // The peak is marked only when it lies inside the chosen step range.
    const peakX = num(s.peakStatsTimePs) / PS_PER_MS;
    const inRange = pts.length > 0 && peakX >= pts[0].t / PS_PER_MS
        && peakX <= pts[pts.length - 1].t / PS_PER_MS;
    const peak = inRange ? [{ x: peakX, y: num((s.peakStats || {}).peakBytesInUse) / MIB }] : [];
    return { datasets: [
        { label: 'Heap (MiB)', data: series((p) => p.heap / MIB),
          pointRadius: 0, borderWidth: 1.5, yAxisID: 'y', stepped: 'after' },
        { label: 'Stack (MiB)', data: series((p) => p.stack / MIB),
          pointRadius: 0, borderWidth: 1.5, yAxisID: 'y', stepped: 'after' },
        { label: 'Free (MiB)', data: series((p) => p.free / MIB),
          pointRadius: 0, borderWidth: 1, yAxisID: 'y', hidden: true, stepped: 'after' },
        { label: 'Fragmentation (%)', data: series((p) => p.frag * 100),
          pointRadius: 0, borderWidth: 1, borderDash: [4, 3], yAxisID: 'frag', stepped: 'after' },
        { label: 'Peak', data: peak, showLine: false, pointRadius: 6, pointStyle: 'triangle',
          yAxisID: 'y' },
    ] };
}

async function renderChart(inst, box, a, points, from, to) {
    inst.gen = (inst.gen || 0) + 1;
    const gen = inst.gen;
    inst.charts.splice(0).forEach((c) => c.destroy());
    // Chart.js sizes itself from the canvas's box, so the canvas goes in
    // the page before the chart is made.
    const canvas = h('canvas', { role: 'img',
        'aria-label': 'Memory in use over time; the triangle marks the peak' });
    box.replaceChildren(canvas);
    const chart = await createChart(canvas, {
        type: 'line',
        data: chartData(a, points, from, to),
        options: {
            scales: {
                x: { type: 'linear', title: { display: true, text: 'Time in the profile (ms)' } },
                y: { title: { display: true, text: 'MiB' }, beginAtZero: true },
                frag: { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false },
                        title: { display: true, text: 'Fragmentation %' } },
            },
        },
    });
    // A newer draw (another step range) or an unmount won while Chart.js
    // was loading: this chart's canvas is already gone.
    if (gen !== inst.gen || !inst.alive()) {
        chart.destroy();
        return;
    }
    inst.charts.push(chart);
}

function stepSelect(label, steps, value, onChange) {
    const sel = h('select', { 'aria-label': label,
                              on: { change: () => onChange(Number(sel.value)) } },
        steps.map((s) => h('option', { value: String(s), text: String(s) })));
    sel.value = String(value);
    return h('label', { class: 'mem-picker' }, h('span', { text: label }), sel);
}

function renderAllocator(inst, body, data, id) {
    const a = data.memoryProfilePerAllocator[id];
    const state = inst.state;
    inst.destroyParts();
    const points = timelinePoints(a);
    const steps = timelineSteps(points);
    const p = state.params;
    let from = steps.includes(Number(p.step_from)) ? Number(p.step_from) : steps[0];
    let to = steps.includes(Number(p.step_to)) ? Number(p.step_to) : steps[steps.length - 1];
    if (from > to)
        [from, to] = [to, from];
    const cards = h('div', { class: 'cards' });
    if (inUseUnknown(a, points)) {
        renderCards(cards, a, true);
        body.replaceChildren(cards, h('section', { class: 'message', role: 'status' },
            h('p', { text: IN_USE_UNKNOWN })));
        return;
    }
    renderCards(cards, a, false);
    const chartBox = h('div', { class: 'chart-box' });
    const redraw = () => {
        router.setParams({ step_from: String(from), step_to: String(to) });
        renderChart(inst, chartBox, a, points, from, to).catch((e) => showError(chartBox, e));
    };
    const range = steps.length > 1 ? h('div', { class: 'mem-range' },
        stepSelect('From step', steps, from, (v) => { from = Math.min(v, to); redraw(); }),
        stepSelect('To step', steps, to, (v) => { to = Math.max(v, from); redraw(); }))
        : null;
    const tableSection = h('section', { class: 'table-section' },
        h('h3', { text: 'Allocations alive at the peak' }),
        h('p', { class: 'hint', text: 'Click a row to open the trace viewer at that ' +
            'allocation. "Unused preallocated device memory" is heap the allocator held at ' +
            'the peak that no recorded allocation of the peak step explains.' }));
    body.replaceChildren(...[cards, range, chartBox, tableSection].filter(Boolean));
    const times = a.pvActiveAllocationTimes || [];
    inst.tables.push(createTable(tableSection, activeTable(a), {
        name: `memory_profile_${state.run}_${id}`,
        url: tableUrl(state, 'alloc'),
        onRowClick: (i) => {
            if (!times[i])
                return;
            const w = traceWindow(times[i]);
            router.navigate({ run: state.run, host: state.host, tool: 'trace_viewer@',
                              params: { start: String(Math.round(w.start)),
                                        end: String(Math.round(w.end)) } });
        },
    }));
    renderChart(inst, chartBox, a, points, from, to).catch((e) => showError(chartBox, e));
}

function render(el, state, inst, data) {
    inst.state = state;
    const ids = (data && data.memoryIds) || [];
    const head = h('div', { class: 'view-head' }, h('h2', { text: 'Memory profile' }));
    el.append(head);
    if (ids.length === 0) {
        const box = h('div');
        el.append(box);
        showMessage(box, data && data.memoryProfilePerAllocator ? NO_EVENTS
            : 'This profile has no host (/host:CPU) plane, where memory events are recorded.',
        NO_EVENTS_HINT);
        return;
    }
    const picker = h('select', { 'aria-label': 'Allocator' },
        ids.map((id) => h('option', { value: id, text: id })));
    const wanted = state.params.memory_id;
    picker.value = ids.includes(wanted) ? wanted : ids[0];
    head.append(
        h('label', { class: 'mem-picker' }, h('span', { text: 'Allocator' }), picker),
        h('a', { href: toolDataUrl(state.run, state.tool, state.host), target: '_blank',
                 rel: 'noopener', text: 'Raw data' }));
    const body = h('div', { class: 'view-body' });
    el.append(body);
    picker.addEventListener('change', () => {
        router.setParams({ memory_id: picker.value, step_from: undefined, step_to: undefined,
                           alloc_page: undefined },
                         { replace: false });
        inst.state = { ...inst.state, params: router.getParams() };
        renderAllocator(inst, body, data, picker.value);
    });
    renderAllocator(inst, body, data, picker.value);
}

export const { mount, unmount } = dataPage({
    label: 'Loading the memory profile…', stylesheets: ['memory_profile'],
    params: () => ({ pv_extras: 1 }), render });
