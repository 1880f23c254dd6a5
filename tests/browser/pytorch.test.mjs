// pytorch.test.mjs: the page on a PyTorch (Kineto) trace from
// ../shared/testdata/traces: ResNet50 on a V100, two worker files of one
// run as torch-tb-profiler's tensorboard_trace_handler wrote them. Every
// tool the server offers for a worker (and for ALL_HOSTS) must end in a
// table or a view, never an error; the overview's advice and GPU summary
// are torch-tb-profiler's own for the trace (its stored output), not
// TensorFlow's; operators group by input shape as the trace records them;
// the memory profile says what the trace does not record.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';

import { screenshot, waitForView } from './browser.mjs';
import { TESTDATA, hashOf, servePage, skipWithout } from './testdata.mjs';

const NAME = 'pytorch.test';
const TRACES = path.join(TESTDATA, 'traces');
const RUN = 'kineto_resnet50_num_workers_0';
const WORKER = 'worker0.1623143089861';
const TOOL_MS = 60000;  // the first tool decodes the trace

const SKIP = skipWithout(NAME, path.join(TRACES, RUN), `../shared/testdata/traces/${RUN}`);

// torch-tb-profiler 0.4.3's recommendations for the worker (its overview,
// tests/data/reference/kineto), without their links' markup: what the
// overview page must say.
function referenceAdvice() {
    const file = new URL(`../data/reference/kineto/${RUN}/${WORKER}.pt.trace/overview.json.gz`,
                         import.meta.url);
    const html = JSON.parse(zlib.gunzipSync(fs.readFileSync(file))).recommendations;
    return [...html.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1].replace(/<[^>]*>/g, ''))
        .filter((t) => t !== 'N/A');
}

// What the content area shows once the view settled.
function seenContent(page) {
    return page.evaluate(() => {
        const el = document.getElementById('content');
        return {
            text: el.innerText.trim(),
            drawn: Boolean(el.querySelector('canvas, svg, table')),
            error: el.querySelector('.error-title')?.textContent ?? null,
            where: el.querySelector('.error-where')?.textContent ?? '',
            loading: Boolean(el.querySelector('.progress')),
        };
    });
}

