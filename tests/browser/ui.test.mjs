// ui.test.mjs: the web UI in headless Chromium against the real profview
// server (from $PROFVIEW_BIN) on a small logdir (fixture.mjs): pickers, URL
// state, reload, Back/Forward, a copied link in a fresh browser, API errors
// in words, and no request anywhere but the server — at the root and under
// --path-prefix /p.
//
// Expected values come from the fixture's hand-written tables and from the
// URL form in the UI brief (#/run/<run>/host/<host>/tool/<tool>, each part
// encodeURIComponent-encoded), never from the page's own output.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { guardedContext, haveChromium, launchBrowser, pickers, screenshot,
         waitForView } from './browser.mjs';
import { HOST1_A, HOST1_B, HOST2_A, HOST_BAD, LISTED, RUN_A, RUN_BAD, RUNS, TOOL_A, TOOL_B,
         TOOL_MISSING, addRun, makeFixture } from './fixture.mjs';
import { hasView } from '../../web/registry.js';
import { startServer, waitListed } from './server.mjs';

const SKIP = haveChromium() ? false : 'SKIP ui.test: /usr/bin/chromium not found';
const TEST_MS = 30000;

function hashOf(run, host, tool, query = '') {
    const e = encodeURIComponent;
    return `#/run/${e(run)}/host/${e(host)}/tool/${e(tool)}${query}`;
}

