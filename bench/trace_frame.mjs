// trace_frame.mjs: how fast the trace viewer shows a big profile in
// headless Chromium (Debian's /usr/bin/chromium, driven by the
// playwright-core of tests/browser). Not a test: it prints `name value
// unit` lines and asserts nothing.
//
//   node bench/trace_frame.mjs --bin BUILD/profview --gen BUILD/bench/gen_xspace \
//        [--events 1000000,3000000] [--pan-gpus 23] [--pan-repeat 3] [--work /tmp/dir]
//
// (--events '' skips the first-frame part and measures only the pan.)
// For each event count it generates an XSpace with bench/gen_xspace (file
// size scaled from a small calibration file), starts profview on it, has
// the server ingest it (api/load), then measures:
//   trace_first_frame_click_<N>  ms from choosing trace_viewer@ in the
//       tool picker (another tool shown before) to the first complete frame
//       (every tile at its own level: the view's performance mark)
//   trace_first_frame_click_after_pause_<N>  the same, chosen 1.5 s after
//       the other tool was drawn, as a person would (the page fetches the
//       other views' modules once idle: web/views/registry.js)
//   trace_first_frame_nav_<N>    ms from navigation start of a page opened
//       on the trace viewer's URL to the same mark
//   trace_renderer_rss_<N>       resident memory of the page's renderer
//       process after that frame (the largest renderer child of this
//       browser), and trace_js_heap_<N> its JS heap (CDP)
// Then, on a profile with --pan-gpus GPUs (5 host threads + 2 streams per
// GPU, so 23 GPUs give 51 tracks), with a window tall enough for 50
// tracks, it holds D, then A, then D for 3 s each (--pan-repeat), twice:
// in a browser paced at 60 Hz as a screen would pace it, and in one
// started with --disable-frame-rate-limit --disable-gpu-vsync, where a
// frame starts as soon as the previous one is done. It reports
//   trace_pan_tracks_visible     thread tracks on screen (and
//       trace_pan_canvas_height, the canvas's CSS px)
//   trace_pan_frame_interval_median / _p95  ms between animation frames,
//       paced (16.7 is the floor: the median says whether frames made it)
//   trace_pan_unthrottled_interval_median / _p95  the same unthrottled
//       (and trace_pan_unthrottled_draw_median / _p95):
//       what a frame costs from one to the next
//   trace_pan_draw_median / _p95 ms the timeline's JavaScript spent
//       drawing a frame (paced run; rasterising the canvas comes later)
// and, from a DevTools trace of one more hold in each browser (names
// with _unthrottled_ for the second), per frame, medians over the frames
// of that hold:
//   trace_pan_commit_interval_median / _p95  ms from one frame whose
//       commit handed a new canvas to the compositor to the next: frames
//       actually produced (unthrottled, an animation frame whose commit
//       is skipped is not one)
//   trace_pan_main_frame_median / _p95  the renderer main thread's work
//       on a frame (ProxyMain::BeginMainFrame: animation-frame callbacks,
//       style, layout, paint and the commit)
//   trace_pan_main_raf_median    of which the animation-frame callbacks
//   trace_pan_main_commit_median of which the commit (rasterising the
//       canvas's recorded drawing into its bitmap and handing it over)
//   trace_pan_viz_draw_median    the compositor in the GPU process putting
//       the frame together (Display::DrawAndSwap; software compositing,
//       so its cost grows with the area that changed)
// Tracing slows frames a little; the untraced holds above are the ones
// to quote for intervals.
//
// With --kineto 5000000[,..] it does only this instead, for PyTorch traces
// made by bench/gen_kineto (--gen-kineto, default build/bench/gen_kineto):
// for each count it writes run/host0.pt.trace.json (PyTorch's layout),
// starts profview on it and, without loading anything first, opens the
// trace viewer's URL in a fresh page:
//   trace_kineto_first_frame_cold_<N>  ms from navigation start to the
//       first complete frame, the server reading the trace meanwhile
//   trace_kineto_bytes_<N> / _events_<N>  the trace's size and events

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { computeLayout } from '../web/timeline/layout.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PLAYWRIGHT = path.join(HERE, '../tests/browser/node_modules/playwright-core/index.mjs');
const { chromium } = await import(PLAYWRIGHT);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// Frames start when the previous one is done, not at the next vsync.
const UNTHROTTLED = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];
// Enough to find the frame stages of the renderer and the compositor, and
// light enough not to slow the frames much (no per-draw-call categories).
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'cc',
                          'viz', 'benchmark'];
