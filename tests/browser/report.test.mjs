// report.test.mjs: the compare view, the run history and the overview's
// device utilization curve (#20). The pure parts of web/views/compare.js,
// history.js and device_util.js under node (values worked out by hand
// beside them), then the pages in headless Chromium on the two Keras
// reference runs (the input-bound one written first, the fixed one later):
// numbers against the tool routes' own answers, sharing links opened in a
// fresh page, two points of the history opening their comparison; and, on
// ../shared/testdata, the utilization curve's mean against the
// device_utilization route and the device idle card against the Device IDLE
// row of framework_op_stats (XProf's definition of device idle).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { defaultPair, deltaTable, headlines } from '../../web/views/compare.js';
import { curve } from '../../web/views/lib/device_util.js';
import { folders, peakOf, series } from '../../web/views/history.js';
import { parseHash, formatHash } from '../../web/router.js';
import { haveChromium, screenshot, waitForView } from './browser.mjs';
import { TESTDATA, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

const TEST_MS = 60000;
const REF = fileURLToPath(new URL('../data/reference', import.meta.url));

describe('compare, history and utilization (pure parts)', () => {
    test('a page lives in the hash beside runs and tools', () => {
        const s = parseHash('#/page/compare?base=a%2Fb&new=c');
        assert.equal(s.page, 'compare');
        assert.deepEqual(s.params, { base: 'a/b', new: 'c' });
        assert.equal(formatHash({ page: 'history', params: { prefix: 'm/' } }),
                     '#/page/history?prefix=m%2F');
    });

    test('defaultPair: the URL\'s runs, else the second newest against the newest', () => {
        assert.deepEqual(defaultPair({}, ['r3', 'r2', 'r1']), { base: 'r2', new: 'r3' });
        assert.deepEqual(defaultPair({ base: 'r1' }, ['r3', 'r2', 'r1']),
                         { base: 'r1', new: 'r3' });
        assert.deepEqual(defaultPair({}, ['only']), { base: 'only', new: 'only' });
    });

    test('headlines: step time, moved parts, known shares, devices, memory', () => {
        const c = {
            step_time_ms: { base: 2, new: 4 },
            breakdown: [{ label: 'Input', base_ms: 1, new_ms: 3 },
                        { label: 'Output', base_ms: 0, new_ms: 0 }],
            input_percent: { base: 50, new: 75 },
            device_idle_percent: { base: null, new: null },
            tensor_core_percent: { base: null, new: 10 },
            utilization: [{ host: '', name: '/device:GPU:0', value: { base: 20, new: 30 } }],
            memory: [{ host: 'h', name: 'bfc', value: { base: 1024, new: null } }],
        };
        assert.deepEqual(headlines(c).map((r) => [r.label, r.base, r.new, r.kind]), [
            ['Step time', 2, 4, 'ms'],
            ['  Input', 1, 3, 'ms'],
            ['Input-bound', 50, 75, 'pct'],
            ['Tensor-core share of kernel time', null, 10, 'pct'],
            ['Busy /device:GPU:0', 20, 30, 'pct'],
            ['Memory peak h/bfc', 1024, null, 'bytes'],
        ]);
    });

    test('deltaTable: microseconds shown as milliseconds, ratio only over a base', () => {
        const t = deltaTable([
            { change: 'changed', side: 'Host', name: 'a', category: 'Add', base_us: 2000,
              new_us: 3000, delta_us: 1000 },
            { change: 'added', side: 'Device', name: 'b', category: 'Mul', base_us: 0,
              new_us: 1500, delta_us: 1500 },
        ], true);
        assert.deepEqual(t.cols.map((c) => c.id),
                         ['change', 'side', 'name', 'category', 'base', 'new', 'delta', 'ratio']);
        assert.deepEqual(t.rows[0].c.map((x) => x.v),
                         ['changed', 'Host', 'a', 'Add', 2, 3, 1, 1.5]);
        assert.deepEqual(t.rows[1].c.map((x) => x.v), ['added', 'Device', 'b', 'Mul', 0, 1.5, 1.5,
                                                       null]);
        assert.equal(deltaTable([], false).cols[1].label, 'Kernel');
    });

    test('folders, peakOf, series', () => {
        assert.deepEqual(folders(['m/a', 'm/b', 'x/y/z', 'top']), ['m/', 'x/', 'x/y/']);
        assert.equal(peakOf({ peak_memory: [{ peak_bytes: 5 }, { peak_bytes: 9 }] }), 9);
        assert.equal(peakOf({ peak_memory: [] }), null);
        const s = series([{ run: 'a', brief: { step_time_ms: 2, input_percent: 10,
                                               device_idle_percent: null, peak_memory: [] } },
                          { run: 'b', brief: null }]);
        assert.deepEqual([s.labels, s.stepMs, s.inputPct, s.idlePct, s.peakBytes],
                         [['a', 'b'], [2, null], [10, null], [null, null], [null, null]]);
    });

    test('curve: one point per bucket, in ms from the window\'s start', () => {
        // 4 buckets of 2.5 ms (2.5e9 ps)
        const pts = curve({ bucket_ps: 2.5e9 }, { busy_percent: [100, 50, 0, 25] });
        assert.deepEqual(pts, [{ x: 0, y: 100 }, { x: 2.5, y: 50 }, { x: 5, y: 0 },
                               { x: 7.5, y: 25 }]);
    });
});

// ---- in the browser -------------------------------------------------------------

// The Keras reference runs as a logdir: "bound" written before "fixed".
function kerasLogdir() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profview-report-'));
    const put = (src, run, when) => {
        const to = path.join(dir, 'plugins/profile', run);
        fs.mkdirSync(to, { recursive: true });
        fs.copyFileSync(src, path.join(to, 'vm.xplane.pb'));
        fs.utimesSync(path.join(to, 'vm.xplane.pb'), when, when);
    };
    put(path.join(REF, 'keras_input_bound/plugins/profile/2026_11_29_17_36_18/vm.xplane.pb'),
        'bound', new Date('2026-11-01T10:00:00Z'));
    put(path.join(REF, 'keras_input_fixed/plugins/profile/2026_11_29_17_36_24/vm.xplane.pb'),
        'fixed', new Date('2026-11-02T10:00:00Z'));
    return dir;
}

