// roofline_model.js: the roofline page (XProf's "Roofline Model"). Each XLA
// op (and each program as a whole) is a point at its operational
// intensity (FLOP per byte) and achieved FLOP rate, on log-log axes, under
// the device's roofs: the peak FLOP rate, and each memory's bandwidth
// times the intensity, meeting at that memory's ridge point. Below it the
// table of the same rows (sort, filter, paging, CSV), and the device's
// peaks. A point or row click selects the op: its numbers and links to
// the trace viewer and the graph viewer.
//
// Data: XProf's roofline_model answer [roofline DataTable with the
// device's peaks in "p", diagnostics DataTable]. Tool state in the URL:
// infeed=0 leaves infeed and outfeed out (XProf's second set of rows);
// op, the selected row ("<program id>/<op name>").

import { createChart } from '../chart.js';
import { clear, h } from '../dom.js';
import { formatCount, formatDurationUs, formatPercent } from '../format.js';
import * as router from '../router.js';
import { createTable, isDataTable } from '../table.js';
import { pickTable, rowObjects } from './lib/datatable.js';
import { dataPage, keepChart } from './lib/page.js';
import { viewHead } from './lib/view_head.js';
import { XLA_STYLES, opLinks } from './lib/xla.js';

const SHOWN = ['rank', 'hlo_module_id', 'category', 'operation', 'occurrences',
               'total_self_time', 'total_self_time_percent', 'measured_flop_rate',
               'measured_memory_bw', 'operational_intensity', 'bound_by',
               'roofline_efficiency', 'max_mem_bw_utilization'];

// The roofs XProf states for a device: [{name, bw, ridge}] (property names) of the
// memories whose peak it gives.
const MEMORIES = [
    { name: 'HBM', bw: 'peak_hbm_bw', ridge: 'hbm_ridge_point' },
    { name: 'CMEM read', bw: 'peak_cmem_read_bw', ridge: 'cmem_read_ridge_point' },
    { name: 'CMEM write', bw: 'peak_cmem_write_bw', ridge: 'cmem_write_ridge_point' },
    { name: 'VMEM read', bw: 'peak_vmem_read_bw', ridge: 'vmem_read_ridge_point' },
    { name: 'VMEM write / Shm', bw: 'peak_vmem_write_bw', ridge: 'vmem_write_ridge_point' },
];

const BOUND_COLORS = { Compute: '#0072b2', HBM: '#d55e00', 'Shm/L1': '#009e73',
                       'VMEM Read': '#009e73', 'VMEM Write': '#56b4e9',
                       'CMEM Read': '#cc79a7', 'CMEM Write': '#e69f00', Unknown: '#999999' };


// ---- roofs (pure) -----------------------------------------------------------------

// The device's roofs from the table's properties: {peak (GFLOP/s), roofs:
// [{name, ridge (FLOP/byte)}]} for every memory with a peak and a ridge.
export function roofsOf(p) {
    const peak = Number(p.peak_flop_rate) || 0;
    const roofs = MEMORIES.map((m) => ({ name: m.name, bw: Number(p[m.bw]) || 0,
                                         ridge: Number(p[m.ridge]) || 0 }))
        .filter((m) => m.bw > 0 && m.ridge > 0);
    return { peak, roofs };
}

// The attainable FLOP rate at intensity x under a roof whose ridge point
// is ridge: peak x / ridge below the ridge, the peak above it.
export function attainable(peak, ridge, x) {
    return x >= ridge ? peak : (peak * x) / ridge;
}

// Points [{x, y}] of a roof over [xMin, xMax] (log axes: its two ends and
// the ridge).
export function roofLine(peak, ridge, xMin, xMax) {
    const xs = [xMin, Math.min(Math.max(ridge, xMin), xMax), xMax];
    return xs.map((x) => ({ x, y: attainable(peak, ridge, x) }));
}

export const rowKey = (r) => `${r.hlo_module_id}/${r.operation}`;

// ---- page ---------------------------------------------------------------------------