const TOOL = 'trace_viewer@';
const RULER_PX = 26;      // timeline.js
const PAN_HOLD_MS = 3000;
const CLICK_PAUSE_MS = 1500;  // a person's pause before choosing the next tool
const PAN_REPEAT = Number(arg('pan-repeat', '3'));

function arg(name, fallback) {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

function out(name, value, unit) {
    console.log(`${name} ${typeof value === 'number' ? Number(value.toFixed(3)) : value} ${unit}`);
}

function pct(sorted, p) {
    if (sorted.length === 0)
        return NaN;
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const BIN = path.resolve(arg('bin', 'build/profview'));
const GEN_KINETO = path.resolve(arg('gen-kineto', 'build/bench/gen_kineto'));
const KINETO = arg('kineto', '').split(',').filter((x) => x !== '').map(Number);
const GEN = path.resolve(arg('gen', 'build/bench/gen_xspace'));
const EVENTS = arg('events', '1000000,3000000').split(',').filter((x) => x !== '').map(Number);
const PAN_GPUS = Number(arg('pan-gpus', '23'));
const WORK = arg('work', fs.mkdtempSync(path.join(os.tmpdir(), 'pv-trace-frame-')));

// Writes logdir/plugins/profile/run/host0.xplane.pb of sizeMb; an hour-old
// mtime so the server's settle check offers it at once.
function generate(logdir, sizeMb, gpus) {
    const dir = path.join(logdir, 'plugins', 'profile', 'run');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'host0.xplane.pb');
    const r = spawnSync(GEN, [file, String(sizeMb), String(gpus)],
                        { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0)
        throw new Error(`${GEN} failed`);
    const old = Date.now() / 1000 - 3600;
    fs.utimesSync(file, old, old);
    return file;
}

function startServer(logdir) {
    const child = spawn(BIN, ['--logdir', logdir, '--port', '0', '--bind', '127.0.0.1',
                              '--cache-dir',
                              path.join(logdir, '..', `${path.basename(logdir)}-cache`)],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
        let text = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (d) => {
            text += d;
            const m = /at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(text);
            if (m)
                resolve({ url: m[1].endsWith('/') ? m[1] : `${m[1]}/`,
                          stop: () => child.kill('SIGTERM') });
        });
        child.on('exit', (code) => reject(new Error(`profview exited with ${code}`)));
    });
}

async function getJson(url) {
    const r = await fetch(url);
    return { status: r.status, body: await r.json() };
}

