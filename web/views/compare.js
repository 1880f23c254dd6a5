// compare.js: two runs (or two hosts) side by side (#/page/compare). The
// numbers are `profview compare`'s (api/compare): the step time and its
// breakdown, input and idle shares, device utilization and memory peaks with
// their change, the breakdown as paired bars, and every op and kernel that
// was added, removed or changed in sortable, filterable tables with CSV.
//
// The page lives in the URL: ?base=R&new=R2[&base_host=H][&new_host=H2], so
// a copied link shows the same comparison. Without runs it compares the two
// newest. The pure parts (headlines, deltaTable, defaultPair) are tested
// under node.

import * as api from '../api.js';
import { createChart } from '../chart.js';
import { ensureStylesheet, fillSelect, h } from '../dom.js';
import { formatBytes } from '../format.js';
import { createTable } from '../table.js';
import { showError, showMessage, showProgress } from '../status.js';

// ---- pure -----------------------------------------------------------------

// The base and new runs to show: the URL's, else the second newest and the
// newest of runs (listed newest first, as api/runs does).
export function defaultPair(params, runs) {
    return {
        base: params.base ?? runs[Math.min(1, runs.length - 1)],
        new: params.new ?? runs[0],
    };
}

// Rows [{label, base, new, kind}] of the headline table from a comparison;
// kind is 'ms', 'pct' or 'bytes'. A row neither run has is left out.
export function headlines(c) {
    const rows = [{ label: 'Step time', base: c.step_time_ms.base, new: c.step_time_ms.new,
                    kind: 'ms' }];
    for (const p of c.breakdown) {
        if ((p.base_ms || 0) > 0 || (p.new_ms || 0) > 0)
            rows.push({ label: `  ${p.label}`, base: p.base_ms, new: p.new_ms, kind: 'ms' });
    }
    const shares = [
        ['Input-bound', c.input_percent],
        ['Device idle', c.device_idle_percent],
        ['Tensor-core share of kernel time', c.tensor_core_percent],
    ];
    for (const [label, v] of shares) {
        if (v.base !== null || v.new !== null)
            rows.push({ label, base: v.base, new: v.new, kind: 'pct' });
    }
    for (const d of c.utilization)
        rows.push({ label: `Busy ${d.host ? `${d.host}/` : ''}${d.name}`, base: d.value.base,
                    new: d.value.new, kind: 'pct' });
    for (const m of c.memory)
        rows.push({ label: `Memory peak ${m.host ? `${m.host}/` : ''}${m.name}`,
                    base: m.value.base, new: m.value.new, kind: 'bytes' });
    return rows;
}

const ms = (us) => Math.round(us) / 1000;

// A DataTable of op or kernel deltas (times in us from the server, shown in
// ms), for table.js: sortable by any column, filterable, exportable.
export function deltaTable(items, withSide) {
    const cols = [
        { id: 'change', label: 'Change', type: 'string' },
        ...(withSide ? [{ id: 'side', label: 'Side', type: 'string' }] : []),
        { id: 'name', label: withSide ? 'Op' : 'Kernel', type: 'string' },
        { id: 'category', label: withSide ? 'Category' : 'Op', type: 'string' },
        { id: 'base', label: 'Base (ms)', type: 'number' },
        { id: 'new', label: 'New (ms)', type: 'number' },
        { id: 'delta', label: 'Change (ms)', type: 'number' },
        { id: 'ratio', label: 'New / base', type: 'number' },
    ];
    const rows = items.map((x) => ({ c: [
        { v: x.change },
        ...(withSide ? [{ v: x.side }] : []),
        { v: x.name },
        { v: x.category },
        { v: ms(x.base_us) },
        { v: ms(x.new_us) },
        { v: ms(x.delta_us) },
        { v: x.base_us > 0 ? Math.round((1000 * x.new_us) / x.base_us) / 1000 : null },
    ] }));
    return { cols, rows };
}

// ---- the page -----------------------------------------------------------------

function show(kind, v) {
    if (v === null || v === undefined)
        return '—';
    if (kind === 'bytes')
        return formatBytes(v);
    return kind === 'pct' ? `${v.toFixed(1)}%` : `${v.toFixed(3)} ms`;
}

