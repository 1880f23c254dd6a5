// step_common.js: what the overview page and the input pipeline analyzer
// share — reading the step-time DataTable (FORMATS.md §4.4), the stacked
// step chart with a step selector that opens the trace viewer over a step,
// the verdict box with advice tied to the numbers, and diagnostics.
//
// The reading functions are pure (no DOM) so they can be tested under node.

import { toolDataUrl } from '../api.js';
import { createChart } from '../chart.js';
import { clear, ensureStylesheet, h } from '../dom.js';
import * as router from '../router.js';
import { loadToolData, showError } from '../status.js';

// Categories of the step table in the reference's column order, with the
// words and the colour the page uses for them. A category keeps its colour
// on every page and in every profile, whichever categories a chart shows
// (Okabe–Ito colours, which stay apart for colour-blind readers).
export const STEP_COLORS = {
    compute: '#0072b2',
    deviceToDevice: '#56b4e9',
    collectives: '#cc79a7',
    hostCompute: '#009e73',
    launch: '#f0e442',
    input: '#e69f00',
    hostToDevice: '#b35c00',
    output: '#d55e00',
    compile: '#332288',
    other: '#999999',
};
export const STEP_CATEGORIES = [
    { id: 'deviceComputeTimeMs', label: 'Device compute', color: STEP_COLORS.compute },
    { id: 'deviceToDeviceTimeMs', label: 'Device to device', color: STEP_COLORS.deviceToDevice },
    { id: 'deviceCollectivesTimeMs', label: 'Device collective communication',
      color: STEP_COLORS.collectives },
    { id: 'hostComputeTimeMs', label: 'Host compute', color: STEP_COLORS.hostCompute },
    { id: 'kernelLaunchTimeMs', label: 'Kernel launch', color: STEP_COLORS.launch },
    { id: 'infeedTimeMs', label: 'Input', color: STEP_COLORS.input },
    { id: 'outfeedTimeMs', label: 'Output', color: STEP_COLORS.output },
    { id: 'compileTimeMs', label: 'Compilation', color: STEP_COLORS.compile },
    { id: 'otherTimeMs', label: 'All others', color: STEP_COLORS.other },
];

export const NO_STEPS = 'No step markers were recorded, so there is no step time to break down.';
export const NO_STEPS_HINT = 'Steps come from Keras (model.fit), from ' +
    'tf.profiler.experimental.Trace("train", step_num=n, _r=1) around each training step, ' +
    'or from a device "Steps" line. Profile at least one whole step; the tables below are ' +
    'still computed from every recorded op.';

// ---- reading the JSON (pure) ------------------------------------------------

const num = (v) => (typeof v === 'number' ? v : Number(v || 0));

// Returns {props, steps: [{name, group, startPs, durPs, stepMs, cats:{id: ms},
// waitMs, h2dMs}], hostSteps, fromTrace} from the step table.
export function parseStepTable(dt) {
    const cols = (dt && dt.cols) || [];
    const idx = Object.fromEntries(cols.map((c, i) => [c.id, i]));
    const rows = (dt && dt.rows) || [];
    const cell = (r, id) => (idx[id] === undefined ? undefined : (r.c[idx[id]] || {}).v);
    const pv = (key, i) => ((dt && dt[key]) || [])[i];
    const steps = rows.map((r, i) => ({
        name: String(cell(r, 'stepnum')),
        group: pv('pv_group_ids', i),
        startPs: pv('pv_begin_ps', i),
        durPs: pv('pv_dur_ps', i),
        stepMs: num(cell(r, 'stepTimeMs')),
        cats: Object.fromEntries(STEP_CATEGORIES.map((c) => [c.id, num(cell(r, c.id))])),
        waitMs: num(pv('pv_host_wait_input_ms', i)),
        h2dMs: num(pv('pv_host_to_device_ms', i)),
    }));
    // Steps computed from a trace carry their window; steps read from a
    // legacy per-tool file (no trace) do not.
    const fromTrace = Boolean(dt && Array.isArray(dt.pv_begin_ps));
    return { props: (dt && dt.p) || {}, steps, hostSteps: Boolean(dt && dt.pv_host_steps),
             fromTrace };
}

// True when dt is the GPU/CPU step table these views draw (TPU and legacy
// layouts have other columns and go to the generic table view instead).
export function isGenericStepTable(dt) {
    return Boolean(dt && Array.isArray(dt.cols) && dt.cols.some((c) => c.id === 'stepnum')
                   && dt.cols.some((c) => c.id === 'deviceComputeTimeMs'));
}

// True for the TPU per-step table: stepnum with compute, input and idle
// time per step.
export function isTpuStepTable(dt) {
    const ids = new Set(((dt && dt.cols) || []).map((c) => c.id));
    return ids.has('stepnum') && ids.has('computeTimeMs') && ids.has('inputTimeMs');
}

