// numbers.test.mjs: the numbers the page shows — on the cards, in the
// summaries and in the first rows of the tables of the overview page, kernel
// stats, framework op stats, the memory profile and the input pipeline
// analyzer — read off the page in headless Chromium and checked against the
// server's JSON for the same request, fetched directly. The expected text
// is worked out here from the rules the page promises (a share 0.5 reads
// "50.0%", bytes in binary units, times in the largest unit that keeps them
// at least 1), never with web/format.js, so a formatting bug there or in a
// page shows as a number that does not match its JSON (#39).
//
// Runs: two real profiles from ../shared/testdata (a TF 2.4 Keras GPU run
// with every tool; a legacy GPU run that is input-bound, so its input
// shares are not zero) and the demo logdir (a CPU run). SKIP without them.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { waitForView } from './browser.mjs';
import { TESTDATA, hashOf, routeData, servePage, skipWithout } from './testdata.mjs';

const NAME = 'numbers.test';
const SRCDIR = process.env.PV_SRCDIR || fileURLToPath(new URL('../..', import.meta.url));
const DEMO = path.join(SRCDIR, 'demo');
const GPU = ['tf_keras_gpu_gcp/train/2022_11_04_21_26_12', 'instance-ecbm'];
const LEGACY = ['tf_legacy_demo_2020/GPU-input-bound', 'localhost'];
const VIEW_MS = 60000;
const FIRST_ROWS = 3;  // table rows checked from the top

// ---- what the page promises to show, written out here ----------------------

const near = (a, b, tol) => Math.abs(a - b) <= tol * (1 + 1e-9) + 1e-12;
const GROUPED = /^-?\d{1,3}(,\d{3})*(\.\d+)?$/;
const ungroup = (t) => Number(t.replace(/,/g, ''));
// Half a unit in the 4th significant digit of x: the most a value shown
// with 4 significant digits may be off.
const halfOf4th = (x) => (x === 0 ? 0 : 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(x))) - 3));
const sigDigits = (t) => t.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;

// Each rule: (shown text, exact value) -> true when the text is the value
// in the page's format.
const RULES = {
    // A share of a whole on a card or in a sentence: its percentage with one
    // decimal, '%' right after it. 0.5 -> "50.0%".
    percent: (t, fraction) => {
        const m = /^(-?\d+\.\d)%$/.exec(t);
        return Boolean(m) && near(Number(m[1]), 100 * fraction, 0.05);
    },
    // Milliseconds on a step card: two decimals, then " ms".
    ms2: (t, ms) => {
        const m = /^(-?\d+\.\d\d) ms$/.exec(t);
        return Boolean(m) && near(Number(m[1]), ms, 0.005);
    },
    // A number with three decimals (the per-step summary).
    fixed3: (t, v) => /^-?\d+\.\d{3}$/.test(t) && near(Number(t), v, 0.0005),
    // A number with one decimal (a share in percent in the stage tree).
    fixed1: (t, v) => /^-?\d+\.\d$/.test(t) && near(Number(t), v, 0.05),
    // Bytes: binary units (B, KiB, MiB, GiB, TiB), the largest that keeps the
    // value at least 1, with at most 4 significant digits; bytes as a whole
    // number. 53543168 -> "51.06 MiB".
    bytes: (t, bytes) => {
        const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
        const m = /^(-?[\d.]+) (B|KiB|MiB|GiB|TiB)$/.exec(t);
        if (!m)
            return false;
        const a = Math.abs(bytes);
        const want = a < 1024 ? 0 : Math.min(4, Math.floor(Math.log2(a) / 10));
        if (units.indexOf(m[2]) !== want)
            return false;
        if (want === 0)
            return Number(m[1]) === bytes;
        const exact = bytes / 1024 ** want;
        return sigDigits(m[1]) <= 4 && near(Number(m[1]), exact, halfOf4th(exact));
    },
    // A duration in picoseconds: the largest of s, ms, µs, ns, ps that keeps
    // the value at least 1, with at most 4 significant digits.
    // 9.01e9 -> "9.01 ms".
    duration: (t, ps) => {
        const units = [['s', 1e12], ['ms', 1e9], ['µs', 1e6], ['ns', 1e3], ['ps', 1]];
        const m = /^(-?[\d.]+) (s|ms|µs|ns|ps)$/.exec(t);
        if (!m)
            return false;
        const [unit, scale] = units.find(([, s]) => Math.abs(ps) >= s) || units[4];
        if (m[2] !== unit)
            return false;
        const exact = ps / scale;
        return sigDigits(m[1]) <= 4 && near(Number(m[1]), exact, halfOf4th(exact));
    },
    // A whole count: en-US digit groups. 1234567 -> "1,234,567".
    count: (t, n) => GROUPED.test(t) && !t.includes('.') && ungroup(t) === Math.round(n),
    // A number in a table: en-US digit groups, at most 3 decimals.
    table: (t, v) => GROUPED.test(t) && !/\.\d{4}/.test(t) && near(ungroup(t), v, 0.0005),
    // A number the page rounds to one decimal before the table shows it.
    table1: (t, v) => GROUPED.test(t) && !/\.\d{2}/.test(t) && near(ungroup(t), v, 0.05),
    // A number the page rounds to two decimals before the table shows it.
    table2: (t, v) => GROUPED.test(t) && !/\.\d{3}/.test(t) && near(ungroup(t), v, 0.005),
    // A number the page rounds to four decimals before the table shows it.
    table4: (t, v) => GROUPED.test(t) && !/\.\d{4}/.test(t) && near(ungroup(t), v, 0.00055),
    // Text shown as it is in the JSON.
    text: (t, v) => t === String(v),
};