// A run's mean step time (ms), from its overview step table's rows.
async function meanStepMs(h, run) {
    const url = `${h.server.url}data/plugin/profile/data?run=${run}&host=vm&tag=overview_page`;
    const r = await fetch(url);
    const steps = (await r.json())[1];
    const col = steps.cols.findIndex((c) => c.id === 'stepTimeMs');
    return steps.rows.reduce((a, row) => a + row.c[col].v, 0) / steps.rows.length;
}

const SKIP = haveChromium() ? false : 'SKIP report.test: /usr/bin/chromium not found';
if (SKIP)
    console.log(SKIP);

describe('compare view and run history in the browser', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: kerasLogdir(), cachePrefix: 'profview-report-cache-',
                   wants: [['bound', 'vm'], ['fixed', 'vm']] });

    const headline = () => h.page.$$eval('.cmp-headlines tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((c) => c.textContent)));

    test('a compare link shows both runs, their numbers and every op that moved',
        { timeout: TEST_MS }, async () => {
            const hash = '#/page/compare?base=fixed&new=bound';
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TEST_MS);
            await h.page.waitForSelector('.cmp-result .table-widget', { timeout: TEST_MS });
            await screenshot(h.page, 'compare');
            const [base, next] = [await meanStepMs(h, 'fixed'), await meanStepMs(h, 'bound')];
            const rows = await headline();
            assert.deepEqual(rows[0], ['Step time', `${base.toFixed(3)} ms`,
                                       `${next.toFixed(3)} ms`,
                                       `+${((100 * (next - base)) / base).toFixed(1)}%`]);
            const verdict = await h.page.textContent('.cmp-verdict');
            assert.match(verdict, new RegExp(`${(next / base).toFixed(3)} ×`));
            // The op table: the input-bound run's tf.data map was not in the fixed run.
            const ops = await h.page.$eval('.table-section', (sec) =>
                [...sec.querySelectorAll('tbody tr')].map((tr) =>
                    [...tr.children].map((c) => c.textContent)));
            assert.ok(ops.some((r) => r[0] === 'added' && r[2] === 'Iterator::Root::MapAndBatch'),
                      JSON.stringify(ops.slice(0, 3)));
        });

    test('swapping updates the link, and the link opens the same comparison',
        { timeout: TEST_MS }, async () => {
            await h.page.click('.cmp-pickers button');
            await h.page.waitForFunction(() => location.hash.includes('base=bound'));
            const hash = await h.page.evaluate(() => location.hash);
            assert.equal(hash, '#/page/compare?base=bound&new=fixed');
            // The swapped view settled, as the first test waits for it: the
            // table can be there before its rows (read empty under load).
            await waitForView(h.page, hash, TEST_MS);
            await h.page.waitForSelector('.cmp-result .table-widget', { timeout: TEST_MS });
            const shown = await headline();
            assert.ok(shown.length > 0, 'no headline rows after the swap');
            const fresh = await h.guard.context.newPage();
            await fresh.goto(h.server.url + hash);
            await waitForView(fresh, hash, TEST_MS);
            await fresh.waitForSelector('.cmp-result .table-widget', { timeout: TEST_MS });
            const again = await fresh.$$eval('.cmp-headlines tbody tr', (trs) =>
                trs.map((tr) => [...tr.children].map((c) => c.textContent)));
            assert.deepEqual(again, shown);
            assert.match(shown[0][3], /^-/);   // the fixed run is faster
            await fresh.close();
        });

    test('the history: both runs in time order; two points open their comparison',
        { timeout: TEST_MS }, async () => {
            const hash = '#/page/history';
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TEST_MS);
            await h.page.waitForSelector('.table-widget tbody tr', { timeout: TEST_MS });
            await screenshot(h.page, 'history');
            const rows = await h.page.$$eval('.table-widget tbody tr', (trs) =>
                trs.map((tr) => [...tr.children].map((c) => c.textContent)));
            assert.deepEqual(rows.map((r) => r[0]), ['bound', 'fixed']);
            assert.equal(Number(rows[0][3]), Number((await meanStepMs(h, 'bound')).toFixed(3)));
            // Click the step-time chart's two points, first the newer one.
            const points = await h.page.evaluate(() => {
                const canvas = document.querySelector('.hist-chart canvas');
                const box = canvas.getBoundingClientRect();
                const meta = window.Chart.getChart(canvas).getDatasetMeta(0);
                return meta.data.map((p) => ({ x: box.left + p.x, y: box.top + p.y }));
            });
            await h.page.mouse.click(points[1].x, points[1].y);
            await h.page.waitForFunction(() => location.hash.includes('sel=fixed'));
            await h.page.mouse.click(points[0].x, points[0].y);
            await h.page.waitForFunction(() => location.hash.startsWith('#/page/compare'));
            assert.equal(await h.page.evaluate(() => location.hash),
                         '#/page/compare?base=fixed&new=bound');
        });

    test('a row of the history opens its run', { timeout: TEST_MS }, async () => {
        await h.page.goto(`${h.server.url}#/page/history`);
        await h.page.waitForSelector('.table-widget tbody tr', { timeout: TEST_MS });
        await h.page.click('.table-widget tbody tr:nth-child(2)');
        await h.page.waitForFunction(() => location.hash.startsWith('#/run/fixed/'));
    });
});

