// unit.test.mjs: the pure parts of web/ (router, table model, number
// formats, URL building) under plain node, no browser. Expected values are
// worked out by hand in the comments next to them.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { buildUrl, listRuns, loadProfile, toolDataUrl } from '../../web/api.js';
import { cutText, formatBytes, formatCount, formatDurationPs, formatDurationUs,
         formatPercent } from '../../web/format.js';
import { formatHash, parseHash, parseLegacyQuery, sameView } from '../../web/router.js';
import { filterRows, isDataTable, nameSegments, readTableState, regexError, reorderColumns,
         sortRows, tableModel, tableStateParams, toCsv } from '../../web/table.js';

describe('router', () => {
    test('parseHash reads run, host, tool and the query', () => {
        // 'train%2Frun%20b' is "train/run b"; '%C3%BC' is "ü" in UTF-8.
        const s = parseHash('#/run/train%2Frun%20b/host/h%C3%BC/tool/trace_viewer%40?start=1.5&sel=a%26b');
        assert.deepEqual(s, { run: 'train/run b', host: 'hü', tool: 'trace_viewer@',
                              params: { start: '1.5', sel: 'a&b' } });
    });

    test('parseHash tells an absent key from an empty one', () => {
        assert.deepEqual(parseHash('#/run/r/host//tool/t'),
                         { run: 'r', host: '', tool: 't', params: {} });
        assert.deepEqual(parseHash('#/run/r'),
                         { run: 'r', host: undefined, tool: undefined, params: {} });
        assert.deepEqual(parseHash(''),
                         { run: undefined, host: undefined, tool: undefined, params: {} });
    });

    test('parseHash keeps a malformed escape as written and ignores unknown keys', () => {
        const s = parseHash('#/run/50%/zoom/3/tool/t');
        assert.equal(s.run, '50%');
        assert.equal(s.tool, 't');
        assert.equal(s.zoom, undefined);
    });

    test('formatHash writes the canonical order and encodes every part', () => {
        assert.equal(formatHash({ tool: 'trace_viewer@', run: 'a/b c', host: 'x?#',
                                  params: { end: 2, start: 1 } }),
                     '#/run/a%2Fb%20c/host/x%3F%23/tool/trace_viewer%40?end=2&start=1');
        assert.equal(formatHash({ run: 'r', host: undefined, tool: 't', params: { s: null } }),
                     '#/run/r/tool/t');
        assert.equal(formatHash({ params: {} }), '#/');
    });

    test('formatHash then parseHash gives back the state', () => {
        const state = { run: 'ü/ /%', host: '', tool: 'memory_profile',
                        params: { sel: 'x=y&z', start: '0' } };
        assert.deepEqual(parseHash(formatHash(state)), state);
    });

    test('parseLegacyQuery reads TensorBoard links, tag as tool', () => {
        assert.deepEqual(parseLegacyQuery('?run=r1&tag=kernel_stats&host=h'),
                         { run: 'r1', host: 'h', tool: 'kernel_stats', params: {} });
        assert.equal(parseLegacyQuery('?run=r&tool=a&tag=b').tool, 'a');
        assert.equal(parseLegacyQuery('?foo=1'), null);
        assert.equal(parseLegacyQuery(''), null);
    });

    test('sameView ignores params', () => {
        assert.ok(sameView({ run: 'r', host: 'h', tool: 't', params: { a: 1 } },
                           { run: 'r', host: 'h', tool: 't', params: {} }));
        assert.ok(!sameView({ run: 'r', host: 'h', tool: 't' }, { run: 'r', host: '', tool: 't' }));
    });
});

