// bench/stats_page.mjs: how fast the kernel stats page shows its first
// screen for a 100,000-row table, in headless Debian Chromium.
//
//   PROFVIEW_BIN=build/profview node bench/stats_page.mjs [ROWS]
//
// Serves the real tf_keras_gpu_gcp profile from ../shared/testdata, but
// answers the page's kernel_stats requests with a generated table of ROWS
// rows (default 100000; the top 1000 unless max_rows=0), then prints
//   stats_page_rows <n> rows
//   stats_page_payload <MB> MB                (the reference's row form)
//   stats_page_payload_columns <MB> MB        (the column form the page asks for)
//   stats_page_first_screen <ms> ms           (response body read by the page -> first
//                                              table page and both charts drawn; the page
//                                              first asks for the reference's top 1000 rows)
//   stats_page_all_rows_screen <ms> ms        (the same after "Show all": every row)
//   stats_page_filter <ms> ms                 (typing a regex filter -> table redrawn)
//   stats_page_sort <ms> ms                   (clicking a column header -> table redrawn)
// Best of 3 page loads. Asserts nothing (STYLE rule 19). Needs node >= 18,
// /usr/bin/chromium and tests/browser/node_modules (npm ci there).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../tests/browser/browser.mjs';
import { startServer } from '../tests/browser/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const LOGDIR = path.join(here, '..', '..', 'shared', 'testdata', 'logdirs', 'tf_keras_gpu_gcp');
const RUN = 'train/2022_11_04_21_26_12';
const HOST = 'instance-ecbm';
const ROWS = Number(process.argv[2] || 100000);

// The generated table in the form the page asks for: rows, or the compact
// columns form (pv_format=columns).
function toColumns(json) {
    const dt = JSON.parse(json);
    const columns = dt.cols.map((c, i) => dt.rows.map((r) => r.c[i].v));
    return JSON.stringify({ cols: dt.cols, columns, p: dt.p });
}

function table(n, total) {
    const cols = [['rank', 'number'], ['kernel_name', 'string'], ['registers_per_thread', 'number'],
                  ['shmem_bytes', 'number'], ['block_dim', 'string'], ['grid_dim', 'string'],
                  ['occupancy_pct', 'number'], ['is_op_tensor_core_eligible', 'boolean'],
                  ['is_kernel_using_tensor_core', 'boolean'], ['op_name', 'string'],
                  ['occurrences', 'number'], ['total_duration_us', 'number'],
                  ['avg_duration_us', 'number'], ['min_duration_us', 'number'],
                  ['max_duration_us', 'number']];
    const rows = [];
    for (let i = 0; i < n; i++) {
        const total = (n - i) * 1.5;
        rows.push({ c: [i + 1, `void kernel_${i % 5000}<float, ${i % 7}>(float const*, float*, int)`,
            32 + (i % 8) * 8, (i % 4) * 1024, `${128 << (i % 3)},1,1`, `${40 + i % 100},1,1`,
            25 + (i % 4) * 12.5, i % 3 === 0, i % 6 === 0, `model/layer_${i % 300}/MatMul_${i % 11}`,
            1 + (i % 9), total, total / (1 + (i % 9)), total / 20, total / 2].map((v) => ({ v })) });
    }
    return JSON.stringify({ cols: cols.map(([id, type]) => ({ id, label: id, type })), rows,
                            p: { pv_total_rows: String(total), pv_gpu_planes: '1' } });
}

