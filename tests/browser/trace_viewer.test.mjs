// trace_viewer.test.mjs: the trace viewer in headless Chromium against the
// real server ($PROFVIEW_BIN) on the repo's demo logdir (a real TF 2.21 CPU
// profile, demo/README). What a person does, checked through what a person
// sees: the window in the URL, the tooltip, the details panel, the search
// counter.
//
//   open -> zoom in (wheel) -> zoom out -> drag -> hover until the tooltip
//   names an event, click it, read the name in the details panel -> search
//   for a name -> copy the URL into a fresh browser context and see the
//   same window and the same selected event.
//
// The run is not named here: the demo may be regenerated under new
// timestamps, so the test takes the run whose trace has the most events.
//
// A second part follows a launch -> kernel flow on a real TF GPU profile
// from ../shared/testdata (SKIP when that folder is absent).

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { guardedContext, screenshot, waitForView } from './browser.mjs';
import { TESTDATA, servePage, skipWithout } from './testdata.mjs';
import { hasView } from '../../web/registry.js';

const NAME = 'trace_viewer.test';
const SRCDIR = process.env.PV_SRCDIR || fileURLToPath(new URL('../..', import.meta.url));
const LOGDIR = path.join(SRCDIR, 'demo');
const STEP_MS = 15000;
const WAIT_MS = 10000;

const SKIP = skipWithout(NAME, path.join(LOGDIR, 'plugins'), 'demo/plugins');

async function getJson(url) {
    const r = await fetch(url);
    assert.equal(r.status, 200, `${url} answered ${r.status}`);
    return r.json();
}

const enc = encodeURIComponent;

// The window and selection the page's URL holds now.
function urlState(page) {
    const hash = new URL(page.url()).hash;
    const q = new URLSearchParams(hash.slice(hash.indexOf('?') + 1));
    const num = (k) => (q.has(k) ? Number(q.get(k)) : NaN);
    return { start: num('start'), end: num('end'), sel: q.get('sel') };
}

// Waits until the URL's window satisfies pred(start, end) and has stopped
// changing (the view writes it 150 ms after the last change, so a burst of
// wheel events may leave an intermediate window in the URL for a moment).
async function waitForWindow(page, pred, what) {
    const deadline = Date.now() + WAIT_MS;
    let last = null;
    for (;;) {
        const s = urlState(page);
        const ok = Number.isFinite(s.start) && Number.isFinite(s.end) && pred(s.start, s.end);
        if (ok && last && last.start === s.start && last.end === s.end)
            return s;
        last = ok ? s : null;
        if (Date.now() > deadline)
            assert.fail(`${what}: the URL window is ${s.start}..${s.end} (${page.url()})`);
        await page.waitForTimeout(ok ? 300 : 50);
    }
}

// In the page: true when the details panel shows event name n.
const detailsNamed = (n) => document.querySelector('.tv-details-name')?.textContent === n;

function waitComplete(page) {
    return page.waitForSelector('.tv[data-complete="true"]', { timeout: STEP_MS });
}

// The middle of the time area of the canvas, in page coordinates.
async function canvasBox(page) {
    const b = await page.locator('.tv-canvas').boundingBox();
    const gutter = 230;  // timeline.js GUTTER_PX
    return { ...b, x0: b.x + gutter, midX: b.x + gutter + (b.width - gutter) / 2 };
}

// Moves the pointer down the canvas at x until the tooltip names an event
// (not an aggregate box). Returns {x, y, name} or null.
async function findEventUnder(page, x) {
    const b = await canvasBox(page);
    for (let y = b.y + 30; y < b.y + b.height - 4; y += 4) {
        await page.mouse.move(x, y);
        const tip = await page.evaluate(() => {
            const t = document.querySelector('.tv-tooltip');
            return t && !t.hidden ? t.textContent : null;
        });
        if (tip && !/ events in /.test(tip))
            return { x, y, name: tip.split('\n')[0] };
    }
    return null;
}