// Loads the profile on the server and returns its trace meta.
async function ingest(base) {
    for (;;) {
        const r = await getJson(`${base}api/load?run=run&host=host0`);
        if (r.status === 200)
            break;
        if (r.status !== 202)
            throw new Error(`api/load: ${r.status} ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 200));
    }
    return (await getJson(`${base}api/trace/meta?run=run&host=host0`)).body;
}

// Resident memory in bytes of the largest renderer process below this
// node process (playwright's browser is our child; renderers hang below it).
function rendererRss() {
    const parent = new Map();
    const renderers = [];
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
            const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            parent.set(Number(pid), ppid);
            const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            if (cmd.includes('--type=renderer'))
                renderers.push(Number(pid));
        } catch {
            // The process ended while we looked.
        }
    }
    const mine = (pid) => {
        for (let p = pid, i = 0; p > 1 && i < 10; p = parent.get(p), i++) {
            if (p === process.pid)
                return true;
        }
        return false;
    };
    let max = 0;
    for (const pid of renderers.filter(mine)) {
        try {
            const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
            if (m)
                max = Math.max(max, Number(m[1]) * 1024);
        } catch {
            // Gone.
        }
    }
    return max;
}

const hashOf = (extra = '') => `#/run/run/host/host0/tool/${encodeURIComponent(TOOL)}${extra}`;

// ms from choosing trace_viewer@ in the tool picker, waitMs after the
// memory profile page was drawn, to the first complete frame.
async function clickFrame(browser, base, waitMs) {
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${base}#/run/run/host/host0/tool/memory_profile`);
    await page.waitForFunction(
        () => document.getElementById('content').getAttribute('aria-busy') === 'false',
        null, { timeout: 120000 });
    await page.waitForTimeout(waitMs);
    await page.evaluate(() => {
        document.getElementById('tool').addEventListener('change', () => {
            performance.mark('bench-tool-change');
        }, { once: true });
    });
    await page.selectOption('#tool', TOOL);
    await page.waitForSelector('.tv[data-complete="true"]', { timeout: 120000 });
    const ms = await page.evaluate(() => {
        const a = performance.getEntriesByName('bench-tool-change')[0];
        const b = performance.getEntriesByName('pv-trace-first-complete-frame')[0];
        return b.startTime - a.startTime;
    });
    await ctx.close();
    return ms;
}

async function firstFrame(browser, base, n) {
    // From a click: another tool first, then trace_viewer@ in the picker,
    // at once, then (a fresh page) after a person's pause.
    out(`trace_first_frame_click_${n}`, await clickFrame(browser, base, 0), 'ms');
    out(`trace_first_frame_click_after_pause_${n}`,
        await clickFrame(browser, base, CLICK_PAUSE_MS), 'ms');

    // From navigation, on a fresh page (the browser's HTTP cache is per
    // context, so tiles come from the server again).
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(base + hashOf());
    await page.waitForSelector('.tv[data-complete="true"]', { timeout: 120000 });
    const nav = await page.evaluate(
        () => performance.getEntriesByName('pv-trace-first-complete-frame')[0].startTime);
    out(`trace_first_frame_nav_${n}`, nav, 'ms');
    await page.waitForTimeout(1000);
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = (await cdp.send('Performance.getMetrics')).metrics;
    const heap = metrics.find((m) => m.name === 'JSHeapUsedSize');
    out(`trace_renderer_rss_${n}`, rendererRss() / 2 ** 20, 'MiB');
    out(`trace_js_heap_${n}`, heap ? heap.value / 2 ** 20 : NaN, 'MiB');
    await ctx.close();
}

// Holds D, then A, then D ... (repeat holds of PAN_HOLD_MS) and returns
// [[ms since the previous animation frame, the timeline's drawing ms]]
// for the frames during the holds. Alternating keeps the window in the
// same part of the trace; the short pauses between holds are not counted.
async function panHolds(page, repeat) {
    await page.evaluate(() => {
        const root = document.querySelector('.tv');
        window.benchFrames = [];
        window.benchStop = false;
        let last = 0;
        const loop = (t) => {
            if (last)
                window.benchFrames.push([t - last, Number(root.dataset.frameMs)]);
            last = t;
            if (!window.benchStop)
                requestAnimationFrame(loop);
        };
        requestAnimationFrame(loop);
    });
    let frames = [];
    for (let r = 0; r < repeat; r++) {
        await page.evaluate(() => { window.benchFrames = []; });
        const key = r % 2 === 0 ? 'd' : 'a';
        await page.keyboard.down(key);
        await page.waitForTimeout(PAN_HOLD_MS);
        await page.keyboard.up(key);
        frames = frames.concat(await page.evaluate(() => window.benchFrames));
        await page.waitForTimeout(300);
    }
    await page.evaluate(() => { window.benchStop = true; });
    return frames;
}

// The renderer main thread's frames in a DevTools trace: for each
// ProxyMain::BeginMainFrame, its ms and the ms of the animation-frame
// callbacks (FireAnimationFrame) and of the commit (Commit) inside it.
// Where several renderers ran (pages closed before), the busiest one.
// Also the compositor's Display::DrawAndSwap ms, one per frame it drew.
function traceFrames(events) {
    const names = new Map();
    for (const e of events) {
        if (e.ph === 'M' && e.name === 'thread_name')
            names.set(`${e.pid}/${e.tid}`, e.args.name);
    }
    const mains = new Map();
    const viz = [];
    for (const e of events) {
        const k = `${e.pid}/${e.tid}`;
        if (e.ph !== 'X')
            continue;
        if (names.get(k) === 'VizCompositorThread' && e.name === 'Display::DrawAndSwap')
            viz.push(e.dur / 1000);
        if (names.get(k) !== 'CrRendererMain')
            continue;
        if (!mains.has(k))
            mains.set(k, []);
        mains.get(k).push(e);
    }
    let busiest = [];
    for (const l of mains.values()) {
        if (l.length > busiest.length)
            busiest = l;
    }
    const frames = busiest.filter((e) => e.name === 'ProxyMain::BeginMainFrame')
        .map((f) => ({ t0: f.ts, t1: f.ts + f.dur, ms: f.dur / 1000, raf: 0, commit: 0 }));
    for (const e of busiest) {
        const part = e.name === 'FireAnimationFrame' ? 'raf' : e.name === 'Commit' ? 'commit' : '';
        if (!part)
            continue;
        const f = frames.find((g) => e.ts >= g.t0 && e.ts < g.t1);
        if (f)
            f[part] += e.dur / 1000;
    }
    return { frames, viz };
}

// One more hold of D under a DevTools trace: the work per frame on the
// renderer's main thread and in the compositor, and how often a frame
// reached the compositor (see the header). prefix: trace_pan or
// trace_pan_unthrottled.
async function panStages(browser, page, prefix) {
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    await panHolds(page, 1);
    const { frames, viz } = traceFrames(
        JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents);
    const sorted = (k) => frames.map((f) => f[k]).sort((x, y) => x - y);
    const main = sorted('ms');
    // Frames whose commit handed a new canvas to the compositor, and the
    // ms from one such commit to the next.
    const committed = frames.filter((f) => f.commit > 0);
    const gaps = committed.slice(1).map((f, i) => (f.t1 - committed[i].t1) / 1000)
        .sort((x, y) => x - y);
    out(`${prefix}_traced_frames`, main.length, 'frames');
    out(`${prefix}_commit_interval_median`, pct(gaps, 0.5), 'ms');
    out(`${prefix}_commit_interval_p95`, pct(gaps, 0.95), 'ms');
    out(`${prefix}_main_frame_median`, pct(main, 0.5), 'ms');
    out(`${prefix}_main_frame_p95`, pct(main, 0.95), 'ms');
    out(`${prefix}_main_raf_median`, pct(sorted('raf'), 0.5), 'ms');
    out(`${prefix}_main_commit_median`, pct(sorted('commit'), 0.5), 'ms');
    out(`${prefix}_viz_draw_median`, pct(viz.sort((x, y) => x - y), 0.5), 'ms');
}

// Pans with 50 tracks on screen. paced: the browser is paced at 60 Hz
// (then the track count is reported too), else it runs unthrottled.
async function panFrames(browser, base, meta, paced) {
    // A window tall enough for 50 thread tracks (or all there are).
    const layout = computeLayout(meta);
    const threads = layout.rows.filter((r) => r.kind === 'thread');
    const want = threads[Math.min(49, threads.length - 1)];
    const chromePx = 150;  // the page's bar, toolbar and help line around the canvas
    const height = Math.ceil(want.y + want.h + RULER_PX + chromePx);
    const contentPx = height - chromePx - RULER_PX;
    const visible = threads.filter((r) => r.y + r.h <= contentPx).length;
    const ctx = await browser.newContext({ viewport: { width: 1600, height } });
    const page = await ctx.newPage();
    // A window of 1/64 of the trace: many events per track, tiles of a
    // middle level.
    const w = Math.floor(meta.span_ps / 64);
    await page.goto(base + hashOf(`?start=${w}&end=${2 * w}`));
    await page.waitForSelector('.tv[data-complete="true"]', { timeout: 120000 });
    const canvasPx = await page.evaluate(() => document.querySelector('.tv-scroll').clientHeight);
    await page.locator('.tv-canvas').hover({ position: { x: 800, y: 200 } });
    const frames = await panHolds(page, PAN_REPEAT);
    const intervals = frames.map((f) => f[0]).sort((a, b) => a - b);
    const draws = frames.map((f) => f[1]).filter(Number.isFinite).sort((a, b) => a - b);
    const name = paced ? { interval: 'trace_pan_frame_interval', rest: 'trace_pan' }
        : { interval: 'trace_pan_unthrottled_interval', rest: 'trace_pan_unthrottled' };
    if (paced) {
        out('trace_pan_tracks_visible', visible, 'tracks');
        out('trace_pan_canvas_height', canvasPx, 'px');
    }
    out(`${name.rest}_frames`, frames.length, 'frames');
    out(`${name.interval}_median`, pct(intervals, 0.5), 'ms');
    out(`${name.interval}_p95`, pct(intervals, 0.95), 'ms');
    out(`${name.rest}_draw_median`, pct(draws, 0.5), 'ms');
    out(`${name.rest}_draw_p95`, pct(draws, 0.95), 'ms');
    await panStages(browser, page, name.rest);
    await ctx.close();
}

// A PyTorch trace of n events, opened cold: see the header.
async function kinetoCold(browser, n) {
    const logdir = path.join(WORK, `kineto${n}`);
    const dir = path.join(logdir, 'run');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'host0.pt.trace.json');
    const r = spawnSync(GEN_KINETO, [file, String(n)], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0)
        throw new Error(`${GEN_KINETO} failed`);
    const old = Date.now() / 1000 - 3600;
    fs.utimesSync(file, old, old);
    out(`trace_kineto_bytes_${n}`, fs.statSync(file).size / 2 ** 20, 'MiB');
    const srv = await startServer(logdir);
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(srv.url + hashOf());
    await page.waitForSelector('.tv[data-complete="true"]', { timeout: 300000 });
    const nav = await page.evaluate(
        () => performance.getEntriesByName('pv-trace-first-complete-frame')[0].startTime);
    out(`trace_kineto_first_frame_cold_${n}`, nav, 'ms');
    const meta = (await getJson(`${srv.url}api/trace/meta?run=run&host=host0`)).body;
    out(`trace_kineto_events_${n}`, meta.n_events, 'events');
    await ctx.close();
    srv.stop();
    fs.rmSync(logdir, { recursive: true, force: true });
}

async function main() {
    // Frame times depend on what else the machine runs: say how busy it was.
    out('bench_load_average_1min', os.loadavg()[0], 'load');
    out('bench_cpus', os.cpus().length, 'cpus');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
    try {
        if (KINETO.length > 0) {
            for (const n of KINETO)
                await kinetoCold(browser, n);
            return;
        }
        // Calibrate: events per MB of generated XSpace.
        const cal = path.join(WORK, 'cal');
        generate(cal, 4, 1);
        let srv = await startServer(cal);
        const calMeta = await ingest(srv.url);
        srv.stop();
        const perMb = calMeta.n_events / 4;
        for (const n of EVENTS) {
            const logdir = path.join(WORK, `ev${n}`);
            const file = generate(logdir, Math.max(1, Math.round(n / perMb)), 1);
            srv = await startServer(logdir);
            const t0 = Date.now();
            const meta = await ingest(srv.url);
            out(`trace_profile_events_${n}`, meta.n_events, 'events');
            out(`trace_profile_bytes_${n}`, fs.statSync(file).size / 2 ** 20, 'MiB');
            out(`trace_server_ingest_${n}`, Date.now() - t0, 'ms');
            await firstFrame(browser, srv.url, n);
            srv.stop();
            fs.rmSync(logdir, { recursive: true, force: true });
        }
        const panDir = path.join(WORK, 'pan');
        generate(panDir, 20, PAN_GPUS);
        srv = await startServer(panDir);
        const meta = await ingest(srv.url);
        out('trace_pan_profile_events', meta.n_events, 'events');
        await panFrames(browser, srv.url, meta, true);
        const free = await chromium.launch({ executablePath: '/usr/bin/chromium',
                                             args: ARGS.concat(UNTHROTTLED) });
        try {
            await panFrames(free, srv.url, meta, false);
        } finally {
            await free.close();
        }
        srv.stop();
    } finally {
        await browser.close();
    }
}

await main();
