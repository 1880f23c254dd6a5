// overview_page.js: the overview page. The verdict ("is my program
// input-bound?") with advice tied to the numbers, summary cards (step time
// with spread, input share, device and host idle), the step-time graph
// (stacked bars per step; a step opens in the trace viewer), the top ten
// ops by self time on device and on host, and the run environment.
//
// Data: the reference's overview_page array of 7 DataTables (FORMATS.md
// §4.3) with profview's pv_* additions; a PyTorch trace's has an 8th,
// torch-tb-profiler's recommendations, which take the verdict's place, and
// a 9th, its GPU summary (a card per GPU). A
// part the profile cannot support (no steps, no device) is said in words,
// never drawn as zeros.

import { h } from '../dom.js';
import { createTable, tableUrl } from '../table.js';
import { card, cardRow } from './lib/cards.js';
import { utilizationSection } from './lib/device_util.js';
import { dataPage } from './lib/page.js';
import {
    STEP_STYLES, diagnosticsList, stepChart, stepViewBody, verdictBox,
} from './lib/step_parts.js';
import {
    NO_STEPS, NO_STEPS_HINT, parseStepTable, readableTip, stepAdvice, stepLayout, stepParams,
    stripTags, summarize, usedCategories,
} from './lib/step_table.js';
import { renderTpuOverview } from './lib/tpu_steps.js';

const pct = (s) => (s === undefined || s === 'unknown' ? null : parseFloat(s));

// Top-ops DataTable with the fractions shown as percentages.
// The top-op table as shown: the shares in percent, then the FLOP rate and
// the TensorCore flags where the answer has them (a device's table: the
// FLOP rate always, the flags on GPUs).
function opsTable(dt) {
    const at = (id) => (dt.cols || []).findIndex((c) => c.id === id);
    const flop = at('flopRate');
    const elig = at('tcEligibility');
    const using = at('tcUtilization');
    const cols = [
        { id: 'rank', label: 'Rank', type: 'number' },
        { id: 'self', label: 'Self time (%)', type: 'number' },
        { id: 'cum', label: 'Cumulative (%)', type: 'number' },
        { id: 'type', label: 'Op type', type: 'string' },
        { id: 'op', label: 'Operation', type: 'string' },
    ];
    if (flop >= 0)
        cols.push({ id: 'flops', label: 'FLOP rate (GFLOP/s)', type: 'number' });
    if (elig >= 0)
        cols.push({ id: 'tc_eligible', label: 'TensorCore eligible', type: 'boolean' });
    if (using >= 0)
        cols.push({ id: 'tc_using', label: 'Using TensorCore', type: 'boolean' });
    const rows = (dt.rows || []).map((r, i) => {
        const c = [
            { v: i + 1 },
            { v: Math.round(r.c[0].v * 10000) / 100 },
            { v: Math.round(r.c[1].v * 10000) / 100 },
            { v: r.c[2].v || '(none)' },
            { v: r.c[3].v },
        ];
        if (flop >= 0)
            c.push({ v: Math.round(r.c[flop].v * 100) / 100 });
        if (elig >= 0)
            c.push({ v: r.c[elig].v });
        if (using >= 0)
            c.push({ v: r.c[using].v });
        return { c };
    });
    return { cols, rows };
}

function summaryCards(steps, analysisP, hw, hasDeviceOps) {
    const st = summarize(steps.map((s) => s.stepMs));
    const input = summarize(steps.map((s) => s.cats.infeedTimeMs));
    const cards = [];
    if (st) {
        cards.push(card('Average step time', `${st.average.toFixed(2)} ms`,
            `± ${st.stddev.toFixed(2)} ms (min ${st.min.toFixed(2)}, max ${st.max.toFixed(2)}, ` +
            `${steps.length} step${steps.length === 1 ? '' : 's'})`));
        const total = steps.reduce((a, s) => a + s.stepMs, 0);
        const inputTotal = steps.reduce((a, s) => a + s.cats.infeedTimeMs, 0);
        cards.push(card('Waiting for input', `${(100 * inputTotal / total).toFixed(1)}%`,
            `${input.average.toFixed(2)} ms per step on average`));
    } else {
        cards.push(card('Step time', 'unknown', 'no step markers'));
    }
    const devIdle = pct(analysisP.device_idle_time_percent);
    cards.push(card('Device idle', hw === 'CPU_ONLY' ? 'no device' : (devIdle === null ? 'unknown'
        : `${devIdle.toFixed(1)}%`), hw === 'CPU_ONLY' ? 'CPU-only profile'
        : 'share of the device trace with no op running'));
    const hostIdle = pct(analysisP.host_idle_time_percent);
    cards.push(card('Host idle', hostIdle === null ? 'unknown' : `${hostIdle.toFixed(1)}%`,
        'share of host threads\' op span with no framework op'));
    const computeMs = steps.reduce((a, s) => a + s.cats.deviceComputeTimeMs, 0);
    if (hw !== 'CPU_ONLY' && computeMs > 0 && analysisP.device_compute_16bit_percent) {
        cards.push(card('16-bit device compute', analysisP.device_compute_16bit_percent,
            `32-bit: ${analysisP.device_compute_32bit_percent}`));
    }
    cards.push(card('Eager op time', `host ${analysisP.host_op_time_eager_percent}`,
        hasDeviceOps ? `device ${analysisP.device_op_time_eager_percent}` : ''));
    return cardRow(cards);
}