describe('table', () => {
    // Three rows, a tooltip column (to be dropped), a null cell and an 'f'.
    const dt = {
        cols: [
            { id: 'name', label: 'Op', type: 'string' },
            { id: 'tip', label: 'tip', type: 'string', p: { role: 'tooltip' } },
            { id: 'us', label: 'Time (us)', type: 'number' },
        ],
        rows: [
            { c: [{ v: 'matmul' }, { v: 'x' }, { v: 1234.5678 }] },
            { c: [{ v: 'Conv2D' }, { v: 'y' }, { v: 2, f: 'two' }] },
            { c: [{ v: 'add, "fast"' }, null, null] },
        ],
        p: { device: 'GPU' },
    };

    test('isDataTable', () => {
        assert.ok(isDataTable(dt));
        assert.ok(!isDataTable([dt]));
        assert.ok(!isDataTable({}));
        assert.ok(!isDataTable(null));
    });

    test('tableModel drops role columns and formats cells', () => {
        const m = tableModel(dt);
        assert.deepEqual(m.cols.map((c) => c.label), ['Op', 'Time (us)']);
        // 1234.5678 with at most 3 decimals and en-US grouping: "1,234.568".
        assert.deepEqual(m.rows.map((r) => r.map((c) => c.text)),
                         [['matmul', '1,234.568'], ['Conv2D', 'two'], ['add, "fast"', '']]);
        assert.deepEqual(m.props, { device: 'GPU' });
    });

    test('sortRows: numbers by value, text naturally, empty cells last both ways', () => {
        const m = tableModel(dt);
        const names = (rows) => rows.map((r) => r[0].v);
        assert.deepEqual(names(sortRows(m.rows, 1, 'desc')), ['matmul', 'Conv2D', 'add, "fast"']);
        assert.deepEqual(names(sortRows(m.rows, 1, 'asc')), ['Conv2D', 'matmul', 'add, "fast"']);
        // localeCompare ignores case at first: add < Conv2D < matmul.
        assert.deepEqual(names(sortRows(m.rows, 0, 'asc')), ['add, "fast"', 'Conv2D', 'matmul']);
        const nat = [[{ v: 'op10' }], [{ v: 'op9' }]];
        assert.deepEqual(sortRows(nat, 0, 'asc').map((r) => r[0].v), ['op9', 'op10']);
    });

    test('filterRows matches any shown text, case-insensitively', () => {
        const m = tableModel(dt);
        assert.equal(filterRows(m.rows, 'CONV').length, 1);
        assert.equal(filterRows(m.rows, '1,234').length, 1);  // the shown text, not the raw value
        assert.equal(filterRows(m.rows, 'x').length, 0);      // the tooltip column is not shown
        assert.equal(filterRows(m.rows, '  ').length, 3);
    });

    test('toCsv quotes per RFC 4180, keeps full numbers, defuses formulas', () => {
        const m = tableModel(dt);
        assert.equal(toCsv(m.cols, m.rows),
                     'Op,Time (us)\r\nmatmul,1234.5678\r\nConv2D,2\r\n"add, ""fast""",\r\n');
        const evil = [[{ v: '=HYPERLINK("x")' }, { v: -3 }]];
        assert.equal(toCsv([{ label: 'a' }, { label: 'b' }], evil),
                     'a,b\r\n"\'=HYPERLINK(""x"")",-3\r\n');
    });
});

