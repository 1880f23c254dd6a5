// trace_tools.test.mjs: the trace viewer's tools beyond zoom and click
// (issue #19), in headless Chromium on a real TF GPU profile from
// ../shared/testdata (SKIP when absent): a box dragged over the tracks
// and its events summed by name, expand and collapse all, hiding and
// pinning rows, the track filter, measuring on the time ruler, marks, and
// a copied link that brings all of it back. Expected values come from
// api/trace/meta and api/trace/aggregate, read here with fetch.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';

import { guardedContext, waitForView } from './browser.mjs';
import { TESTDATA, hashOf, servePage, skipWithout } from './testdata.mjs';

const NAME = 'trace_tools.test';
const RUN = 'tf_keras_gpu_gcp/train/2022_11_04_21_26_12';
const HOST = 'instance-ecbm';
const STEP_MS = 30000;
const GUTTER_PX = 230;   // timeline.js
const RULER_PX = 26;     // timeline.js
const PROCESS_PX = 24;   // layout.js
const enc = encodeURIComponent;

const SKIP = skipWithout(NAME);

// The tool state of the page's URL now (page.url() learns of a
// replaceState only a moment later).
async function params(page) {
    const hash = await page.evaluate(() => location.hash);
    return new URLSearchParams(hash.includes('?') ? hash.slice(hash.indexOf('?') + 1) : '');
}

