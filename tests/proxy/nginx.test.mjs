// nginx.test.mjs: profview behind a real nginx (Debian's package) at
// /prof/, with --path-prefix /prof and --allow-host for the public name
// the proxy passes on, in headless Chromium (#17). The browser asks for
// http://profiles.example.com:PORT/prof/ (mapped to loopback inside
// Chromium only), so Host is the public name, as behind a real proxy.
// Every tool of both demo runs opens through the proxy without an error,
// the trace viewer draws from tiles fetched through it, a CSV export and
// the /data_csv download work, a copied link and a TensorBoard-style
// ?run=&tool=&host= link open the same view in a fresh browser, and no
// request leaves /prof/ (relative URLs only) nor opens a WebSocket.
// nginx's location block is the one docs/deploy.md gives.
//
// Run by tests/proxy/run.sh, which skips it without nginx, Chromium or node.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { guardedContext, launchBrowser, pickers, screenshot,
         waitForView } from '../browser/browser.mjs';
import { startServer, waitListed } from '../browser/server.mjs';

const NGINX = '/usr/sbin/nginx';
// The name visitors use; no DNS knows it, Chromium resolves it to loopback.
const PUBLIC = 'profiles.example.com';
const TEST_MS = 60000;
const DEMO = new URL('../../demo', import.meta.url).pathname;
// The demo's runs (newest first, as runs lists them), its one host, and the
// tools run_tools lists for each: a hand-written table, not the page's.
const RUNS = ['2026_11_29_17_33_32', '2026_11_29_17_33_29'];
const HOST = 'vm';
const TOOLS = ['overview_page', 'trace_viewer@', 'input_pipeline_analyzer', 'kernel_stats',
               'memory_profile', 'framework_op_stats'];

