// step_table.js: what the step pages (the overview page and the input
// pipeline analyzer) read from their answers — the step-time DataTable
// (FORMATS.md §4.4) and the TPU per-tool files' step table, the averages,
// the categories a chart shows, the advice tied to the numbers, and which
// layout an answer has. Pure (no DOM): tested under node.

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

// The request parameters for the step analysis the URL asks for.
export function stepParams(state) {
    return (state.params || {}).host_steps === '1' ? { host_steps: '1' } : {};
}

// Bars a step chart draws at most; longer runs show every k-th step
// (said in words).
export const MAX_BARS = 500;

// The indices of steps to draw: all, or every k-th so that at most max remain.
export function sampleSteps(n, max = MAX_BARS) {
    const k = Math.max(1, Math.ceil(n / max));
    const out = [];
    for (let i = 0; i < n; i += k)
        out.push(i);
    return out;
}

// Which layout a step page's answer has: 'tpu' for the TPU per-tool files'
// (isTpuStepTable) when the page reads them (tpu), 'steps' for the GPU/CPU
// step analysis of at least minTables tables, null for any other (shown
// as plain tables rather than guessed at).
export function stepLayout(data, minTables, tpu) {
    if (!Array.isArray(data))
        return null;
    if (tpu && data.some(isTpuStepTable) && !isGenericStepTable(data[1]))
        return 'tpu';
    return data.length >= minTables && isGenericStepTable(data[1]) ? 'steps' : null;
}