// Collects the checks of one page: ok(what, rule, shown, value).
function checker() {
    const bad = [];
    let n = 0;
    return {
        ok(what, rule, shown, value) {
            n += 1;
            if (shown === undefined || shown === null || !RULES[rule](shown.trim(), value))
                bad.push(`${what}: shown ${JSON.stringify(shown)}, JSON ${value} (${rule})`);
        },
        // Fails with every mismatch, and when fewer than min numbers were
        // checked (a page that showed nothing must not pass).
        done(min) {
            assert.deepEqual(bad, []);
            assert.ok(n >= min, `only ${n} numbers checked`);
        },
    };
}

// ---- reading the JSON -----------------------------------------------------------

const colOf = (dt, id) => dt.cols.findIndex((c) => c.id === id);
// The values of column id of a DataTable in the row form.
const column = (dt, id) => (dt.rows || []).map((r) => r.c[colOf(dt, id)]?.v);
const sum = (xs) => xs.reduce((a, b) => a + Number(b), 0);
const mean = (xs) => sum(xs) / xs.length;
function sampleSd(xs) {
    if (xs.length < 2)
        return 0;
    const m = mean(xs);
    return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}
// A table property such as "36.8%" (or "unknown") as a fraction, or null.
const propShare = (s) => (s === undefined || s === 'unknown' ? null : parseFloat(s) / 100);
const isFraction = (id) => /_percent$/.test(id) || id === 'gpu_tensorcore_utilization';

// ---- reading the page -------------------------------------------------------------

async function open(h, target, tool, ready) {
    const hash = hashOf(...target, tool);
    await h.page.goto(h.server.url + hash);
    await waitForView(h.page, hash, VIEW_MS);
    if (ready)
        await h.page.waitForSelector(ready, { timeout: VIEW_MS });
}

// The cards on the page: {label: {value, note}}.
function readCards(page) {
    return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#content .card')]
        .map((c) => [c.querySelector('.card-label').textContent,
                     { value: c.querySelector('.card-value').textContent,
                       note: c.querySelector('.card-note')?.textContent ?? '' }])));
}

// The first n rows of the first table widget in the section picked by
// where ({heading: the start of its h3} or {selector}), as [{header: text}]
// with the row's title as .title; null when there is no such table.
function readTable(page, where, n = FIRST_ROWS) {
    return page.evaluate(({ where, n }) => {
        let section = null;
        if (where.selector) {
            section = document.querySelector(where.selector);
        } else {
            const head = [...document.querySelectorAll('#content h3')]
                .find((x) => x.textContent.startsWith(where.heading));
            section = head ? head.closest('section') : null;
        }
        const table = section && section.querySelector('.table-widget .data-table');
        if (!table)
            return null;
        const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
        return [...table.querySelectorAll('tbody tr')].slice(0, n).map((tr) => {
            const row = { title: tr.title };
            [...tr.children].forEach((td, i) => { row[heads[i]] = td.textContent; });
            return row;
        });
    }, { where, n });
}

