// xla_pages.test.mjs: the XLA pages (hlo_stats, op_profile, roofline_model)
// in headless Chromium on the JAX profiles of ../shared/testdata (SKIP when
// absent). Counts come from XProf 2.24.2's own answers for these profiles
// (tests/data/reference/shared_golden/.../jax08_gemm/tw003.*.json.gz: 16
// HLO op rows over 16 programs, program 32 runs one op, wrapped_broadcast;
// 17 roofline rows with infeed; the TPU op profile's top level is
// jit_f, IDLE, jit__psum and jit_broadcast_in_dim), not from profview.
// Each page renders, sorts or filters, keeps its state in a link that
// reopens it, and opens the trace viewer at the op's own kernel.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { waitForView } from './browser.mjs';
import { TESTDATA, hashOf, servePage, skipWithout } from './testdata.mjs';

const NAME = 'xla_pages.test';
const GEMM = ['jax_rocm_mi300/jax08_gemm', 'tw003'];
const TPU = ['jax_tpu_v6e_inference/tpu_inference', 'tpu_inference_2'];
const CPU = ['tf_keras_cpu_macos/train/2022_10_31_19_09_08', 'gaoyihaodeMacBook-Pro.local'];
const VIEW_MS = 90000;

const SKIP = skipWithout(NAME);