describe('trace viewer on the demo profile', { skip: SKIP }, () => {
    const h = {};
    // The run of demo/ with the most events, and a name to search for in it.
    async function findTarget() {
        const base = h.server.url;
        let best = null;
        for (const run of await getJson(`${base}data/plugin/profile/runs`)) {
            const tools = await getJson(`${base}data/plugin/profile/run_tools?run=${enc(run)}`);
            const tool = tools.find((t) => t === 'trace_viewer@' || t === 'trace_viewer');
            if (!tool)
                continue;
            const hosts = await getJson(
                `${base}data/plugin/profile/hosts?run=${enc(run)}&tag=${enc(tool)}`);
            const host = typeof hosts[0] === 'string' ? hosts[0] : hosts[0].hostname;
            const meta = await getJson(`${base}api/trace/meta?run=${enc(run)}&host=${enc(host)}`);
            if (!best || meta.n_events > best.meta.n_events)
                best = { run, host, tool, meta };
        }
        assert.ok(best, 'no run of demo/ offers the trace viewer');
        h.target = best;
        h.hash = `#/run/${enc(best.run)}/host/${enc(best.host)}/tool/${enc(best.tool)}`;
        // A name to search for: the longest event of the level-0 tile.
        const tile = await getJson(
            `${base}api/trace/tile?run=${enc(best.run)}&host=${enc(best.host)}` +
                                   '&level=0&index=0');
        let longest = null;
        for (const tr of tile.tracks) {
            for (const e of tr.events) {
                if (!longest || e[2] > longest[2])
                    longest = e;
            }
        }
        assert.ok(longest, 'the level-0 tile holds no drawable event');
        h.searchName = tile.names[longest[4]];
    }
    servePage(h, { logdir: LOGDIR, cachePrefix: 'profview-trace-test-',
                   wants: [['2026_11_29_17_33_32', 'vm'], ['2026_11_29_17_33_29', 'vm']],
                   prepare: findTarget });

    test('opens and draws the whole trace', { timeout: STEP_MS }, async () => {
        await h.page.goto(h.server.url + h.hash);
        await waitForView(h.page, h.hash, STEP_MS);
        await waitComplete(h.page);
        const text = await h.page.textContent('.tv-window');
        // "Window <span> of <span> · N events" with the meta's event count.
        assert.match(text, new RegExp(`${h.target.meta.n_events.toLocaleString('en-US')} events`));
        // Tiles were fetched, tagged with the file's identity when the
        // server gives one (docs/trace_api.md, source_id).
        const tiles = h.guard.seen.filter((u) => u.includes('api/trace/tile?'));
        assert.ok(tiles.length > 0, 'no tile was requested');
        // in the binary form (docs/trace_api.md, "Binary tiles")
        assert.ok(tiles.every((u) => u.includes('format=bin')), tiles[0]);
        const sid = h.target.meta.source_id;
        if (sid !== undefined)
            assert.ok(tiles.every((u) => u.includes(`v=${sid}`)), tiles[0]);
        await screenshot(h.page, 'trace-open');
    });

    test('the wheel zooms in and out around the pointer', { timeout: STEP_MS }, async () => {
        const span = h.target.meta.span_ps;
        const b = await canvasBox(h.page);
        await h.page.mouse.move(b.midX, b.y + b.height / 2);
        for (let i = 0; i < 6; i++)
            await h.page.mouse.wheel(0, -200);
        const zin = await waitForWindow(h.page, (s, e) => e - s < span / 4, 'after zooming in');
        assert.ok(zin.start > 0 && zin.end < span, 'zoomed around the middle, not an edge');
        await waitComplete(h.page);
        await h.page.mouse.wheel(0, 200);
        const zout = await waitForWindow(h.page, (s, e) => e - s > zin.end - zin.start,
                                         'after zooming out');
        assert.ok(zout.start <= zin.start && zout.end >= zin.end);
        h.window = zout;
    });

    test('dragging pans to later times', { timeout: STEP_MS }, async () => {
        const before = urlState(h.page);
        const b = await canvasBox(h.page);
        const y = b.y + b.height - 10;
        await h.page.mouse.move(b.midX, y);
        await h.page.mouse.down();
        await h.page.mouse.move(b.midX - 100, y, { steps: 5 });
        await h.page.mouse.up();
        // 100 px left shows 100 px worth of later time; same width.
        const w = before.end - before.start;
        const pxPs = w / (b.width - 230);
        const s = await waitForWindow(h.page, (st) => st > before.start, 'after dragging');
        assert.ok(Math.abs(s.start - before.start - 100 * pxPs) <= 2 * pxPs,
                  `moved by ${s.start - before.start} ps, expected about ${100 * pxPs}`);
        assert.ok(Math.abs(s.end - s.start - w) <= 1);
        await waitComplete(h.page);
    });

    test('W/S zoom and A/D pan while held', { timeout: STEP_MS }, async () => {
        const b = await canvasBox(h.page);
        await h.page.mouse.move(b.midX, b.y + b.height - 10);
        const s0 = await waitForWindow(h.page, () => true, 'before the keys');
        await h.page.keyboard.down('w');
        await h.page.waitForTimeout(300);
        await h.page.keyboard.up('w');
        const s1 = await waitForWindow(h.page, (s, e) => e - s < s0.end - s0.start,
                                       'after holding W');
        await h.page.keyboard.down('d');
        await h.page.waitForTimeout(300);
        await h.page.keyboard.up('d');
        const s2 = await waitForWindow(h.page, (s) => s > s1.start, 'after holding D');
        // Panning keeps the width (to a picosecond of rounding).
        assert.ok(Math.abs((s2.end - s2.start) - (s1.end - s1.start)) <= 1);
        await h.page.keyboard.down('s');
        await h.page.waitForTimeout(300);
        await h.page.keyboard.up('s');
        await waitForWindow(h.page, (s, e) => e - s > s2.end - s2.start, 'after holding S');
        await waitComplete(h.page);
    });

    test('clicking an event shows its name in the details panel', { timeout: 2 * STEP_MS },
         async () => {
        // Zoom back to the whole trace, search for the longest event so it is
        // on screen, then clear the selection and find it by pointing.
        await h.page.click('.tv-zoom button:nth-child(3)');   // "All"
        await waitComplete(h.page);
        const b = await canvasBox(h.page);
        let hit = null;
        for (const frac of [0.5, 0.25, 0.75, 0.1, 0.9]) {
            hit = await findEventUnder(h.page, b.x0 + frac * (b.width - 230));
            if (hit)
                break;
        }
        assert.ok(hit, 'no event under the pointer anywhere on five vertical lines');
        await h.page.mouse.click(hit.x, hit.y);
        await h.page.waitForSelector('.tv-details-name', { timeout: STEP_MS });
        assert.equal(await h.page.textContent('.tv-details-name'), hit.name);
        const s = await waitForWindow(h.page, () => urlState(h.page).sel !== null,
                                      'after the click');
        assert.match(s.sel ?? urlState(h.page).sel, /^\d+$/);
        h.clicked = { sel: urlState(h.page).sel, name: hit.name };
        await screenshot(h.page, 'trace-clicked');
    });

    test('search jumps to a match anywhere in the trace', { timeout: STEP_MS }, async () => {
        await h.page.fill('.tv-search', h.searchName.toUpperCase());
        await h.page.press('.tv-search', 'Enter');
        await h.page.waitForFunction(
            () => / of /.test(document.querySelector('.tv-search-info').textContent),
            null, { timeout: STEP_MS });
        assert.match(await h.page.textContent('.tv-search-info'), /^1 of \d/);
        await h.page.waitForFunction(
            (n) => document.querySelector('.tv-details-name')?.textContent.toLowerCase()
                .includes(n),
            h.searchName.toLowerCase(), { timeout: STEP_MS });
        await waitComplete(h.page);
        await screenshot(h.page, 'trace-search');
    });

    test('Back returns to the previous selection', { timeout: STEP_MS }, async () => {
        const searched = urlState(h.page).sel;
        const searchedName = await h.page.textContent('.tv-details-name');
        assert.notEqual(searched, h.clicked.sel, 'search selected the clicked event again');
        await h.page.goBack();
        await h.page.waitForFunction(detailsNamed, h.clicked.name, { timeout: STEP_MS });
        assert.equal(urlState(h.page).sel, h.clicked.sel);
        await h.page.goForward();
        await h.page.waitForFunction(detailsNamed, searchedName, { timeout: STEP_MS });
        assert.equal(urlState(h.page).sel, searched);
    });

    test('a copied link reopens the same window and selection', { timeout: 2 * STEP_MS },
         async () => {
        await h.page.waitForTimeout(400);   // the URL is written 150 ms after the last change
        const link = h.page.url();
        const want = urlState(h.page);
        const name = await h.page.textContent('.tv-details-name');
        assert.ok(want.sel !== null, 'the link carries no selection');
        const fresh = await guardedContext(h.browser, h.server.url);
        try {
            const page = await fresh.context.newPage();
            await page.goto(link);
            await page.waitForSelector('.tv-details-name', { timeout: STEP_MS });
            await waitComplete(page);
            assert.equal(await page.textContent('.tv-details-name'), name);
            const got = urlState(page);
            assert.equal(got.start, want.start);
            assert.equal(got.end, want.end);
            assert.equal(got.sel, want.sel);
            await screenshot(page, 'trace-reopened');
            assert.deepEqual(fresh.foreign, []);
            assert.deepEqual(fresh.errors, []);
        } finally {
            await fresh.context.close();
        }
    });

    // The page fetches the other views' modules once it is idle
    // (registry.js prefetchViews): from another tool, choosing the
    // trace viewer then asks the server for its data, not its modules.
    test('switching to the trace viewer from another tool fetches no module', { timeout: 3 * STEP_MS },
         async () => {
        const { run, host, tool } = h.target;
        const tools = await getJson(`${h.server.url}data/plugin/profile/run_tools?run=${enc(run)}`);
        const other = tools.find((t) => t !== tool && hasView(t));
        assert.ok(other, `run ${run} has no other tool with a view of its own: ${tools}`);
        const fresh = await guardedContext(h.browser, h.server.url);
        try {
            const page = await fresh.context.newPage();
            const otherHash = `#/run/${enc(run)}/host/${enc(host)}/tool/${enc(other)}`;
            await page.goto(h.server.url + otherHash);
            await waitForView(page, otherHash, STEP_MS);
            const modules = ['views/trace_viewer.js', 'timeline/timeline.js', 'draw/slices.js'];
            const fetched = () => modules.every((m) => fresh.seen.some((u) => u.endsWith(m)));
            for (let i = 0; i < STEP_MS / 100 && !fetched(); i++)
                await page.waitForTimeout(100);
            assert.ok(fetched(), `not fetched ahead: ${modules.filter(
                (m) => !fresh.seen.some((u) => u.endsWith(m)))}`);
            const before = fresh.seen.length;
            await page.selectOption('#tool', tool);
            await waitForView(page, h.hash, STEP_MS);
            await waitComplete(page);
            // (the other views' modules may follow once it is shown)
            const again = fresh.seen.slice(before).filter(
                (u) => /\/(views\/trace_viewer|timeline\/[^/]*|draw\/[^/]*)\.js(\?|$)/.test(u));
            assert.deepEqual(again, []);
            assert.ok(fresh.seen.slice(before).some((u) => u.includes('api/trace/tile?')));
            assert.deepEqual(fresh.foreign, []);
            assert.deepEqual(fresh.errors, []);
        } finally {
            await fresh.context.close();
        }
    });
});