// The table cells on the page as [[metric, value], ...] strings.
function tableRows(page) {
    return page.$$eval('#content .data-table tbody tr',
        (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

// The fixture's rows as the page should print them (numbers as JS prints
// them: 12.5, 0.25, 40).
function expectRows(rows) {
    return rows.map(([m, v]) => [m, String(v)]);
}

function optionValues(page, sel) {
    return page.$$eval(`${sel} option`, (os) => os.map((o) => o.value));
}

// The {error, detail} the server itself answers for url (relative to base).
async function serverError(base, url) {
    const resp = await fetch(base + url);
    assert.ok(resp.status >= 400, `${url} answered ${resp.status}`);
    return resp.json();
}

async function errorOnPage(page) {
    await page.waitForSelector('#content .error');
    return page.evaluate(() => ({
        title: document.querySelector('#content .error-title')?.textContent ?? '',
        detail: document.querySelector('#content .error-detail')?.textContent ?? '',
        where: document.querySelector('#content .error-where')?.textContent ?? '',
    }));
}

// Everything both server set-ups share: start, open, stop, and the final
// check that nothing left the server.
function harness(prefix) {
    const h = {};
    before(async () => {
        // The content checks read the generic view's table; a tool with a
        // view of its own would draw something else, unless the view hands
        // a per-tool file's DataTable to the generic one (the XLA views do).
        const fallsBack = ['op_profile', 'memory_viewer'];
        for (const tool of [TOOL_A, TOOL_B])
            assert.ok(!hasView(tool) || fallsBack.includes(tool),
                      `${tool} now has its own view: give fixture.mjs other tools`);
        h.fixture = makeFixture();
        h.server = await startServer({ ...h.fixture, prefix });
        await waitListed(h.server, LISTED);
        h.base = h.server.url;
        h.browser = await launchBrowser();
        h.contexts = [];
        h.open = async () => {
            const g = await guardedContext(h.browser, h.base);
            h.contexts.push(g);
            return g.context.newPage();
        };
        h.page = await h.open();
    });
    after(async () => {
        try {
            const foreign = h.contexts.flatMap((g) => g.foreign);
            const errors = h.contexts.flatMap((g) => g.errors);
            assert.deepEqual(foreign, [], 'requests went somewhere other than the server');
            assert.deepEqual(errors, [], 'the page threw');
        } finally {
            await h.browser?.close();
            await h.server?.stop();
            h.fixture?.remove();
        }
    });
    return h;
}

describe('profview UI at the server root', { skip: SKIP }, () => {
    const h = harness(undefined);

    test('first visit opens the newest run with its first tool and host', { timeout: TEST_MS },
        async () => {
            const { page, base } = h;
            await page.goto(base);
            await waitForView(page, hashOf(RUN_BAD, HOST_BAD, 'overview_page'));
            assert.deepEqual(await optionValues(page, '#run'), RUNS);
            assert.deepEqual(await pickers(page),
                             { run: RUN_BAD, tool: 'overview_page', host: HOST_BAD });
            // Its .xplane.pb is not a protobuf: the page says so in words.
            const err = await errorOnPage(page);
            assert.ok(err.title.length > 0, 'error title is empty');
            assert.match(err.where, /HTTP [45]\d\d/);
            await screenshot(page, 'root-bad-profile');
        });

    test('picking a run selects its first tool and host, and the URL follows',
        { timeout: TEST_MS }, async () => {
            const { page } = h;
            await page.selectOption('#run', RUN_A);
            await waitForView(page, hashOf(RUN_A, 'host1', TOOL_A));
            assert.deepEqual(await pickers(page), { run: RUN_A, tool: TOOL_A, host: 'host1' });
            assert.deepEqual(await optionValues(page, '#tool'),
                             [TOOL_A, TOOL_B]);
            // The picker shows the titles the server's registry gives (api/tools).
            const catalog = await page.evaluate(async () => (await fetch('api/tools')).json());
            const titles = [TOOL_A, TOOL_B].map((t) => catalog.find((c) => c.name === t).title);
            assert.deepEqual(await page.$$eval('#tool option', (os) => os.map((o) => o.text)),
                             titles);
            assert.deepEqual(titles, ['Op profile', 'Memory viewer']);
            assert.deepEqual(await optionValues(page, '#host'), ['host1', 'host2']);
            assert.deepEqual(await tableRows(page), expectRows(HOST1_A));
        });

    test('picking a host, then a tool the host lacks', { timeout: TEST_MS }, async () => {
        const { page } = h;
        await page.selectOption('#host', 'host2');
        await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
        assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
        // host2 has no memory_viewer file, so the first host that has one.
        await page.selectOption('#tool', TOOL_B);
        await waitForView(page, hashOf(RUN_A, 'host1', TOOL_B));
        assert.deepEqual(await pickers(page),
                         { run: RUN_A, tool: TOOL_B, host: 'host1' });
        assert.deepEqual(await tableRows(page), expectRows(HOST1_B));
        await screenshot(page, 'root-table');
    });

    test('reload restores the same view', { timeout: TEST_MS }, async () => {
        const { page } = h;
        await page.reload();
        await waitForView(page, hashOf(RUN_A, 'host1', TOOL_B));
        assert.deepEqual(await pickers(page),
                         { run: RUN_A, tool: TOOL_B, host: 'host1' });
        assert.deepEqual(await tableRows(page), expectRows(HOST1_B));
    });

    test('the load bar names the phase api/load reports and fills to its fraction',
        { timeout: TEST_MS }, async () => {
            // api/load is answered here with a model being finished (the
            // fixture's files load faster than a poll) until released.
            const page = await h.open();
            let held = true;
            const finishing = { state: 'loading', phase: 'finishing', phase_done: 3,
                                phase_total: 4, progress: 0.5875, trace_index: 'building' };
            await page.route('**/api/load?*', (route) => (held
                ? route.fulfill({ status: 202, contentType: 'application/json',
                                  body: JSON.stringify(finishing) })
                : route.continue()));
            await page.goto(h.base + hashOf(RUN_A, 'host1', TOOL_A));
            await page.waitForFunction(() => document.querySelector('.progress-note')
                ?.textContent.startsWith('Finishing the model…'));
            // 0.5875 of the bar's 1000, rounded; the note gives the whole percent
            assert.equal(await page.$eval('.progress progress', (b) => b.value), 588);
            assert.equal(await page.$eval('.progress-note', (n) => n.textContent),
                         'Finishing the model… (58%)');
            held = false;
            await waitForView(page, hashOf(RUN_A, 'host1', TOOL_A));
            assert.deepEqual(await tableRows(page), expectRows(HOST1_A));
            await page.close();
        });

    test('Back and Forward walk the picks', { timeout: TEST_MS }, async () => {
        const { page } = h;
        await page.goBack();
        await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
        assert.deepEqual(await pickers(page), { run: RUN_A, tool: TOOL_A, host: 'host2' });
        assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
        await page.goBack();
        await waitForView(page, hashOf(RUN_A, 'host1', TOOL_A));
        assert.deepEqual(await tableRows(page), expectRows(HOST1_A));
        await page.goForward();
        await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
        assert.deepEqual(await pickers(page), { run: RUN_A, tool: TOOL_A, host: 'host2' });
    });

    test('a copied link opens the same view in a fresh browser', { timeout: TEST_MS }, async () => {
        const url = h.page.url();
        assert.ok(url.endsWith(hashOf(RUN_A, 'host2', TOOL_A)), url);
        const fresh = await h.open();
        await fresh.goto(url);
        await waitForView(fresh, hashOf(RUN_A, 'host2', TOOL_A));
        assert.deepEqual(await pickers(fresh), { run: RUN_A, tool: TOOL_A, host: 'host2' });
        assert.deepEqual(await tableRows(fresh), expectRows(HOST2_A));
        await fresh.close();
    });

    test('a link with unicode and spaces in the run and host names', { timeout: TEST_MS },
        async () => {
            const page = await h.open();
            const hash = hashOf(RUN_BAD, HOST_BAD, 'overview_page');
            await page.goto(h.base + hash);
            await waitForView(page, hash);
            assert.deepEqual(await pickers(page),
                             { run: RUN_BAD, tool: 'overview_page', host: HOST_BAD });
            await page.close();
        });

    test('an unknown run is reported in words, as the server words it', { timeout: TEST_MS },
        async () => {
            const page = await h.open();
            const hash = hashOf('nope', 'h', 'overview_page');
            await page.goto(h.base + hash);
            const want = await serverError(h.base, 'data/plugin/profile/run_tools?run=nope');
            assert.match(want.detail, /nope/, 'the 404 should name the run');
            const err = await errorOnPage(page);
            assert.equal(err.title, want.error);
            assert.equal(err.detail, want.detail);
            assert.match(err.where, /HTTP 404/);
            assert.equal(page.url(), h.base + hash, 'a bad link must not be rewritten');
            // The pickers say what the link asked for, and nothing else.
            assert.deepEqual(await optionValues(page, '#tool'), ['overview_page']);
            assert.deepEqual(await optionValues(page, '#host'), ['h']);
            assert.equal(await page.$eval('#run', (s) => s.selectedOptions[0].textContent),
                         'nope (not found)');
            await screenshot(page, 'root-unknown-run');
            await page.close();
        });

    test('a tool the host does not offer is reported in words', { timeout: TEST_MS }, async () => {
        const page = await h.open();
        await page.goto(h.base + hashOf(RUN_A, 'host1', TOOL_MISSING));
        const want = await serverError(h.base,
            `data/plugin/profile/data?run=run_a&tag=${TOOL_MISSING}&host=host1`);
        const err = await errorOnPage(page);
        assert.equal(err.title, want.error);
        assert.equal(err.detail, want.detail);
        await page.close();
    });

    test('a TensorBoard-style ?run=&tool=&host= link opens the same view', { timeout: TEST_MS },
        async () => {
            const page = await h.open();
            await page.goto(`${h.base}?run=${RUN_A}&tool=${TOOL_A}&host=host2`);
            await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
            assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
            assert.ok(!page.url().includes('?run='), page.url());
            await page.close();
        });

    test('tool state in the query: replace while panning, push for a step, kept on reload',
        { timeout: TEST_MS }, async () => {
            const page = await h.open();
            const hash = hashOf(RUN_A, 'host1', TOOL_A);
            await page.goto(h.base + hash);
            await waitForView(page, hash);
            const len0 = await page.evaluate(() => history.length);
            await page.evaluate(async () => {
                const router = await import(new URL('router.js', document.baseURI).href);
                router.setParams({ start: '10', end: '20' });
            });
            assert.equal(await page.evaluate(() => location.hash), `${hash}?start=10&end=20`);
            assert.equal(await page.evaluate(() => history.length), len0);
            await page.evaluate(async () => {
                const router = await import(new URL('router.js', document.baseURI).href);
                router.setParams({ sel: 'op 1/a' }, { replace: false });
            });
            const withSel = `${hash}?start=10&end=20&sel=op%201%2Fa`;
            assert.equal(await page.evaluate(() => location.hash), withSel);
            assert.equal(await page.evaluate(() => history.length), len0 + 1);
            await page.reload();
            await waitForView(page, withSel);
            const params = await page.evaluate(async () => {
                const router = await import(new URL('router.js', document.baseURI).href);
                return router.getParams();
            });
            assert.deepEqual(params, { start: '10', end: '20', sel: 'op 1/a' });
            await page.goBack();
            await waitForView(page, `${hash}?start=10&end=20`);
            await page.close();
        });

    test('a run written while the page is open appears without a reload', { timeout: TEST_MS },
        async () => {
            const page = await h.open();
            const hash = hashOf(RUN_A, 'host1', TOOL_A);
            await page.goto(h.base + hash);
            await waitForView(page, hash);
            addRun(h.fixture.logdir, 'run_c', 'host9', [['step time host9', 1]]);
            // Server rescan (2 s) plus the page's poll (5 s), with room to spare.
            await page.waitForSelector('#run option[value="run_c"]', { state: 'attached',
                                                                      timeout: 20000 });
            assert.deepEqual(await optionValues(page, '#run'), [RUN_BAD, 'run_c', RUN_A]);
            assert.equal(await page.evaluate(() => location.hash), hash, 'the view must stay');
            await page.selectOption('#run', 'run_c');
            await waitForView(page, hashOf('run_c', 'host9', TOOL_A));
            assert.deepEqual(await tableRows(page), [['step time host9', '1']]);
            await page.close();
        });

    test('a link to a run not written yet opens the run once it is there', { timeout: TEST_MS },
        async () => {
            const page = await h.open();
            const hash = hashOf('run_late', 'host7', TOOL_A);
            await page.goto(h.base + hash);
            await page.waitForFunction(() => /no run named "run_late"/.test(
                document.getElementById('content').innerText), null, { timeout: 10000 });
            addRun(h.fixture.logdir, 'run_late', 'host7', [['step time host7', 7]]);
            // Server rescan (2 s) plus the page's poll (5 s), with room to spare.
            await page.waitForFunction(() => document.querySelector('#content table') !== null,
                                       null, { timeout: 20000 });
            await waitForView(page, hash);
            assert.deepEqual(await tableRows(page), [['step time host7', '7']]);
            await page.close();
        });

    test('table.js: sort, filter, pages and CSV export', { timeout: TEST_MS }, async () => {
        const page = await h.open();
        const hash = hashOf(RUN_A, 'host1', TOOL_A);
        await page.goto(h.base + hash);
        await waitForView(page, hash);
        // 60 rows: op0..op59 with value 1.5 * i, mounted into a fresh box.
        await page.evaluate(async () => {
            const { createTable } = await import(new URL('table.js', document.baseURI).href);
            const rows = [];
            for (let i = 0; i < 60; i++)
                rows.push({ c: [{ v: `op${i}` }, { v: 1.5 * i }] });
            const box = document.createElement('div');
            box.id = 'tbox';
            document.getElementById('content').replaceChildren(box);
            createTable(box, { cols: [{ label: 'Name', type: 'string' },
                                      { label: 'Value', type: 'number' }], rows },
                        { name: 'ops' });
        });
        const cells = () => page.$$eval('#tbox tbody tr',
            (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
        const info = () => page.textContent('#tbox .table-info');
        // Default 50 a page: page 1 is op0..op49, page 2 op50..op59.
        assert.equal((await cells()).length, 50);
        assert.equal(await info(), 'Rows 1–50 of 60 · page 1/2');
        await page.click('#tbox button[aria-label="Next page"]');
        assert.deepEqual((await cells()).map((r) => r[0]),
                         Array.from({ length: 10 }, (_, i) => `op${50 + i}`));
        // A number column sorts largest first: op59 = 88.5, then op58 = 87.
        await page.click('#tbox th:nth-child(2) button');
        assert.equal(await page.getAttribute('#tbox th:nth-child(2)', 'aria-sort'), 'descending');
        assert.deepEqual((await cells()).slice(0, 2), [['op59', '88.5'], ['op58', '87']]);
        // 'op1' matches op1 and op10..op19: 11 rows.
        await page.fill('#tbox input[type=search]', 'op1');
        assert.equal(await info(), 'Rows 1–11 of 11 (filtered from 60) · page 1/1');
        assert.deepEqual((await cells())[0], ['op19', '28.5']);
        // CSV: the filtered rows in the shown order, full numbers.
        const [download] = await Promise.all([page.waitForEvent('download'),
                                              page.click('#tbox button:text("Export CSV")')]);
        assert.equal(download.suggestedFilename(), 'ops.csv');
        const csv = fs.readFileSync(await download.path(), 'utf8');
        const want = ['Name,Value', 'op19,28.5', 'op18,27', 'op17,25.5', 'op16,24', 'op15,22.5',
                      'op14,21', 'op13,19.5', 'op12,18', 'op11,16.5', 'op10,15', 'op1,1.5'];
        assert.equal(csv, want.join('\r\n') + '\r\n');
        await page.close();
    });

    test('the pickers work from the keyboard', { timeout: TEST_MS }, async () => {
        const page = await h.open();
        const hash = hashOf(RUN_A, 'host1', TOOL_A);
        await page.goto(h.base + hash);
        await waitForView(page, hash);
        // Tab order follows the bar: run, tool, host.
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement.id), 'run');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement.id), 'host');
        await page.keyboard.press('ArrowDown');
        await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
        assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
        // Every control on the page (bar and table) has a name a screen
        // reader can say: a <label>, an aria-label or its own text.
        const nameless = await page.evaluate(() => [...document.querySelectorAll(
            'select, input, button, a[href]')].filter((el) => {
            const label = el.getAttribute('aria-label')
                || [...(el.labels || [])].map((l) => l.textContent).join('')
                || el.textContent;
            return label.trim() === '';
        }).map((el) => el.outerHTML));
        assert.deepEqual(nameless, []);
        await page.close();
    });
});

describe('profview UI under --path-prefix /p', { skip: SKIP }, () => {
    const h = harness('/p');

    test('the page, its modules and the API all load under /p/', { timeout: TEST_MS },
        async () => {
            const { page, base } = h;
            assert.ok(base.endsWith('/p/'), base);
            await page.goto(base);
            await waitForView(page, hashOf(RUN_BAD, HOST_BAD, 'overview_page'));
            await page.selectOption('#run', RUN_A);
            await waitForView(page, hashOf(RUN_A, 'host1', TOOL_A));
            await page.selectOption('#host', 'host2');
            await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
            assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
            await page.reload();
            await waitForView(page, hashOf(RUN_A, 'host2', TOOL_A));
            assert.deepEqual(await tableRows(page), expectRows(HOST2_A));
            await screenshot(page, 'prefix-table');
        });

    test('Chart.js comes from vendor/ under /p and draws through web/chart.js',
        { timeout: TEST_MS }, async () => {
            const { page, base } = h;
            const got = await page.evaluate(async () => {
                const m = await import(new URL('chart.js', document.baseURI).href);
                const box = document.createElement('div');
                box.className = 'chart-box';
                const canvas = document.createElement('canvas');
                box.append(canvas);
                document.getElementById('content').append(box);
                const chart = await m.createChart(canvas, {
                    type: 'line',
                    data: { labels: ['a', 'b', 'c'], datasets: [{ label: 's', data: [1, 3, 2] }] },
                });
                const out = { version: window.Chart.version, width: canvas.width,
                              color: chart.data.datasets[0].borderColor };
                chart.destroy();
                box.remove();
                return out;
            });
            // Debian's libjs-chart.js is 3.9.1; the first series takes the
            // first palette colour.
            assert.equal(got.version, '3.9.1');
            assert.ok(got.width > 0, 'the canvas was not sized');
            assert.equal(got.color, '#0072b2');
            const seen = h.contexts[0].seen;
            assert.ok(seen.includes(`${base}vendor/chart.min.js`), seen.join('\n'));
        });

    test('opening /p without the final slash never leaves a blank page', { timeout: TEST_MS },
        async () => {
            // Here the relative URLs may miss the prefix (until the server
            // redirects /p to /p/), so this context allows the whole origin.
            const g = await guardedContext(h.browser, `${new URL(h.base).origin}/`);
            const page = await g.context.newPage();
            await page.goto(h.base.slice(0, -1));
            // Either the page works, or its built-in note says what to do.
            await page.waitForFunction(() => {
                const busy = document.getElementById('content')?.getAttribute('aria-busy');
                const help = document.querySelector('.boot-help');
                return busy === 'false' || (help && getComputedStyle(help).opacity === '1');
            }, null, { timeout: 10000 });
            const text = await page.evaluate(() => document.getElementById('content').innerText);
            assert.ok(text.trim().length > 0, 'blank page');
            await screenshot(page, 'prefix-no-slash');
            assert.deepEqual(g.foreign, []);
            await g.context.close();
        });

    test('an unknown run is reported in words under /p', { timeout: TEST_MS }, async () => {
        const page = await h.open();
        await page.goto(h.base + hashOf('nope', 'h', 'overview_page'));
        const want = await serverError(h.base, 'data/plugin/profile/run_tools?run=nope');
        const err = await errorOnPage(page);
        assert.equal(err.title, want.error);
        assert.equal(err.detail, want.detail);
        await page.close();
    });
});