// host: the host the page shows, named when the profile does not list its
// hosts (a host's name is its file's name, which is always known).
function runEnvironment(env, host) {
    const p = env.p || {};
    const hosts = (env.pv_hostnames || []).join(', ') || host || 'not recorded';
    const items = [
        ['Hosts', hosts],
        ['Host count', p.host_count],
        ['Device type', p.device_type],
        ['Device cores', p.device_core_count === '0' ? 'none (CPU only)' : p.device_core_count],
    ];
    if (p.pv_profile_start_time)
        items.push(['Profile started', p.pv_profile_start_time]);
    if (p.pv_profile_duration_ms)
        items.push(['Profile length', `${p.pv_profile_duration_ms} ms`]);
    if (p.pv_host_tracer_level)
        items.push(['Host tracer level', p.pv_host_tracer_level]);
    return h('section', {}, h('h3', { text: 'Run environment' }),
        h('dl', { class: 'props' }, items.map(([k, v]) => [h('dt', { text: k }),
                                                         h('dd', { text: String(v) })])),
        h('p', { class: 'hint', text: 'Profiler and framework versions are not recorded in ' +
            'this profile format.' }));
}

const PYTORCH_RULES = {
    data_loading: 'Data loading',
    data_parallel: 'DataParallel',
    ddp_backend: 'DDP backend',
    communication: 'Communication',
    gpu_utilization: 'GPU utilization',
    tensor_cores: 'Tensor Cores',
    memory: 'GPU memory',
};

// torch-tb-profiler's recommendations on a PyTorch trace, as the verdict.
function pytorchVerdict(dt) {
    const rows = dt.rows || [];
    const advice = rows.map((r) => ({ why: `${PYTORCH_RULES[r.c[0].v] || r.c[0].v}:`,
                                      what: r.c[2].v }));
    return verdictBox(rows.length
        ? 'Recommendations for this PyTorch run, by torch-tb-profiler\'s rules:'
        : 'None of torch-tb-profiler\'s recommendations applies to this run (data loading ' +
          'within 5 % and communication within 10 % of step time, every GPU at least 50 % ' +
          'busy, no Tensor Cores left unused, no DataParallel over several GPUs, no DDP ' +
          'without NCCL, no GPU memory above 90 % full).', advice, null);
}

// torch-tb-profiler's GPU summary: a card per GPU; null when it has none.
function pytorchGpuCards(dt) {
    const rows = (dt && dt.rows) || [];
    if (!rows.length)
        return null;
    const pctText = (v) => (v === null || v === undefined ? 'not recorded' : `${v.toFixed(2)} %`);
    return h('section', {}, h('h3', { text: 'GPU summary' }),
        cardRow(rows.map((r) => card(
            `${r.c[0].v} utilization`, pctText(r.c[1].v),
            `est. SM efficiency ${pctText(r.c[2].v)}, est. achieved occupancy ` +
            `${pctText(r.c[3].v)} (within the steps)`))));
}

