// router.js: the URL hash is the whole view state of the page, and this
// module is the only one that reads or writes it.
//
// Form: #/run/<run>/host/<host>/tool/<tool>?key=value&key=value, or
// #/page/<page>?key=value for the pages across runs (compare, history).
// Each value is encodeURIComponent-encoded, so run names with '/' (nested
// TensorBoard runs such as "train/2022_11_04"), spaces or unicode survive a
// copy-paste. The query part after '?' holds tool state (time window,
// selection) and belongs to the mounted view.
//
// A key that is absent from the hash is `undefined` in the state; a key
// that is present with an empty value is '' (legacy per-tool files without a
// host part have the host name ""), so the two never get confused.
//
// parseHash/formatHash/parseLegacyQuery are pure and run under node for the
// unit tests; everything else touches window.history.

// page names a page that is not one run's tool: 'compare' or 'history'.
const PATH_KEYS = ['run', 'host', 'tool', 'page'];

// ---- pure helpers ---------------------------------------------------------

function decodeSegment(s) {
    try {
        return decodeURIComponent(s);
    } catch {
        // A hand-typed '%' that is not an escape: keep it as written rather
        // than failing the whole link.
        return s;
    }
}

function parseQuery(q) {
    const params = {};
    for (const part of q.split('&')) {
        if (part === '')
            continue;
        const eq = part.indexOf('=');
        const key = decodeSegment(eq < 0 ? part : part.slice(0, eq));
        params[key] = eq < 0 ? '' : decodeSegment(part.slice(eq + 1));
    }
    return params;
}

// Returns {run, host, tool, params} from a location.hash string ('#/run/..'
// or '/run/..'). Unknown keys are ignored so that older links still open.
export function parseHash(hash) {
    let s = hash.startsWith('#') ? hash.slice(1) : hash;
    const state = { run: undefined, host: undefined, tool: undefined, params: {} };
    const q = s.indexOf('?');
    if (q >= 0) {
        state.params = parseQuery(s.slice(q + 1));
        s = s.slice(0, q);
    }
    const segs = s.split('/');
    // segs[0] is the text before the first '/', empty in a well-formed hash.
    for (let i = 1; i + 1 < segs.length; i += 2) {
        const key = segs[i];
        if (PATH_KEYS.includes(key))
            state[key] = decodeSegment(segs[i + 1]);
    }
    return state;
}

// The inverse of parseHash: '#/run/R/host/H/tool/T?k=v'. Keys whose value is
// undefined or null are left out, in the path and in the query.
export function formatHash(state) {
    let out = '#';
    for (const key of PATH_KEYS) {
        const v = state[key];
        if (v !== undefined && v !== null)
            out += '/' + key + '/' + encodeURIComponent(v);
    }
    const params = state.params || {};
    const parts = [];
    for (const key of Object.keys(params)) {
        const v = params[key];
        if (v !== undefined && v !== null)
            parts.push(encodeURIComponent(key) + '=' + encodeURIComponent(String(v)));
    }
    if (parts.length > 0)
        out += '?' + parts.join('&');
    return out === '#' ? '#/' : out;
}

// TensorBoard and standalone XProf share links as ?run=R&tool=T&host=H
// (tool may be spelt tag). Returns the state such a query names, or null
// when it names none, so old bookmarks open the same view here.
export function parseLegacyQuery(search) {
    const q = parseQuery(search.startsWith('?') ? search.slice(1) : search);
    const tool = q.tool !== undefined ? q.tool : q.tag;
    if (q.run === undefined && tool === undefined && q.host === undefined)
        return null;
    return { run: q.run, host: q.host, tool, params: {} };
}

// True when a and b show the same run, host and tool (params ignored).
export function sameView(a, b) {
    return PATH_KEYS.every((k) => a[k] === b[k]);
}

// ---- the live URL -----------------------------------------------------------

const listeners = new Set();
let lastHash = null;

function notify() {
    const state = current();
    for (const fn of listeners)
        fn(state);
}

function onExternalChange() {
    // popstate and hashchange both fire for one Back press; act once.
    if (location.hash === lastHash)
        return;
    lastHash = location.hash;
    notify();
}

// Returns the state in the address bar now.
export function current() {
    return parseHash(location.hash);
}

// Starts watching Back/Forward and hand-edited hashes. Converts a legacy
// TensorBoard query link into the hash form first (replacing, not pushing,
// so Back does not return to the old form).
export function start() {
    if (location.hash === '' || location.hash === '#' || location.hash === '#profile') {
        const legacy = parseLegacyQuery(location.search);
        if (legacy)
            history.replaceState(null, '', location.pathname + formatHash(legacy));
    }
    lastHash = location.hash;
    window.addEventListener('popstate', onExternalChange);
    window.addEventListener('hashchange', onExternalChange);
}

// Calls fn(state) after every navigation: navigate() and Back/Forward or
// an edited hash. Returns a function that stops the calls.
export function subscribe(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
}

// Goes to a new state. pushState by default (a new history entry);
// {replace: true} rewrites the current entry, {silent: true} skips the
// listeners (for the shell filling in defaults it has already acted on).
export function navigate(state, { replace = false, silent = false } = {}) {
    const hash = formatHash(state);
    if (hash === location.hash && !silent) {
        notify();
        return;
    }
    if (replace)
        history.replaceState(null, '', hash);
    else
        history.pushState(null, '', hash);
    lastHash = location.hash;
    if (!silent)
        notify();
}

// The tool-state query of the current URL.
export function getParams() {
    return current().params;
}

// Sets tool-state keys in the query (merged into the present ones; a key
// set to undefined or null is removed). replace (the default) suits
// continuous changes such as panning; pass {replace: false} for a step the
// user should be able to go Back from. Listeners are not called: the view
// that sets its own state already shows it.
export function setParams(params, { replace = true } = {}) {
    const state = current();
    const merged = { ...state.params, ...params };
    for (const k of Object.keys(merged)) {
        if (merged[k] === undefined || merged[k] === null)
            delete merged[k];
    }
    navigate({ ...state, params: merged }, { replace, silent: true });
}
