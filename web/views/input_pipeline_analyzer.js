// input_pipeline_analyzer.js: the input pipeline analyzer. The same verdict
// as the overview page; per-step input time (waiting on the host and
// host-to-device transfer) as a stacked chart and a table with average,
// standard deviation, minimum and maximum; and the host-side tf.data
// analysis: the iterator tree of each pipeline with total and self time and
// call counts, the bottleneck stage and what to do about it.
//
// Data: the reference's input_pipeline_analyzer array of 5 DataTables
// (FORMATS.md §4.4) with profview's pv_* additions.

import { h } from '../dom.js';
import { formatCount, formatDurationUs } from '../format.js';
import { createTable, tableUrl } from '../table.js';
import { card, cardRow } from './lib/cards.js';
import { dataPage } from './lib/page.js';
import {
    STEP_STYLES, diagnosticsList, stepChart, stepViewBody, verdictBox,
} from './lib/step_parts.js';
import {
    NO_STEPS, NO_STEPS_HINT, STEP_COLORS, parseStepTable, parseTpuSteps, stepAdvice, stepLayout,
    stepParams, stripTags, summarize,
} from './lib/step_table.js';
import { chartSection, stepCards } from './lib/tpu_steps.js';

// ---- the iterator tree (pure) --------------------------------------------------

// "Iterator::Model::Map[0]::Batch" -> ["Iterator", "Model", "Map[0]", "Batch"]
function parts(name) {
    return name.split('::');
}

// The parent path of an iterator name: its prefix with the input index of
// the last parent component dropped ("Zip[0]" -> "Zip"), as tf.data names
// a stage's i-th input.
export function parentName(name) {
    const p = parts(name);
    if (p.length <= 2)
        return null;
    const up = p.slice(0, -1);
    up[up.length - 1] = up[up.length - 1].replace(/\[\d+\]$/, '');
    return up.join('::');
}

// Rows of the host-ops table ordered as a tree: [{name, stage, depth, count,
// totalMs, selfMs, selfPct, category}], each parent before its children,
// siblings by total time. Names whose parent is missing become roots.
export function iteratorTree(rows) {
    const byName = new Map(rows.map((r) => [r.name, { ...r, children: [] }]));
    const roots = [];
    for (const n of byName.values()) {
        const p = parentName(n.name);
        const parent = p && byName.get(p);
        if (parent)
            parent.children.push(n);
        else
            roots.push(n);
    }
    const out = [];
    const walk = (n, depth) => {
        const stage = parts(n.name).slice(-1)[0];
        out.push({ ...n, stage, depth });
        n.children.sort((a, b) => b.totalMs - a.totalMs).forEach((c) => walk(c, depth + 1));
    };
    roots.sort((a, b) => b.totalMs - a.totalMs).forEach((r) => walk(r, 0));
    return out;
}

function hostRows(dt) {
    return (dt.rows || []).map((r) => ({
        name: r.c[0].v, count: r.c[1].v, totalMs: r.c[2].v, selfMs: r.c[4].v,
        selfPct: 100 * r.c[5].v, category: r.c[6].v,
    }));
}

// ---- DOM -----------------------------------------------------------------------

function inputTable(steps) {
    const cols = [
        { id: 'step', label: 'Step', type: 'string' },
        { id: 'input', label: 'Input (ms)', type: 'number' },
        { id: 'wait', label: 'Waiting on host (ms)', type: 'number' },
        { id: 'h2d', label: 'Host to device (ms)', type: 'number' },
        { id: 'step_time', label: 'Step time (ms)', type: 'number' },
        { id: 'pct', label: 'Input (% of step)', type: 'number' },
    ];
    const r3 = (x) => Math.round(x * 1000) / 1000;
    const rows = steps.map((s) => ({ c: [
        { v: s.name }, { v: r3(s.cats.infeedTimeMs) }, { v: r3(s.waitMs) }, { v: r3(s.h2dMs) },
        { v: r3(s.stepMs) },
        { v: s.stepMs > 0 ? Math.round(1000 * s.cats.infeedTimeMs / s.stepMs) / 10 : 0 },
    ] }));
    return { cols, rows };
}