const textOf = (page, selector) => page.$eval(selector, (e) => e.textContent);

// ---- the pages --------------------------------------------------------------------

async function checkOverview(h, target) {
    const ov = await routeData(h, ...target, 'overview_page');
    const [analysis, stepDt] = ov;
    const hw = stepDt.p.hardware_type || 'CPU_ONLY';
    await open(h, target, 'overview_page', '#content .card');
    const c = checker();
    const cards = await readCards(h.page);
    const stepMs = column(stepDt, 'stepTimeMs').map(Number);
    const inputMs = column(stepDt, 'infeedTimeMs').map(Number);
    assert.ok(stepMs.length > 0, 'the run has steps');
    const step = cards['Average step time'];
    c.ok('average step time', 'ms2', step?.value, mean(stepMs));
    const spread = /^± (\S+ ms) \(min (\S+), max (\S+), (\d+) steps?\)$/
        .exec(step?.note ?? '') || [];
    c.ok('step time deviation', 'ms2', spread[1], sampleSd(stepMs));
    c.ok('shortest step', 'ms2', spread[2] && `${spread[2]} ms`, Math.min(...stepMs));
    c.ok('longest step', 'ms2', spread[3] && `${spread[3]} ms`, Math.max(...stepMs));
    c.ok('steps', 'count', spread[4], stepMs.length);
    c.ok('waiting for input', 'percent', cards['Waiting for input']?.value,
         sum(inputMs) / sum(stepMs));
    c.ok('input per step', 'ms2', cards['Waiting for input']?.note.replace(/ per step.*/, ''),
         mean(inputMs));
    const devIdle = propShare(analysis.p.device_idle_time_percent);
    if (hw === 'CPU_ONLY')
        c.ok('device idle', 'text', cards['Device idle']?.value, 'no device');
    else if (devIdle === null)
        c.ok('device idle', 'text', cards['Device idle']?.value, 'unknown');
    else
        c.ok('device idle', 'percent', cards['Device idle']?.value, devIdle);
    const hostIdle = propShare(analysis.p.host_idle_time_percent);
    if (hostIdle === null)
        c.ok('host idle', 'text', cards['Host idle']?.value, 'unknown');
    else
        c.ok('host idle', 'percent', cards['Host idle']?.value, hostIdle);

    // The top ops: shares in percent to two decimals, in the answer's order.
    const tables = [['Top 10 ops on device', hw === 'CPU_ONLY' ? null : analysis],
                    ['Top 10 ops on host', analysis.pv_host_ops]];
    for (const [heading, dt] of tables) {
        if (!dt || !(dt.rows || []).length)
            continue;
        const shown = await readTable(h.page, { heading });
        assert.ok(shown, `no table under "${heading}"`);
        shown.forEach((row, i) => {
            const at = (id) => dt.rows[i].c[colOf(dt, id)].v;
            c.ok(`${heading} row ${i + 1} rank`, 'count', row.Rank, i + 1);
            c.ok(`${heading} row ${i + 1} self`, 'table2', row['Self time (%)'],
                 100 * at('selfTimePercent'));
            c.ok(`${heading} row ${i + 1} cumulative`, 'table2', row['Cumulative (%)'],
                 100 * at('cumulativeTimePercent'));
            c.ok(`${heading} row ${i + 1} op`, 'text', row.Operation, at('operation'));
            if (colOf(dt, 'flopRate') >= 0)
                c.ok(`${heading} row ${i + 1} FLOP rate`, 'table2', row['FLOP rate (GFLOP/s)'],
                     at('flopRate'));
        });
    }

    // The device utilization curve's mean, when the profile has devices
    // (a legacy per-tool run has no trace to work it out from: 404).
    const e = encodeURIComponent;
    const resp = await fetch(`${h.server.url}data/plugin/profile/data?run=${e(target[0])}` +
                             `&tag=device_utilization&host=${e(target[1])}&buckets=200`);
    const util = resp.status === 200 ? await resp.json() : { devices: [] };
    if (util.devices.length > 0) {
        await h.page.waitForSelector('.util-mean', { timeout: VIEW_MS });
        const m = /^(\S+) busy on average over (\d+) devices? and (\S+) ms$/
            .exec(await textOf(h.page, '.util-mean')) || [];
        c.ok('busy on average', 'percent', m[1], util.mean_percent / 100);
        c.ok('devices', 'count', m[2], util.devices.length);
        c.ok('utilization window', 'fixed1', m[3], util.window_ps / 1e9);
    }
    c.done(10);
}

