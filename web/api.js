// api.js: the only module that talks to the server. Every URL is relative
// (no leading slash), so the page works under --path-prefix and behind a
// reverse proxy that mounts profview anywhere.
//
// Every function returns the decoded JSON body or throws an ApiError that
// carries the server's {"error", "detail"} (or, for a non-JSON answer, the
// status line and the start of the body), so callers can show it in words.
// An AbortSignal passed as {signal} cancels the request; a cancelled call
// throws the browser's AbortError, which callers ignore.

const PLUGIN = 'data/plugin/profile/';
// A poll is a few hundred bytes; the first frame waits for the one that
// sees the load (and the index) done, half a poll later on average.
const LOAD_POLL_MS = 100;
const INDEX_POLL_MS = 50;
const ERROR_BODY_CHARS = 300;  // how much of a non-JSON error body to show

export class ApiError extends Error {
    constructor(status, error, detail, url) {
        super(detail ? `${error}: ${detail}` : error);
        this.name = 'ApiError';
        this.status = status;  // HTTP status; 0 when the server was not reached
        this.error = error;    // one line saying what went wrong
        this.detail = detail;  // the specifics (which run, which byte), maybe ''
        this.url = url;        // the relative URL that failed
    }
}

export function isAbort(e) {
    return e && e.name === 'AbortError';
}

// 'path?k=v&...' with encodeURIComponent (spaces as %20, not '+', which not
// every server decodes). Keys with undefined/null values are left out.
export function buildUrl(path, params) {
    const parts = [];
    for (const [k, v] of Object.entries(params || {})) {
        if (v !== undefined && v !== null)
            parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(String(v)));
    }
    return parts.length ? `${path}?${parts.join('&')}` : path;
}

function errorFromBody(status, statusText, text, url) {
    try {
        const body = JSON.parse(text);
        if (body && typeof body.error === 'string')
            return new ApiError(status, body.error, String(body.detail ?? ''), url);
    } catch {
        // Not JSON: fall through and show the text itself.
    }
    const title = `HTTP ${status}${statusText ? ' ' + statusText : ''}`;
    return new ApiError(status, title, text.trim().slice(0, ERROR_BODY_CHARS), url);
}

// A 503 (the server is making as many expensive answers as it makes at
// once) is asked again after its Retry-After, a few times, before it counts
// as an error.
const BUSY_RETRIES = 5;

// fetch() that waits out 503 answers; network failures become ApiError.
async function fetchPatiently(url, init, signal) {
    for (let attempt = 0; ; attempt++) {
        let resp;
        try {
            resp = await fetch(url, { ...init, signal });
        } catch (e) {
            if (isAbort(e))
                throw e;
            throw new ApiError(0, 'Cannot reach the profview server',
                               `${e.message}. Is it still running?`, url);
        }
        if (resp.status !== 503 || attempt >= BUSY_RETRIES)
            return resp;
        const secs = Number(resp.headers.get('Retry-After')) || 1;
        await sleep(secs * 1000, signal);
    }
}

// GETs url and returns {status, body} for a 2xx JSON answer.
async function getJson(url, signal) {
    const resp = await fetchPatiently(url, { headers: { Accept: 'application/json' } }, signal);
    const text = await resp.text();
    if (!resp.ok)
        throw errorFromBody(resp.status, resp.statusText, text, url);
    try {
        return { status: resp.status, body: text === '' ? null : JSON.parse(text) };
    } catch (e) {
        throw new ApiError(resp.status, 'The server answered with something that is not JSON',
                           `${e.message}; it starts with: ${text.slice(0, 80)}`, url);
    }
}

// GETs url and returns the body of a 2xx answer as an ArrayBuffer (binary
// tiles); an error answer is still JSON.
async function getBytes(url, signal) {
    const resp = await fetchPatiently(url, {}, signal);
    if (!resp.ok)
        throw errorFromBody(resp.status, resp.statusText, await resp.text(), url);
    return resp.arrayBuffer();
}

function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal && signal.aborted) {
            reject(new DOMException('aborted', 'AbortError'));
            return;
        }
        const t = setTimeout(resolve, ms);
        if (signal) {
            signal.addEventListener('abort', () => {
                clearTimeout(t);
                reject(new DOMException('aborted', 'AbortError'));
            }, { once: true });
        }
    });
}

// ---- TensorBoard-compatible plugin routes --------------------------------

// Every tool profview knows, in TensorBoard's order: [{name, title, aliases}].
export async function listToolCatalog({ signal } = {}) {
    return (await getJson('api/tools', signal)).body || [];
}

// Run names, newest first (the server sorts them in reverse).
export async function listRuns({ signal } = {}) {
    return (await getJson(PLUGIN + 'runs', signal)).body || [];
}

// Tool names a run offers, in the order TensorBoard shows them.
export async function listTools(run, { signal } = {}) {
    return (await getJson(buildUrl(PLUGIN + 'run_tools', { run }), signal)).body || [];
}

// Host names that have data for (run, tool); may include 'ALL_HOSTS'.
export async function listHosts(run, tool, { signal } = {}) {
    const url = buildUrl(PLUGIN + 'hosts', { run, tag: tool });
    const body = (await getJson(url, signal)).body || [];
    return body.map((h) => (typeof h === 'string' ? h : h.hostname));
}

