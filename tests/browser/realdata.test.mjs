// realdata.test.mjs: the page on a real profile from ../shared/testdata
// (TF 2.4 Keras on a GPU: one host with an .xplane.pb and every legacy
// per-tool file). Each tool the server offers has data here, so it must
// end in a table or a view — not an error, even one in words, nor a blank
// area, a page exception or a request that leaves the server. The XLA
// tables, which XProf offers for every XSpace, are the exception: this
// TensorFlow run has no XLA op, so their route answers an empty table and
// the page must say so in words instead.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { screenshot, waitForView } from './browser.mjs';
import { TESTDATA, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

const NAME = 'realdata.test';
const LOGDIR = path.join(TESTDATA, 'logdirs', 'tf_keras_gpu_gcp');
const RUN = 'train/2022_11_04_21_26_12';
const HOST = 'instance-ecbm';
const TOOL_MS = 60000;  // a tool may build its model from the xplane first

// Whether the route's answer of an XLA table tool holds no XLA op.
const EMPTY_XLA = {
    hlo_stats: (d) => d.rows.length === 0,
    op_profile: (d) => (d.byProgram?.children ?? []).length === 0,
    // Only per-program total rows of zero time (XProf's answer without XLA ops).
    roofline_model: (d) => d[0].rows.every((r) => {
        const cell = (id) => r.c[d[0].cols.findIndex((c) => c.id === id)]?.v;
        return cell('category') === 'Program' && !(Number(cell('total_self_time')) > 0);
    }),
};

const SKIP = skipWithout(NAME);

describe('profview UI on a real TF GPU profile', { skip: SKIP }, () => {
    const h = {};
    // The tools the server offers for the run.
    async function listTools() {
        const q = encodeURIComponent(RUN);
        const resp = await fetch(`${h.server.url}data/plugin/profile/run_tools?run=${q}`);
        h.tools = await resp.json();
    }
    servePage(h, { logdir: LOGDIR, cachePrefix: 'profview-browser-cache-', wants: [[RUN, HOST]],
                   prepare: listTools });

    test('the run offers the tools its files promise', () => {
        // An .xplane.pb offers at least these (FORMATS.md §4.8).
        for (const t of ['overview_page', 'trace_viewer@', 'input_pipeline_analyzer',
                         'framework_op_stats'])
            assert.ok(h.tools.includes(t), `${t} missing from ${JSON.stringify(h.tools)}`);
    });

    test('every tool shows a table or a view, never an error', { timeout: 10 * TOOL_MS },
        async (t) => {
            for (const tool of h.tools) {
                await t.test(tool, { timeout: TOOL_MS }, async () => {
                    const hash = hashOf(RUN, HOST, tool);
                    await h.page.goto(h.server.url + hash);
                    await waitForView(h.page, hash, TOOL_MS);
                    const seen = await h.page.evaluate(() => {
                        const el = document.getElementById('content');
                        return {
                            text: el.innerText.trim(),
                            drawn: Boolean(el.querySelector('canvas, svg, table')),
                            error: el.querySelector('.error-title')?.textContent ?? null,
                            where: el.querySelector('.error-where')?.textContent ?? '',
                            loading: Boolean(el.querySelector('.progress')),
                        };
                    });
                    await screenshot(h.page, `real-${tool.replace(/[^a-z0-9_]/gi, '_')}`);
                    assert.ok(seen.text.length > 0 || seen.drawn, 'the content area is blank');
                    assert.ok(!seen.loading, 'still showing a progress bar after it settled');
                    assert.equal(seen.error, null, `an error where there is data: ${seen.where}`);
                    if (EMPTY_XLA[tool]
                        && EMPTY_XLA[tool](await routeData(h, RUN, HOST, tool))) {
                        assert.match(seen.text, /No XLA ops ran on a device in this profile/);
                        return;
                    }
                    assert.ok(seen.drawn, 'no table, chart or drawing');
                });
            }
        });
});
