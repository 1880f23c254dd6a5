// hlo_stats.js: the HLO op statistics page (XProf's "HLO Op Stats"): every
// XLA op the device ran, by self time. A summary, two charts (self time by
// HLO category; the ops with the most self time), the table (sort, filter
// by text or regular expression on op, category and framework op names,
// paging, CSV of what is shown, and the server's full CSV), and the
// details of the op a row click selects, with its HLO text and links to
// the trace viewer and the graph viewer.
//
// Data: XProf's hlo_stats DataTable (docs/xla_tools.md). Tool state in the
// URL: program (a program id), category (an HLO category), op (the
// selected op, "<program id>/<op name>").

import { h } from '../dom.js';
import { formatCount, formatDurationUs, formatPercent } from '../format.js';
import * as router from '../router.js';
import { createTable, isDataTable } from '../table.js';
import { pickTable, rowObjects } from './lib/datatable.js';
import { dataPage } from './lib/page.js';
import { shareChart } from './lib/share_chart.js';
import { topTimeChart } from './lib/top_chart.js';
import { viewHead } from './lib/view_head.js';
import { XLA_STYLES, opLinks, paramPicker, sourceText } from './lib/xla.js';

const TOP_OPS = 10;
const TOP_CATEGORIES = 8;

// The table's columns, in the page's order (the rest are in the CSV).
const SHOWN = ['rank', 'program_id', 'category', 'hlo_op_name', 'tf_op_name', 'occurrences',
               'total_self_time', 'total_self_time_percent',
               'cumulative_total_self_time_percent', 'avg_time', 'model_flop_rate',
               'measured_memory_bw', 'operational_intensity', 'bound_by',
               'hlo_rematerialization'];


// ---- summaries (pure) ----------------------------------------------------------

// Self time (µs) by category, most first: [{category, us, share}].
export function byCategory(ops) {
    const m = new Map();
    let all = 0;
    for (const o of ops) {
        const us = Number(o.total_self_time) || 0;
        m.set(o.category, (m.get(o.category) || 0) + us);
        all += us;
    }
    return [...m.entries()].map(([category, us]) => ({ category, us,
                                                       share: all > 0 ? us / all : 0 }))
        .sort((a, b) => b.us - a.us || a.category.localeCompare(b.category));
}

// Self time (µs) by what bounds the ops: {Compute: us, HBM: us, ...}.
export function byBound(ops) {
    const out = {};
    for (const o of ops)
        out[o.bound_by] = (out[o.bound_by] || 0) + (Number(o.total_self_time) || 0);
    return out;
}

// The key an op is selected by in the URL.
export const opKey = (o) => `${o.program_id}/${o.hlo_op_name}`;

// ---- page ------------------------------------------------------------------------

// The slices of the category chart: the largest categories, the rest as
// one.
export function categorySlices(cats) {
    const rest = cats.slice(TOP_CATEGORIES).reduce((s, c) => s + c.us, 0);
    return cats.slice(0, TOP_CATEGORIES).map((c) => ({ label: c.category, us: c.us }))
        .concat(rest > 0 ? [{ label: 'other', us: rest }] : []);
}

// The bars of the top chart: the ops with the most self time.
export function topBars(ops) {
    return [...ops].sort((a, b) => (b.total_self_time || 0) - (a.total_self_time || 0))
        .slice(0, TOP_OPS)
        .map((o) => ({ label: `${o.hlo_op_name} (${o.program_id})`, us: o.total_self_time,
                       more: o.category }));
}

// The selected op's details: HLO text, framework op, source, rates, links.
function details(state, o) {
    if (!o)
        return h('p', { class: 'hint', text: 'Click a row to see its op here.' });
    const src = sourceText(o.source_info);
    const fmt = (v, unit) => (v === null || v === undefined ? '–'
        : `${Number(v).toPrecision(4)} ${unit}`);
    return h('div', { class: 'xla-details' },
        h('h3', {}, o.hlo_op_name, h('span', { class: 'hint',
            text: `  ${o.category} · program ${o.program_id}` })),
        opLinks(state, o.program_id, o.hlo_op_name),
        h('pre', { class: 'xla-expr', tabindex: '0', text: o.hlo_op_expression || '' }),
        h('dl', { class: 'xla-dl' },
            h('dt', { text: 'Framework op' }), h('dd', { text: o.tf_op_name || '–' }),
            h('dt', { text: 'Source' }), h('dd', { text: src.text || '–', title: src.stack }),
            h('dt', { text: 'Occurrences' }), h('dd', { text: formatCount(o.occurrences) }),
            h('dt', { text: 'Self time' }), h('dd', {
                text: `${formatDurationUs(o.total_self_time)} ` +
                      `(${Number(o.total_self_time_percent).toFixed(2)} %)` }),
            h('dt', { text: 'FLOP rate' }), h('dd', { text: fmt(o.model_flop_rate, 'GFLOP/s') }),
            h('dt', { text: 'Memory bandwidth' }),
            h('dd', { text: fmt(o.measured_memory_bw, 'GiB/s') }),
            h('dt', { text: 'Operational intensity' }),
            h('dd', { text: fmt(o.operational_intensity, 'FLOP/byte') }),
            h('dt', { text: 'Bound by' }), h('dd', { text: o.bound_by || '–' })));
}