describe('table helpers', () => {
    test('nameSegments splits names at their joints only', () => {
        assert.deepEqual(nameSegments('a/RandomUniform/mul'), ['a/', 'RandomUniform/', 'mul']);
        assert.deepEqual(nameSegments('ns::f<int, 2>(x)'), ['ns::', 'f', '<int,', ' 2>', '(x)']);
        // a path breaks at its slashes, not at every underscore; a piece
        // longer than 20 characters at its underscores too
        assert.deepEqual(nameSegments('bert_encoder_1/word_embeddings'),
                         ['bert_encoder_1/', 'word_embeddings']);
        assert.deepEqual(nameSegments('cnn::conv2d_grouped_direct_kernel<…>'),
                         ['cnn::', 'conv2d_', 'grouped_', 'direct_', 'kernel', '<…>']);
        assert.deepEqual(nameSegments('Cijk_Ailk_Bljk_BBS_BH_MT256'),
                         ['Cijk_', 'Ailk_', 'Bljk_', 'BBS_', 'BH_', 'MT256']);
        assert.deepEqual(nameSegments('plain'), ['plain']);
        assert.equal(nameSegments('a/b_c::d(e)').join(''), 'a/b_c::d(e)');
    });

    test('regexError names what is wrong, null for a valid expression', () => {
        assert.equal(regexError('^volta_(s|c)gemm'), null);
        assert.match(regexError('volta_('), /Unterminated group/);
    });

    test('reorderColumns moves the named columns first, in both forms', () => {
        const rows = { cols: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
                       rows: [{ c: [{ v: 1 }, { v: 2 }, { v: 3 }] }] };
        const r = reorderColumns(rows, ['c', 'nope', 'a']);
        assert.deepEqual(r.cols.map((c) => c.id), ['c', 'a', 'b']);
        assert.deepEqual(r.rows[0].c.map((c) => c.v), [3, 1, 2]);
        const cols = reorderColumns({ cols: rows.cols, columns: [[1], [2], [3]] }, ['b']);
        assert.deepEqual(cols.columns, [[2], [1], [3]]);
    });

    test('table state goes to the URL under its key and comes back', () => {
        const st = { query: 'gemm', regex: true, sort: { col: 'avg', dir: 'asc' }, page: 2,
                     pageSize: 100 };
        const p = tableStateParams('k', st);
        assert.deepEqual(p, { k_q: 'gemm', k_re: '1', k_sort: 'avg:asc', k_page: '3',
                              k_rows: '100' });
        assert.deepEqual(readTableState(p, 'k'), st);
        // defaults leave the URL (undefined removes a key)
        assert.deepEqual(tableStateParams('k', { query: '', regex: false, sort: null, page: 0,
                                                 pageSize: 50 }),
                         { k_q: undefined, k_re: undefined, k_sort: undefined,
                           k_page: undefined, k_rows: undefined });
        // unusable values read as absent
        assert.deepEqual(readTableState({ k_sort: 'x', k_page: '-1', k_rows: '7' }, 'k'),
                         { query: '', regex: false, sort: null, page: 0, pageSize: null });
    });
});

describe('format', () => {
    test('formatDurationPs picks the largest unit that keeps the value >= 1', () => {
        assert.equal(formatDurationPs(0), '0 ps');
        assert.equal(formatDurationPs(999), '999 ps');
        assert.equal(formatDurationPs(1500000), '1.5 µs');   // 1.5e6 ps = 1.5 µs
        assert.equal(formatDurationPs(2.5e12), '2.5 s');
        assert.equal(formatDurationPs(123456789), '123.5 µs'); // 4 significant digits
        assert.equal(formatDurationUs(1500), '1.5 ms');
    });

    test('formatBytes uses binary units', () => {
        assert.equal(formatBytes(512), '512 B');
        assert.equal(formatBytes(1536), '1.5 KiB');
        assert.equal(formatBytes(3 * 1024 * 1024 * 1024), '3 GiB');
    });

    test('cutText keeps max characters, the last an ellipsis', () => {
        assert.equal(cutText('abcdef', 4), 'abc…');
        assert.equal(cutText('abcd', 4), 'abcd');
        assert.equal(cutText(undefined, 3), '');
    });

    test('formatCount and formatPercent', () => {
        assert.equal(formatCount(1234567.4), '1,234,567');
        assert.equal(formatPercent(0.1234), '12.3%');
        assert.equal(formatPercent(1, 0), '100%');
    });
});

describe('api URLs', () => {
    test('buildUrl is relative and encodes with %20, skipping empty values', () => {
        assert.equal(buildUrl('data/plugin/profile/hosts', { run: 'a b/ü', tag: 'x@', n: undefined }),
                     'data/plugin/profile/hosts?run=a%20b%2F%C3%BC&tag=x%40');
        assert.equal(buildUrl('data/plugin/profile/runs', {}), 'data/plugin/profile/runs');
    });

    test('toolDataUrl names run, tag and host like TensorBoard', () => {
        assert.equal(toolDataUrl('r', 'trace_viewer@', 'h', { resolution: 8000 }),
                     'data/plugin/profile/data?run=r&tag=trace_viewer%40&host=h&resolution=8000');
        // A host-less legacy file has host '' and must still send host=.
        assert.equal(toolDataUrl('r', 't', ''), 'data/plugin/profile/data?run=r&tag=t&host=');
    });
});