// The HLO modules of a host's profile, as the memory and graph viewers
// name them ("jit_f(12)"): XProf's /module_list answers them as text
// joined by commas.
export async function listModules(run, host, { signal } = {}) {
    const url = buildUrl(PLUGIN + 'module_list', { run, host });
    const resp = await fetchPatiently(url, {}, signal);
    const text = await resp.text();
    if (!resp.ok)
        throw errorFromBody(resp.status, resp.statusText, text, url);
    return text === '' ? [] : text.split(',');
}

// The relative URL of a tool's data; extra holds tool-specific parameters
// (resolution, start_time_ms, ...). Also usable as a link to the raw JSON.
export function toolDataUrl(run, tool, host, extra = {}) {
    return buildUrl(PLUGIN + 'data', { run, tag: tool, host, ...extra });
}

// The relative URL of the server's CSV of a table tool's whole answer.
export function toolCsvUrl(run, tool, host) {
    return buildUrl(PLUGIN + 'data_csv', { run, tag: tool, host });
}

// A tool's payload (JSON). Errors such as 501 (tool not built yet) or 422
// (bad profile file) arrive as ApiError.
export async function getToolData(run, tool, host, extra = {}, { signal } = {}) {
    return (await getJson(toolDataUrl(run, tool, host, extra), signal)).body;
}

// ---- native routes ---------------------------------------------------------

// Waits until the server has loaded (run, host) into memory, calling
// onProgress({phase, done, total, fraction, queued}) after each poll while
// it loads: phase 'reading' (done and total in bytes of the file),
// 'finishing' (the model's passes over the events), 'indexing' (the trace
// index's, polled only with untilIndex, which the timeline needs);
// fraction (0 to 1) is the whole load, which never goes back. Resolves
// when the server answers 200 (and, with untilIndex, the index is no
// longer building); throws the ApiError of a bad file.
export async function loadProfile(run, host, { signal, onProgress, untilIndex = false } = {}) {
    const url = buildUrl('api/load', { run, host });
    for (;;) {
        const { status, body } = await getJson(url, signal);
        const indexing = untilIndex && status === 200 && body?.trace_index === 'building';
        if (status !== 202 && !indexing)
            return body;
        if (onProgress && body)
            onProgress({ phase: body.phase, done: Number(body.phase_done) || 0,
                         total: Number(body.phase_total) || 0,
                         fraction: Number(body.progress) || 0, queued: body.state === 'queued' });
        // The index is built in seconds and the first frame waits on it.
        await sleep(indexing ? INDEX_POLL_MS : LOAD_POLL_MS, signal);
    }
}

// Asks the server to start reading (run, host) and waits for nothing: a
// server reads a profile on the first api/load that names it, and the page
// has its pickers to fill before loadProfile. Its errors are loadProfile's
// to report.
export function startLoad(run, host) {
    fetch(buildUrl('api/load', { run, host }), { headers: { Accept: 'application/json' } })
        .then((r) => r.body?.cancel())
        .catch(() => {});
}

// ---- trace viewer (docs/trace_api.md) ---------------------------------------
// Times in these answers are picoseconds relative to the trace's t0_ps.

// The track list: {t0_ps, span_ps, n_events, max_level, tile_px, processes,
// counters}.
export async function traceMeta(run, host, { signal } = {}) {
    return (await getJson(buildUrl('api/trace/meta', { run, host }), signal)).body;
}

// One tile in the binary encoding, as an ArrayBuffer for decodeTileBin
// (timeline/tile_data.js). Tiles never change for a file, so the
// browser's HTTP cache may answer; version (the meta's source_id) keeps
// the answers for an older copy of the file apart.
export async function traceTile(run, host, level, index, { signal, version } = {}) {
    const url = buildUrl('api/trace/tile', { run, host, level, index, format: 'bin', v: version });
    return getBytes(url, signal);
}

// One event with all its stats, its step and its flow partners.
export async function traceEvent(run, host, id, { signal, version } = {}) {
    return (await getJson(buildUrl('api/trace/event', { run, host, id, v: version }), signal)).body;
}

// Events whose name contains q (any case) across the whole trace, sorted by
// start: {total, results: [{id, name, track, start_ps, dur_ps}]}.
export async function traceSearch(run, host, q, offset, limit, { signal, version } = {}) {
    const url = buildUrl('api/trace/search', { run, host, q, offset, limit, v: version });
    return (await getJson(url, signal)).body;
}

// The events of tracks that overlap [startPs, endPs), summed by name:
// {n_events, rows: [{name, count, wall_ps, self_ps, min_ps, max_ps}]}.
export async function traceAggregate(run, host, startPs, endPs, tracks, { signal, version } = {}) {
    const url = buildUrl('api/trace/aggregate', { run, host, start_ps: Math.max(0, Math.round(startPs)),
                                                  end_ps: Math.round(endPs),
                                                  tracks: tracks.join(','), v: version });
    return (await getJson(url, signal)).body;
}

// ---- reports (#20): the numbers of `profview summary` and `compare` ----------

// Two runs side by side (the JSON of `profview compare --json`): params
// {base, new, base_host, new_host}; every op and kernel that moved.
export async function compareRuns(params, { signal } = {}) {
    return (await getJson(buildUrl('api/compare', params), signal)).body;
}

// Every run (whose name starts with prefix) in time order with its brief
// (step time, input and idle shares, memory peaks; null while not read yet):
// {runs: [{run, time_s, hosts, brief}], pending}.
export async function runHistory(prefix, { signal } = {}) {
    return (await getJson(buildUrl('api/history', { prefix: prefix || undefined }), signal)).body;
}
