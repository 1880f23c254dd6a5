// url_state.js: the trace viewer's part of the URL hash (router.js owns
// the hash; this module only says what goes in it):
//   start, end  the visible window, integer picoseconds relative to the
//               trace's t0_ps (exact and short: "12500000")
//   sel         the id of the selected event (docs/trace_api.md)
//   marks       flags on the time axis: "t1,t2,..." (ps)
//   measure     a measured span: "t0,t1" (ps)
//   box         a box selection: "t0,t1" (ps) over the tracks in boxtracks
//               ("3,4,7")
//   fold, hide, pin  rows collapsed, hidden and pinned (layout.js keys:
//               "p:<pid>,t:<track>,c:<counter>")
//   tracks      the track filter's text
// A copied link therefore reopens the same window, rows, flags and
// selections. Pure parsing/formatting (tested under node) and a small writer
// that coalesces the stream of changes during a pan into few replaceState
// calls (browsers throttle a page that calls it on every frame).

const WRITE_DELAY_MS = 150;

function parseNumber(s) {
    if (s === undefined || s === null || s === '')
        return null;
    const n = Number(s);
    return Number.isFinite(n) ? n : null;
}

// {startPs, endPs} from params, or null when absent or not a window.
export function parseWindow(params) {
    const s = parseNumber(params.start);
    const e = parseNumber(params.end);
    if (s === null || e === null || !(e > s))
        return null;
    return { startPs: s, endPs: e };
}

// The selected event id, or null.
export function parseSelection(params) {
    const id = parseNumber(params.sel);
    return id !== null && id >= 0 && Number.isInteger(id) ? id : null;
}

// Whole picoseconds from "a,b,c" (values that are not numbers, or are
// negative, dropped), or [] when absent.
export function parseTimes(s) {
    if (typeof s !== 'string' || s === '')
        return [];
    return s.split(',').map(parseNumber).filter((n) => n !== null && n >= 0).map(Math.round);
}

// "a,b,c" for times (rounded to whole ps), undefined for none (which
// removes the key).
export function formatTimes(ts) {
    return ts && ts.length ? ts.map((t) => String(Math.round(t))).join(',') : undefined;
}

// A span [t0, t1] from "t0,t1", ordered, or null when absent or empty.
export function parseSpan(s) {
    const ts = parseTimes(s);
    if (ts.length !== 2 || ts[0] === ts[1])
        return null;
    return { t0: Math.min(ts[0], ts[1]), t1: Math.max(ts[0], ts[1]) };
}

// The set of row keys in "p:1,t:4" (layout.js), empty when absent.
export function parseKeys(s) {
    if (typeof s !== 'string' || s === '')
        return new Set();
    return new Set(s.split(',').filter((k) => /^[ptc]:-?\d+$/.test(k)));
}

// "p:1,t:4" for a set of row keys, undefined for none.
export function formatKeys(keys) {
    return keys && keys.size ? [...keys].join(',') : undefined;
}

// The params for a window and selection (sel null removes it).
export function formatParams(vp, selId) {
    return {
        start: String(Math.round(vp.startPs)),
        end: String(Math.round(vp.endPs)),
        sel: selId === null || selId === undefined ? undefined : String(selId),
    };
}

// Returns {write(), flush(), cancel()}: write() notes that the state
// changed and, after WRITE_DELAY_MS of calm, hands getParams() to
// setParams; flush() does it now. The params are read when written, not
// when noted, so a write that was pending while Back/Forward moved the
// selection never puts back the old one. Timers come from win (the
// window) so tests can pass a fake.
export function urlWriter(getParams, setParams, win = globalThis) {
    let timer = 0;
    const flush = () => {
        if (!timer)
            return;
        win.clearTimeout(timer);
        timer = 0;
        setParams(getParams());
    };
    return {
        write() {
            if (timer)
                win.clearTimeout(timer);
            timer = win.setTimeout(flush, WRITE_DELAY_MS);
        },
        flush,
        cancel() {
            if (timer)
                win.clearTimeout(timer);
            timer = 0;
        },
    };
}
