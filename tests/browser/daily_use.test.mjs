// daily_use.test.mjs: the traps of issue #19, each checked the way a person
// meets it, in headless Chromium on the real profiles of ../shared/testdata
// (SKIP when absent). Expected values come from what the server's routes
// answer for the same profile, read here with fetch, never from what the
// page showed before.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { guardedContext, waitForView } from './browser.mjs';
import { TESTDATA, hashOf, servePage, skipWithout } from './testdata.mjs';

const NAME = 'daily_use.test';
const GPU = ['tf_keras_gpu_gcp/train/2022_11_04_21_26_12', 'instance-ecbm'];
const CPU = ['tf_keras_cpu_macos/train/2022_10_31_19_09_08', 'gaoyihaodeMacBook-Pro.local'];
const TPU = ['jax_tpu_v6e_inference/tpu_inference', 'tpu_inference_2'];
const ROCM = ['jax_rocm_mi300/jax_conv_minimal_08', 'tw003'];
const LEGACY_TPU = ['tf_legacy_demo_2020/Cloud-TPU', '10.240.1.50'];
const LEGACY_GPU = ['tf_legacy_demo_2020/GPU-compute-bound', 'localhost'];
const VIEW_MS = 60000;
const enc = encodeURIComponent;
const SRCDIR = process.env.PV_SRCDIR || fileURLToPath(new URL('../..', import.meta.url));

const SKIP = skipWithout(NAME);

// XProf's own trace of a profile (its golden trace_viewer answer under
// tests/data/reference), read here: per process name, its threads in
// XProf's order (sort index) with their events counted, and the events.
function xprofTrace(rel) {
    const trace = JSON.parse(zlib.gunzipSync(fs.readFileSync(
        path.join(SRCDIR, 'tests/data/reference', rel))));
    const procs = new Map();
    const threads = new Map();   // "pid/tid" -> {pid, name, sort, events}
    const at = (e) => {
        const key = `${e.pid}/${e.tid}`;
        if (!threads.has(key))
            threads.set(key, { pid: e.pid, name: '', sort: 0, events: 0 });
        return threads.get(key);
    };
    for (const e of trace.traceEvents) {
        if (e.ph === 'M' && e.name === 'process_name')
            procs.set(e.pid, e.args.name);
        else if (e.ph === 'M' && e.name === 'thread_name')
            at(e).name = e.args.name;
        else if (e.ph === 'M' && e.name === 'thread_sort_index')
            at(e).sort = e.args.sort_index;
    }
    for (const e of trace.traceEvents) {
        if ((e.ph === 'X' || e.ph === 'i') && threads.has(`${e.pid}/${e.tid}`))
            at(e).events += 1;
    }
    const byProcess = new Map();
    for (const t of [...threads.values()].sort((a, b) => a.pid - b.pid || a.sort - b.sort)) {
        const name = procs.get(t.pid);
        byProcess.set(name, [...(byProcess.get(name) || []), t]);
    }
    return { threads: byProcess, events: trace.traceEvents };
}