async function checkInputPipeline(h, target) {
    const ip = await routeData(h, ...target, 'input_pipeline_analyzer');
    const [, stepDt, hostDt] = ip;
    await open(h, target, 'input_pipeline_analyzer', '.steps-stats');
    const c = checker();
    const stepMs = column(stepDt, 'stepTimeMs').map(Number);
    const inputMs = column(stepDt, 'infeedTimeMs').map(Number);
    const waitMs = stepDt.pv_host_wait_input_ms.map(Number);
    const h2dMs = stepDt.pv_host_to_device_ms.map(Number);
    assert.ok(stepMs.length > 0, 'the run has steps');

    const perStep = await readTable(h.page, { heading: 'Input time per step' });
    assert.ok(perStep, 'no per-step table');
    perStep.forEach((row, i) => {
        const what = `step row ${i + 1}`;
        c.ok(`${what} step`, 'text', row.Step, column(stepDt, 'stepnum')[i]);
        c.ok(`${what} input`, 'table', row['Input (ms)'], inputMs[i]);
        c.ok(`${what} waiting`, 'table', row['Waiting on host (ms)'], waitMs[i]);
        c.ok(`${what} host to device`, 'table', row['Host to device (ms)'], h2dMs[i]);
        c.ok(`${what} step time`, 'table', row['Step time (ms)'], stepMs[i]);
        c.ok(`${what} input share`, 'table1', row['Input (% of step)'],
             100 * inputMs[i] / stepMs[i]);
    });

    const stats = await h.page.$$eval('.steps-stats tbody tr', (trs) => Object.fromEntries(
        trs.map((tr) => [tr.querySelector('th').textContent,
                         [...tr.querySelectorAll('td')].map((td) => td.textContent)])));
    for (const [label, xs] of [['Input', inputMs], ['Waiting on host', waitMs],
                               ['Host to device', h2dMs], ['Step time', stepMs]]) {
        const [avg, sd, min, max] = stats[label] || [];
        c.ok(`${label} average`, 'fixed3', avg, mean(xs));
        c.ok(`${label} deviation`, 'fixed3', sd, sampleSd(xs));
        c.ok(`${label} minimum`, 'fixed3', min, Math.min(...xs));
        c.ok(`${label} maximum`, 'fixed3', max, Math.max(...xs));
    }

    // The host-side analysis: its cards, and the first stages of the tree
    // (each row's title is the stage's full iterator name).
    if (stepDt.p.pv_framework !== 'pytorch' && (hostDt.rows || []).length > 0) {
        const cards = await readCards(h.page);
        for (const [label, key] of [['Preprocessing', 'preprocessing_us'],
                                    ['Reading files on demand', 'demanded_file_read_us'],
                                    ['Reading files in advance', 'advanced_file_read_us'],
                                    ['Enqueue / host-to-device', 'enqueue_us'],
                                    ['Other non-enqueue', 'unclassified_nonequeue_us']])
            c.ok(label, 'duration', cards[label]?.value, Number(hostDt.p[key] || 0) * 1e6);
        const tree = await h.page.$$eval('.steps-tree tbody tr', (trs) => trs.slice(0, 3)
            .map((tr) => ({ name: tr.title,
                            cells: [...tr.children].map((td) => td.textContent) })));
        assert.ok(tree.length > 0, 'no stage tree');
        for (const { name, cells } of tree) {
            const i = column(hostDt, 'opName').indexOf(name);
            assert.ok(i >= 0, `stage ${name} is not in the answer`);
            const at = (id) => Number(hostDt.rows[i].c[colOf(hostDt, id)].v);
            c.ok(`${name} calls`, 'count', cells[1], at('count'));
            c.ok(`${name} total`, 'fixed3', cells[2], at('timeInMs'));
            c.ok(`${name} self`, 'fixed3', cells[3], at('selfTimeInMs'));
            c.ok(`${name} self share`, 'fixed1', cells[4], 100 * at('selfTimeInPercent'));
        }
    }
    c.done(20);
}