describe('api: loadProfile', () => {
    // fetch is replaced: api/load answers the file being read, then the
    // model being finished, then the model ready with its trace index
    // building, then the index ready.
    const answers = [
        [202, { state: 'loading', phase: 'reading', phase_done: 5, phase_total: 10,
                progress: 0.275, trace_index: 'building' }],
        [202, { state: 'loading', phase: 'finishing', phase_done: 3, phase_total: 4,
                progress: 0.5875, trace_index: 'building' }],
        [200, { state: 'ready', phase: 'indexing', phase_done: 1, phase_total: 4,
                progress: 0.7, trace_index: 'building' }],
        [200, { state: 'ready', phase: 'done', phase_done: 0, phase_total: 0, progress: 1,
                trace_index: 'ready' }],
    ];
    async function load(options) {
        const real = globalThis.fetch;
        let asked = 0;
        globalThis.fetch = async (url) => {
            assert.match(String(url), /^api\/load\?run=r&host=h$/);
            const [status, body] = answers[asked++];
            return new Response(JSON.stringify(body), { status });
        };
        const seen = [];
        try {
            const body = await loadProfile('r', 'h', {
                ...options, onProgress: (p) => seen.push(p) });
            return { asked, seen, body };
        } finally {
            globalThis.fetch = real;
        }
    }

    test('resolves when the model is ready', async () => {
        const { asked, seen, body } = await load({});
        assert.equal(asked, 3);
        assert.deepEqual(seen, [
            { phase: 'reading', done: 5, total: 10, fraction: 0.275, queued: false },
            { phase: 'finishing', done: 3, total: 4, fraction: 0.5875, queued: false }]);
        assert.equal(body.trace_index, 'building');
    });

    test('with untilIndex, also waits out the trace index and says so', async () => {
        const { asked, seen, body } = await load({ untilIndex: true });
        assert.equal(asked, 4);
        assert.deepEqual(seen.map((p) => p.phase), ['reading', 'finishing', 'indexing']);
        assert.deepEqual(seen[2], { phase: 'indexing', done: 1, total: 4, fraction: 0.7,
                                    queued: false });
        assert.equal(body.trace_index, 'ready');
    });
});

describe('api: a busy server', () => {
    // fetch is replaced for the test: the first answer is a 503 with
    // Retry-After, the second the runs list.
    test('a 503 is asked again after its Retry-After', async () => {
        const real = globalThis.fetch;
        const seen = [];
        globalThis.fetch = async (url) => {
            seen.push(Date.now());
            if (seen.length === 1)
                return new Response('{"error":"busy","detail":""}',
                                    { status: 503, headers: { 'Retry-After': '1' } });
            return new Response('["run_b","run_a"]', { status: 200 });
        };
        try {
            assert.deepEqual(await listRuns(), ['run_b', 'run_a']);
            assert.equal(seen.length, 2);
            assert.ok(seen[1] - seen[0] >= 900, `asked again after ${seen[1] - seen[0]} ms`);
        } finally {
            globalThis.fetch = real;
        }
    });
});

// ---- how the page's modules may depend on each other (#31) -------------------
// A view (web/views/<view>.js) imports only the page's base modules
// (web/*.js), the shared parts in web/views/lib/, web/draw/ and
// web/timeline/; a shared part never imports a view; only web/registry.js
// names views; only web/api.js talks to the server; status.js only shows.

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

// Every .js file below dir, as paths relative to WEB with '/' separators.
function webModules(dir = WEB) {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name);
        if (e.isDirectory())
            return webModules(full);
        return e.name.endsWith('.js') ? [path.relative(WEB, full).split(path.sep).join('/')] : [];
    });
}