describe('profview UI on a PyTorch trace', { skip: SKIP }, () => {
    const h = {};
    // The tools the server offers for the run, and the hosts of each.
    async function listTools() {
        const q = encodeURIComponent(RUN);
        const base = `${h.server.url}data/plugin/profile/`;
        h.tools = await (await fetch(`${base}run_tools?run=${q}`)).json();
        h.hosts = {};
        for (const tool of h.tools) {
            const url = `${base}hosts?run=${q}&tag=${encodeURIComponent(tool)}`;
            const hosts = await (await fetch(url)).json();
            h.hosts[tool] = hosts.map((x) => x.hostname).filter((n) => n === WORKER ||
                                                                 n === 'ALL_HOSTS');
        }
    }
    servePage(h, { logdir: TRACES, cachePrefix: 'profview-browser-pytorch-', wants: [[RUN, WORKER]],
                   prepare: listTools });

    test('the run offers the tools a Kineto trace has data for', () => {
        for (const t of ['trace_viewer@', 'overview_page', 'kernel_stats', 'framework_op_stats',
                         'memory_profile', 'distributed_view'])
            assert.ok(h.tools.includes(t), `${t} missing from ${JSON.stringify(h.tools)}`);
    });

    test('the overview gives torch-tb-profiler\'s recommendations and GPU summary',
        { timeout: TOOL_MS }, async () => {
            const hash = hashOf(RUN, WORKER, 'overview_page');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TOOL_MS);
            const verdict = await h.page.evaluate(
                () => document.querySelector('#content .steps-verdict')?.innerText ?? '');
            const want = referenceAdvice();
            assert.equal(want.length, 2, 'the golden has data loading and Tensor Core advice');
            for (const text of want)
                assert.ok(verdict.includes(text), `missing "${text}" in: ${verdict}`);
            assert.ok(!/tf\.data|tf\.function|mixed_float16/.test(verdict),
                      `TensorFlow advice on a PyTorch run: ${verdict}`);
            assert.equal(await h.page.locator('#content').getByText('TensorFlow 2.x').count(), 0,
                         'TensorFlow\'s host-steps switch or note on a PyTorch run');
            // The GPU summary, against torch-tb-profiler's own numbers.
            const gpu = JSON.parse(zlib.gunzipSync(fs.readFileSync(new URL(
                `../data/reference/kineto/${RUN}/${WORKER}.pt.trace/gpu.json.gz`,
                import.meta.url))))['0'];
            const text = await h.page.evaluate(
                () => document.getElementById('content').innerText);
            for (const v of [100 * gpu.utilization, 100 * gpu.sm_efficiency, gpu.occupancy])
                assert.ok(text.includes(`${v.toFixed(2)} %`), `${v.toFixed(2)} % not shown`);
        });

    test('the input pipeline analyzer speaks of DataLoader, not tf.data', { timeout: TOOL_MS },
        async () => {
            const hash = hashOf(RUN, WORKER, 'input_pipeline_analyzer');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TOOL_MS);
            const text = await h.page.evaluate(
                () => document.getElementById('content').innerText);
            // torch-tb-profiler's own data-loading recommendation for the worker.
            const want = referenceAdvice().find((t) => t.includes('DataLoader'));
            assert.ok(want && text.includes(want), `missing "${want}"`);
            assert.doesNotMatch(text, /tf\.data/);
        });

    test('framework op stats group PyTorch\'s operators by input shape', { timeout: TOOL_MS },
        async () => {
            // The independent count: aten::conv2d's distinct Input Dims in the trace.
            const file = path.join(TRACES, RUN, `${WORKER}.pt.trace.json.gz`);
            const events = JSON.parse(zlib.gunzipSync(fs.readFileSync(file))).traceEvents;
            const shapes = new Set(events.filter((e) => e.name === 'aten::conv2d' && e.args &&
                                                  e.args['Input Dims'])
                .map((e) => JSON.stringify(e.args['Input Dims'])));
            assert.ok(shapes.size > 1, 'the trace records several conv2d shapes');
            const hash = hashOf(RUN, WORKER, 'framework_op_stats');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TOOL_MS);
            await h.page.getByLabel('Rows per', { exact: true }).selectOption('input_shape');
            await h.page.waitForFunction(() => /group=input_shape/.test(location.hash) &&
                document.getElementById('content').getAttribute('aria-busy') === 'false' &&
                document.querySelector('.data-table th')?.parentElement.textContent
                    .includes('Input Shape'));
            // The host table, filtered to the operator (no other name contains
            // it): a row per shape.
            const host = h.page.locator('section.table-section').filter({ hasText: 'Host ops' })
                .first();
            await host.getByPlaceholder('Filter op names and types').first().fill('aten::conv2d');
            await h.page.waitForFunction((n) => [...document.querySelectorAll('.table-info')]
                .some((e) => e.textContent.includes(`of ${n} `)), shapes.size);
        });

    test('the memory profile says the trace has no memory in use, not a peak of 0 B',
        { timeout: TOOL_MS }, async () => {
            // The trace's own [memory] events: sizes, and no "Total Allocated".
            const file = path.join(TRACES, RUN, `${WORKER}.pt.trace.json.gz`);
            const mem = JSON.parse(zlib.gunzipSync(fs.readFileSync(file))).traceEvents
                .filter((e) => e.name === '[memory]');
            assert.ok(mem.length > 0);
            assert.ok(mem.every((e) => !('Total Allocated' in (e.args || {}))));
            const hash = hashOf(RUN, WORKER, 'memory_profile');
            await h.page.goto(h.server.url + hash);
            await waitForView(h.page, hash, TOOL_MS);
            const text = await h.page.evaluate(() => document.getElementById('content').innerText);
            assert.match(text, /not how much memory it had in use/);
            assert.doesNotMatch(text, /Peak memory in profile/);
            // Allocations on the CPU allocator, counted here as the server does:
            // [memory] events with a positive size on Device Type 0.
            const cpu = mem.filter((e) => e.args['Device Type'] === 0 && e.args.Bytes > 0).length;
            assert.match(text.replace(/,/g, ''), new RegExp(`Allocations\\s+${cpu}\\b`));
        });

    test('the distributed view opens on every worker, not on the first one', { timeout: TOOL_MS },
        async () => {
            // Picking the tool from the worker's overview, as a user does:
            // the link names no host, so the page chooses.
            const e = encodeURIComponent;
            await h.page.goto(`${h.server.url}#/run/${e(RUN)}/tool/distributed_view`);
            await h.page.waitForFunction(() => /\/host\/ALL_HOSTS\//.test(location.hash),
                                         null, { timeout: TOOL_MS });
            await waitForView(h.page, hashOf(RUN, 'ALL_HOSTS', 'distributed_view'), TOOL_MS);
            const workers = await h.page.evaluate(() => [...new Set([...document.querySelectorAll(
                '#content table tbody tr td:first-child')].map((td) => td.textContent))].sort());
            const files = fs.readdirSync(path.join(TRACES, RUN))
                .filter((f) => f.endsWith('.pt.trace.json') || f.endsWith('.pt.trace.json.gz'))
                .map((f) => f.replace(/\.pt\.trace\.json(\.gz)?$/, '')).sort();
            assert.equal(files.length, 2, `the run has two workers: ${files}`);
            assert.deepEqual(workers, files);
        });

    test('every tool shows a table or a view, never an error', { timeout: 20 * TOOL_MS },
        async (t) => {
            for (const tool of h.tools) {
                assert.ok(h.hosts[tool].includes(WORKER), `${tool} is not offered for ${WORKER}`);
                for (const host of h.hosts[tool]) {
                    await t.test(`${host} ${tool}`, { timeout: TOOL_MS }, async () => {
                        const hash = hashOf(RUN, host, tool);
                        await h.page.goto(h.server.url + hash);
                        await waitForView(h.page, hash, TOOL_MS);
                        const seen = await seenContent(h.page);
                        await screenshot(h.page,
                                         `pytorch-${host}-${tool.replace(/[^a-z0-9_]/gi, '_')}`);
                        assert.ok(!seen.loading, 'still showing a progress bar after it settled');
                        assert.equal(seen.error, null,
                                     `an error where there is data: ${seen.where}`);
                        // The memory profile says in words why it draws nothing
                        // (the test above).
                        const said = tool === 'memory_profile' &&
                            seen.text.includes('not how much memory it had in use');
                        assert.ok(seen.drawn || said, `no table, chart or drawing: ${seen.text}`);
                    });
                }
            }
        });
});