describe('HLO op stats, op profile and roofline pages', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-xla-cache-',
                   wants: [GEMM, TPU, CPU] });

    async function open(target, tool, query = '', ready = '#content .data-table, #content .message') {
        const hash = hashOf(...target, tool, query);
        await h.page.goto(h.server.url + hash);
        await waitForView(h.page, hash, VIEW_MS);
        await h.page.waitForSelector(ready, { timeout: VIEW_MS });
    }

    const tableInfo = () => h.page.textContent('.table-info');
    const hash = () => h.page.evaluate(() => decodeURIComponent(location.hash));

    test('hlo_stats: rows, sort, program filter, selection in the link, trace link',
        { timeout: VIEW_MS * 3 }, async () => {
            await open(GEMM, 'hlo_stats');
            assert.match(await h.page.textContent('.ks-summary'), /^16 ops, /);
            assert.match(await tableInfo(), /of 16 /);
            await h.page.waitForFunction(() => [...document.querySelectorAll('canvas')]
                .filter((c) => window.Chart && window.Chart.getChart(c)).length === 2);
            // Sorting by occurrences puts copy.1 (12 runs) first.
            await h.page.click('th button:text-is("#Occurrences")');
            assert.equal(await h.page.textContent(
                '.data-table tbody tr:first-child td:nth-child(4)'), 'copy.1');
            // The program picker keeps one program, and says so in the URL.
            await h.page.selectOption('.xla-picker select >> nth=0', '32');
            await h.page.waitForFunction(() => /of 1 /.test(
                document.querySelector('.table-info').textContent));
            assert.match(await hash(), /program=32/);
            await h.page.click('.data-table tbody tr:first-child');
            assert.match(await h.page.textContent('.xla-details h3'), /^wrapped_broadcast/);
            assert.match(await hash(), /op=32\/wrapped_broadcast/);
            // The link reopens the same selection.
            const link = await h.page.evaluate(() => location.hash);
            await h.page.goto(h.server.url + '#/');
            await h.page.goto(h.server.url + link);
            await h.page.waitForSelector('.xla-details h3', { timeout: VIEW_MS });
            assert.match(await h.page.textContent('.xla-details h3'), /^wrapped_broadcast/);
            // "Show in trace" opens the trace viewer at program 32's kernel.
            await h.page.click('.xla-trace-link');
            await h.page.waitForFunction(() => /tool\/trace_viewer%40.*sel=/.test(location.hash),
                                         null, { timeout: VIEW_MS });
            await h.page.waitForSelector('.tv-details-name', { timeout: VIEW_MS });
            assert.equal(await h.page.textContent('.tv-details-name'), 'wrapped_broadcast.kd');
            assert.match(await h.page.innerText('.tv-details'), /program_id\s+32/);
        });

    test('hlo_stats of a CPU profile says there are no XLA ops', { timeout: VIEW_MS },
        async () => {
            await open(CPU, 'hlo_stats');
            assert.match(await h.page.textContent('#content .message'), /No XLA ops ran/);
        });

    test('op_profile: the tree opens, a node is selected by link, IDLE can go',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(TPU, 'op_profile', '', '.xla-tree');
            const top = await h.page.$$eval('.xla-tree tbody tr[aria-level="1"] .xla-node',
                (b) => b.map((x) => x.textContent));
            assert.deepEqual(top, ['jit_f(12190760917235803885)', 'IDLE',
                                   'jit__psum(9646411105960254074)',
                                   'jit_broadcast_in_dim(11287434908481120160)']);
            // The largest program starts open; a keyboard toggle closes it.
            const first = '.xla-tree tbody tr[aria-level="1"]:first-child';
            assert.equal(await h.page.getAttribute(first, 'aria-expanded'), 'true');
            await h.page.focus(`${first} .xla-toggle`);
            await h.page.keyboard.press('ArrowLeft');
            assert.equal(await h.page.getAttribute(first, 'aria-expanded'), 'false');
            // A link to a node opens its ancestors and shows its op.
            await open(TPU, 'op_profile',
                       `?node=${encodeURIComponent('jit_f(12190760917235803885)|loop fusion')}`,
                       '.xla-details h3');
            assert.match(await h.page.textContent('.xla-details h3'), /^loop fusion/);
            assert.equal(await h.page.getAttribute(
                '.xla-tree tr.selected', 'data-path'), 'jit_f(12190760917235803885)|loop fusion');
            await h.page.uncheck('.ks-controls input[type=checkbox]');
            await h.page.waitForFunction(() => ![...document.querySelectorAll(
                '.xla-tree .xla-node')].some((b) => b.textContent === 'IDLE'));
            assert.match(await hash(), /idle=0/);
        });

    // The overview's top device ops on JAX are XProf's XLA ops (its goldens:
    // jax08_gemm's first is jit(dot)/dot_general at 94.7 %, eligible and on
    // the matrix cores; the TPU's ten start with copy-done.4 at 24.7 %).
    test('overview_page on JAX: the top device ops are the XLA ops XProf lists',
        { timeout: VIEW_MS * 2 }, async () => {
            const devRows = () => h.page.evaluate(() => {
                const sec = [...document.querySelectorAll('#content section')]
                    .find((x) => /^Top 10 ops on device/.test(x.querySelector('h3')?.textContent));
                return [...sec.querySelectorAll('tbody tr')]
                    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
            });
            await open(GEMM, 'overview_page', '', '#content .data-table');
            let rows = await devRows();
            assert.equal(rows.length, 3);
            assert.deepEqual(rows[0].slice(1, 5), ['94.69', '94.69', 'dot_general',
                                                   'jit(dot)/dot_general']);
            assert.deepEqual(rows[0].slice(6), ['true', 'true']);
            await open(TPU, 'overview_page', '', '#content .data-table');
            rows = await devRows();
            assert.equal(rows.length, 10);
            assert.deepEqual(rows[0].slice(1, 5), ['24.68', '24.68', 'Unknown', 'copy-done.4']);
        });

    test('roofline_model: points under the roofs, table, infeed toggle',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(GEMM, 'roofline_model');
            assert.match(await tableInfo(), /of 17 /);
            await h.page.waitForFunction(() => [...document.querySelectorAll('canvas')]
                .some((c) => window.Chart && window.Chart.getChart(c)));
            const sets = await h.page.evaluate(() => {
                const c = [...document.querySelectorAll('canvas')]
                    .map((x) => window.Chart.getChart(x)).find(Boolean);
                return c.data.datasets.map((d) => ({ label: d.label, n: d.data.length }));
            });
            assert.ok(sets.some((s) => /^HBM roof \(ridge 491\.1 /.test(s.label)));
            assert.ok(sets.filter((s) => /^ops bound by/.test(s.label))
                .reduce((n, s) => n + s.n, 0) > 0);
            await h.page.click('.data-table tbody tr:nth-child(2)');
            assert.match(await h.page.textContent('.xla-details h3'), /^custom-call\.1/);
            await h.page.uncheck('.ks-controls input[type=checkbox]');
            await h.page.waitForFunction(() => /infeed=0/.test(location.hash));
            assert.match(await tableInfo(), /of 17 /);
        });
});