// Returns {props, steps: [{name, stepMs, computeMs, inputMs, idleMs,
// inputPct}]} from the TPU step table; inputPct is the file's own share
// of the step spent waiting for input, in percent.
export function parseTpuSteps(dt) {
    const cols = (dt && dt.cols) || [];
    const idx = Object.fromEntries(cols.map((c, i) => [c.id, i]));
    const cell = (r, id) => (idx[id] === undefined ? undefined : ((r.c || [])[idx[id]] || {}).v);
    const num = (v) => Number(v) || 0;
    const steps = ((dt && dt.rows) || []).map((r) => {
        const computeMs = num(cell(r, 'computeTimeMs'));
        const inputMs = num(cell(r, 'inputTimeMs'));
        const idleMs = num(cell(r, 'idleTimeMs'));
        return { name: String(cell(r, 'stepnum')), computeMs, inputMs, idleMs,
                 stepMs: computeMs + inputMs + idleMs,
                 inputPct: num(cell(r, 'infeedPercentAverage')) };
    });
    return { props: (dt && dt.p) || {}, steps };
}

// {average, stddev (sample), min, max} of xs; null for an empty list.
export function summarize(xs) {
    if (xs.length === 0)
        return null;
    const avg = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = xs.length > 1
        ? Math.sqrt(xs.reduce((a, b) => a + (b - avg) * (b - avg), 0) / (xs.length - 1)) : 0;
    return { average: avg, stddev: sd, min: Math.min(...xs), max: Math.max(...xs) };
}

// The categories that have time in at least one step (the chart leaves
// the others out instead of drawing zero-height series).
export function usedCategories(steps) {
    return STEP_CATEGORIES.filter((c) => steps.some((s) => s.cats[c.id] > 0));
}

// Text with HTML tags removed: the reference's statements carry <a> links
// to tensorflow.org, which an air-gapped reader cannot open anyway.
export function stripTags(s) {
    return String(s || '').replace(/<[^>]*>/g, '');
}

// A tip of the reference ("framework_op_stats (identify the time-consuming
// operations executed on the CPU_ONLY)") in words: the tool by its title,
// the hardware by its name. null for a tip that would send a TPU user to
// a tool profview shows no TPU ops in. titleOf(tool) names a tool (app.js).
export function readableTip(text, hw, titleOf) {
    const m = /^([a-z_@]+) \((.*)\)$/.exec(text);
    if (!m)
        return text;
    if (hw === 'TPU' && (m[1] === 'framework_op_stats' || m[1] === 'op_profile'))
        return null;
    const what = m[2].replace(/\bCPU_ONLY\b/g, 'CPU');
    return `${titleOf ? titleOf(m[1]) : m[1]}: ${what}`;
}

// Advice tied to the numbers that triggered it. t: {inputPct, launchPct,
// otherPct, computePct, collectivesPct, precision, inputAdvice, hasDevice}.
// Returns [{why, what}] in the order a reader should act on them.
export function adviceFor(t) {
    const out = [];
    const p = (x) => `${x.toFixed(1)}%`;
    if (t.inputPct >= 5) {
        out.push({ why: `${p(t.inputPct)} of step time is spent waiting for input.`,
                   what: 'Overlap input with compute: add .prefetch(tf.data.AUTOTUNE) at the end ' +
                         'of the pipeline, pass num_parallel_calls=tf.data.AUTOTUNE to map() and ' +
                         'interleave(), and .cache() data that fits in memory.' +
                         (t.inputAdvice ? ` Slowest stage: ${t.inputAdvice}` : '') });
    }
    if (t.launchPct >= 3) {
        out.push({ why: `${p(t.launchPct)} of step time is spent launching kernels.`,
                   what: 'Fewer, bigger kernels: use larger batches, compile the step with XLA ' +
                         '(jit_compile=True), and try TF_GPU_THREAD_MODE=gpu_private.' });
    }
    if (t.otherPct >= 3) {
        out.push({ why: `${p(t.otherPct)} of step time is not covered by any recorded op ` +
                        '("All others").',
                   what: 'This is usually Python between ops: wrap the step in tf.function, ' +
                         'use larger batches, and avoid per-step Python work.' });
    }
    if (t.collectivesPct >= 3) {
        out.push({ why: `${p(t.collectivesPct)} of step time is device collective communication.`,
                   what: 'Use larger batches per device or gradient accumulation to communicate ' +
                         'less often.' });
    }
    if (t.precision) {
        out.push({ why: stripTags(t.precision),
                   what: 'Enable mixed precision: ' +
                         'tf.keras.mixed_precision.set_global_policy("mixed_float16").' });
    }
    if (t.hasDevice && t.computePct >= 50 && t.inputPct < 5) {
        out.push({ why: `${p(t.computePct)} of step time is device compute.`,
                   what: 'The device is the bottleneck: look at the top device ops, try XLA ' +
                         '(jit_compile=True) and mixed precision.' });
    }
    return out;
}