async function render(el, state, inst, data) {
    const [analysis, stepDt, env, reco, , , diag, pytorch, pytorchGpu] = data;
    const { props, steps, hostSteps, fromTrace } = parseStepTable(stepDt);
    const rp = reco.p || {};
    const ap = analysis.p || {};
    const hw = props.hardware_type || 'CPU_ONLY';

    // A PyTorch trace's steps are its ProfilerStep#N spans: TensorFlow's
    // host-steps switch and its note do not apply.
    const body = stepViewBody(el, state, 'Overview', hw, fromTrace && !pytorch, inst.reload);
    if (pytorch) {
        body.append(pytorchVerdict(pytorch));
    } else {
        const advice = stepAdvice(steps, hw, rp.precision_statement, rp.pv_input_advice);
        body.append(verdictBox(rp.statement || props.input_conclusion, advice,
            steps.length ? props.summary_nextstep : null));
    }
    body.append(summaryCards(steps, ap, hw, (analysis.rows || []).length > 0));
    const gpuCards = pytorchGpuCards(pytorchGpu);
    if (gpuCards)
        body.append(gpuCards);
    inst.charts.push(utilizationSection(body, state, inst.signal));

    const graph = h('section', {}, h('h3', { text: 'Step-time graph' }));
    body.append(graph);
    if (!steps.length) {
        graph.append(h('p', { text: NO_STEPS }), h('p', { class: 'hint', text: NO_STEPS_HINT }));
    } else {
        if (hw !== 'CPU_ONLY' && hostSteps && !pytorch) {
            graph.append(h('p', { class: 'hint', text: 'Host threads\' time inside each ' +
                'device step is included (as TensorFlow 2.x did); today\'s XProf counts only ' +
                'device events on GPUs.' }));
        }
        const cats = usedCategories(steps);
        const kept = await stepChart(graph, state, inst, steps,
            cats.map((c) => ({ label: c.label, color: c.color,
                               values: steps.map((s) => s.cats[c.id]) })),
            'Time (ms)');
        if (!kept)
            return;
    }

    const dev = h('section', { class: 'table-section' }, h('h3', { text: 'Top 10 ops on device ' +
        '(by self time)' }));
    body.append(dev);
    if (hw === 'CPU_ONLY') {
        dev.append(h('p', { class: 'hint', text: 'No device was profiled: this is a CPU-only ' +
            'profile, so every op ran on the host (below).' }));
    } else if (!(analysis.rows || []).length) {
        dev.append(h('p', { class: 'hint', text: 'No device op was recorded.' }));
    } else {
        inst.tables.push(createTable(dev, opsTable(analysis),
            { name: `overview_device_ops_${state.run}`, url: tableUrl(state, 'devops') }));
    }
    const host = h('section', { class: 'table-section' }, h('h3', { text: 'Top 10 ops on host ' +
        '(by self time)' }));
    body.append(host);
    if (analysis.pv_host_ops && (analysis.pv_host_ops.rows || []).length) {
        inst.tables.push(createTable(host, opsTable(analysis.pv_host_ops),
            { name: `overview_host_ops_${state.run}`, url: tableUrl(state, 'hostops') }));
    } else if (!fromTrace) {
        host.append(h('p', { class: 'hint', text: 'Legacy overview files do not list host ' +
            'ops; see the input pipeline analyzer for the host\'s input ops.' }));
    } else if (pytorch) {
        host.append(h('p', { class: 'hint', text: 'PyTorch\'s operators, with their host and ' +
            'device time, input shapes and call stacks, are in Framework op stats.' }));
    } else {
        host.append(h('p', { class: 'hint', text: 'No framework op was recorded on host ' +
            'threads (host tracer level 0, or not a TensorFlow profile).' }));
    }
    body.append(runEnvironment(env, state.host === 'ALL_HOSTS' ? '' : state.host));
    const tips = (reco.rows || []).filter((r) => r.c[0].v !== 'faq')
        .map((r) => ({ why: r.c[2].v, text: readableTip(stripTags(r.c[1].v), hw, state.titleOf) }))
        .filter((t) => t.text !== null);
    if (tips.length) {
        body.append(h('section', {}, h('h3', { text: 'Where to look next' }),
            h('ul', {}, tips.map((t) => h('li', { text: `${t.why}: ${t.text}` })))));
    }
    const d = diagnosticsList(diag);
    if (d)
        body.append(d);
}

// The GPU/CPU overview is 7 tables (9 for a PyTorch trace); the TPU
// per-tool file's has its own layout.
export const { mount, unmount } = dataPage({
    label: 'Loading the overview…', stylesheets: STEP_STYLES, params: stepParams,
    ours: (data) => stepLayout(data, 7, true) !== null,
    render: (el, state, inst, data) => (stepLayout(data, 7, true) === 'tpu'
        ? renderTpuOverview(el, state, inst, data) : render(el, state, inst, data)) });