const REAL = 'report.test (utilization curve)';
const REAL_SKIP = skipWithout(REAL);

describe('the overview\'s device utilization curve', { skip: REAL_SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-util-cache-',
                   wants: [['tf_keras_gpu_gcp/train/2022_11_04_21_26_12', 'instance-ecbm']] });

    test('its mean is the route\'s busy share, the idle card XProf\'s device IDLE share',
         { timeout: TEST_MS }, async () => {
            const run = 'tf_keras_gpu_gcp/train/2022_11_04_21_26_12';
            const host = 'instance-ecbm';
            const hash = hashOf(run, host, 'overview_page');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TEST_MS);
            await h.page.waitForSelector('.util-chart canvas', { timeout: TEST_MS });
            await h.page.waitForFunction(() => window.Chart
                && window.Chart.getChart(document.querySelector('.util-chart canvas')));
            await screenshot(h.page, 'overview-utilization');
            const seen = await h.page.evaluate(() => {
                const chart = window.Chart.getChart(document.querySelector('.util-chart canvas'));
                const ys = chart.data.datasets[0].data.map((p) => p.y);
                const card = [...document.querySelectorAll('.cards > *')]
                    .find((c) => c.textContent.startsWith('Device idle'));
                return { mean: ys.reduce((a, y) => a + y, 0) / ys.length, card: card.textContent };
            });
            // The curve's buckets are equal, so its mean is the device's busy
            // share over the window, which the route gives to 1e-4.
            const util = await routeData(h, run, host, 'device_utilization');
            assert.equal(util.devices.length, 1);
            assert.ok(Math.abs(seen.mean - util.devices[0].mean_percent) <= 1e-3,
                      `curve mean ${seen.mean}, route ${util.devices[0].mean_percent}`);
            // The card is the share of the device op table's time that is IDLE
            // (the card rounds it to 0.1).
            const ops = (await routeData(h, run, host, 'framework_op_stats'))[0];
            const id = (name) => ops.cols.findIndex((c) => c.id === name);
            let idle = 0;
            let all = 0;
            for (const r of ops.rows) {
                if (r.c[id('host_or_device')].v !== 'Device')
                    continue;
                all += r.c[id('total_self_time')].v;
                if (r.c[id('operation')].v === 'IDLE')
                    idle += r.c[id('total_self_time')].v;
            }
            const card = Number(/([\d.]+)%/.exec(seen.card)[1]);
            assert.ok(all > 0 && Math.abs(card - 100 * idle / all) <= 0.05 + 1e-3,
                      `idle card ${seen.card}, IDLE row ${100 * idle / all}%`);
        });
});
