// xla_realdata.test.mjs: every tool the server offers on every JAX profile
// (the four ROCm MI300X runs and the TPU v6e run of ../shared/testdata, and
// the JAX CPU run of tests/data/reference) opened in headless Chromium. Each
// of these profiles carries HLO modules and device or host ops, so each
// offered tool has data: its page must end in a table, chart or drawing,
// never in an error (even one in words), a blank area or a progress bar,
// and the page must throw nothing (the guard of servePage). What the pages
// show is checked value by value in xla_pages.test.mjs; here, that none is
// broken on any JAX profile. A tool whose answer is empty there (kernel
// stats on the TPU, which runs no GPU kernel; the op tables of the JAX CPU
// run, whose host tracer wrote no framework op; the step pages of runs
// without step markers) must say so in words (a message or the step
// verdict) instead. The XLA tools must be among those offered, as XProf
// 2.24.2 lists them for a profile with HLO protos.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { waitForView } from './browser.mjs';
import { TESTDATA, hashOf, servePage, skipWithout } from './testdata.mjs';

const NAME = 'xla_realdata.test';
const TOOL_MS = 60000;  // a tool may build its model from the xplane first
const XLA_TOOLS = ['hlo_stats', 'op_profile', 'roofline_model', 'memory_viewer', 'graph_viewer'];
const REF = fileURLToPath(new URL('../data/reference', import.meta.url));

// What the content area ended in.
function seenNow(page) {
    return page.evaluate(() => {
        const el = document.getElementById('content');
        return {
            text: el.innerText.trim(),
            drawn: Boolean(el.querySelector('canvas, svg, table')),
            said: el.querySelector('.message, .steps-verdict')?.textContent ?? null,
            error: el.querySelector('.error-title')?.textContent ?? null,
            where: el.querySelector('.error-where')?.textContent ?? '',
            loading: Boolean(el.querySelector('.progress')),
        };
    });
}

// One describe block per logdir: its runs (run, host) each open every tool
// run_tools offers for them.
function sweep(title, logdir, runs) {
    describe(title, { skip: skipWithout(NAME, logdir, logdir) }, () => {
        const h = {};
        async function listTools() {
            h.tools = {};
            for (const [run] of runs) {
                const q = encodeURIComponent(run);
                const resp = await fetch(`${h.server.url}data/plugin/profile/run_tools?run=${q}`);
                assert.equal(resp.status, 200, `run_tools of ${run}`);
                h.tools[run] = await resp.json();
            }
        }
        servePage(h, { logdir, cachePrefix: 'profview-xla-real-cache-', wants: runs,
                       prepare: listTools });

        for (const [run, host] of runs) {
            test(`${run}: every offered tool shows its data`, { timeout: 12 * TOOL_MS },
                async (t) => {
                    for (const tool of XLA_TOOLS)
                        assert.ok(h.tools[run].includes(tool),
                                  `${tool} not offered: ${JSON.stringify(h.tools[run])}`);
                    for (const tool of h.tools[run]) {
                        await t.test(tool, { timeout: TOOL_MS }, async () => {
                            const hash = hashOf(run, host, tool);
                            await h.page.goto(h.server.url + hash);
                            await waitForView(h.page, hash, TOOL_MS);
                            // A view may go on drawing after the page is no longer
                            // busy: wait until two looks 400 ms apart see the same.
                            await h.page.waitForFunction(() => {
                                const el = document.getElementById('content');
                                const now = el.innerHTML;
                                const still = window.pvLastContent === now;
                                window.pvLastContent = now;
                                return still && !el.querySelector('.progress');
                            }, null, { timeout: TOOL_MS, polling: 400 });
                            const seen = await seenNow(h.page);
                            assert.equal(seen.error, null, `an error: ${seen.where}`);
                            assert.ok(!seen.loading, 'still showing a progress bar');
                            assert.ok(seen.drawn || seen.said,
                                      `no table, chart, drawing or message: ${seen.text}`);
                        });
                    }
                });
        }
    });
}

sweep('the XLA pages on the shared JAX profiles', path.join(TESTDATA, 'logdirs'), [
    ['jax_rocm_mi300/jax08_gemm', 'tw003'],
    ['jax_rocm_mi300/jax08_elementwise', 'tw003'],
    ['jax_rocm_mi300/jax_conv_minimal_08', 'tw003'],
    ['jax_rocm_mi300/jax_conv_minimal_legacy', 'chi-mi300x-013.ord.vultr.cpe.ice.amd.com'],
    ['jax_tpu_v6e_inference/tpu_inference', 'tpu_inference_2'],
]);

sweep('the XLA pages on the JAX CPU reference run', path.join(REF, 'jax_train'), [
    ['2026_11_29_17_36_39', 'vm'],
]);
