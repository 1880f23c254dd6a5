// tpu_steps.js: the overview page and the input pipeline analyzer of a
// TPU run that TensorFlow wrote as per-tool JSON (the Cloud TPU files of
// 2019–2020: overview_page.json, input_pipeline.json). Their tables have
// a layout of their own: per step only compute, input and idle time, the
// top ops as fractions, the run environment in table properties, and
// advice with HTML links. This module reads them into what a person
// reads on the GPU pages: the verdict, cards, a step chart, the tables,
// advice as text.
//
// Data (FORMATS.md §4.3/§4.4, TPU form): overview_page = [top ops, steps,
// run environment, recommendation, (empty), (cost lines)]; input_pipeline
// = [steps, cores per step, host input ops, recommendations, hosts] (its
// page is input_pipeline_analyzer.js, with the parts below).

import { h } from '../../dom.js';
import { createTable, tableUrl } from '../../table.js';
import { card, cardRow } from './cards.js';
import { stepChart, stepViewBody, verdictBox } from './step_parts.js';
import { STEP_COLORS, parseTpuSteps, readableTip, stripTags } from './step_table.js';

// ---- reading (pure) --------------------------------------------------------------

// The series of the step chart, in STEP_COLORS so a category looks the
// same as on every other page.
export function tpuSeries(steps) {
    return [
        { label: 'Compute', color: STEP_COLORS.compute, values: steps.map((s) => s.computeMs) },
        { label: 'Input', color: STEP_COLORS.input, values: steps.map((s) => s.inputMs) },
        { label: 'Idle', color: STEP_COLORS.other, values: steps.map((s) => s.idleMs) },
    ];
}

// The top-ops table with the fractions as percentages.
export function tpuOpsTable(dt) {
    const pct = (v) => Math.round(Number(v) * 1e4) / 100;
    const cols = [
        { id: 'rank', label: 'Rank', type: 'number' },
        { id: 'self', label: 'Time (%)', type: 'number' },
        { id: 'cum', label: 'Cumulative (%)', type: 'number' },
        { id: 'category', label: 'Category', type: 'string' },
        { id: 'op', label: 'Operation', type: 'string' },
        { id: 'flops', label: 'GFLOP/s', type: 'number' },
    ];
    const rows = ((dt && dt.rows) || []).map((r, i) => ({ c: [
        { v: i + 1 }, { v: pct(r.c[0].v) }, { v: pct(r.c[1].v) }, { v: r.c[2].v },
        { v: r.c[3].v }, { v: Math.round(Number(r.c[4].v) * 10) / 10 },
    ] }));
    return { cols, rows };
}

// ---- DOM ---------------------------------------------------------------------------

// Cards of the step table's averages (its properties).
export function stepCards(p) {
    const ms = (k) => `${Number(p[k] || 0).toFixed(2)} ms`;
    return cardRow([
        card('Average step time', ms('steptime_ms_average'),
             `± ${ms('steptime_ms_standard_deviation')} (min ${ms('steptime_ms_minimum')}, ` +
             `max ${ms('steptime_ms_maximum')})`),
        card('Waiting for input', `${Number(p.infeed_percent_average || 0).toFixed(1)}%`,
             `${ms('input_ms_average')} per step on average`),
        card('Compute', ms('compute_ms_average'), 'per step on average'),
        card('Idle', ms('idle_ms_average'), 'per step on average')]);
}

// A section with the step chart (or words when there are no steps); the
// chart goes to inst.charts.
export async function chartSection(inst, state, steps) {
    const sec = h('section', {}, h('h3', { text: 'Step-time graph' }));
    if (steps.length === 0) {
        sec.append(h('p', { text: 'The file lists no steps.' }));
        return sec;
    }
    await stepChart(sec, state, inst, steps, tpuSeries(steps), 'Time (ms)');
    return sec;
}

function environment(env) {
    const p = (env && env.p) || {};
    const hosts = ((env && env.rows) || []).map((r) => r.c[0].v).filter(Boolean);
    const items = [
        ['Device type', p.device_type],
        ['Device cores', p.device_core_count],
        ['Hosts', hosts.length ? hosts.join(', ') : p.host_count],
        ['Tasks', p.task_count],
        ['Batch size', p.batch_size],
    ].filter(([, v]) => v !== undefined && v !== '');
    return h('section', {}, h('h3', { text: 'Run environment' }),
        h('dl', { class: 'props' }, items.map(([k, v]) => [h('dt', { text: k }),
                                                         h('dd', { text: String(v) })])));
}

function utilisationCards(p) {
    const items = [
        ['MXU utilization', p.mxu_utilization_percent, 'share of the matrix units\' peak'],
        ['FLOP rate', p.flop_rate_utilization_relative_to_roofline, 'of the roofline'],
        ['Memory bandwidth', p.memory_bw_utilization_relative_to_hw_limit, 'of the hardware limit'],
        ['Host idle', p.host_idle_time_percent, 'share of the host\'s time'],
    ].filter(([, v]) => v);
    return cardRow(items.map(([k, v, note]) => card(k, v, note)));
}

// The overview of a TPU per-tool file (see the top of this file).
export async function renderTpuOverview(el, state, inst, data) {
    const [ops, stepDt, env, reco] = data;
    const { props, steps } = parseTpuSteps(stepDt);
    const rp = (reco && reco.p) || {};
    const body = stepViewBody(el, state, 'Overview', 'TPU', false, () => {});
    body.append(verdictBox(rp.statement || props.summary_conclusion, [],
                           steps.length ? props.summary_nextstep : null));
    body.append(stepCards(props), utilisationCards((ops && ops.p) || {}));
    body.append(await chartSection(inst, state, steps));
    if (!inst.alive())
        return;
    const top = h('section', { class: 'table-section' },
        h('h3', { text: 'Top 10 TensorFlow operations on the TPU (by self time)' }));
    body.append(top);
    inst.tables.push(createTable(top, tpuOpsTable(ops),
        { name: `overview_tpu_ops_${state.run}`, url: tableUrl(state, 'tpuops') }));
    body.append(environment(env));
    const tips = ((reco && reco.rows) || []).filter((r) => r.c[0].v !== 'faq')
        .map((r) => readableTip(stripTags(r.c[1].v), 'TPU', state.titleOf))
        .filter((t) => t !== null);
    if (tips.length) {
        body.append(h('section', {}, h('h3', { text: 'Where to look next' }),
            h('ul', {}, tips.map((t) => h('li', { text: t })))));
    }
}