const REFERENCE_ROWS = 1000;  // what the page asks for first (the reference's cap)
const body = table(ROWS, ROWS);
const firstBody = table(Math.min(ROWS, REFERENCE_ROWS), ROWS);
const bodyCols = toColumns(body);
const firstBodyCols = toColumns(firstBody);
console.log(`stats_page_rows ${ROWS} rows`);
console.log(`stats_page_payload ${(body.length / 1e6).toFixed(1)} MB`);
console.log(`stats_page_payload_columns ${(bodyCols.length / 1e6).toFixed(1)} MB`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-stats-page-'));
const server = await startServer({ logdir: LOGDIR, cacheDir: path.join(tmp, 'cache') });
const browser = await launchBrowser();
const best = { first: Infinity, all: Infinity, filter: Infinity, sort: Infinity };
try {
    for (let rep = 0; rep < 3; rep++) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await page.route('**/data?*tag=kernel_stats*', (route) => {
            const url = route.request().url();
            const all = /[?&]max_rows=0(&|$)/.test(url);
            const cols = /[?&]pv_format=columns(&|$)/.test(url);
            route.fulfill({ status: 200, contentType: 'application/json',
                            body: cols ? (all ? bodyCols : firstBodyCols) : (all ? body : firstBody) });
        });
        // "The data arrives" when the page has read the whole response body
        // (the moment api.js's resp.text() resolves); the first screen is
        // there when a table row and both charts are on the page. Both are
        // stamped inside the page, so the harness's own transfer of the
        // body into the browser is not counted.
        await page.addInitScript(() => {
            const realFetch = window.fetch;
            window.fetch = async (...args) => {
                const resp = await realFetch(...args);
                if (String(args[0]).includes('tag=kernel_stats')) {
                    const realText = resp.text.bind(resp);
                    resp.text = async () => {
                        const t = await realText();
                        window.pvDataAt = performance.now();
                        return t;
                    };
                }
                return resp;
            };
            const poll = () => {
                const charts = [...document.querySelectorAll('canvas')]
                    .filter((c) => window.Chart && window.Chart.getChart(c)).length;
                if (window.pvDataAt && charts === 2 &&
                    document.querySelector('.data-table tbody tr td.num')) {
                    window.pvShownAt = performance.now();
                    return;
                }
                requestAnimationFrame(poll);
            };
            requestAnimationFrame(poll);
        });
        const hash = `#/run/${encodeURIComponent(RUN)}/host/${HOST}/tool/kernel_stats`;
        await page.goto(server.url + hash);
        await page.waitForFunction(() => window.pvShownAt, null, { timeout: 120000 });
        const ms = await page.evaluate(() => window.pvShownAt - window.pvDataAt);
        best.first = Math.min(best.first, Math.round(ms));

        // "Show all": the whole table, measured the same way.
        await page.evaluate(() => { window.pvDataAt = 0; window.pvShownAt = 0; });
        await page.click('.ks-summary button');
        await page.waitForFunction((n) => {
            const info = document.querySelector('.table-info');
            const charts = [...document.querySelectorAll('canvas')]
                .filter((c) => window.Chart && window.Chart.getChart(c)).length;
            if (window.pvDataAt && charts === 2 && info &&
                info.textContent.includes(` of ${n}`) && !window.pvShownAt)
                window.pvShownAt = performance.now();
            return window.pvShownAt;
        }, ROWS, { timeout: 120000, polling: 'raf' });
        const all = await page.evaluate(() => window.pvShownAt - window.pvDataAt);
        best.all = Math.min(best.all, Math.round(all));

        let t = Date.now();
        await page.check('.table-regex input');
        await page.fill('.table-filter', 'kernel_1[0-9]{2}<');
        await page.waitForFunction(() => /filtered from/.test(
            document.querySelector('.table-info').textContent), null, { timeout: 60000 });
        best.filter = Math.min(best.filter, Date.now() - t);

        t = Date.now();
        const before = await page.textContent('.data-table tbody tr td');
        await page.click('th button.sort >> text=registers_per_thread');
        await page.waitForFunction((b) => document.querySelector('.data-table tbody tr td')
            .textContent !== b, before, { timeout: 60000 });
        best.sort = Math.min(best.sort, Date.now() - t);
        await page.close();
    }
} finally {
    await browser.close();
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`stats_page_first_screen ${best.first} ms`);
console.log(`stats_page_all_rows_screen ${best.all} ms`);
console.log(`stats_page_filter ${best.filter} ms`);
console.log(`stats_page_sort ${best.sort} ms`);
