// server.mjs: starts the real profview binary for a test, waits until it
// lists what the test will ask for, and stops it. The binary comes from
// $PROFVIEW_BIN (set by the Makefile to the one just built); there is no
// fallback, so a test never runs a stale binary.

import { spawn } from 'node:child_process';

const START_TIMEOUT_MS = 180000;
const STOP_TIMEOUT_MS = 5000;
// How long waitListed polls, however slow the machine.
export const LISTED_TIMEOUT_MS = 180000;
// The ready line: "profview 0.1.0: serving DIR (N runs) at http://127.0.0.1:PORT/p/"
const READY = /at (http:\/\/127\.0\.0\.1:(\d+)(\/\S*)?)\s*$/m;

export function profviewBin() {
    const bin = process.env.PROFVIEW_BIN;
    if (!bin)
        throw new Error('PROFVIEW_BIN is not set: run this test through `make check` or set it to the profview binary');
    return bin;
}

// Starts profview on a port the kernel picks (--port 0) on loopback and
// resolves to {url, origin, port, stop(), log()} once it prints its ready
// line. url ends with '/' and includes the path prefix. extra: more flags.
export function startServer({ logdir, cacheDir, prefix, args: extra = [] }) {
    const args = ['--logdir', logdir, '--port', '0', '--bind', '127.0.0.1', '--cache-dir', cacheDir];
    if (prefix)
        args.push('--path-prefix', prefix);
    args.push(...extra);
    const child = spawn(profviewBin(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig })));

    const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null)
            return exited;
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        const r = await exited;
        clearTimeout(t);
        return r;
    };

    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            stop();
            reject(new Error(`profview printed no ready line in ${START_TIMEOUT_MS} ms; ` +
                             `stdout: ${out} stderr: ${err}`));
        }, START_TIMEOUT_MS);
        child.stdout.on('data', (d) => {
            out += d;
            const m = READY.exec(out);
            if (!m)
                return;
            clearTimeout(timer);
            const url = m[1].endsWith('/') ? m[1] : `${m[1]}/`;
            resolve({ url, origin: new URL(url).origin, port: Number(m[2]), stop,
                      log: () => `stdout: ${out}\nstderr: ${err}` });
        });
        exited.then(({ code, sig }) => {
            clearTimeout(timer);
            reject(new Error(`profview exited (code ${code}, signal ${sig}) before it was ready: ` +
                             `${err || out}`));
        });
    });
}

// What is missing for want ([run] or [run, host]): null once the server
// lists run in /data/plugin/profile/runs and host in hosts?run=, else a
// line saying what it answered.
async function missing(server, [run, host]) {
    const ask = async (route) => {
        const r = await fetch(server.url + route);
        const text = await r.text();
        return { list: r.status === 200 ? JSON.parse(text) : null,
                 said: `${route}: ${r.status} ${text.slice(0, 300)}` };
    };
    const runs = await ask('data/plugin/profile/runs');
    if (!runs.list?.includes(run))
        return `run "${run}" (${runs.said})`;
    if (host === undefined)
        return null;
    const hosts = await ask(`data/plugin/profile/hosts?run=${encodeURIComponent(run)}`);
    if (!hosts.list?.some((h) => h.hostname === host))
        return `host "${host}" of run "${run}" (${hosts.said})`;
    return null;
}

// Resolves once the server (what startServer gave) lists every [run, host]
// of wants (host may be left out): what the test is about to ask for. The
// ready line comes after the first scan, which leaves out files written
// moments ago (a later scan offers them), so a test waits for what it
// needs, never for a fixed time. Rejects after LISTED_TIMEOUT_MS naming
// what never appeared.
export async function waitListed(server, wants) {
    const deadline = Date.now() + LISTED_TIMEOUT_MS;
    for (const want of wants) {
        for (;;) {
            const what = await missing(server, want).catch((e) => `an answer (${e.message})`);
            if (what === null)
                break;
            if (Date.now() > deadline)
                throw new Error(`the server never listed ${what} in ${LISTED_TIMEOUT_MS / 1000} s`);
            await new Promise((r) => setTimeout(r, 50));
        }
    }
}