describe('the page as a demanding ML engineer uses it (issue #19)', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-daily-',
                   wants: [GPU, CPU, TPU, ROCM, LEGACY_TPU, LEGACY_GPU] });

    async function route(p) {
        const r = await fetch(h.server.url + p);
        assert.equal(r.status, 200, `${p} answered ${r.status}`);
        return r.json();
    }
    const data = ([run, host], tool, extra = '') =>
        route(`data/plugin/profile/data?run=${enc(run)}&host=${enc(host)}&tag=${enc(tool)}${extra}`);

    async function open(target, tool, query = '', page = h.page) {
        const hash = hashOf(...target, tool, query);
        await page.goto(h.server.url + hash);
        await waitForView(page, hash, VIEW_MS);
        return hash;
    }

    // ---- kernel stats (item 1) ------------------------------------------------

    test('kernel stats: short names, durations in view, charts whose labels differ',
        { timeout: VIEW_MS * 2 }, async () => {
            const dt = await data(GPU, 'kernel_stats');
            const names = dt.rows.map((r) => r.c[1].v);
            const longest = names.reduce((a, b) => (b.length > a.length ? b : a));
            assert.ok(longest.length > 200, 'the profile lost its long C++ kernel names');
            for (const width of [1600, 1000]) {
                await h.page.setViewportSize({ width, height: width === 1600 ? 1000 : 700 });
                await open(GPU, 'kernel_stats');
                await h.page.waitForSelector('.data-table tbody tr');
                // The row of the longest name stays a few lines tall, and its
                // cell names the kernel in full on hover.
                const seen = await h.page.evaluate((full) => {
                    const td = [...document.querySelectorAll('.data-table tbody td')]
                        .find((c) => c.title === full);
                    const th = [...document.querySelectorAll('.data-table th')]
                        .find((x) => /Total Duration/.test(x.textContent));
                    return { height: td ? td.getBoundingClientRect().height : null,
                             text: td ? td.textContent : null,
                             durRight: th.getBoundingClientRect().right };
                }, longest);
                assert.ok(seen.height !== null, 'no cell has the full kernel name as its tooltip');
                assert.ok(seen.height < 60, `the longest name's row is ${seen.height} px tall`);
                assert.ok(!seen.text.includes('('), `parameters shown: ${seen.text}`);
                assert.ok(seen.durRight <= width, `total duration ends at x=${seen.durRight}`);
            }
            // The top-10 chart: ten bars, ten labels, each label different.
            await h.page.waitForFunction(() => [...document.querySelectorAll('canvas')]
                .some((c) => window.Chart && window.Chart.getChart(c)?.config.type === 'bar'));
            const chart = await h.page.evaluate(() => {
                const c = [...document.querySelectorAll('canvas')]
                    .map((x) => window.Chart.getChart(x)).find((x) => x?.config.type === 'bar');
                return { labels: c.data.labels.map((l) => JSON.stringify(l)),
                         ticks: c.scales.y.ticks.length };
            });
            assert.equal(chart.labels.length, 10);
            assert.equal(new Set(chart.labels).size, 10, chart.labels.join(' | '));
            // At 1000 px every bar still has its label (none skipped).
            assert.equal(chart.ticks, 10);
            // A clicked row shows the full name.
            const rank1 = dt.rows.find((r) => r.c[0].v === 1).c[1].v;
            await h.page.click('.data-table tbody tr:first-child');
            await h.page.waitForSelector('.ks-details:not([hidden])');
            assert.ok((await h.page.textContent('.ks-details')).includes(rank1));
            await h.page.setViewportSize({ width: 1280, height: 800 });
        });

    test('AMD GPUs have Matrix Cores, not Tensor Cores', { timeout: VIEW_MS }, async () => {
        const dt = await data(ROCM, 'kernel_stats', '&pv_extras=1');
        assert.equal(dt.p.pv_gpu_vendor, 'AMD');
        await open(ROCM, 'kernel_stats');
        await h.page.waitForSelector('.data-table tbody tr');
        const text = await h.page.textContent('#content');
        assert.match(text, /Matrix Core use in eligible ops/);
        assert.ok(!/Tensor ?Core/.test(text), 'NVIDIA\'s words on an AMD profile');
    });

    test('an invalid regular expression is said in words, not "Rows 0 of 0"',
        { timeout: VIEW_MS }, async () => {
            const dt = await data(GPU, 'kernel_stats');
            await open(GPU, 'kernel_stats');
            await h.page.waitForSelector('.data-table tbody tr');
            await h.page.check('.table-regex input');
            await h.page.fill('.table-filter', 'volta_(');
            await h.page.waitForSelector('.table-problem:not([hidden])');
            assert.match(await h.page.textContent('.table-problem'), /regular expression/);
            assert.match(await h.page.textContent('.table-info'), new RegExp(`of ${dt.rows.length} `));
        });

    // ---- table state in the URL (item 6) ------------------------------------------

    test('a copied link keeps a table\'s filter, sort and page', { timeout: VIEW_MS * 2 },
        async () => {
            await open(GPU, 'kernel_stats');
            await h.page.waitForSelector('.data-table tbody tr');
            await h.page.fill('.table-filter', 'gemm');
            const th = h.page.locator('.data-table th', { hasText: 'Avg Duration' });
            await th.locator('button').click();
            await th.locator('button').click();   // ascending
            await h.page.waitForFunction(() => /k_sort=avg_duration_us%3Aasc/.test(location.hash));
            const want = await h.page.evaluate(() => ({
                info: document.querySelector('.table-info').textContent,
                first: document.querySelector('.data-table tbody tr').textContent,
            }));
            const link = h.page.url();
            const fresh = await guardedContext(h.browser, h.server.url);
            try {
                const page = await fresh.context.newPage();
                await page.goto(link);
                await page.waitForSelector('.data-table tbody tr', { timeout: VIEW_MS });
                assert.equal(await page.inputValue('.table-filter'), 'gemm');
                assert.equal(await page.textContent('.table-info'), want.info);
                assert.equal(await page.textContent('.data-table tbody tr'), want.first);
                assert.deepEqual(fresh.errors, []);
                assert.deepEqual(fresh.foreign, []);
            } finally {
                await fresh.context.close();
            }
        });

    // ---- framework op stats (items 4, 5) ---------------------------------------------

    test('framework op stats: shares in percent, IDLE left out unless asked for',
        { timeout: VIEW_MS * 2 }, async () => {
            const [withIdle, withoutIdle] = await data(GPU, 'framework_op_stats');
            const col = withIdle.cols.findIndex((c) => c.id === 'device_total_self_time_percent');
            const device = (t) => t.rows.filter((r) => r.c[1].v === 'Device');
            const top = device(withoutIdle)[0];
            await open(GPU, 'framework_op_stats');
            await h.page.waitForSelector('.data-table tbody tr');
            const info = await h.page.textContent('.table-info');
            assert.match(info, new RegExp(`of ${device(withoutIdle).length} `));
            assert.ok(device(withIdle).length > device(withoutIdle).length);
            // The first device row's share, as the route's fraction in percent.
            const shown = await h.page.evaluate((label) => {
                const ths = [...document.querySelector('.data-table').querySelectorAll('th')];
                const i = ths.findIndex((x) => x.textContent.startsWith(label));
                return document.querySelector('.data-table tbody tr').children[i].textContent;
            }, withIdle.cols[col].label);
            const pct = top.c[col].v * 100;
            assert.ok(pct > 1, `the top op has ${pct} % of device self time`);
            assert.equal(Number(shown), Math.round(pct * 1000) / 1000);
            // The CSV says the same in percent.
            const [download] = await Promise.all([h.page.waitForEvent('download'),
                h.page.locator('button:text("Export CSV")').first().click()]);
            const csv = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
            const head = csv[0].split(',');
            const at = head.findIndex((x) => x.startsWith('Total self-time on Device'));
            assert.ok(Math.abs(Number(csv[1].split(',')[at]) - pct) < 1e-3, csv[1]);
            await h.page.check('.ks-controls input[type=checkbox]');
            await h.page.waitForFunction((n) => document.querySelector('.table-info')
                .textContent.includes(`of ${n} `), device(withIdle).length);
            assert.match(h.page.url(), /idle=1/);
        });

    // ---- memory profile (items 2, 12) -------------------------------------------------

    test('memory profile: no "null", a heading when empty, no placeholders',
        { timeout: VIEW_MS * 2 }, async () => {
            const rocm = await data(ROCM, 'memory_profile', '&pv_extras=1');
            const steps = new Set(rocm.memoryProfilePerAllocator.GPU_0_bfc.pvTimeline.stepId);
            assert.equal(steps.size, 1, 'the allocator has more than one step');
            await open(ROCM, 'memory_profile');
            await h.page.waitForSelector('.data-table tbody tr');
            const texts = await h.page.evaluate(() => [...document.querySelector('.view-body')
                .childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data));
            assert.deepEqual(texts, []);

            const meta = rocm.memoryProfilePerAllocator.GPU_0_bfc.memoryProfileSnapshots
                .map((s) => s.activityMetadata);
            assert.ok(meta.some((m) => m.dataType === 'INVALID' && m.tfOpName === ''));
            const cells = await h.page.$$eval('.data-table tbody td', (tds) =>
                tds.map((td) => td.textContent));
            assert.ok(!cells.includes('INVALID'), cells.join(' | '));
            assert.ok(!cells.includes('(unknown op)'), cells.join(' | '));

            await open(CPU, 'memory_profile');
            await h.page.waitForSelector('#content .message');
            assert.equal(await h.page.textContent('#content h2'), 'Memory profile');
        });

    // ---- the tool picker and the trace viewer's keys (item 3) --------------------------

    test('after picking the trace viewer its keys work and F stays in it',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(CPU, 'overview_page');
            await h.page.focus('#tool');
            await h.page.selectOption('#tool', 'trace_viewer@');
            const hash = hashOf(...CPU, 'trace_viewer@');
            await waitForView(h.page, hash, VIEW_MS);
            await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: VIEW_MS });
            const before = await h.page.textContent('.tv-window');
            await h.page.keyboard.press('w');
            await h.page.waitForFunction((b) => document.querySelector('.tv-window')
                .textContent !== b, before, { timeout: 5000 });
            await h.page.keyboard.press('f');
            await h.page.keyboard.press('k');
            await h.page.waitForTimeout(500);
            assert.equal(await h.page.inputValue('#tool'), 'trace_viewer@');
            assert.ok(h.page.url().includes('/tool/trace_viewer%40'), h.page.url());
        });

    // ---- trace viewer (items 7, 9, 12) ---------------------------------------------------

    // The window's width in ps, from the URL.
    const windowPs = (page) => {
        const q = new URLSearchParams(new URL(page.url()).hash.split('?')[1]);
        return Number(q.get('end')) - Number(q.get('start'));
    };

    test('one tap of W zooms in by a visible step', { timeout: VIEW_MS }, async () => {
        await open(CPU, 'trace_viewer@');
        await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: VIEW_MS });
        await h.page.mouse.move(700, 500);
        await h.page.keyboard.press('w');
        await h.page.waitForFunction(() => /end=/.test(location.hash), null, { timeout: 3000 })
            .catch(() => assert.fail('one tap of W did not move the window'));
        await h.page.waitForTimeout(400);
        const meta = await route(`api/trace/meta?run=${enc(CPU[0])}&host=${enc(CPU[1])}`);
        const after = windowPs(h.page);
        assert.ok(after <= 0.85 * meta.span_ps, `one tap left ${after / meta.span_ps} of the span`);
    });

    test('a clicked event low on the screen stays in view when the details open',
        { timeout: VIEW_MS * 3 }, async () => {
            await open(ROCM, 'trace_viewer@');
            await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: VIEW_MS });
            const b = await h.page.locator('.tv-canvas').boundingBox();
            // The host's threads, whose events mostly have no flows, scrolled
            // into the lower part of the view (wheel over the names).
            await h.page.mouse.move(b.x + 60, b.y + b.height / 2);
            await h.page.mouse.wheel(0, 700);
            await h.page.waitForTimeout(300);
            // An event in the lowest 280 px (the panel, a third of the view
            // and at least 140 px, will cover them) with no flow partner
            // (flow arrows are drawn in the selection's red).
            let clicked = false;
            for (let y = b.y + b.height - 10; y > b.y + b.height - 280 && !clicked; y -= 4) {
                for (const fx of [0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) {
                    const x = b.x + 231 + fx * (b.width - 232);
                    await h.page.mouse.move(x, y);
                    const tip = await h.page.evaluate(() => {
                        const t = document.querySelector('.tv-tooltip');
                        return t && !t.hidden ? t.textContent : null;
                    });
                    // Aggregate boxes and counter tracks (a value "at" a time)
                    // have no details to open.
                    if (!tip || / events in /.test(tip) || /\n.* at /.test(tip))
                        continue;
                    await h.page.mouse.click(x, y);
                    await h.page.waitForSelector('.tv-details h4');
                    if (/Flow(s| events) \(0\)/.test(await h.page.textContent('.tv-details'))) {
                        clicked = true;
                        break;
                    }
                    await h.page.keyboard.press('Escape');
                }
            }
            assert.ok(clicked, 'no event without flows in the lowest 280 px of the timeline');
            await h.page.mouse.move(b.x + 5, b.y + 5);   // no hover outline
            await h.page.waitForTimeout(400);
            // The selection's outline (the theme's --tv-selected) is on the
            // canvas, which shows exactly the visible part of the tracks.
            const red = await h.page.evaluate(() => {
                const c = document.querySelector('.tv-canvas');
                const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                let n = 0;
                for (let i = 0; i < d.length; i += 4)
                    n += d[i] === 209 && d[i + 1] === 36 && d[i + 2] === 47;
                return n;
            });
            assert.ok(red >= 8, `${red} pixels of the selection outline are in view`);
        });

    test('the devices come before the host\'s threads', { timeout: VIEW_MS }, async () => {
        const meta = await route(`api/trace/meta?run=${enc(ROCM[0])}&host=${enc(ROCM[1])}`);
        const names = meta.processes.map((p) => p.name);
        assert.equal(names[0], '/host:CPU', 'the server no longer lists the host first');
        const gpu0 = meta.processes.find((p) => p.name === '/device:GPU:0');
        const found = await route(`api/trace/search?run=${enc(ROCM[0])}&host=${enc(ROCM[1])}` +
                                  `&q=${enc('Im3d2Col')}&limit=50`);
        const kernel = found.results.find((r) => gpu0.threads.some((t) => t.track === r.track));
        assert.ok(kernel, 'no Im3d2Col kernel on GPU:0');
        await h.page.goto('about:blank');   // a fresh page: no scroll left from before
        await open(ROCM, 'trace_viewer@', `?sel=${kernel.id}`);
        await h.page.waitForSelector('.tv-details-name', { timeout: VIEW_MS });
        await h.page.waitForTimeout(300);
        // GPU:0 is the first process: its streams are in view without scrolling.
        assert.equal(await h.page.evaluate(() => document.querySelector('.tv-scroll').scrollTop),
                     0);
    });

    // ---- the lines XProf derives on a JAX GPU (item 10) ----------------------------------

    test('a JAX GPU profile shows the lines XProf derives, after their stream, and an XLA op ' +
         'is found on them', { timeout: VIEW_MS * 2 }, async () => {
        const xprof = xprofTrace('shared_golden/logdirs/jax_rocm_mi300/plugins/profile/' +
                                 'jax_conv_minimal_08/tw003.trace_viewer.json.gz');
        // GPU:0's lines in XProf's order: its busiest stream, the five lines
        // derived from it ("XLA Ops - from #16", ...), the other streams.
        const want = xprof.threads.get('/device:GPU:0').filter((t) => t.events > 0)
            .map((t) => t.name);
        assert.ok(want.includes('XLA Ops - from #16'), want.join(', '));
        await h.page.setViewportSize({ width: 1600, height: 1000 });
        await open(ROCM, 'trace_viewer@');
        await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: VIEW_MS });
        await h.page.click('button:text-is("Tracks")');
        const listed = await h.page.evaluate(() => {
            const out = [];
            let inGpu0 = false;
            for (const li of document.querySelectorAll('.tv-track-list li')) {
                const label = li.querySelector('.tv-track-name').textContent;
                if (li.classList.contains('tv-track-process'))
                    inGpu0 = label === '/device:GPU:0';
                else if (inGpu0)
                    out.push(label);
            }
            return out;
        });
        assert.deepEqual(listed.filter((l) => want.includes(l)), want,
                         `GPU:0 lists ${listed.join(', ')}`);
        await h.page.click('.tv-tracks .tv-close');
        // An XLA op's event on the derived line: the search finds it, and its
        // details name the line.
        const meta = await route(`api/trace/meta?run=${enc(ROCM[0])}&host=${enc(ROCM[1])}`);
        const derived = new Set(meta.processes.flatMap((p) => p.threads)
            .filter((t) => t.derived).map((t) => t.track));
        const found = await route(`api/trace/search?run=${enc(ROCM[0])}&host=${enc(ROCM[1])}` +
                                  `&q=${enc('cudnn-conv.1')}&limit=1000`);
        const onLine = found.results.findIndex((r) => derived.has(r.track));
        assert.ok(onLine >= 0, 'no cudnn-conv.1 on a derived XLA Ops line');
        await h.page.fill('.tv-search', 'cudnn-conv.1');
        for (let i = 0; i <= onLine; i++) {
            await h.page.press('.tv-search', 'Enter');
            await h.page.waitForFunction((n) => document.querySelector('.tv-search-info')
                .textContent.startsWith(`${n} of `), i + 1, { timeout: VIEW_MS });
        }
        await h.page.waitForFunction((id) => new URLSearchParams(location.hash.split('?')[1])
            .get('sel') === String(id), found.results[onLine].id, { timeout: VIEW_MS });
        await h.page.waitForFunction(() => /XLA Ops - from #\d+/.test(
            document.querySelector('.tv-details')?.innerText || ''), null, { timeout: VIEW_MS });
        assert.equal(await h.page.textContent('.tv-details-name'), 'cudnn-conv.1');
    });

    // ---- TPU and legacy TPU runs (items 8, 11) --------------------------------------------

    test('a TPU overview does not send the reader to an empty tool', { timeout: VIEW_MS },
        async () => {
            await open(TPU, 'overview_page');
            await h.page.waitForSelector('.steps-verdict', { timeout: VIEW_MS });
            const text = await h.page.textContent('#content');
            assert.ok(!/framework_op_stats/.test(text), 'a raw tool id in the text');
            assert.match(text, /trace viewer/);
        });

    test('legacy Cloud-TPU runs: readable overview, input pipeline and pod viewer',
        { timeout: VIEW_MS * 3 }, async () => {
            const ov = await data(LEGACY_TPU, 'overview_page');
            assert.ok(JSON.stringify(ov).includes('remark_color'));
            for (const tool of ['overview_page', 'input_pipeline_analyzer', 'pod_viewer']) {
                await open(LEGACY_TPU, tool);
                await h.page.waitForSelector('#content h2', { timeout: VIEW_MS });
                const seen = await h.page.evaluate(() => ({
                    text: document.getElementById('content').innerText,
                    json: Boolean(document.querySelector('pre.json')),
                    head: document.querySelector('#content h2').textContent,
                }));
                assert.ok(!/Table \d+ of \d+/.test(seen.text), `${tool}: raw table dump`);
                assert.ok(!/remark_color|<a href/.test(seen.text), `${tool}: internal keys`);
                assert.ok(!seen.json, `${tool}: a JSON dump`);
                assert.ok(!/_/.test(seen.head), `${tool}: heading ${seen.head}`);
            }
            // The overview's statement and steps are the file's.
            await open(LEGACY_TPU, 'overview_page');
            await h.page.waitForSelector('.steps-verdict');
            const stepTable = ov[1];
            assert.ok((await h.page.textContent('.steps-verdict'))
                .includes(stepTable.p.summary_conclusion));
        });

    // ---- smaller ones (item 12) ------------------------------------------------------------

    test('a category keeps its colour on every page', { timeout: VIEW_MS * 2 }, async () => {
        const colourOf = async (label) => {
            await h.page.waitForFunction(() => document.querySelector('.steps-chart canvas') &&
                window.Chart?.getChart(document.querySelector('.steps-chart canvas')));
            return h.page.evaluate((l) => window.Chart.getChart(
                document.querySelector('.steps-chart canvas')).data.datasets
                .find((d) => d.label === l)?.backgroundColor, label);
        };
        await open(GPU, 'overview_page', '?host_steps=1');
        const gpu = await colourOf('Input');
        await open(CPU, 'overview_page');
        const cpu = await colourOf('Input');
        await open(GPU, 'input_pipeline_analyzer', '?host_steps=1');
        const wait = await colourOf('Waiting for input on the host');
        assert.ok(gpu, 'no Input series on the GPU overview');
        assert.equal(cpu, gpu);
        assert.equal(wait, gpu);
    });

    test('the run environment names the host the page shows', { timeout: VIEW_MS },
        async () => {
            const ov = await data(CPU, 'overview_page');
            assert.equal((ov[2].pv_hostnames || []).length, 0, 'the profile lists its hosts');
            await open(CPU, 'overview_page');
            await h.page.waitForSelector('dl.props');
            const hosts = await h.page.evaluate(() => [...document.querySelectorAll('dl.props dt')]
                .find((dt) => dt.textContent === 'Hosts').nextElementSibling.textContent);
            assert.equal(hosts, CPU[1]);
        });

    test('durations in cards are scaled, not thousands of µs', { timeout: VIEW_MS },
        async () => {
            const ip = await data(LEGACY_GPU, 'input_pipeline_analyzer');
            const us = Number(ip[2].p.preprocessing_us);
            assert.ok(us >= 1e6, `preprocessing is ${us} µs`);
            await open(LEGACY_GPU, 'input_pipeline_analyzer');
            await h.page.waitForSelector('.cards');
            const text = await h.page.evaluate(() => [...document.querySelectorAll('.card')]
                .map((c) => c.innerText).join('\n'));
            assert.ok(!/\d{4,}(\.\d+)? µs/.test(text), text);
            // 29,223,041.927 µs to 4 significant digits: 29.22 s
            assert.match(text, new RegExp(`Preprocessing\\n${Number((us / 1e6).toPrecision(4))} s`));
        });
});