function hashOf(run, host, tool) {
    const e = encodeURIComponent;
    return `#/run/${e(run)}/host/${e(host)}/tool/${e(tool)}`;
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

// nginx in the foreground, one process, everything it writes in dir.
async function startNginx(dir, upstreamPort) {
    const port = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    fs.writeFileSync(conf, `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    server {
        listen 127.0.0.1:${port};
        server_name ${PUBLIC};
        location /prof/ {
            proxy_pass http://127.0.0.1:${upstreamPort};
            proxy_set_header Host $host;
            proxy_read_timeout 300s;
        }
    }
}
`);
    const child = spawn(NGINX, ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    for (let i = 0; i < 3600; i++) {   // up to three minutes, however slow the machine
        const up = await fetch(`http://127.0.0.1:${port}/prof/healthz`).then((r) => r.ok, () => false);
        if (up)
            return { port, stop: async () => { child.kill('SIGTERM'); await exited; } };
        if (child.exitCode !== null)
            break;
        await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error(`nginx did not come up: ${err}`);
}

describe('profview behind nginx at /prof/', () => {
    const h = {};
    before(async () => {
        h.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-proxy-'));
        h.server = await startServer({ logdir: DEMO, cacheDir: path.join(h.dir, 'cache'),
                                       prefix: '/prof', args: ['--allow-host', PUBLIC] });
        await waitListed(h.server, RUNS.map((run) => [run, 'vm']));
        h.nginx = await startNginx(h.dir, h.server.port);
        h.base = `http://${PUBLIC}:${h.nginx.port}/prof/`;
        h.browser = await launchBrowser([`--host-resolver-rules=MAP ${PUBLIC} 127.0.0.1`]);
        h.guards = [];
        h.sockets = [];
        h.failed = [];
        h.open = async () => {
            const g = await guardedContext(h.browser, h.base);
            g.context.on('response', (r) => {
                if (r.status() >= 400)
                    h.failed.push(`${r.status()} ${r.url()}`);
            });
            g.context.on('page', (p) => p.on('websocket', (ws) => h.sockets.push(ws.url())));
            h.guards.push(g);
            return g.context.newPage();
        };
        h.page = await h.open();
    });
    after(async () => {
        try {
            assert.deepEqual(h.guards.flatMap((g) => g.foreign), [],
                             'requests went around the proxy');
            assert.deepEqual(h.guards.flatMap((g) => g.errors), [], 'the page threw');
            assert.deepEqual(h.sockets, [], 'the page opened a WebSocket');
            assert.deepEqual(h.failed, [], 'answers of 400 and more through the proxy');
            const log = fs.readFileSync(path.join(h.dir, 'access.log'), 'utf8');
            assert.ok(log.split('\n').filter((l) => l.includes('GET /prof/')).length > 20,
                      'nginx saw few requests');
        } finally {
            await h.browser?.close();
            await h.nginx?.stop();
            await h.server?.stop();
            fs.rmSync(h.dir, { recursive: true, force: true });
        }
    });

    test('every tool of every run opens through the proxy', { timeout: TEST_MS * 2 }, async () => {
        const { page, base } = h;
        await page.goto(base);
        for (const run of RUNS) {
            for (const tool of TOOLS) {
                await page.goto(base + hashOf(run, HOST, tool));
                await waitForView(page, hashOf(run, HOST, tool), 30000);
                assert.deepEqual(await pickers(page), { run, tool, host: HOST });
                const error = await page.$('#content .error');
                assert.equal(error, null, `${run} ${tool}: the page shows an error`);
            }
        }
        await screenshot(page, 'proxy-last-tool');
        const seen = h.guards[0].seen;
        for (const tool of TOOLS.filter((t) => t !== 'trace_viewer@'))
            assert.ok(seen.some((u) => u.includes(`tag=${encodeURIComponent(tool)}`)),
                      `no data request for ${tool}`);
    });

    test('the trace viewer draws from tiles fetched through the proxy', { timeout: TEST_MS },
        async () => {
            const { page, base } = h;
            const hash = hashOf(RUNS[0], HOST, 'trace_viewer@');
            const tiles = [];
            page.on('response', (r) => {
                if (r.url().includes('api/trace/tile?'))
                    tiles.push([r.status(), r.url()]);
            });
            await page.goto(base + hash);
            await waitForView(page, hash, 30000);
            await page.waitForSelector('.tv[data-complete="true"]', { timeout: 30000 });
            assert.ok(tiles.length > 0, 'no tile was fetched');
            for (const [status, url] of tiles) {
                assert.equal(status, 200, url);
                assert.ok(url.startsWith(`${base}api/trace/tile?`), url);
            }
        });

    test('CSV: the table export and the data_csv download', { timeout: TEST_MS }, async () => {
        const { page, base } = h;
        const hash = hashOf(RUNS[0], HOST, 'framework_op_stats');
        await page.goto(base + hash);
        await waitForView(page, hash, 30000);
        const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.click('#content button:text("Export CSV")'),
        ]);
        const csv = fs.readFileSync(await download.path(), 'utf8');
        assert.ok(csv.split('\n').length > 2, `the export holds ${csv.length} bytes`);
        // The server's own CSV, asked relative to the page and so through
        // nginx, is the one profview sends directly.
        const q = `run=${RUNS[0]}&tag=framework_op_stats&host=${HOST}`;
        const viaProxy = await page.evaluate(async (url) => {
            const r = await fetch(url);
            return { status: r.status, type: r.headers.get('content-type'),
                     disposition: r.headers.get('content-disposition'), body: await r.text() };
        }, `data/plugin/profile/data_csv?${q}`);
        assert.equal(viaProxy.status, 200);
        assert.equal(viaProxy.type, 'text/csv; charset=utf-8');
        assert.equal(viaProxy.disposition, 'attachment; filename="framework_op_stats.csv"');
        const direct = await fetch(`${h.server.url}data/plugin/profile/data_csv?${q}`);
        assert.equal(viaProxy.body, await direct.text());
        assert.ok(viaProxy.body.split('\n').length > 2);
    });

    test('sharing links open the same view in a fresh browser', { timeout: TEST_MS },
        async () => {
            const { base } = h;
            const hash = hashOf(RUNS[1], HOST, 'kernel_stats');
            const fresh = await h.open();
            await fresh.goto(base + hash);
            await waitForView(fresh, hash, 30000);
            assert.deepEqual(await pickers(fresh), { run: RUNS[1], tool: 'kernel_stats', host: HOST });
            const tb = await h.open();
            await tb.goto(`${base}?run=${RUNS[1]}&tool=input_pipeline_analyzer&host=${HOST}`);
            await waitForView(tb, hashOf(RUNS[1], HOST, 'input_pipeline_analyzer'), 30000);
            assert.deepEqual(await pickers(tb),
                             { run: RUNS[1], tool: 'input_pipeline_analyzer', host: HOST });
        });

    // What made the rest work is --allow-host, not a check left open: the
    // same proxy passing another name on is refused by profview (421).
    test('a name the server was not given is refused through the proxy', async () => {
        const status = (host) => new Promise((resolve, reject) => {
            const req = http.get({ host: '127.0.0.1', port: h.nginx.port,
                                   path: '/prof/data/plugin/profile/runs',
                                   headers: { Host: host } }, (r) => {
                r.resume();
                resolve(r.statusCode);
            });
            req.on('error', reject);
        });
        assert.equal(await status(`${PUBLIC}:${h.nginx.port}`), 200);
        assert.equal(await status(`attacker.example:${h.nginx.port}`), 421);
    });
});