describe('memory viewer and graph viewer pages', { skip: SKIP }, () => {
    const h = {};
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-xla2-cache-',
                   wants: [GEMM, TPU, CPU] });

    async function open(target, tool, query, ready) {
        const hash = hashOf(...target, tool, query);
        await h.page.goto(h.server.url + hash);
        await waitForView(h.page, hash, VIEW_MS);
        await h.page.waitForSelector(ready, { timeout: VIEW_MS });
    }

    // XProf's memory_viewer golden of jit_dot(21) (jax08_gemm): peak 10 MiB,
    // four buffers at the peak, the largest custom-call.1{1} (4 MiB), heap
    // 6 -> 10 -> 6 MiB over three entries.
    test('memory_viewer: the module from the link, its peak and buffers, graph link',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(GEMM, 'memory_viewer', '?module=jit_dot(21)', '#content .data-table');
            const cards = await h.page.$$eval('.card .card-value', (e) => e.map((x) => x.textContent));
            assert.equal(cards[0], '10 MiB');
            assert.match(await h.page.textContent('.table-info'), /of 4 /);
            assert.equal(await h.page.textContent(
                '.data-table tbody tr:first-child td:nth-child(4)'), 'custom-call.1{1}');
            const sizes = await h.page.evaluate(() => {
                const c = [...document.querySelectorAll('canvas')]
                    .map((x) => window.Chart && window.Chart.getChart(x)).find(Boolean);
                return c ? c.data.datasets[0].data : null;
            });
            assert.deepEqual(sizes, [6, 10, 6]);
            await h.page.selectOption('.xla-picker select >> nth=0', 'jit_dot(34)');
            await h.page.waitForFunction(() => /module=jit_dot\(34\)/.test(
                decodeURIComponent(location.hash)));
            await h.page.click('.data-table tbody tr:first-child');
            await h.page.waitForFunction(() => /tool\/graph_viewer\?program=34&node=custom-call.1/
                .test(decodeURIComponent(location.hash)), null, { timeout: VIEW_MS });
            await h.page.waitForSelector('.gv-node.gv-center', { timeout: VIEW_MS });
            assert.equal(await h.page.getAttribute('.gv-node.gv-center', 'data-name'),
                         'custom-call.1');
        });

    // Not offered there (XProf lists no module tool without HLO): the
    // server's own words, shown by the generic view.
    test('memory_viewer of a profile without HLO says why', { timeout: VIEW_MS }, async () => {
        await h.page.goto(h.server.url + hashOf(...CPU, 'memory_viewer'));
        await h.page.waitForSelector('#content .error', { timeout: VIEW_MS });
        assert.match(await h.page.textContent('#content .error'), /has no tool "memory_viewer"/);
    });

    // jit_dot(21)'s entry: a.1, b.1 -> custom-call.1 -> get-tuple-element.1
    // (XProf's module text of it).
    test('graph_viewer: the neighborhood, recentering by click, back by link',
        { timeout: VIEW_MS * 2 }, async () => {
            await open(GEMM, 'graph_viewer', '?program=21&node=custom-call.1&width=1',
                       '.gv-node.gv-center');
            const names = await h.page.$$eval('.gv-node', (e) => e.map((x) => x.dataset.name));
            assert.deepEqual(names.sort(), ['a.1', 'b.1', 'custom-call.1', 'get-tuple-element.1']);
            assert.equal(await h.page.$$eval('.gv-edge', (e) => e.length), 3);
            await h.page.click('.gv-node[data-name="a.1"]');
            await h.page.waitForFunction(() => document.querySelector('.gv-node.gv-center')
                ?.dataset.name === 'a.1');
            assert.match(await h.page.evaluate(() => location.hash), /node=a\.1/);
            await h.page.goBack();
            await h.page.waitForFunction(() => /node=custom-call\.1/.test(location.hash)
                && document.querySelector('.gv-node.gv-center')?.dataset.name === 'custom-call.1',
                null, { timeout: VIEW_MS });
            const text = await h.page.evaluate(async () => {
                const a = [...document.querySelectorAll('a')].find((x) => x.textContent === 'Module text');
                return (await fetch(a.href)).text();
            });
            assert.match(text, /^HloModule jit_dot/);
            assert.match(text, /ROOT %get-tuple-element\.1 = bf16\[1024,1024\]\{1,0\} get-tuple-element/);
        });
});