async function checkKernelStats(h, target) {
    // The page asks for the column form with profview's extras.
    const ks = await routeData(h, ...target, 'kernel_stats', '&pv_extras=1&pv_format=columns');
    const col = (id) => ks.columns[colOf(ks, id)];
    const n = col('rank').length;
    assert.ok(n > 0, 'the run has kernels');
    await open(h, target, 'kernel_stats', '.ks-table .data-table tbody tr');
    const c = checker();
    const summary = /^([\d,]+) kernel rows.*?, (.+?) of kernel time\./
        .exec(await textOf(h.page, '.ks-summary')) || [];
    c.ok('kernel rows', 'count', summary[1], n);
    c.ok('kernel time', 'duration', summary[2], sum(col('total_duration_us')) * 1e6);

    // The share of kernel time in Tensor-Core-eligible ops, and of that
    // the share in kernels that used them.
    const total = sum(col('total_duration_us'));
    let eligible = 0;
    let used = 0;
    col('total_duration_us').forEach((us, i) => {
        if (col('is_op_tensor_core_eligible')[i] === true) {
            eligible += us;
            if (col('is_kernel_using_tensor_core')[i] === true)
                used += us;
        }
    });
    if (eligible > 0) {
        const note = /^(\S+) of kernel time is in ops that can use \w+ ?Cores; (\S+) of that/
            .exec(await textOf(h.page, '.ks-charts .hint')) || [];
        c.ok('eligible share', 'percent', note[1], eligible / total);
        c.ok('used share', 'percent', note[2], used / eligible);
    }

    // Every number column of the first rows, found by its label; a row by
    // its rank.
    const shown = await readTable(h.page, { selector: '.ks-table' });
    for (const row of shown) {
        const i = col('rank').indexOf(ungroup(row.Rank));
        assert.ok(i >= 0, `rank ${row.Rank} is not in the answer`);
        for (const cdef of ks.cols.filter((x) => x.type === 'number' && x.id !== 'rank')) {
            const v = ks.columns[colOf(ks, cdef.id)][i];
            const what = `rank ${row.Rank} ${cdef.id}`;
            if (cdef.id === 'occupancy_pct' && v === 0)
                c.ok(what, 'text', row[cdef.label], 'n/a');
            else
                c.ok(what, 'table', row[cdef.label], v);
        }
    }
    c.done(10);
}

async function checkFrameworkOpStats(h, target) {
    // The page shows the second table (without IDLE) unless asked.
    const dt = (await routeData(h, ...target, 'framework_op_stats'))[1];
    await open(h, target, 'framework_op_stats', '#content .data-table tbody tr');
    const c = checker();
    let sides = 0;
    for (const side of ['Device', 'Host']) {
        const rows = dt.rows.filter((r) => r.c[colOf(dt, 'host_or_device')].v === side);
        if (rows.length === 0)
            continue;
        sides += 1;
        const sideDt = { ...dt, rows };
        const summary = await h.page.evaluate((s) => {
            const head = [...document.querySelectorAll('#content h3')]
                .find((x) => x.textContent === `${s} ops`);
            return head.closest('section').querySelector('.ks-summary').textContent;
        }, side);
        const m = /^([\d,]+) rows, (.+) of self time\.$/.exec(summary) || [];
        c.ok(`${side} rows`, 'count', m[1], rows.length);
        c.ok(`${side} self time`, 'duration', m[2], sum(column(sideDt, 'total_self_time')) * 1e6);
        const shown = await readTable(h.page, { heading: `${side} ops` });
        for (const row of shown) {
            const i = column(sideDt, 'rank').indexOf(ungroup(row.Rank));
            assert.ok(i >= 0, `${side} rank ${row.Rank} is not in the answer`);
            for (const cdef of dt.cols.filter((x) => x.type === 'number' && x.id !== 'rank')) {
                const v = rows[i].c[colOf(dt, cdef.id)].v;
                const what = `${side} rank ${row.Rank} ${cdef.id}`;
                // A share is a fraction in the JSON and a percentage on the
                // page, its label saying so.
                if (isFraction(cdef.id)) {
                    const label = cdef.label.includes('%') ? cdef.label : `${cdef.label} (%)`;
                    c.ok(what, 'table4', row[label], 100 * v);
                } else {
                    c.ok(what, 'table', row[cdef.label], v);
                }
            }
        }
    }
    assert.ok(sides > 0, 'the run has framework ops');
    c.done(10);
}

