// pod_viewer.js: the pod viewer of a TPU run (TensorFlow's pod_viewer.json,
// FORMATS.md §4.9). For one step at a time: where each TPU core's step
// time went (a stacked bar per core: compute, all-reduce, infeed, outfeed,
// send/receive), each core's bottleneck in a table, and the all-reduce ops
// of the step; the TPU type and topology above them.
//
// Tool state in the URL: step (the step number shown), and the tables'
// state (table.js keys cores, ops).

import { createChart } from '../chart.js';
import { h } from '../dom.js';
import { formatBytes, formatDurationUs } from '../format.js';
import * as router from '../router.js';
import { showError, showMessage } from '../status.js';
import { createTable, tableUrl } from '../table.js';
import { card, cardRow } from './lib/cards.js';
import { dataPage } from './lib/page.js';
import { STEP_STYLES } from './lib/step_parts.js';
import { STEP_COLORS } from './lib/step_table.js';
import { viewHead } from './lib/view_head.js';

// Where a core's step time goes, in the file's fields, with the page's
// words and colours (a category looks the same as on the step pages).
export const POD_PARTS = [
    { id: 'highFlopsComputeUs', label: 'Compute', color: STEP_COLORS.compute },
    { id: 'allReduceComputeDurationUs', label: 'All-reduce compute',
      color: STEP_COLORS.collectives },
    { id: 'allReduceSyncDurationUs', label: 'All-reduce sync', color: '#882255' },
    { id: 'hostInfeedDurationUs', label: 'Infeed', color: STEP_COLORS.input },
    { id: 'hostOutfeedDurationUs', label: 'Outfeed', color: STEP_COLORS.output },
    { id: 'sendDurationUs', label: 'Send', color: STEP_COLORS.deviceToDevice },
    { id: 'recvDurationUs', label: 'Receive', color: '#44aa99' },
];

// ---- reading (pure) --------------------------------------------------------------

// The steps of the file: [{step, cores: [{core, chip, node, host, totalUs,
// bottleneck, parts: {id: us}}], allReduce: [...]}], by step number.
export function podSteps(data) {
    const maps = (((data || {}).podStatsSequence || {}).podStatsMap) || [];
    return maps.map((m) => ({
        step: Number(m.stepNum) || 0,
        cores: Object.entries(m.podStatsPerCore || {}).map(([core, c]) => ({
            core: Number(core), chip: c.chipId, node: c.nodeId, host: c.hostName || '',
            totalUs: Number(c.totalDurationUs) || 0, bottleneck: c.bottleneck || '',
            parts: Object.fromEntries(POD_PARTS.map((p) => [p.id, Number(c[p.id]) || 0])),
        })).sort((a, b) => a.core - b.core),
        allReduce: m.allReduceOpDb || [],
    })).sort((a, b) => a.step - b.step);
}

// A core's name for people: "core 6 (chip 3)".
export function coreLabel(c) {
    return c.chip === undefined ? `core ${c.core}` : `core ${c.core} (chip ${c.chip})`;
}

function coresTable(step) {
    const cols = [
        { id: 'core', label: 'Core', type: 'string' },
        { id: 'host', label: 'Host', type: 'string' },
        { id: 'total', label: 'Step time (µs)', type: 'number' },
        ...POD_PARTS.map((p) => ({ id: p.id, label: `${p.label} (µs)`, type: 'number' })),
        { id: 'bottleneck', label: 'Bottleneck', type: 'string' },
    ];
    const r1 = (x) => Math.round(x * 10) / 10;
    const rows = step.cores.map((c) => ({ c: [
        { v: coreLabel(c) }, { v: c.host }, { v: r1(c.totalUs) },
        ...POD_PARTS.map((p) => ({ v: r1(c.parts[p.id]) })), { v: c.bottleneck },
    ] }));
    return { cols, rows };
}

function allReduceTable(step) {
    const cols = [
        { id: 'name', label: 'Op', type: 'string' },
        { id: 'occurrences', label: 'Occurrences', type: 'number' },
        { id: 'duration', label: 'Duration (µs)', type: 'number' },
        { id: 'size', label: 'Data size', type: 'number' },
        { id: 'description', label: 'HLO', type: 'string' },
    ];
    const rows = step.allReduce.map((o) => {
        const bytes = Number(o.dataSize) || 0;
        return { c: [{ v: o.name }, { v: Number(o.occurrences) || 0 },
                     { v: Math.round((Number(o.durationUs) || 0) * 1000) / 1000 },
                     { v: bytes, f: formatBytes(bytes) }, { v: o.description || '' }] };
    });
    return { cols, rows };
}