// The advice for these steps (adviceFor) from the share of step time in
// each category; none without steps. precision and inputAdvice are the
// statements the tool's tables carry (may be empty).
export function stepAdvice(steps, hw, precision, inputAdvice) {
    if (!steps.length)
        return [];
    const total = steps.reduce((a, s) => a + s.stepMs, 0);
    const share = (id) => (total > 0 ? 100 * steps.reduce((a, s) => a + s.cats[id], 0) / total : 0);
    return adviceFor({
        inputPct: share('infeedTimeMs'), launchPct: share('kernelLaunchTimeMs'),
        otherPct: share('otherTimeMs'), computePct: share('deviceComputeTimeMs'),
        collectivesPct: share('deviceCollectivesTimeMs'), precision, inputAdvice,
        hasDevice: hw !== 'CPU_ONLY',
    });
}

// ---- DOM -------------------------------------------------------------------

// Replaces el's content with a step view's head (title, a link to the raw
// data, the host-steps switch where it applies; remount as for
// hostStepsToggle) and returns the body for the rest of the view.
export function stepViewBody(el, state, title, hw, fromTrace, remount) {
    clear(el);
    el.append(h('div', { class: 'view-head' }, h('h2', { text: title }),
        h('a', { href: toolDataUrl(state.run, state.tool, state.host, stepParams(state)),
                 target: '_blank', rel: 'noopener', text: 'Raw data' })));
    const toggle = hostStepsToggle(state, hw, fromTrace, remount);
    if (toggle)
        el.append(toggle);
    const body = h('div', { class: 'view-body' });
    el.append(body);
    return body;
}

// The request parameters for the step analysis the URL asks for.
export function stepParams(state) {
    return (state.params || {}).host_steps === '1' ? { host_steps: '1' } : {};
}

// The switch between XProf's steps (device events only when there is a
// device) and TensorFlow 2.x's (host threads' time inside each device step
// counted too). Shown for device profiles only; remount(newState) redraws.
export function hostStepsToggle(state, hw, fromTrace, remount) {
    if (hw === 'CPU_ONLY' || !fromTrace)
        return null;
    const on = (state.params || {}).host_steps === '1';
    const box = h('input', { type: 'checkbox', checked: on, on: { change: () => {
        const host_steps = box.checked ? '1' : undefined;
        router.setParams({ host_steps }, { replace: false });
        const params = { ...(state.params || {}) };
        if (host_steps)
            params.host_steps = host_steps;
        else
            delete params.host_steps;
        remount({ ...state, params });
    } } });
    return h('label', { class: 'steps-toggle' }, box,
        ' Count host-thread time inside device steps (input waits, kernel launch), as ' +
        'TensorFlow 2.x did; off = XProf\'s device-only steps');
}

// Opens the trace viewer over step s (its window is in trace time).
export function openStepInTrace(state, s) {
    if (s.startPs === undefined || s.durPs === undefined)
        return;
    router.navigate({ run: state.run, host: state.host, tool: 'trace_viewer@',
                      params: { start: String(Math.round(s.startPs)),
                                end: String(Math.round(s.startPs + s.durPs)) } });
}

// The verdict box: the input statement, then advice items.
export function verdictBox(statement, advice, nextStep) {
    return h('section', { class: 'steps-verdict', 'aria-label': 'Verdict' },
        h('p', { class: 'steps-verdict-main', text: stripTags(statement) }),
        advice.length ? h('ul', {}, advice.map((a) => h('li', {},
            h('span', { class: 'steps-why', text: a.why }), ' ', h('span', { text: a.what }))))
            : null,
        nextStep ? h('p', { class: 'hint', text: stripTags(nextStep) }) : null);
}

export function card(label, value, note) {
    return h('div', { class: 'steps-card' },
        h('div', { class: 'steps-card-label', text: label }),
        h('div', { class: 'steps-card-value', text: value }),
        note ? h('div', { class: 'steps-card-note', text: note }) : null);
}

export function diagnosticsList(dt) {
    const rows = (dt && dt.rows) || [];
    if (rows.length === 0)
        return null;
    return h('section', { class: 'steps-diag' }, h('h3', { text: 'Diagnostics' }),
        h('ul', {}, rows.map((r) => h('li', {},
            h('strong', { text: `${r.c[0].v}: ` }), String(r.c[1].v)))));
}

// A stacked bar per step of the given series [{label, values, color}], with a step
// selector below that opens the trace viewer over the chosen step.
// Resolves to {chart, el}; the caller destroys chart on unmount.
// Bars drawn at most; longer runs show every k-th step (said in words).
export const MAX_BARS = 500;