async function checkMemoryProfile(h, target) {
    const mp = await routeData(h, ...target, 'memory_profile', '&pv_extras=1');
    if ((mp.memoryIds || []).length === 0) {
        // Nothing to count: the page says so in words.
        await open(h, target, 'memory_profile', '#content .message');
        assert.match(await textOf(h.page, '#content .message'),
                     /No memory allocation events|no host/);
        assert.equal(await h.page.$('#content .card'), null);
        return;
    }
    const a = mp.memoryProfilePerAllocator[mp.memoryIds[0]];
    await open(h, target, 'memory_profile', '#content .data-table tbody tr');
    const c = checker();
    const cards = await readCards(h.page);
    const s = a.profileSummary;
    const p = s.peakStats;
    c.ok('peak', 'bytes', cards['Peak memory in profile']?.value, Number(p.peakBytesInUse));
    c.ok('peak time', 'duration', cards['Peak memory in profile']?.note.replace(/^at /, ''),
         Number(s.peakStatsTimePs));
    c.ok('peak heap', 'bytes', cards['Peak heap']?.value, Number(p.heapAllocatedBytes));
    c.ok('stack at peak', 'bytes', cards['Reserved (stack) at peak']?.value,
         Number(p.stackReservedBytes));
    c.ok('free at peak', 'bytes', cards['Free at peak']?.value, Number(p.freeMemoryBytes));
    c.ok('capacity', 'bytes', cards['Free at peak']?.note.replace(/^capacity /, ''),
         Number(s.memoryCapacity));
    c.ok('fragmentation', 'percent', cards['Fragmentation at peak']?.value,
         Number(p.fragmentation));
    c.ok('lifetime peak', 'bytes', cards['Lifetime peak']?.value,
         Number(s.peakBytesUsageLifetime));
    if (a.pvCounts) {
        c.ok('allocations', 'count', cards.Allocations?.value, Number(a.pvCounts.allocations));
        c.ok('deallocations', 'count', cards.Deallocations?.value,
             Number(a.pvCounts.deallocations));
    }

    // The allocations alive at the peak, in the answer's order.
    const shown = await readTable(h.page, { heading: 'Allocations alive at the peak' });
    shown.forEach((row, i) => {
        const act = a.activeAllocations[i];
        const snap = Number(act.snapshotIndex);
        const m = snap >= 0 ? a.memoryProfileSnapshots[snap].activityMetadata
            : a.specialAllocations[Number(act.specialIndex)];
        const what = `allocation row ${i + 1}`;
        c.ok(`${what} size`, 'bytes', row.Size, Number(m.allocationBytes));
        c.ok(`${what} requested`, 'bytes', row['Requested size'], Number(m.requestedBytes));
        c.ok(`${what} occurrences`, 'count', row.Occurrences, Number(act.numOccurrences));
        c.ok(`${what} step`, 'count', row.Step, Number(m.stepId || 0));
        const t = (a.pvActiveAllocationTimes || [])[i];
        if (t && t.freePs !== '')
            c.ok(`${what} lived`, 'duration', row.Lived, Number(t.freePs) - Number(t.allocPs));
    });
    c.done(15);
}

// ---- the runs ------------------------------------------------------------------------