function change(r) {
    if (r.base === null || r.new === null || r.base === undefined || r.new === undefined)
        return '';
    if (r.kind === 'pct')
        return `${r.new - r.base >= 0 ? '+' : ''}${(r.new - r.base).toFixed(1)} pt`;
    if (r.base === 0)
        return '';
    const p = (100 * (r.new - r.base)) / r.base;
    return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

function headlineTable(c) {
    return h('table', { class: 'data-table cmp-headlines' },
        h('thead', {}, h('tr', {}, ['', 'Base', 'New', 'Change'].map((t, i) =>
            h('th', { scope: 'col', class: i ? 'num' : null, text: t })))),
        h('tbody', {}, headlines(c).map((r) => h('tr', {},
            h('th', { scope: 'row', text: r.label }),
            h('td', { class: 'num', text: show(r.kind, r.base) }),
            h('td', { class: 'num', text: show(r.kind, r.new) }),
            h('td', { class: 'num', text: change(r) })))));
}

let current = null;

// One run-and-host picker: run select, host select ('' = all hosts).
function runPicker(label, runs, run, host, onChange) {
    const runSel = h('select', { 'aria-label': `${label} run` });
    const hostSel = h('select', { 'aria-label': `${label} host` });
    fillSelect(runSel, runs.map((r) => ({ value: r, label: r })), run);
    const fillHosts = async (r, keep) => {
        let hosts = [];
        try {
            hosts = (await api.listHosts(r, 'overview_page')).filter((x) => x !== 'ALL_HOSTS');
        } catch {
            // A run without an overview is still compared on what it has.
        }
        const all = hosts.length > 1 ? 'All hosts' : (hosts[0] ?? 'All hosts');
        const opts = [{ value: '', label: all }];
        if (hosts.length > 1)
            opts.push(...hosts.map((x) => ({ value: x, label: x })));
        fillSelect(hostSel, opts, keep && hosts.includes(keep) ? keep : '');
    };
    fillHosts(run, host);
    runSel.addEventListener('change', () => onChange(runSel.value, undefined));
    hostSel.addEventListener('change', () => onChange(runSel.value, hostSel.value || undefined));
    return h('fieldset', { class: 'cmp-side' }, h('legend', { text: label }), runSel, hostSel);
}

async function breakdownChart(box, c, inst) {
    const parts = c.breakdown.filter((p) => (p.base_ms || 0) > 0 || (p.new_ms || 0) > 0);
    if (!parts.length) {
        box.append(h('p', { class: 'hint', text: 'Neither run has steps to break down.' }));
        return;
    }
    const canvas = h('canvas', { 'aria-label': 'Step-time breakdown, base and new' });
    box.append(h('div', { class: 'cmp-chart' }, canvas));
    const chart = await createChart(canvas, {
        type: 'bar',
        data: {
            labels: parts.map((p) => p.label),
            datasets: [{ label: 'Base', data: parts.map((p) => p.base_ms) },
                       { label: 'New', data: parts.map((p) => p.new_ms) }],
        },
        options: { indexAxis: 'y', scales: { x: { title: { display: true,
            text: 'Mean per step (ms)' } } } },
    });
    if (inst === current)
        inst.charts.push(chart);
    else
        chart.destroy();
}

function itemsSection(title, d, withSide, name, inst) {
    const sec = h('section', { class: 'table-section' }, h('h3', {
        text: `${title}: ${d.added} added, ${d.removed} removed, ${d.changed} changed` }));
    if (d.top.length === 0)
        sec.append(h('p', { class: 'hint', text: `No ${title.toLowerCase()} moved.` }));
    else
        inst.tables.push(createTable(sec, deltaTable(d.top, withSide),
            { name, filterLabel: `Filter ${title.toLowerCase()}`, regexToggle: true }));
    return sec;
}

async function render(el, state, inst) {
    const runs = await api.listRuns({ signal: inst.controller.signal });
    if (inst !== current)
        return;
    if (runs.length === 0) {
        showMessage(el, 'No runs to compare: the logdir holds no profiles.');
        return;
    }
    const pair = defaultPair(state.params, runs);
    const p = { base: pair.base, new: pair.new, base_host: state.params.base_host,
                new_host: state.params.new_host };
    if (state.params.base === undefined || state.params.new === undefined)
        state.setParams(p);
    const pick = (side) => (run, host) => {
        const next = { ...p, [side]: run, [`${side}_host`]: host };
        state.setParams(next, { replace: false });
        remount(el, { ...state, params: next });
    };
    const swap = h('button', { type: 'button', text: 'Swap', on: { click: () => {
        const next = { base: p.new, new: p.base, base_host: p.new_host, new_host: p.base_host };
        state.setParams(next, { replace: false });
        remount(el, { ...state, params: next });
    } } });
    const body = h('div', { class: 'view-body cmp' },
        h('h2', { text: 'Compare runs' }),
        h('div', { class: 'cmp-pickers' },
          runPicker('Base', runs, p.base, p.base_host, pick('base')), swap,
          runPicker('New', runs, p.new, p.new_host, pick('new'))));
    const result = h('div', { class: 'cmp-result' });
    body.append(result);
    el.replaceChildren(body);
    showProgress(result, 'Reading both runs…');
    let c;
    try {
        c = await api.compareRuns(p, { signal: inst.controller.signal });
    } catch (e) {
        if (inst === current && !api.isAbort(e))
            showError(result, e, { retry: () => remount(el, state) });
        return;
    }
    if (inst !== current)
        return;
    const ratio = c.step_time_ms.ratio;
    result.replaceChildren(
        h('p', { class: 'cmp-verdict', text: ratio === null ? 'The step time of one run is not '
            + 'known (no steps), so only the tables below compare them.'
            : `New's mean step time is ${ratio.toFixed(3)} × base's (${show('ms',
                c.step_time_ms.base)} → ${show('ms', c.step_time_ms.new)}).` }),
        h('section', {}, h('h3', { text: 'Side by side' }), headlineTable(c)));
    const chartBox = h('section', {}, h('h3', { text: 'Step-time breakdown' }));
    result.append(chartBox);
    await breakdownChart(chartBox, c, inst);
    if (inst !== current)
        return;
    result.append(itemsSection('Ops', c.ops, true, `compare_ops_${p.base}_${p.new}`, inst),
                  itemsSection('Kernels', c.kernels, false, `compare_kernels_${p.base}_${p.new}`,
                               inst));
}

function remount(el, state) {
    unmount();
    mount(el, state);
}

export async function mount(el, state) {
    ensureStylesheet('compare');
    const inst = { controller: new AbortController(), charts: [], tables: [] };
    current = inst;
    try {
        await render(el, state, inst);
    } catch (e) {
        if (inst === current && !api.isAbort(e))
            showError(el, e, { retry: () => remount(el, state) });
    }
}

export function unmount() {
    if (!current)
        return;
    current.controller.abort();
    for (const c of current.charts)
        c.destroy();
    for (const t of current.tables)
        t.destroy();
    current = null;
}
