// browser.mjs: Debian's Chromium driven by playwright-core, never a
// downloaded browser, with every request checked against the server under
// test.

import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

// The flags keep Chromium from phoning home (updates, sync, QUIC probes)
// so that any request we see comes from the page.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function haveChromium() {
    return fs.existsSync(CHROMIUM);
}

// extraArgs: more Chromium flags, e.g. --host-resolver-rules to reach a
// loopback server under a public name.
export function launchBrowser(extraArgs = []) {
    return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

// Opens a browser context in which a request may only go to urls starting
// with base (the server's address with its path prefix, ending in '/').
// Anything else is aborted and recorded, and so is any request the page's
// Content-Security-Policy blocked. Returns {context, foreign, seen, errors}:
// foreign lists refused URLs, seen the allowed ones in request order, errors
// the page's uncaught exceptions.
export async function guardedContext(browser, base) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const foreign = [];
    const seen = [];
    const errors = [];
    const allowed = (url) => url.startsWith(base) || url.startsWith('blob:') || url.startsWith('data:');
    const refuse = (url) => {
        if (!foreign.includes(url))
            foreign.push(url);
    };
    await context.route('**/*', (route) => {
        const url = route.request().url();
        if (allowed(url)) {
            seen.push(url);
            return route.continue();
        }
        refuse(url);
        return route.abort('blockedbyclient');
    });
    // Requests that bypass routing (none expected) are still seen here.
    context.on('request', (req) => {
        if (!allowed(req.url()))
            refuse(req.url());
    });
    // The server's Content-Security-Policy stops most cross-origin requests
    // before they are made, so neither hook above would see them: report
    // each blocked attempt as well.
    await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => {
            console.error(`profview-test CSP blocked ${e.blockedURI} (${e.violatedDirective})`);
        });
    });
    context.on('page', (page) => {
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (msg) => {
            const m = /^profview-test CSP blocked (.*)$/.exec(msg.text());
            if (m)
                refuse(`CSP: ${m[1]}`);
        });
    });
    return { context, foreign, seen, errors };
}

// Waits until the page has settled on the view named by hash: the URL hash
// is exactly hash and the content area is no longer busy.
export async function waitForView(page, hash, timeoutMs = 10000) {
    await page.waitForFunction(
        (h) => location.hash === h
            && document.getElementById('content').getAttribute('aria-busy') === 'false',
        hash, { timeout: timeoutMs });
}

// The values of the three pickers.
export function pickers(page) {
    return page.evaluate(() => ({
        run: document.getElementById('run').value,
        tool: document.getElementById('tool').value,
        host: document.getElementById('host').value,
    }));
}

// Saves a screenshot when PROFVIEW_SCREENSHOTS names a folder (for a person
// to look at; the test asserts nothing about pixels).
export async function screenshot(page, name) {
    const dir = process.env.PROFVIEW_SCREENSHOTS;
    if (!dir)
        return;
    fs.mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}