describe('the numbers on the pages of real profiles match the JSON',
    { skip: skipWithout(NAME) }, () => {
        const h = {};
        servePage(h, { logdir: path.join(TESTDATA, 'logdirs'), cachePrefix: 'profview-numbers-',
                       wants: [GPU, LEGACY] });

        test('overview page, GPU run', { timeout: VIEW_MS * 2 }, () => checkOverview(h, GPU));
        test('overview page, input-bound legacy run', { timeout: VIEW_MS * 2 },
             () => checkOverview(h, LEGACY));
        test('kernel stats, GPU run', { timeout: VIEW_MS * 2 }, () => checkKernelStats(h, GPU));
        test('framework op stats, GPU run', { timeout: VIEW_MS * 2 },
             () => checkFrameworkOpStats(h, GPU));
        test('framework op stats, legacy run', { timeout: VIEW_MS * 2 },
             () => checkFrameworkOpStats(h, LEGACY));
        test('memory profile, GPU run', { timeout: VIEW_MS * 2 },
             () => checkMemoryProfile(h, GPU));
        test('input pipeline analyzer, GPU run', { timeout: VIEW_MS * 2 },
             () => checkInputPipeline(h, GPU));
        test('input pipeline analyzer, input-bound legacy run', { timeout: VIEW_MS * 2 },
             () => checkInputPipeline(h, LEGACY));
    });

describe('the numbers on the pages of the demo logdir match the JSON',
    { skip: skipWithout(NAME, path.join(DEMO, 'plugins'), 'demo/plugins') }, () => {
        const h = {};
        // The demo may be regenerated under new run names: its newest run
        // (session folders are named by time) and the host of its one file.
        const sessions = path.join(DEMO, 'plugins', 'profile');
        const newest = fs.existsSync(sessions) ? fs.readdirSync(sessions).sort().at(-1) : null;
        const file = newest ? fs.readdirSync(path.join(sessions, newest))
            .find((f) => f.endsWith('.xplane.pb')) : null;
        h.run = [newest, file ? file.slice(0, -'.xplane.pb'.length) : null];
        servePage(h, { logdir: DEMO, cachePrefix: 'profview-numbers-demo-', wants: [h.run] });

        test('overview page', { timeout: VIEW_MS * 2 }, () => checkOverview(h, h.run));
        test('framework op stats', { timeout: VIEW_MS * 2 },
             () => checkFrameworkOpStats(h, h.run));
        test('memory profile (no allocator: said in words)', { timeout: VIEW_MS * 2 },
             () => checkMemoryProfile(h, h.run));
        test('input pipeline analyzer', { timeout: VIEW_MS * 2 },
             () => checkInputPipeline(h, h.run));
    });

// The rules themselves, on values worked out by hand: a wrong rule would
// let a wrong page through.
describe('the expected formats', () => {
    test('each rule takes the right text and refuses a near miss', () => {
        assert.ok(RULES.percent('50.0%', 0.5));
        assert.ok(!RULES.percent('0.5%', 0.5));
        assert.ok(!RULES.percent('0.5 %', 0.5));
        assert.ok(!RULES.percent('50%', 0.5));
        assert.ok(RULES.percent('0.1%', 0.00055418));
        assert.ok(!RULES.percent('0.0%', 0.00055418));
        // 53543168 B = 51.0625 MiB
        assert.ok(RULES.bytes('51.06 MiB', 53543168));
        assert.ok(!RULES.bytes('52287.9 KiB', 53543168));
        assert.ok(!RULES.bytes('51.1 MiB', 53543168));
        assert.ok(RULES.bytes('1 KiB', 1024));
        assert.ok(RULES.bytes('1023 B', 1023));
        // 303747097000 ps = 303.747097 ms -> 4 significant digits
        assert.ok(RULES.duration('303.7 ms', 303747097000));
        assert.ok(!RULES.duration('0.3037 s', 303747097000));
        assert.ok(!RULES.duration('303.75 ms', 303747097000));
        assert.ok(RULES.duration('9.01 ms', 9.01e9));
        assert.ok(RULES.count('1,234,567', 1234567));
        assert.ok(!RULES.count('1234567', 1234567));
        assert.ok(RULES.table('1,234.568', 1234.5678));
        assert.ok(!RULES.table('1,234.5678', 1234.5678));
        assert.ok(RULES.table2('14.53', 14.525582321944328));
        assert.ok(!RULES.table2('0.15', 14.525582321944328));
        assert.ok(RULES.ms2('9.01 ms', 9.008359));
        assert.ok(RULES.fixed3('0.063', 0.063207));
        assert.ok(RULES.table1('3', 2.9776));
        assert.ok(!RULES.table1('2.98', 2.9776));
    });
});