function chartOf(canvas, rows, roof, onPick) {
    const pts = rows.filter((r) => r.operational_intensity > 0 && r.measured_flop_rate > 0);
    const xs = pts.map((r) => r.operational_intensity).concat(roof.roofs.map((m) => m.ridge));
    const xMin = Math.max(1e-3, Math.min(...xs, 1) / 4);
    const xMax = Math.max(...xs, 1) * 4;
    const bounds = [...new Set(pts.map((r) => r.bound_by))];
    const datasets = bounds.map((b) => {
        const mine = pts.filter((r) => r.bound_by === b);
        return { type: 'scatter', label: `ops bound by ${b}`, rows: mine,
                 data: mine.map((r) => ({ x: r.operational_intensity, y: r.measured_flop_rate })),
                 backgroundColor: BOUND_COLORS[b] || '#666', pointRadius: 4,
                 pointHoverRadius: 6 };
    });
    roof.roofs.forEach((m, i) => {
        const color = i === 0 ? '#333333' : '#888888';
        datasets.push({
            type: 'line', label: `${m.name} roof (ridge ${m.ridge.toPrecision(4)} FLOP/byte)`,
            data: roofLine(roof.peak, m.ridge, xMin, xMax), borderColor: color,
            backgroundColor: color, borderDash: i === 0 ? [] : [6, 4], pointRadius: 0,
            borderWidth: 2, fill: false });
    });
    return createChart(canvas, {
        type: 'scatter',
        data: { datasets },
        options: {
            onClick: (evt, items) => {
                const it = items.find((x) => datasets[x.datasetIndex].rows);
                if (it)
                    onPick(datasets[it.datasetIndex].rows[it.index]);
            },
            plugins: { tooltip: { callbacks: { label: (item) => {
                const r = (datasets[item.datasetIndex].rows || [])[item.dataIndex];
                if (!r)
                    return ` ${datasets[item.datasetIndex].label}`;
                return ` ${r.operation} (${r.category}): ${Number(r.measured_flop_rate)
                    .toPrecision(4)} GFLOP/s at ${Number(r.operational_intensity)
                    .toPrecision(4)} FLOP/byte, ${formatDurationUs(r.total_self_time)}`;
            } } } },
            scales: {
                x: { type: 'logarithmic', min: xMin, max: xMax,
                     title: { display: true, text: 'Operational intensity (FLOP/byte)' } },
                y: { type: 'logarithmic',
                     title: { display: true, text: 'FLOP rate (GFLOP/s)' } },
            },
        },
    });
}

function details(state, r) {
    if (!r)
        return h('p', { class: 'hint', text: 'Click a point or a row to see its op here.' });
    const n = (v, unit) => `${Number(v || 0).toPrecision(4)} ${unit}`;
    const program = r.category === 'Program' ? null : r.hlo_module_id;
    return h('div', { class: 'xla-details' },
        h('h3', {}, r.operation, h('span', { class: 'hint',
            text: `  ${r.category} · program ${r.hlo_module_id}` })),
        r.category === 'Program' ? null : opLinks(state, program, r.operation),
        h('dl', { class: 'xla-dl' },
            h('dt', { text: 'Self time' }), h('dd', { text: `${formatDurationUs(r.total_self_time)} ` +
                `(${Number(r.total_self_time_percent || 0).toFixed(2)} %)` }),
            h('dt', { text: 'Occurrences' }), h('dd', { text: formatCount(r.occurrences) }),
            h('dt', { text: 'FLOP rate' }), h('dd', { text: n(r.measured_flop_rate, 'GFLOP/s') }),
            h('dt', { text: 'Memory bandwidth' }), h('dd', { text: n(r.measured_memory_bw, 'GiB/s') }),
            h('dt', { text: 'Operational intensity' }),
            h('dd', { text: n(r.operational_intensity, 'FLOP/byte') }),
            h('dt', { text: 'Bound by' }), h('dd', { text: r.bound_by || '–' }),
            h('dt', { text: 'Roofline efficiency' }),
            h('dd', { text: formatPercent(Number(r.roofline_efficiency) || 0, 1) })));
}