describe('trace viewer tools on a real TF GPU profile', { skip: SKIP }, () => {
    const h = {};
    async function prepare(g) {
        const r = await fetch(`${g.server.url}api/trace/meta?run=${enc(RUN)}&host=${enc(HOST)}`);
        g.meta = await r.json();
    }
    servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-tools-',
                   wants: [[RUN, HOST]], prepare });

    // Devices first, as the page shows them.
    const shownProcesses = () => [
        ...h.meta.processes.filter((p) => p.name.startsWith('/device:')),
        ...h.meta.processes.filter((p) => !p.name.startsWith('/device:'))];

    async function open(query = '') {
        const hash = hashOf(RUN, HOST, 'trace_viewer@', query);
        await h.page.goto('about:blank');
        await h.page.goto(h.server.url + hash);
        await waitForView(h.page, hash, STEP_MS);
        await h.page.waitForSelector('.tv[data-complete="true"]', { timeout: STEP_MS });
        return h.page.locator('.tv-canvas').boundingBox();
    }

    const spacerPx = () => h.page.evaluate(() =>
        document.querySelector('.tv-spacer').getBoundingClientRect().height);

    test('collapse all, then expand all', { timeout: STEP_MS * 2 }, async () => {
        await open();
        await h.page.click('button:text-is("Tracks")');
        await h.page.click('.tv-tracks button:text-is("Collapse all")');
        const fold = new Set((await params(h.page)).get('fold').split(','));
        assert.deepEqual(fold, new Set(h.meta.processes.map((p) => `p:${p.pid}`)));
        await h.page.click('.tv-tracks button:text-is("Expand all")');
        assert.equal((await params(h.page)).get('fold'), null);
    });

    test('a hidden thread gives back its rows; a pinned one goes first', { timeout: STEP_MS * 2 },
        async () => {
            await open();
            await h.page.click('button:text-is("Tracks")');
            const gpu = shownProcesses()[0];
            const deep = [...gpu.threads].sort((a, b) => b.depths - a.depths)[0];
            const before = await spacerPx();
            await h.page.uncheck(`.tv-tracks li[data-key="t:${deep.track}"] input`);
            assert.equal((await params(h.page)).get('hide'), `t:${deep.track}`);
            // layout.js: a thread is 18 px per level and 3 px under them
            const gone = before - await spacerPx();
            assert.equal(gone, deep.depths * 18 + 3);
            assert.match(await h.page.textContent('.tv-tracks-note'), /^1 hidden/);
            await h.page.click('.tv-tracks button:text-is("Show all")');
            assert.equal((await params(h.page)).get('hide'), null);
            const last = gpu.threads[gpu.threads.length - 1];
            await h.page.click(`.tv-tracks li[data-key="t:${last.track}"] .tv-pin`);
            assert.equal((await params(h.page)).get('pin'), `t:${last.track}`);
            assert.equal(await h.page.getAttribute(
                `.tv-tracks li[data-key="t:${last.track}"] .tv-pin`, 'aria-pressed'), 'true');
        });

    test('the track filter leaves out the rows whose names do not match',
        { timeout: STEP_MS * 2 }, async () => {
            await open();
            await h.page.click('button:text-is("Tracks")');
            await h.page.fill('.tv-track-filter', 'Stream');
            // Rows of processes whose own name does not match, whose names
            // do not contain "stream" in any case.
            let out = 0;
            for (const p of h.meta.processes) {
                if (p.name.toLowerCase().includes('stream'))
                    continue;
                out += p.threads.filter((t) => !t.name.toLowerCase().includes('stream')).length;
                out += (h.meta.counters || []).filter((c) => c.pid === p.pid &&
                    !c.name.toLowerCase().includes('stream')).length;
            }
            assert.ok(out > 0);
            await h.page.waitForFunction((n) => document.querySelector('.tv-tracks-note')
                .textContent === `${n} left out by the filter`, out);
            await h.page.waitForFunction(() => /tracks=Stream/.test(location.hash));
        });

    test('dragging on the ruler measures; clicks and M set marks', { timeout: STEP_MS * 2 },
        async () => {
            const b = await open();
            // A fresh page shows the whole trace.
            const psPx = h.meta.span_ps / (b.width - GUTTER_PX);
            const y = b.y + RULER_PX / 2;
            await h.page.mouse.move(b.x + GUTTER_PX + 100, y);
            await h.page.mouse.down();
            await h.page.mouse.move(b.x + GUTTER_PX + 300, y, { steps: 5 });
            await h.page.mouse.up();
            const [t0, t1] = (await params(h.page)).get('measure').split(',').map(Number);
            assert.ok(Math.abs((t1 - t0) - 200 * psPx) <= 2 * psPx,
                      `measured ${t1 - t0} ps for 200 px of ${psPx} ps`);
            assert.match(await h.page.textContent('.tv-marks'), /^Measured \d/);
            // A click on the ruler adds a mark there; M adds one at the pointer.
            await h.page.mouse.click(b.x + GUTTER_PX + 400, y);
            await h.page.mouse.move(b.x + GUTTER_PX + 500, b.y + 100);
            await h.page.keyboard.press('m');
            const marks = (await params(h.page)).get('marks').split(',').map(Number);
            assert.equal(marks.length, 2);
            assert.ok(Math.abs(marks[0] - 400 * psPx) <= 2 * psPx, `mark at ${marks[0]}`);
            assert.ok(Math.abs(marks[1] - 500 * psPx) <= 2 * psPx, `mark at ${marks[1]}`);
            // A second click on a mark takes it away.
            await h.page.mouse.click(b.x + GUTTER_PX + 400, y);
            assert.deepEqual((await params(h.page)).get('marks').split(',').map(Number), [marks[1]]);
        });

    test('a box over the tracks sums their events by name, and a copied link keeps it',
        { timeout: STEP_MS * 3 }, async () => {
            const b = await open('?fold=' + enc(h.meta.processes.map((p) => `p:${p.pid}`)
                .join(',')));
            // Every process collapsed: one 24 px header each, devices first.
            // A box over the first two headers takes all their threads.
            const procs = shownProcesses();
            const x0 = b.x + GUTTER_PX + 40;
            const x1 = b.x + b.width - 40;
            await h.page.keyboard.down('Alt');
            await h.page.mouse.move(x0, b.y + RULER_PX + 4);
            await h.page.mouse.down();
            await h.page.mouse.move(x1, b.y + RULER_PX + PROCESS_PX + 10, { steps: 5 });
            await h.page.mouse.up();
            await h.page.keyboard.up('Alt');
            await h.page.waitForSelector('.tv-agg tbody tr');
            const p = await params(h.page);
            const want = [...procs[0].threads, ...procs[1].threads].map((t) => t.track);
            assert.deepEqual(p.get('boxtracks').split(',').map(Number).sort((a, c) => a - c),
                             want.sort((a, c) => a - c));
            const [t0, t1] = p.get('box').split(',').map(Number);
            const agg = await (await fetch(`${h.server.url}api/trace/aggregate?run=${enc(RUN)}` +
                `&host=${enc(HOST)}&start_ps=${t0}&end_ps=${t1}&tracks=${p.get('boxtracks')}`))
                .json();
            assert.ok(agg.n_events > 0);
            assert.equal(await h.page.textContent('.tv-details-name'),
                         `${agg.n_events.toLocaleString('en-US')} events selected`);
            const first = await h.page.$$eval('.tv-agg tbody tr:first-child td',
                (tds) => tds.map((td) => td.title || td.textContent));
            assert.equal(first[0], agg.rows[0].name);
            assert.equal(first[1], String(agg.rows[0].count));
            // wall time in µs, with at most three decimals
            assert.equal(Number(first[2].replace(/,/g, '')),
                         Math.round(agg.rows[0].wall_ps / 1e3) / 1e3);

            const link = await h.page.evaluate(() => location.href);
            const fresh = await guardedContext(h.browser, h.server.url);
            try {
                const page = await fresh.context.newPage();
                await page.goto(link);
                await page.waitForSelector('.tv-agg tbody tr', { timeout: STEP_MS });
                assert.equal(await page.textContent('.tv-details-name'),
                             `${agg.n_events.toLocaleString('en-US')} events selected`);
                assert.deepEqual(fresh.errors, []);
                assert.deepEqual(fresh.foreign, []);
            } finally {
                await fresh.context.close();
            }
            await h.page.keyboard.press('Escape');
            assert.equal((await params(h.page)).get('box'), null);
        });
});
