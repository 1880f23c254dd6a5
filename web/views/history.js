// history.js: every run of the logdir, or of one folder of it, in the
// order it was written (#/page/history): step time, the share of it spent
// waiting for input, the device idle share and the largest memory peak, as
// charts and a table (api/history, the briefs /metrics reports too). A
// point or a row opens that run; a click on a point, then on another, opens
// their comparison. Briefs the server has not read yet arrive as it reads
// them: the page asks again while some are pending.
//
// URL: ?prefix=<folder/>&sel=<run> (the first point picked). The pure parts
// (folders, series, peakOf) are tested under node.

import * as api from '../api.js';
import { createChart } from '../chart.js';
import { ensureStylesheet, fillSelect, h } from '../dom.js';
import { formatBytes } from '../format.js';
import * as router from '../router.js';
import { createTable } from '../table.js';
import { showError, showMessage, showProgress } from '../status.js';

const POLL_MS = 1000;

// ---- pure -----------------------------------------------------------------

// The folders runs are grouped in ("model/" of "model/2024_..."), each with
// its trailing slash, sorted; a logdir with runs at its root has none.
export function folders(names) {
    const set = new Set();
    for (const n of names) {
        const parts = n.split('/');
        for (let i = 1; i < parts.length; i++)
            set.add(`${parts.slice(0, i).join('/')}/`);
    }
    return [...set].sort();
}

// The largest memory peak of a brief, or null.
export function peakOf(brief) {
    const peaks = (brief?.peak_memory || []).map((p) => p.peak_bytes);
    return peaks.length ? Math.max(...peaks) : null;
}

// The chart series of a history: values per run, null where unknown.
export function series(runs) {
    const pick = (f) => runs.map((r) => (r.brief ? f(r.brief) : null));
    return {
        labels: runs.map((r) => r.run),
        stepMs: pick((b) => b.step_time_ms),
        inputPct: pick((b) => b.input_percent),
        idlePct: pick((b) => b.device_idle_percent),
        peakBytes: pick(peakOf),
    };
}

// ---- the page -----------------------------------------------------------------

let current = null;

const runHash = (run) => router.formatHash({ run, tool: 'overview_page', params: {} });

function openRun(run) {
    router.navigate({ run, tool: 'overview_page', params: {} });
}

// A click on a point: the first picks it, a second opens the comparison.
function clickPoint(state, inst, run) {
    const sel = inst.sel;
    if (sel && sel !== run) {
        // After Chart.js has finished with the click: leaving the page
        // destroys the chart it is handling the click for.
        setTimeout(() => router.navigate({ page: 'compare', params: { base: sel, new: run } }), 0);
        return;
    }
    inst.sel = run;
    state.setParams({ sel: run }, { replace: false });
    showSelection(state, inst);
}

function showSelection(state, inst) {
    const box = inst.selBox;
    if (!box)
        return;
    if (!inst.sel) {
        box.replaceChildren(h('p', { class: 'hint', text: 'Click a point to pick a run, then ' +
            'another to compare the two; a row of the table opens its run.' }));
        return;
    }
    box.replaceChildren(h('p', {}, 'Picked ', h('a', { href: runHash(inst.sel), text: inst.sel }),
        '. Click another point to compare it with this one, or ',
        h('button', { type: 'button', text: 'clear', on: { click: () => {
            inst.sel = undefined;
            state.setParams({ sel: undefined }, { replace: false });
            showSelection(state, inst);
        } } }), '.'));
}

async function lineChart(box, title, labels, datasets, yTitle, state, inst, tick) {
    if (datasets.every((d) => d.data.every((v) => v === null)))
        return;
    const canvas = h('canvas', { 'aria-label': title });
    box.append(h('section', { class: 'hist-chart' }, h('h3', { text: title }),
        h('div', { class: 'hist-canvas' }, canvas)));
    const chart = await createChart(canvas, {
        type: 'line',
        data: { labels, datasets: datasets.map((d) => ({ ...d, spanGaps: true, pointRadius: 4,
                                                        pointHoverRadius: 7 })) },
        options: {
            onClick: (_e, els) => {
                if (els.length)
                    clickPoint(state, inst, labels[els[0].index]);
            },
            scales: {
                x: { ticks: { autoSkip: true, maxRotation: 0,
                              callback: (i) => labels[i].split('/').pop() } },
                y: { beginAtZero: true, title: { display: true, text: yTitle },
                     ticks: tick ? { callback: tick } : {} },
            },
        },
    });
    if (inst === current)
        inst.charts.push(chart);
    else
        chart.destroy();
}