// XProf answers a profile without XLA ops (TensorFlow without XLA) with
// only its per-program total rows, all of zero time: nothing to place.
export function hasXlaOps(rows) {
    return rows.some((r) => r.category !== 'Program' || Number(r.total_self_time) > 0);
}

function render(el, state, inst, data) {
    clear(el);
    el.append(viewHead(state, 'Roofline model', { csv: true }));
    const dt = Array.isArray(data) && isDataTable(data[0]) ? data[0] : null;
    const all = dt ? rowObjects(dt) : [];
    if (!hasXlaOps(all)) {
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'No XLA ops ran on a device in this profile.' }),
            h('p', { class: 'hint', text: 'The roofline model places the XLA ops of GPU and ' +
                'TPU device planes under the device\'s peaks; a CPU-only profile has none.' })));
        return;
    }
    const p = dt.p || {};
    const roof = roofsOf(p);
    const withInfeed = router.getParams().infeed !== '0';
    const rows = all.filter((r) => r.step === 'Total' &&
                                   Boolean(r.include_infeed_outfeed) === withInfeed);
    const infeedBox = h('input', { type: 'checkbox' });
    infeedBox.checked = withInfeed;
    infeedBox.addEventListener('change', () => {
        router.setParams({ infeed: infeedBox.checked ? undefined : '0' }, { replace: false });
        inst.destroyParts();
        render(el, state, inst, data);
    });
    const peaks = [`peak ${Number(roof.peak).toPrecision(4)} GFLOP/s`]
        .concat(roof.roofs.map((m) => `${m.name} ${m.bw.toPrecision(4)} GiB/s, ridge ` +
                                      `${m.ridge.toPrecision(4)} FLOP/byte`));
    el.append(h('div', { class: 'ks-controls' },
        h('label', {}, infeedBox, ' Include infeed and outfeed'),
        h('span', { class: 'hint xla-peaks',
                    text: `${p.device_type || 'device'}: ${peaks.join('; ')}` +
                          (roof.peak > 0 ? '' : ' (peaks unknown: no roof is drawn)') })));
    const detailBox = h('section', { class: 'xla-detail-box', 'aria-label': 'Selected op' });
    const select = (r, push) => {
        detailBox.replaceChildren(details(state, r));
        if (push)
            router.setParams({ op: r ? rowKey(r) : undefined }, { replace: false });
    };
    const canvas = h('canvas', { 'aria-label': 'Ops on the roofline chart' });
    const tableBox = h('section', { class: 'table-section' });
    el.append(h('figure', { class: 'ks-chart xla-roofline' },
        h('figcaption', { text: 'FLOP rate against operational intensity, under the roofs' }),
        h('div', { class: 'ks-chart-box xla-roofline-box' }, canvas)),
    detailBox, tableBox);
    select(rows.find((r) => rowKey(r) === router.getParams().op), false);
    keepChart(inst, chartOf(canvas, rows, roof, (r) => select(r, true)), canvas.parentElement);
    const keep = (r) => r.step === 'Total' && Boolean(r.include_infeed_outfeed) === withInfeed;
    inst.tables.push(createTable(tableBox, pickTable(dt, SHOWN, keep), {
        name: `roofline_${state.run}_${state.host || ''}`,
        filterColumns: ['operation', 'category', 'bound_by'],
        filterLabel: 'Filter op names, categories and bounds',
        regexToggle: true,
        onRowClick: (i) => select(rows[i], true),
    }));
    const diag = Array.isArray(data) && isDataTable(data[1]) ? rowObjects(data[1]) : [];
    if (diag.length > 0) {
        el.append(h('section', { class: 'xla-diagnostics', 'aria-label': 'Diagnostics' },
            diag.map((d) => h('p', { class: 'hint', text: `${d.severity}: ${d.message}` }))));
    }
}

export const { mount, unmount } = dataPage({ label: 'Loading the roofline model…',
                                             stylesheets: XLA_STYLES, render });
