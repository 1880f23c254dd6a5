// overview.test.mjs: the overview page and the input pipeline analyzer.
// The pure parts of web/views/lib/step_table.js and input_pipeline_analyzer.js
// under plain node (expected values worked out by hand beside them), then
// both pages in headless Chromium on the real TF profiles: the numbers are
// the ones TensorFlow itself wrote in the overview_page.pb next to each
// xplane (tests/data/overview/*.txt).

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { adviceFor, isGenericStepTable, isTpuStepTable, parseStepTable, parseTpuSteps,
         readableTip, sampleSteps, summarize,
         usedCategories } from '../../web/views/lib/step_table.js';
import { tpuOpsTable, tpuSeries } from '../../web/views/lib/tpu_steps.js';
import { coreLabel, podSteps } from '../../web/views/pod_viewer.js';
import { iteratorTree, parentName } from '../../web/views/input_pipeline_analyzer.js';
import { screenshot, waitForView } from './browser.mjs';
import { TESTDATA, chartShown, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

// A step table as the server sends it: two steps, ids 0 and 1.
const COLS = ['stepnum', 'deviceComputeTimeMs', 'deviceToDeviceTimeMs', 'deviceCollectivesTimeMs',
              'hostComputeTimeMs', 'kernelLaunchTimeMs', 'infeedTimeMs', 'outfeedTimeMs',
              'compileTimeMs', 'otherTimeMs', 'tooltip', 'stepTimeMs'];
const row = (name, compute, input, other) => ({ c: [
    { v: name }, { v: compute }, { v: 0 }, { v: 0 }, { v: 0 }, { v: 0 }, { v: input }, { v: 0 },
    { v: 0 }, { v: other }, { v: 'tip' }, { v: compute + input + other }] });
const TABLE = {
    cols: COLS.map((id) => ({ id, label: id, type: id === 'stepnum' ? 'string' : 'number' })),
    rows: [row('0', 6, 3, 1), row('1', 8, 1, 1)],
    p: { hardware_type: 'GPU' },
    pv_group_ids: [0, 1], pv_begin_ps: [100, 20000], pv_dur_ps: [10000, 10000],
    pv_host_wait_input_ms: [3, 1], pv_host_to_device_ms: [0, 0], pv_host_steps: false,
};

describe('overview / input pipeline pages (pure parts)', () => {
    test('parseStepTable reads rows, categories and the trace windows', () => {
        const t = parseStepTable(TABLE);
        assert.equal(t.steps.length, 2);
        assert.equal(t.fromTrace, true);
        assert.deepEqual([t.steps[1].name, t.steps[1].stepMs, t.steps[1].cats.infeedTimeMs,
                          t.steps[1].startPs, t.steps[1].durPs], ['1', 10, 1, 20000, 10000]);
        assert.ok(isGenericStepTable(TABLE));
        assert.ok(!isGenericStepTable({ cols: [{ id: 'tcComputeTimeMs' }] }));
        const legacy = parseStepTable({ ...TABLE, pv_begin_ps: undefined });
        assert.equal(legacy.fromTrace, false);
        assert.equal(legacy.steps[0].startPs, undefined);
    });

    test('readableTip names the tool and the hardware, and skips dead ends on a TPU', () => {
        const title = (t) => ({ framework_op_stats: 'Framework op stats' })[t] || t;
        assert.equal(readableTip('framework_op_stats (identify the ops executed on the CPU_ONLY)',
                                 'CPU_ONLY', title),
                     'Framework op stats: identify the ops executed on the CPU');
        assert.equal(readableTip('op_profile (identify the ops on the TPU)', 'TPU', title), null);
        assert.equal(readableTip('Better performance with the tf.data API', 'TPU', title),
                     'Better performance with the tf.data API');
    });

    test('the TPU per-tool step table: compute, input and idle per step', () => {
        const dt = {
            cols: ['stepnum', 'computeTimeMs', 'inputTimeMs', 'idleTimeMs', 'tooltip',
                   'infeedPercentAverage'].map((id) => ({ id })),
            rows: [{ c: [{ v: '0' }, { v: 313.5 }, { v: 0.04 }, { v: 0 }, { v: 't' },
                         { v: 0.008 }] }],
            p: { steptime_ms_average: '313.8' },
        };
        assert.ok(isTpuStepTable(dt));
        assert.ok(!isTpuStepTable(TABLE));
        assert.ok(!isGenericStepTable(dt));
        const { steps, props } = parseTpuSteps(dt);
        // 313.5 + 0.04 + 0 = 313.54 ms; the file's share is already in percent
        assert.deepEqual(steps, [{ name: '0', computeMs: 313.5, inputMs: 0.04, idleMs: 0,
                                   stepMs: 313.54, inputPct: 0.008 }]);
        assert.equal(props.steptime_ms_average, '313.8');
        assert.deepEqual(tpuSeries(steps).map((s) => [s.label, s.values[0]]),
                         [['Compute', 313.5], ['Input', 0.04], ['Idle', 0]]);
    });

    test('tpuOpsTable shows the fractions as percentages', () => {
        const t = tpuOpsTable({ rows: [{ c: [{ v: 0.028062 }, { v: 0.055748 }, { v: 'Conv2D' },
                                             { v: 'a/Conv2D' }, { v: 7626.527 }] }] });
        assert.deepEqual(t.rows[0].c.map((c) => c.v), [1, 2.81, 5.57, 'Conv2D', 'a/Conv2D',
                                                       7626.5]);
    });

    test('podSteps reads the steps and cores of a pod viewer file', () => {
        const data = { podStatsSequence: { podStatsMap: [
            { stepNum: 1, podStatsPerCore: { 3: { chipId: 1, highFlopsComputeUs: 5,
                                                  totalDurationUs: 9, bottleneck: 'Compute' },
                                             1: { chipId: 0, totalDurationUs: 8 } },
              allReduceOpDb: [{ name: 'fusion.1' }] },
            { stepNum: 0, podStatsPerCore: {} },
        ] } };
        const steps = podSteps(data);
        assert.deepEqual(steps.map((s) => s.step), [0, 1]);
        const cores = steps[1].cores;
        assert.deepEqual(cores.map((c) => [c.core, c.totalUs, c.parts.highFlopsComputeUs]),
                         [[1, 8, 0], [3, 9, 5]]);
        assert.equal(coreLabel(cores[1]), 'core 3 (chip 1)');
        assert.equal(steps[1].allReduce.length, 1);
        assert.deepEqual(podSteps({}), []);
    });

    test('summarize: mean, sample stddev, min, max', () => {
        // 10, 20, 30: mean 20, sample variance ((100 + 0 + 100) / 2) = 100
        assert.deepEqual(summarize([10, 20, 30]), { average: 20, stddev: 10, min: 10, max: 30 });
        assert.equal(summarize([]), null);
        assert.equal(summarize([5]).stddev, 0);
    });

    test('sampleSteps keeps every step up to the cap, then every k-th', () => {
        assert.deepEqual(sampleSteps(3, 5), [0, 1, 2]);
        // 12 steps, at most 5 bars: k = ceil(12 / 5) = 3 -> 0, 3, 6, 9
        assert.deepEqual(sampleSteps(12, 5), [0, 3, 6, 9]);
    });

    test('usedCategories leaves out categories no step has', () => {
        const ids = usedCategories(parseStepTable(TABLE).steps).map((c) => c.id);
        assert.deepEqual(ids, ['deviceComputeTimeMs', 'infeedTimeMs', 'otherTimeMs']);
    });

    test('adviceFor ties each item to the share that triggered it', () => {
        const a = adviceFor({ inputPct: 20, launchPct: 1, otherPct: 3, computePct: 60,
                              collectivesPct: 0, precision: '', hasDevice: true });
        assert.equal(a.length, 2);
        assert.match(a[0].why, /^20\.0% of step time is spent waiting for input/);
        assert.match(a[0].what, /prefetch/);
        assert.match(a[1].why, /^3\.0% .*All others/);
        const dev = adviceFor({ inputPct: 1, launchPct: 0, otherPct: 0, computePct: 90,
                                collectivesPct: 0, precision: 'Only 0.0% ...', hasDevice: true });
        assert.deepEqual(dev.map((x) => /mixed/.test(x.what) || /XLA/.test(x.what)), [true, true]);
    });

    test('parentName drops the input index of the parent stage', () => {
        assert.equal(parentName('Iterator::Model::Zip[0]::FlatMap'), 'Iterator::Model::Zip');
        assert.equal(parentName('Iterator::Model::Map'), 'Iterator::Model');
        assert.equal(parentName('Iterator::Model'), null);
    });

    test('iteratorTree puts parents first, children by total time', () => {
        const rows = [
            { name: 'Iterator::Model::Zip[1]::Repeat', totalMs: 1, selfMs: 1 },
            { name: 'Iterator::Model', totalMs: 9, selfMs: 2 },
            { name: 'Iterator::Model::Zip', totalMs: 7, selfMs: 1 },
            { name: 'Iterator::Model::Zip[0]::FlatMap', totalMs: 5, selfMs: 5 },
        ];
        const t = iteratorTree(rows);
        assert.deepEqual(t.map((r) => [r.stage, r.depth]),
                         [['Model', 0], ['Zip', 1], ['FlatMap', 2], ['Repeat', 2]]);
    });
});

const NAME = 'overview.test';
const LOADED_MS = 60000;

const SKIP = skipWithout(NAME);

const GPU_RUN = 'tf_keras_gpu_gcp/train/2022_11_04_21_26_12';
const CPU_RUN = 'tf_keras_cpu_macos/train/2022_10_31_19_09_08';

describe('overview and input pipeline pages on real TF profiles', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-overview-cache-',
                   wants: [[GPU_RUN, 'instance-ecbm'], [CPU_RUN, 'gaoyihaodeMacBook-Pro.local']] });

    async function open(hash) {
        await h.page.goto(h.server.url + hash);
        await waitForView(h.page, hash, LOADED_MS);
        await h.page.waitForSelector('.steps-verdict', { timeout: LOADED_MS });
        return h.page.evaluate(() => ({
            verdict: document.querySelector('.steps-verdict').innerText,
            cards: document.querySelector('.cards')?.innerText ?? '',
            canvas: Boolean(document.querySelector('.steps-chart canvas')),
            steps: [...document.querySelectorAll('.steps-picker select option')].map((o) => o.text),
            text: document.querySelector('.view-body').innerText,
        }));
    }

    test('GPU overview with host steps: TF\'s own verdict and step time', { timeout: LOADED_MS },
        async () => {
            // overview_page.pb: MODERATELY input-bound, 6.4 %; step 9.008359 ms
            const seen = await open(hashOf(GPU_RUN, 'instance-ecbm', 'overview_page',
                                           '?host_steps=1'));
            await screenshot(h.page, 'overview-gpu');
            assert.match(seen.verdict, /MODERATELY input-bound because 6\.4%/);
            assert.match(seen.verdict, /7\.5% of step time is spent launching kernels/);
            assert.match(seen.cards, /9\.01 ms/);
            // The bars: one per step of the route's step table, stacked to
            // its step time.
            const table = (await routeData(h, GPU_RUN, 'instance-ecbm', 'overview_page',
                                           '&host_steps=1'))[1];
            const col = (id) => table.cols.findIndex((c) => c.id === id);
            const chart = await chartShown(h.page, '.steps-chart canvas');
            assert.ok(chart, 'no step chart');
            assert.deepEqual(chart.labels, table.rows.map((r) => r.c[col('stepnum')].v));
            table.rows.forEach((r, i) => {
                const stacked = chart.datasets.reduce((sum, d) => sum + Number(d.data[i]), 0);
                const want = r.c[col('stepTimeMs')].v;
                assert.ok(Math.abs(stacked - want) <= 1e-9 * want,
                          `step ${i}: bars add up to ${stacked} ms, the table says ${want}`);
            });
            assert.equal(seen.steps.length, 1);
            assert.match(seen.text,
                         /gradient_tape\/sequential\/conv2d_1\/Conv2D\/Conv2DBackpropFilter/);
        });

    test('GPU overview as XProf: device-only steps', { timeout: LOADED_MS }, async () => {
        // XProf 2.24's golden for this profile: POTENTIALLY input-bound, 36.1 % others
        const seen = await open(hashOf(GPU_RUN, 'instance-ecbm', 'overview_page'));
        assert.match(seen.verdict, /POTENTIALLY input-bound because 36\.1%/);
    });

    test('a step opens the trace viewer over its window', { timeout: LOADED_MS }, async () => {
        await open(hashOf(CPU_RUN, 'gaoyihaodeMacBook-Pro.local', 'overview_page'));
        await h.page.click('.steps-picker button');
        await h.page.waitForFunction(() => location.hash.includes('trace_viewer'));
        const hash = await h.page.evaluate(() => decodeURIComponent(location.hash));
        // One step of 78.792 ms = 78792000000 ps
        const m = hash.match(/start=(\d+)&end=(\d+)/);
        assert.ok(m, hash);
        assert.equal(Number(m[2]) - Number(m[1]), 78792000000);
    });

    test('CPU input pipeline: tree of tf.data stages and the bottleneck', { timeout: LOADED_MS },
        async () => {
            const seen = await open(hashOf(CPU_RUN, 'gaoyihaodeMacBook-Pro.local',
                                           'input_pipeline_analyzer'));
            await screenshot(h.page, 'input-pipeline-cpu');
            assert.match(seen.verdict, /POTENTIALLY input-bound because 3\.0%/);
            assert.match(seen.text, /Bottleneck stage: Iterator::Model\b/);
            assert.match(seen.text, /CPU-only profile: there is no host-to-device transfer/);
            const stages = await h.page.evaluate(() =>
                [...document.querySelectorAll('.steps-tree tbody tr td:first-child')]
                    .map((td) => td.innerText));
            assert.equal(stages[0], 'Model');
            assert.ok(stages.includes('FlatMap') && stages.includes('TensorSlice'));
        });

    test('a profile without step markers says so in words', { timeout: LOADED_MS }, async () => {
        const seen = await open(hashOf('jax_rocm_mi300/jax08_gemm', 'tw003', 'overview_page'));
        assert.match(seen.text, /No step markers were recorded/);
        assert.ok(!seen.canvas, 'a chart of zeros was drawn');
    });
});