function render(el, state, inst, dt) {
    el.append(viewHead(state, 'HLO op stats', { csv: true }));
    const all = rowObjects(dt);
    if (all.length === 0) {
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'No XLA ops ran on a device in this profile.' }),
            h('p', { class: 'hint', text: 'HLO op stats come from the XLA ops of GPU and TPU ' +
                'device planes (JAX, or TensorFlow with XLA); a CPU-only profile or one whose ' +
                'device tracer was off has none.' })));
        return;
    }
    const programs = [...new Set(all.map((o) => String(o.program_id)))]
        .sort((a, b) => Number(a) - Number(b));
    const cats = byCategory(all);
    const body = h('div');
    const redraw = () => {
        inst.destroyParts();
        const p = router.getParams();
        const keep = (o) => (!p.program || String(o.program_id) === p.program) &&
                            (!p.category || o.category === p.category);
        const ops = all.filter(keep);
        const selfUs = ops.reduce((s, o) => s + (Number(o.total_self_time) || 0), 0);
        const bound = byBound(ops);
        const boundText = Object.entries(bound).sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${formatPercent(v / (selfUs || 1))}`).join(', ');
        const topCanvas = h('canvas', { 'aria-label': 'Ops with the most self time' });
        const catCanvas = h('canvas', { 'aria-label': 'Self time by HLO category' });
        const detailBox = h('section', { class: 'xla-detail-box', 'aria-label': 'Selected op' });
        const tableBox = h('section', { class: 'table-section' });
        body.replaceChildren(
            h('p', { class: 'ks-summary', text: `${formatCount(ops.length)} ops, ` +
                `${formatDurationUs(selfUs)} of self time` +
                (boundText ? `; bound by ${boundText}.` : '.') }),
            h('div', { class: 'ks-charts' },
                h('figure', { class: 'ks-chart' },
                    h('figcaption', { text: 'Self time by HLO category' }),
                    h('div', { class: 'ks-chart-box ks-chart-small' }, catCanvas)),
                h('figure', { class: 'ks-chart' },
                    h('figcaption', { text: `Top ${TOP_OPS} ops by self time` }),
                    h('div', { class: 'ks-chart-box' }, topCanvas))),
            detailBox, tableBox);
        const shownDt = pickTable(dt, SHOWN, keep);
        const shownOps = all.filter(keep);
        const select = (o, push) => {
            detailBox.replaceChildren(details(state, o));
            if (push)
                router.setParams({ op: o ? opKey(o) : undefined }, { replace: false });
        };
        select(shownOps.find((o) => opKey(o) === p.op), false);
        const cat = shareChart(catCanvas);
        const top = topTimeChart(topCanvas, 'Self time (µs)');
        inst.charts.push(cat, top);
        cat.draw(categorySlices(byCategory(ops))).catch(() => {});
        top.draw(topBars(ops)).catch(() => {});
        inst.tables.push(createTable(tableBox, shownDt, {
            name: `hlo_stats_${state.run}_${state.host || ''}`,
            filterColumns: ['hlo_op_name', 'category', 'tf_op_name'],
            filterLabel: 'Filter op, category and framework op names',
            regexToggle: true,
            onRowClick: (i) => select(shownOps[i], true),
        }));
    };
    const programPick = paramPicker('Program', 'program',
        [{ value: '', text: `all ${programs.length}` }]
            .concat(programs.map((p) => ({ value: p, text: p }))), redraw);
    const catPick = paramPicker('Category', 'category',
        [{ value: '', text: `all ${cats.length}` }]
            .concat(cats.map((c) => ({ value: c.category, text: c.category }))), redraw);
    el.append(h('div', { class: 'ks-controls' }, programPick.el, catPick.el,
        h('span', { class: 'hint', text: 'Times add up every device and every run of the op.' })),
    body);
    redraw();
}

export const { mount, unmount } = dataPage({
    label: 'Loading HLO op stats…', stylesheets: XLA_STYLES,
    render: (el, state, inst, dt) => render(el, state, inst,
                                           isDataTable(dt) ? dt : { cols: [], rows: [] }) });
