// testdata.mjs: what the browser tests that serve a logdir share: where
// ../shared/testdata is, the SKIP line when a logdir (or Chromium) is
// missing, the page address of a tool, and one server plus one guarded
// browser page per describe block, torn down after it with the guard's
// checks (no request left the server, the page threw nothing).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { guardedContext, haveChromium, launchBrowser } from './browser.mjs';
import { startServer, waitListed } from './server.mjs';

export const TESTDATA = process.env.PV_TESTDATA
    || fileURLToPath(new URL('../../../shared/testdata', import.meta.url));

// false when test name can run, else its SKIP line (printed here): dir
// (named what in the line) is absent, or there is no Chromium. Under
// PV_REQUIRE_TESTDATA=1 (CI) an absent dir is an error instead, which fails
// the file; tests/browser/run.sh exits 77 (SKIP) when a test was skipped.
export function skipWithout(name, dir = TESTDATA, what = '../shared/testdata') {
    let skip = false;
    const required = !['', '0', undefined].includes(process.env.PV_REQUIRE_TESTDATA);
    if (!fs.existsSync(dir) && required)
        throw new Error(`${name}: ${what} not found at ${dir}, and PV_REQUIRE_TESTDATA is set`);
    if (!fs.existsSync(dir))
        skip = `SKIP ${name}: ${what} not found at ${dir}`;
    else if (!haveChromium())
        skip = `SKIP ${name}: /usr/bin/chromium not found`;
    if (skip)
        console.log(skip);
    return skip;
}

// The page address of tool for run and host; query is appended as is.
export function hashOf(run, host, tool, query = '') {
    const e = encodeURIComponent;
    return `#/run/${e(run)}/host/${e(host)}/tool/${e(tool)}${query}`;
}

// The server's /data answer for tool on run and host (query: more
// parameters, "&name=value..."), parsed: what the page was given to show.
export async function routeData(h, run, host, tool, query = '') {
    const e = encodeURIComponent;
    const resp = await fetch(`${h.server.url}data/plugin/profile/data?run=${e(run)}` +
                             `&tag=${e(tool)}&host=${e(host)}${query}`);
    assert.equal(resp.status, 200, `${tool}: HTTP ${resp.status}`);
    return resp.json();
}

// What the Chart.js chart on the first canvas matching selector draws:
// its labels and, per dataset, its label and data.
export function chartShown(page, selector) {
    return page.evaluate((sel) => {
        const canvas = document.querySelector(sel);
        const chart = canvas && window.Chart && window.Chart.getChart(canvas);
        if (!chart)
            return null;
        return { labels: chart.data.labels,
                 datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) };
    }, selector);
}

// Registers hooks on the enclosing describe block that fill h: a server on
// logdir with a fresh cache folder (named after cachePrefix) that lists
// every [run, host] of wants (what the block will ask for), then
// await prepare(h) when given (it may ask the server what to test), then a
// browser, a guarded context and a page. Everything is released after the
// block even when the guard's checks fail.
export function servePage(h, { logdir, cachePrefix, wants, prepare }) {
    assert.ok(Array.isArray(wants) && wants.length > 0, 'servePage: name the runs to wait for');
    before(async () => {
        h.cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), cachePrefix));
        h.server = await startServer({ logdir, cacheDir: h.cacheDir });
        await waitListed(h.server, wants);
        if (prepare)
            await prepare(h);
        h.browser = await launchBrowser();
        h.guard = await guardedContext(h.browser, h.server.url);
        h.page = await h.guard.context.newPage();
    });
    after(async () => {
        try {
            assert.deepEqual(h.guard?.foreign ?? [], [],
                             'requests went somewhere other than the server');
            assert.deepEqual(h.guard?.errors ?? [], [], 'the page threw');
        } finally {
            await h.browser?.close();
            await h.server?.stop();
            if (h.cacheDir)
                fs.rmSync(h.cacheDir, { recursive: true, force: true });
        }
    });
}