// ---- step slices (item 12) -----------------------------------------------------------------

const DEMO = path.join(SRCDIR, 'demo');
const DEMO_RUN = ['2026_11_29_17_33_32', 'vm'];

describe('a step reads as XProf names it', { skip: skipWithout(NAME, path.join(DEMO, 'plugins'),
                                                                'demo/plugins') }, () => {
    const h = {};
    servePage(h, { logdir: DEMO, cachePrefix: 'profview-daily-steps-', wants: [DEMO_RUN] });

    test('the Keras step marker "train" with step_num 16 reads "train 16"', { timeout: VIEW_MS },
        async () => {
            // XProf's trace of the demo run names its step events by step.
            const xprof = xprofTrace('demo_golden/2026_11_29_17_33_32/vm.trace_viewer.json.gz');
            const steps = xprof.events.filter((e) => e.ph === 'X' && e.args && e.args.step_name);
            const step = steps.find((e) => e.name === 'train 16');
            assert.ok(step, `XProf names the steps ${steps.map((e) => e.name).join(', ')}`);
            const hash = hashOf(...DEMO_RUN, 'trace_viewer@');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, VIEW_MS);
            await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: VIEW_MS });
            await h.page.fill('.tv-search', 'train 16');
            await h.page.press('.tv-search', 'Enter');
            await h.page.waitForFunction(() => /^1 of 1$/.test(
                document.querySelector('.tv-search-info').textContent), null,
                                         { timeout: VIEW_MS });
            await h.page.waitForSelector('.tv-details-name', { timeout: VIEW_MS });
            assert.equal(await h.page.textContent('.tv-details-name'), 'train 16');
            // the same event XProf names so: its duration to the nanosecond
            const sel = new URLSearchParams((await h.page.evaluate(() => location.hash))
                .split('?')[1]).get('sel');
            const ev = await (await fetch(`${h.server.url}api/trace/event?run=${DEMO_RUN[0]}` +
                                          `&host=${DEMO_RUN[1]}&id=${sel}`)).json();
            assert.equal(Math.round(ev.dur_ps / 1000), Math.round(step.dur * 1000));
        });
});