// The indices of steps to draw: all, or every k-th so that at most max remain.
export function sampleSteps(n, max = MAX_BARS) {
    const k = Math.max(1, Math.ceil(n / max));
    const out = [];
    for (let i = 0; i < n; i += k)
        out.push(i);
    return out;
}

export async function stepChart(box, state, allSteps, allSeries, yLabel) {
    const pick = sampleSteps(allSteps.length);
    const steps = pick.map((i) => allSteps[i]);
    const series = allSeries.map((s) => ({ ...s, values: pick.map((i) => s.values[i]) }));
    if (pick.length < allSteps.length) {
        box.append(h('p', { class: 'hint', text: `${allSteps.length} steps: the chart shows ` +
            `one step in every ${pick[1] - pick[0]} (${steps.length} bars); the summaries and ` +
            'tables use all of them.' }));
    }
    const canvas = h('canvas', { role: 'img',
        'aria-label': `${yLabel} per step, stacked by category` });
    const holder = h('div', { class: 'steps-chart' }, canvas);
    const sel = h('select', { 'aria-label': 'Step' },
        steps.map((s, i) => h('option', { value: String(i),
            text: `Step ${s.name} (${s.stepMs.toFixed(2)} ms)` })));
    const open = h('button', { type: 'button', text: 'Open this step in the trace viewer',
        on: { click: () => openStepInTrace(state, steps[Number(sel.value)]) } });
    const timed = steps.length > 0 && steps[0].startPs !== undefined;
    box.append(holder, h('div', { class: 'steps-picker' }, h('label', { text: 'Step ' }, sel),
        timed ? open : null,
        h('span', { class: 'hint', text: timed ? 'or click a bar to select its step'
            : 'This profile is a legacy per-tool file: it has no trace to open.' })));
    const chart = await createChart(canvas, {
        type: 'bar',
        data: {
            labels: steps.map((s) => s.name),
            datasets: series.map((s) => ({ label: s.label, data: s.values,
                                           backgroundColor: s.color, borderColor: s.color })),
        },
        options: {
            scales: {
                x: { stacked: true, title: { display: true, text: 'Step' } },
                y: { stacked: true, title: { display: true, text: yLabel } },
            },
            plugins: {
                tooltip: { callbacks: {
                    label: (c) => `${c.dataset.label}: ${Number(c.raw).toFixed(3)} ms`,
                    footer: (items) => (items.length
                        ? `Step time: ${steps[items[0].dataIndex].stepMs.toFixed(3)} ms` : ''),
                } },
            },
            onClick: (_e, els) => {
                if (els.length)
                    sel.value = String(els[0].index);
            },
        },
    });
    return { chart, select: sel };
}

// ---- the view's life cycle ---------------------------------------------------

// The mount/unmount pair of a step view: loads the tool's array of
// DataTables and calls render(inst, el, state, data, isCurrent), or
// renderTpu (same arguments) for the TPU per-tool files' layout
// (isTpuStepTable, tpu_steps.js); any other layout goes to the generic
// table view. inst collects {chart, tables}
// for unmount to destroy; isCurrent(inst) turns false once the view is
// left, so render drops what it built after an await. Each call keeps its
// own current view, so two step views never cancel each other.
export function stepView({ progress, minTables, render, renderTpu }) {
    let current = null;
    const isCurrent = (inst) => inst === current;

    async function mount(el, state) {
        ensureStylesheet('step_common');
        const inst = { controller: new AbortController(), chart: null, tables: [] };
        current = inst;
        const signal = inst.controller.signal;
        const data = await loadToolData(el, state, stepParams(state), {
            signal, label: progress, retry: () => { unmount(); mount(el, state); } });
        if (data === undefined || inst !== current)
            return;
        const tpu = renderTpu && Array.isArray(data) && data.some(isTpuStepTable);
        if (tpu && !isGenericStepTable(data[1])) {
            try {
                await renderTpu(inst, el, state, data, isCurrent);
            } catch (e) {
                showError(el, e);
            }
            return;
        }
        if (!Array.isArray(data) || data.length < minTables || !isGenericStepTable(data[1])) {
            // Layouts none of the pages reads: show them as plain tables
            // rather than guess.
            const generic = await import('./generic.js');
            if (inst !== current)
                return;
            inst.generic = generic;
            generic.mount(el, state);
            return;
        }
        try {
            await render(inst, el, state, data, isCurrent);
        } catch (e) {
            showError(el, e);
        }
    }

    function unmount() {
        if (!current)
            return;
        current.controller.abort();
        if (current.generic)
            current.generic.unmount();
        if (current.chart)
            current.chart.destroy();
        for (const t of current.tables)
            t.destroy();
        current = null;
    }

    return { mount, unmount };
}
