// stats_pages.test.mjs: the kernel stats and framework op stats pages in
// headless Chromium on real profiles from ../shared/testdata (SKIP when
// absent): the numbers shown come from the server's tables (hand-checked
// against TensorFlow's own files by the C tests), the regex filter limits
// the rows to matching kernel and op names, a CPU profile says in words
// that it has no device kernels, and a legacy logdir (tensorflow_stats.pb
// only) gets the same page.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { waitForView } from './browser.mjs';
import { TESTDATA, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

const NAME = 'stats_pages.test';
const GPU = ['tf_keras_gpu_gcp/train/2022_11_04_21_26_12', 'instance-ecbm'];
const CPU = ['tf_keras_cpu_macos/train/2022_10_31_19_09_08', 'gaoyihaodeMacBook-Pro.local'];
const LEGACY = ['tf_legacy_demo_2020/GPU-input-bound', 'localhost'];
const VIEW_MS = 60000;

const SKIP = skipWithout(NAME);

describe('kernel stats and framework op stats pages', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-stats-cache-',
                   wants: [GPU, CPU, LEGACY] });

    async function open(target, tool) {
        const hash = hashOf(...target, tool);
        await h.page.goto(h.server.url + hash);
        await waitForView(h.page, hash, VIEW_MS);
        await h.page.waitForSelector('#content .data-table, #content .message',
                                     { timeout: VIEW_MS });
    }

    test('kernel stats: rows, both charts, and a regex filter on names', { timeout: VIEW_MS * 2 },
        async () => {
            await open(GPU, 'kernel_stats');
            // 114 distinct rows on this profile (the C tests check them
            // against TensorFlow's kernel_stats.pb), as many as the route sent.
            const route = await routeData(h, ...GPU, 'kernel_stats');
            assert.equal(route.rows.length, 114);
            assert.match(await h.page.textContent('.ks-summary'), /^114 kernel rows/);
            // The first row shown is the route's first (most total time).
            const name = route.rows[0].c[route.cols.findIndex((c) => c.id === 'kernel_name')].v;
            // Names are shown short; the full name is the cell's tooltip.
            const first = await h.page.$eval('.data-table tbody tr td:nth-child(2)',
                (td) => td.title || td.querySelector('[title]')?.title || '');
            assert.equal(first, name);
            await h.page.waitForFunction(() => [...document.querySelectorAll('canvas')]
                .filter((c) => window.Chart && window.Chart.getChart(c)).length === 2);
            assert.match(await h.page.textContent('.table-info'), /of 114 /);
            await h.page.check('.table-regex input');
            await h.page.fill('.table-filter', '^volta_(s|c)gemm');
            await h.page.waitForFunction(() => /filtered from 114/.test(
                document.querySelector('.table-info').textContent));
            const names = await h.page.$$eval('.data-table tbody tr td:nth-child(2)',
                (tds) => tds.map((td) => td.textContent));
            assert.ok(names.length > 0);
            for (const n of names)
                assert.match(n, /^volta_(s|c)gemm/);
            // An invalid expression matches nothing and marks the field.
            await h.page.fill('.table-filter', 'volta_(');
            await h.page.waitForSelector('.table-filter.invalid');
        });

    test('kernel stats on a CPU profile says there are no device kernels', { timeout: VIEW_MS },
        async () => {
            await open(CPU, 'kernel_stats');
            assert.match(await h.page.textContent('#content .message'),
                         /No device kernels in this profile/);
        });

    test('framework op stats: device and host tables, IDLE toggle', { timeout: VIEW_MS * 2 },
        async () => {
            await open(GPU, 'framework_op_stats');
            const heads = await h.page.$$eval('#content h3', (e) => e.map((x) => x.textContent));
            assert.deepEqual(heads, ['Device ops', 'Host ops']);
            // Without IDLE (the default) the page shows the route's second
            // table: 79 device rows and 65 host rows (the C tests check the
            // first, with IDLE: 80 and 66); with IDLE ticked, 80.
            const tables = await routeData(h, ...GPU, 'framework_op_stats');
            const count = (table, what) => {
                const side = table.cols.findIndex((c) => c.id === 'host_or_device');
                return table.rows.filter((r) => r.c[side].v === what).length;
            };
            assert.deepEqual([count(tables[0], 'Device'), count(tables[0], 'Host')], [80, 66]);
            const device = count(tables[1], 'Device'), host = count(tables[1], 'Host');
            assert.equal(device, 79);
            const infos = await h.page.$$eval('.table-info', (e) => e.map((x) => x.textContent));
            assert.match(infos[0], new RegExp(`of ${device} `));
            assert.match(infos[2], new RegExp(`of ${host} `));   // [1] is the device ops by type
            await h.page.check('.ks-controls input[type=checkbox]');
            await h.page.waitForFunction(() => /of 80 /.test(
                document.querySelector('.table-info').textContent));
        });

    test('framework op stats of a legacy logdir (tensorflow_stats.pb only)',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(LEGACY, 'framework_op_stats');
            assert.match(await h.page.textContent('#content h2'), /Framework op stats/);
            assert.ok(await h.page.$('.data-table tbody tr td.num'));
        });
});