// ---- page --------------------------------------------------------------------------

async function renderStep(inst, body, state, step) {
    inst.destroyParts();
    const canvas = h('canvas', { role: 'img', 'aria-label': 'Step time per TPU core, by part' });
    const cores = h('section', { class: 'table-section' }, h('h3', { text: 'Cores' }));
    const ops = h('section', { class: 'table-section' },
        h('h3', { text: `All-reduce ops (${step.allReduce.length})` }));
    body.replaceChildren(
        h('section', {}, h('h3', { text: `Step ${step.step}: where each core's time went` }),
          h('div', { class: 'chart-box' }, canvas)),
        cores, ops);
    inst.tables.push(createTable(cores, coresTable(step),
        { name: `pod_viewer_cores_${state.run}_step${step.step}`, url: tableUrl(state, 'cores') }));
    if (step.allReduce.length === 0)
        ops.append(h('p', { class: 'hint', text: 'This step ran no all-reduce.' }));
    else
        inst.tables.push(createTable(ops, allReduceTable(step),
            { name: `pod_viewer_allreduce_${state.run}_step${step.step}`,
              url: tableUrl(state, 'ops'), sort: { col: 'duration', dir: 'desc' } }));
    const chart = await createChart(canvas, {
        type: 'bar',
        data: {
            labels: step.cores.map(coreLabel),
            datasets: POD_PARTS.map((p) => ({
                label: p.label, data: step.cores.map((c) => c.parts[p.id] / 1000),
                backgroundColor: p.color, borderColor: p.color })),
        },
        options: {
            scales: {
                x: { stacked: true, ticks: { autoSkip: false } },
                y: { stacked: true, title: { display: true, text: 'Time (ms)' } },
            },
            plugins: { tooltip: { callbacks: {
                label: (c) => `${c.dataset.label}: ${formatDurationUs(c.raw * 1000)}`,
            } } },
        },
    });
    // A newer step or leaving the page won while Chart.js was loading.
    if (!inst.alive() || inst.step !== step) {
        chart.destroy();
        return;
    }
    inst.charts.push(chart);
}

function render(el, state, inst, data) {
    const env = (data && data.runEnvironment) || {};
    const topo = env.topology || {};
    el.append(viewHead(state, state.title || 'Pod viewer'));
    const steps = podSteps(data);
    if (steps.length === 0) {
        const box = h('div');
        el.append(box);
        showMessage(box, 'This pod viewer file holds no step.');
        return;
    }
    const dims = ['xDimension', 'yDimension', 'zDimension'].map((k) => Number(topo[k]) || 0)
        .filter((d) => d > 0);
    el.append(cardRow([
        card('TPU type', env.tpuType || 'not recorded'),
        card('Topology', dims.length ? dims.join(' × ') : 'not recorded',
             dims.length ? `${dims.reduce((a, b) => a * b, 1)} chips` : ''),
        card('Cores', String(steps[0].cores.length)),
        card('Steps', String(steps.length))]));
    const wanted = Number(state.params.step);
    let step = steps.find((s) => s.step === wanted) || steps[0];
    const picker = h('select', { 'aria-label': 'Step' },
        steps.map((s) => h('option', { value: String(s.step), text: `Step ${s.step}` })));
    picker.value = String(step.step);
    el.append(h('label', { class: 'steps-picker' }, h('span', { text: 'Step ' }), picker));
    const body = h('div', { class: 'view-body' });
    el.append(body);
    const show = () => {
        inst.step = step;
        renderStep(inst, body, state, step).catch((e) => showError(body, e));
    };
    picker.addEventListener('change', () => {
        step = steps.find((s) => String(s.step) === picker.value) || steps[0];
        router.setParams({ step: picker.value, cores_page: undefined, ops_page: undefined },
                         { replace: false });
        show();
    });
    show();
}

// Another layout than TensorFlow's pod viewer file: its tables, as they are.
export const { mount, unmount } = dataPage({
    label: 'Loading the pod viewer…', stylesheets: STEP_STYLES, render,
    ours: (data) => Boolean(data && data.podStatsSequence) });
