// viewport.js: the visible time window of the trace viewer and the math
// that maps it to pixels and to tiles (docs/trace_api.md). Pure functions
// of plain objects, tested under node.
//
// A viewport is {startPs, endPs, widthPx}: times are picoseconds relative
// to the trace's t0_ps (so they stay exact in doubles), widthPx is the
// width of the time area in CSS pixels. Functions never change their
// argument; they return a new viewport.

// The narrowest window a person can zoom to. Below a nanosecond there is
// nothing left to see in a profile whose clock ticks in nanoseconds.
export const MIN_WINDOW_PS = 1000;

// Returns a viewport showing [startPs, endPs] clamped into [0, spanPs]
// and at least MIN_WINDOW_PS wide (or the whole span when that is smaller).
export function clampWindow(startPs, endPs, spanPs, widthPx) {
    const span = Math.max(1, spanPs);
    let w = Math.max(Math.min(endPs - startPs, span), Math.min(MIN_WINDOW_PS, span));
    if (!Number.isFinite(w))
        w = span;
    let s = Number.isFinite(startPs) ? startPs : 0;
    if (s < 0)
        s = 0;
    if (s + w > span)
        s = span - w;
    return { startPs: s, endPs: s + w, widthPx: Math.max(1, widthPx) };
}

// The whole trace.
export function fullViewport(spanPs, widthPx) {
    return clampWindow(0, spanPs, spanPs, widthPx);
}

export function psPerPx(v) {
    return (v.endPs - v.startPs) / v.widthPx;
}

// Pixel x (from the left edge of the time area) of time t.
export function timeToPx(v, t) {
    return ((t - v.startPs) * v.widthPx) / (v.endPs - v.startPs);
}

// Time at pixel x.
export function pxToTime(v, x) {
    return v.startPs + (x * (v.endPs - v.startPs)) / v.widthPx;
}

// Zooms by factor (> 1 zooms in) keeping the time under pixel x in place.
export function zoomAt(v, factor, x, spanPs) {
    const t = pxToTime(v, x);
    const w = (v.endPs - v.startPs) / factor;
    const frac = x / v.widthPx;
    const next = clampWindow(t - frac * w, t - frac * w + w, spanPs, v.widthPx);
    return next;
}

// Moves the window by dx pixels (positive dx shows later times).
export function panByPx(v, dx, spanPs) {
    const dt = dx * psPerPx(v);
    return clampWindow(v.startPs + dt, v.endPs + dt, spanPs, v.widthPx);
}

// Shows [t0, t1] (in either order).
export function zoomToRange(v, t0, t1, spanPs) {
    return clampWindow(Math.min(t0, t1), Math.max(t0, t1), spanPs, v.widthPx);
}

// Window width that a revealed event narrower than a pixel is zoomed to
// (at least): wide enough to show its neighbours too.
export const REVEAL_MIN_WINDOW_PS = 1e7;

// Brings an event [t, t + durPs] into view, centred: keeps the zoom when
// the event fits in the middle 80% of the window and is at least a pixel
// wide; zooms out when it is too long (it then fills half the window) and
// in when it would be invisible (it then fills a twentieth).
export function revealRange(v, t, durPs, spanPs) {
    const w = v.endPs - v.startPs;
    let nw = w;
    if (durPs > 0.8 * w)
        nw = Math.max(2 * durPs, MIN_WINDOW_PS);
    else if (durPs < psPerPx(v))
        nw = Math.min(w, Math.max(20 * durPs, REVEAL_MIN_WINDOW_PS));
    const mid = t + durPs / 2;
    return clampWindow(mid - nw / 2, mid + nw / 2, spanPs, v.widthPx);
}

// Changes the pixel width, keeping the time window.
export function resize(v, widthPx) {
    return { startPs: v.startPs, endPs: v.endPs, widthPx: Math.max(1, widthPx) };
}

export function sameViewport(a, b) {
    return a.startPs === b.startPs && a.endPs === b.endPs && a.widthPx === b.widthPx;
}

// ---- tiles ------------------------------------------------------------------

// The tile level to draw v with: the coarsest level whose tiles are at most
// tilePx screen pixels wide, so a tile's own pixel (the server's "too small
// to draw" limit, tile width / tilePx) is no wider than a screen pixel.
// Clamped to [0, maxLevel].
export function tileLevel(v, spanPs, tilePx, maxLevel) {
    const wanted = tilePx * psPerPx(v);
    if (!(wanted > 0))
        return maxLevel;
    const level = Math.ceil(Math.log2(Math.max(1, spanPs) / wanted) - 1e-9);
    return Math.max(0, Math.min(maxLevel, level));
}

// Width in ps of one tile of level.
export function tileWidthPs(spanPs, level) {
    return Math.max(1, spanPs) / 2 ** level;
}

// {first, last}: the indices of the level's tiles that overlap [startPs,
// endPs).
export function tileRange(startPs, endPs, spanPs, level) {
    const n = 2 ** level;
    const w = tileWidthPs(spanPs, level);
    const first = Math.max(0, Math.min(n - 1, Math.floor(startPs / w)));
    let last = Math.ceil(endPs / w) - 1;
    last = Math.max(first, Math.min(n - 1, last));
    return { first, last };
}

// The time range [startPs, endPs) a tile covers.
export function tileBounds(spanPs, level, index) {
    const w = tileWidthPs(spanPs, level);
    return { startPs: index * w, endPs: (index + 1) * w };
}