function historyTable(runs) {
    const fmt = (v, d) => (v === null || v === undefined ? null
        : Math.round(v * 10 ** d) / 10 ** d);
    return {
        cols: [
            { id: 'run', label: 'Run', type: 'string' },
            { id: 'written', label: 'Written', type: 'string' },
            { id: 'steps', label: 'Steps', type: 'number' },
            { id: 'step', label: 'Step time (ms)', type: 'number' },
            { id: 'input', label: 'Input-bound (%)', type: 'number' },
            { id: 'idle', label: 'Device idle (%)', type: 'number' },
            { id: 'peak', label: 'Largest memory peak', type: 'number' },
        ],
        rows: runs.map((r) => {
            const b = r.brief || {};
            const peak = peakOf(r.brief);
            return { c: [
                { v: r.run },
                { v: new Date(r.time_s * 1000).toISOString().replace('T', ' ').slice(0, 19) },
                { v: r.brief ? b.steps : null },
                { v: fmt(b.step_time_ms, 3) },
                { v: fmt(b.input_percent, 1) },
                { v: fmt(b.device_idle_percent, 1) },
                { v: peak, f: peak === null ? '' : formatBytes(peak) },
            ] };
        }),
    };
}

async function draw(el, state, inst, h0) {
    const s = series(h0.runs);
    const charts = h('div', { class: 'hist-charts' });
    inst.body.replaceChildren(charts, inst.selBox);
    showSelection(state, inst);
    await lineChart(charts, 'Mean step time', s.labels, [{ label: 'Step time (ms)',
        data: s.stepMs }], 'ms', state, inst);
    await lineChart(charts, 'Input-bound and device idle shares', s.labels,
        [{ label: 'Waiting for input (%)', data: s.inputPct },
         { label: 'Device idle (%)', data: s.idlePct }], '%', state, inst);
    await lineChart(charts, 'Largest memory peak', s.labels, [{ label: 'Peak',
        data: s.peakBytes }], 'bytes', state, inst, (v) => formatBytes(v, 3));
    if (inst !== current)
        return;
    const sec = h('section', { class: 'table-section' }, h('h3', { text: 'Runs' }));
    inst.body.append(sec);
    inst.tables.push(createTable(sec, historyTable(h0.runs), {
        name: 'run_history', onRowClick: (i) => openRun(h0.runs[i].run) }));
}

async function poll(el, state, inst) {
    let data;
    try {
        data = await api.runHistory(state.params.prefix, { signal: inst.controller.signal });
    } catch (e) {
        if (inst === current && !api.isAbort(e))
            showError(inst.body, e, { retry: () => poll(el, state, inst) });
        return;
    }
    if (inst !== current)
        return;
    inst.pending.textContent = data.pending > 0
        ? `Reading ${data.pending} more run${data.pending === 1 ? '' : 's'}…` : '';
    if (data.runs.length === 0) {
        showMessage(inst.body, state.params.prefix
            ? `No run's name starts with "${state.params.prefix}".`
            : 'No runs yet: the logdir holds no profiles.');
    } else {
        for (const c of inst.charts)
            c.destroy();
        for (const t of inst.tables)
            t.destroy();
        inst.charts = [];
        inst.tables = [];
        await draw(el, state, inst, data);
    }
    if (data.pending > 0 && inst === current)
        inst.timer = setTimeout(() => poll(el, state, inst), POLL_MS);
}

export async function mount(el, state) {
    ensureStylesheet('history');
    const inst = { controller: new AbortController(), charts: [], tables: [], timer: null,
                   sel: state.params.sel, selBox: h('div', { class: 'hist-sel' }),
                   body: h('div', { class: 'hist-body' }),
                   pending: h('span', { class: 'hint', 'aria-live': 'polite' }) };
    current = inst;
    const folder = h('select', { 'aria-label': 'Folder' });
    const head = h('div', { class: 'view-body' },
        h('h2', { text: 'Run history' }),
        h('div', { class: 'hist-controls' },
          h('label', { class: 'picker' }, h('span', { text: 'Runs of' }), folder), inst.pending),
        inst.body);
    el.replaceChildren(head);
    showProgress(inst.body, 'Reading the runs…');
    try {
        const names = await api.listRuns({ signal: inst.controller.signal });
        if (inst !== current)
            return;
        fillSelect(folder, [{ value: '', label: 'the whole logdir' },
                            ...folders(names).map((f) => ({ value: f, label: f }))],
                   state.params.prefix ?? '');
        folder.addEventListener('change', () => {
            const next = { prefix: folder.value || undefined, sel: undefined };
            state.setParams(next, { replace: false });
            unmount();
            mount(el, { ...state, params: next });
        });
    } catch (e) {
        if (inst === current && !api.isAbort(e))
            showError(inst.body, e);
        return;
    }
    await poll(el, state, inst);
}

export function unmount() {
    if (!current)
        return;
    current.controller.abort();
    clearTimeout(current.timer);
    for (const c of current.charts)
        c.destroy();
    for (const t of current.tables)
        t.destroy();
    current = null;
}