// ---- flows on a real GPU profile ---------------------------------------------

const GPU_LOGDIR = path.join(TESTDATA, 'logdirs', 'tf_keras_gpu_gcp');
const GPU_RUN = 'train/2022_11_04_21_26_12';
const GPU_HOST = 'instance-ecbm';

const SKIP_GPU = SKIP || skipWithout(`${NAME} (flows)`);

describe('trace viewer flows on a real TF GPU profile', { skip: SKIP_GPU }, () => {
    const g = {};
    // A kernel launch with its flow to the kernel.
    async function findLaunch() {
        const q = `run=${enc(GPU_RUN)}&host=${enc(GPU_HOST)}`;
        // A host-side kernel launch: an event with a flow going out to the
        // kernel on the GPU (the file pairs them by correlation_id).
        const found = await getJson(`${g.server.url}api/trace/search?${q}&q=volta&limit=20`);
        for (const r of found.results) {
            const d = await getJson(`${g.server.url}api/trace/event?${q}&id=${r.id}`);
            const out = (d.flows || []).find((f) => f.direction === 'out');
            if (out) {
                g.launch = d;
                g.kernel = out;
                break;
            }
        }
    }
    servePage(g, { logdir: GPU_LOGDIR, cachePrefix: 'profview-trace-flows-',
                   wants: [[GPU_RUN, GPU_HOST]], prepare: findLaunch });

    test('a launch lists its kernel; following the flow selects the kernel',
         { timeout: 3 * STEP_MS }, async () => {
             assert.ok(g.launch, 'no volta kernel launch with a flow in the profile');
             const hash = `#/run/${enc(GPU_RUN)}/host/${enc(GPU_HOST)}/tool/trace_viewer%40` +
                 `?sel=${g.launch.id}`;
             await g.page.goto(g.server.url + hash);
             await g.page.waitForFunction(detailsNamed, g.launch.name, { timeout: STEP_MS });
             await waitComplete(g.page);
             // The partners are on the panel's "Flow events" tab.
             assert.equal(await g.page.textContent('.tv-tab[data-tab="flows"]'),
                          `Flow events (${g.launch.flows.length})`);
             await g.page.click('.tv-tab[data-tab="flows"]');
             await g.page.waitForFunction(() => /tab=flows/.test(location.hash));
             const flows = await g.page.$$eval('.tv-flow', (bs) => bs.map((b) => b.textContent));
             assert.deepEqual(flows, [`→ to ${g.kernel.name}`]);
             await screenshot(g.page, 'trace-flow');
             await g.page.click('.tv-flow');
             await g.page.waitForFunction((id) => location.hash.includes(`sel=${id}`), g.kernel.id,
                                          { timeout: STEP_MS });
             // The kernel's own panel lists the launch as coming in.
             await g.page.waitForFunction(
                 () => [...document.querySelectorAll('.tv-flow')]
                     .some((b) => b.textContent.startsWith('← from')),
                 null, { timeout: STEP_MS });
             await g.page.goBack();
             await g.page.waitForFunction((id) => location.hash.includes(`sel=${id}`), g.launch.id,
                                          { timeout: STEP_MS });
         });
});