// The source without its comments: block comments, and line comments that
// start a line or follow a blank ('http://' inside a string stays).
function withoutComments(src) {
    return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

// The modules a source names: static imports, re-exports and import() of a
// literal; an import() of anything else is reported as '<computed>'.
function importsOf(src) {
    const code = withoutComments(src);
    const out = [];
    const patterns = [/\bimport\s*(?:[\w$*{},\s]+?\s*from\s*)?['"]([^'"]+)['"]/g,
                      /\bexport\s*[\w$*{},\s]+?\s*from\s*['"]([^'"]+)['"]/g,
                      /\bimport\s*\(\s*(?:['"]([^'"]+)['"]\s*\)|(?=[^'"\s]))/g];
    for (const re of patterns) {
        for (const m of code.matchAll(re))
            out.push(m[1] ?? '<computed>');
    }
    return out;
}

// What file (relative to WEB) a specifier of module `from` names.
function resolveIn(from, spec) {
    if (!spec.startsWith('.'))
        return spec;
    return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
}

const isView = (m) => /^views\/[^/]+\.js$/.test(m);
const isLib = (m) => /^views\/lib\/[^/]+\.js$/.test(m);
const isBase = (m) => /^[^/]+\.js$/.test(m);
const isDrawing = (m) => /^(draw|timeline)\/[^/]+\.js$/.test(m);

// The broken rules of module `name` with source src, as sentences.
function ruleBreaks(name, src) {
    const out = [];
    for (const spec of importsOf(src)) {
        const dep = resolveIn(name, spec);
        if (dep === '<computed>')
            out.push(`${name} imports a module whose name is computed`);
        else if ((isView(name) || isLib(name)) && !(isBase(dep) || isLib(dep) || isDrawing(dep)))
            out.push(`${name} imports ${dep}: a view or a shared part imports only web/*.js, ` +
                     'views/lib/, draw/ and timeline/');
        else if (!isView(name) && !isLib(name) && isView(dep) && name !== 'registry.js')
            out.push(`${name} imports the view ${dep}: only registry.js names views`);
        if (name === 'status.js' && dep === 'api.js')
            out.push('status.js imports api.js: it shows things and loads nothing');
    }
    const code = withoutComments(src);
    if (name !== 'api.js' &&
        /\bfetch\s*\(|XMLHttpRequest|EventSource|sendBeacon|\bWebSocket\b/.test(code))
        out.push(`${name} talks to the server itself: only api.js does`);
    return out;
}

describe('module rules (#31)', () => {
    test('the rule reader sees each kind of broken rule', () => {
        // Hand-made modules, one break each, plus a clean one.
        assert.equal(ruleBreaks('views/a.js', "import { x } from './b.js';").length, 1);
        assert.equal(ruleBreaks('views/a.js', "import {\n  x,\n  y,\n} from './lib/p.js';\n" +
                                "export { z } from './c.js';").length, 1);
        assert.equal(ruleBreaks('views/a.js', "const g = await import('./generic.js');").length, 1);
        assert.equal(ruleBreaks('views/lib/p.js', "import { m } from '../kernel_stats.js';").length,
                     1);
        assert.equal(ruleBreaks('app.js', "import * as k from './views/kernel_stats.js';").length,
                     1);
        assert.equal(ruleBreaks('views/a.js', 'const r = await fetch(url);').length, 1);
        assert.equal(ruleBreaks('status.js', "import { getToolData } from './api.js';").length, 1);
        assert.equal(ruleBreaks('views/a.js', 'const m = await import(name);').length, 1);
        assert.deepEqual(ruleBreaks('views/a.js',
            "import { h } from '../dom.js';\nimport { dataPage } from './lib/page.js';\n" +
            "import { Timeline } from '../timeline/timeline.js';\n" +
            "// fetch(x) in a comment, import('./b.js') too\nconst u = 'http://x/';"), []);
    });

    test('views import no view, and only api.js talks to the server', () => {
        const modules = webModules();
        // The reader must see the page's imports for this test to mean anything.
        assert.ok(modules.includes('api.js') && modules.includes('app.js'));
        assert.ok(modules.filter(isView).length >= 15, `views: ${modules.filter(isView)}`);
        const breaks = modules.flatMap((m) => ruleBreaks(m, fs.readFileSync(path.join(WEB, m),
                                                                              'utf8')));
        assert.deepEqual(breaks, []);
        const registry = importsOf(fs.readFileSync(path.join(WEB, 'registry.js'), 'utf8'));
        assert.ok(registry.includes('./views/kernel_stats.js'), `registry.js names ${registry}`);
    });
});