function statsLine(label, st) {
    return h('tr', {}, h('th', { scope: 'row', text: label }),
        [st.average, st.stddev, st.min, st.max].map((v) => h('td', { class: 'num',
                                                                    text: v.toFixed(3) })));
}

function inputStats(steps) {
    return h('table', { class: 'data-table steps-stats' },
        h('caption', { text: 'Per-step summary (ms)' }),
        h('thead', {}, h('tr', {}, ['', 'Average', 'Std. dev.', 'Minimum', 'Maximum'].map(
            (t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {},
            statsLine('Input', summarize(steps.map((s) => s.cats.infeedTimeMs))),
            statsLine('Waiting on host', summarize(steps.map((s) => s.waitMs))),
            statsLine('Host to device', summarize(steps.map((s) => s.h2dMs))),
            statsLine('Step time', summarize(steps.map((s) => s.stepMs)))));
}

export function treeView(hostDt) {
    const p = hostDt.p || {};
    const rows = iteratorTree(hostRows(hostDt));
    const sec = h('section', { class: 'table-section' },
        h('h3', { text: 'Host-side analysis: tf.data iterators' }));
    if (!rows.length) {
        sec.append(h('p', { class: 'hint', text: 'No tf.data iterator, infeed or host-to-device ' +
            'copy was recorded on the host, so the input time cannot be split further. ' +
            'Profiles of custom (non tf.data) input pipelines look like this.' }));
        return sec;
    }
    const us = (k) => formatDurationUs(Number(p[k] || 0));
    sec.append(cardRow([
        card('Preprocessing', us('preprocessing_us')),
        card('Reading files on demand', us('demanded_file_read_us')),
        card('Reading files in advance', us('advanced_file_read_us')),
        card('Enqueue / host-to-device', us('enqueue_us')),
        card('Other non-enqueue', us('unclassified_nonequeue_us'))]));
    if (p.pv_bottleneck_stage) {
        sec.append(h('p', { class: 'steps-verdict-main', text: `Bottleneck stage: ` +
            `${p.pv_bottleneck_stage}` }), h('p', { text: p.pv_bottleneck_advice }));
    }
    const table = h('table', { class: 'data-table steps-tree' },
        h('thead', {}, h('tr', {}, ['Stage', 'Calls', 'Total (ms)', 'Self (ms)',
            'Self (% of input ops)', 'Category'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, rows.map((r) => h('tr', {
            class: r.name === p.pv_bottleneck_stage ? 'steps-bottleneck' : null,
            title: r.name },
            h('td', { class: `steps-depth-${Math.min(r.depth, 8)}`, text: r.stage }),
            h('td', { class: 'num', text: formatCount(r.count) }),
            h('td', { class: 'num', text: r.totalMs.toFixed(3) }),
            h('td', { class: 'num', text: r.selfMs.toFixed(3) }),
            h('td', { class: 'num', text: r.selfPct.toFixed(1) }),
            h('td', { text: r.category })))));
    sec.append(h('div', { class: 'table-scroll' }, table),
        h('p', { class: 'hint', text: 'Total time includes the stages nested inside; self time ' +
            'does not. Hover a stage for its full iterator name.' }));
    return sec;
}

async function render(el, state, inst, data) {
    const [, stepDt, hostDt, recDt, diag] = data;
    const { props, steps, fromTrace } = parseStepTable(stepDt);
    const hw = props.hardware_type || 'CPU_ONLY';
    // A PyTorch trace's verdict is torch-tb-profiler's, on its DataLoader
    // time; TensorFlow's tf.data advice and iterators do not apply.
    const pytorch = props.pv_framework === 'pytorch';
    const advice = pytorch ? []
        : stepAdvice(steps, hw, '', (hostDt.p || {}).pv_bottleneck_advice);
    const body = stepViewBody(el, state, 'Input pipeline analyzer', hw, fromTrace && !pytorch,
                              inst.reload);
    body.append(verdictBox(props.input_conclusion, advice,
        steps.length ? props.summary_nextstep : null));

    const per = h('section', {}, h('h3', { text: 'Input time per step' }));
    body.append(per);
    if (!steps.length) {
        per.append(h('p', { text: NO_STEPS }), h('p', { class: 'hint', text: NO_STEPS_HINT }));
    } else {
        const other = steps.map((s) => Math.max(0, s.stepMs - s.waitMs - s.h2dMs));
        const series = [
            { label: 'Waiting for input on the host', color: STEP_COLORS.input,
              values: steps.map((s) => s.waitMs) },
        ];
        if (steps.some((s) => s.h2dMs > 0)) {
            series.push({ label: 'Host-to-device transfer', color: STEP_COLORS.hostToDevice,
                          values: steps.map((s) => s.h2dMs) });
        } else {
            per.append(h('p', { class: 'hint', text: hw === 'CPU_ONLY'
                ? 'CPU-only profile: there is no host-to-device transfer.'
                : 'No host-to-device transfer was classified inside the steps.' }));
        }
        series.push({ label: 'Rest of the step', color: STEP_COLORS.other, values: other });
        if (!await stepChart(per, state, inst, steps, series, 'Time (ms)'))
            return;
        per.append(inputStats(steps));
        const tsec = h('section', { class: 'table-section' });
        per.append(tsec);
        inst.tables.push(createTable(tsec, inputTable(steps),
            { name: `input_per_step_${state.run}`, url: tableUrl(state, 'steps') }));
    }
    if (!pytorch)
        body.append(treeView(hostDt));
    const recs = (recDt.rows || []).map((r) => stripTags(r.c[0].v));
    if (recs.length) {
        body.append(h('section', {}, h('h3', { text: 'General recommendations' }),
            h('ul', {}, recs.map((t) => h('li', { text: t })))));
    }
    const d = diagnosticsList(diag);
    if (d)
        body.append(d);
}

function tpuPerStepTable(steps) {
    const r3 = (x) => Math.round(x * 1000) / 1000;
    return {
        cols: [
            { id: 'step', label: 'Step', type: 'string' },
            { id: 'input', label: 'Input (ms)', type: 'number' },
            { id: 'compute', label: 'Compute (ms)', type: 'number' },
            { id: 'idle', label: 'Idle (ms)', type: 'number' },
            { id: 'pct', label: 'Waiting for input (% of step)', type: 'number' },
        ],
        rows: steps.map((s) => ({ c: [{ v: s.name }, { v: r3(s.inputMs) }, { v: r3(s.computeMs) },
                                      { v: r3(s.idleMs) }, { v: r3(s.inputPct) }] })),
    };
}

// A TPU run's per-tool file (lib/step_table.js isTpuStepTable): [steps, cores
// per step, host input ops, recommendations, hosts].
async function renderTpu(el, state, inst, data) {
    const [stepDt, , hostDt, recDt] = data;
    const { props, steps } = parseTpuSteps(stepDt);
    const body = stepViewBody(el, state, 'Input pipeline analyzer', 'TPU', false, () => {});
    body.append(verdictBox(props.summary_conclusion, [],
                           steps.length ? props.summary_nextstep : null), stepCards(props));
    const per = await chartSection(inst, state, steps);
    if (!inst.alive())
        return;
    per.firstChild.textContent = 'Input time per step';
    body.append(per);
    const tsec = h('section', { class: 'table-section' });
    per.append(tsec);
    inst.tables.push(createTable(tsec, tpuPerStepTable(steps),
        { name: `input_per_step_${state.run}`, url: tableUrl(state, 'steps') }));
    if (hostDt)
        body.append(treeView(hostDt));
    const recs = ((recDt && recDt.rows) || []).map((r) => stripTags(r.c[0].v));
    if (recs.length) {
        body.append(h('section', {}, h('h3', { text: 'General recommendations' }),
            h('ul', {}, recs.map((t) => h('li', { text: t })))));
    }
}

// The GPU/CPU analysis is 5 tables; the TPU per-tool file's has its own
// layout.
export const { mount, unmount } = dataPage({
    label: 'Loading the input pipeline analysis…', stylesheets: STEP_STYLES, params: stepParams,
    ours: (data) => stepLayout(data, 5, true) !== null,
    render: (el, state, inst, data) => (stepLayout(data, 5, true) === 'tpu'
        ? renderTpu(el, state, inst, data) : render(el, state, inst, data)) });
