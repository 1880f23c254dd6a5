// slices.js: events and aggregate boxes of the thread tracks. Pure
// functions of (ctx, data, view): no fetching, no DOM, no module state.
//
// A frame is drawn in two passes so that a canvas state change happens
// once per colour, not once per event: collectSlices() walks every visible
// track of every tile piece and adds rectangles to one list per palette
// colour (and one per box opacity step); fillBatches() fills them with
// fillRect, which Chromium's software rasteriser draws far faster than one
// big Path2D of rectangles (a path goes through the general scan
// converter: in headless Chromium, panning 50 tracks went from about 3
// frames a second with Path2D to 60 with fillRect, bench/trace_frame.mjs). Labels
// come after, on top. An event narrower than a pixel still gets one pixel
// (an instant stays visible); neighbouring narrow events on one level are
// drawn as one shaded run (Runs), like the server's aggregate boxes: the
// screen cannot show them one by one, and merging them keeps a frame's
// rectangles bounded by its width.

import { PALETTE, BOX_STEPS, boxStep, boxStepFill, flatten } from './colors.js';

const LABEL_MIN_PX = 28;   // narrower events get no label
const MERGE_PX = 2;        // narrower events may merge into a run (see Runs)
const LABEL_PAD_PX = 3;

// Empty batches for one frame.
export function newBatches() {
    const b = {
        ev: PALETTE.map(() => []),     // [x, y, w, h, x, y, w, h, ...]
        box: Array.from({ length: BOX_STEPS }, () => []),
        labels: [],  // [x, y, w, text]
        labelled: new Set(),  // event ids already labelled in this frame
        runs: null,  // the frame's Runs
    };
    b.runs = new Runs(b);
    return b;
}

// Where a tile piece lies on the canvas: {scale (px per ps), xOf(ps) (the
// canvas x of a time), cx0, cx1 (the visible x range of the piece)}, or
// null when no part of it is visible.
export function pieceSpan(piece, view) {
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    const xOf = (ps) => view.x0 + (ps - vp.startPs) * scale;
    const cx0 = Math.max(view.clipX0, xOf(piece.clipStart));
    const cx1 = Math.min(view.clipX1, xOf(piece.clipEnd));
    return cx1 <= cx0 ? null : { scale, xOf, cx0, cx1 };
}

// view: {x0 (canvas x of time startPs), vp: {startPs, endPs, widthPx},
//   rowPx, yOf(contentY) -> canvas y, clipX0, clipX1 (time area in canvas x)}
// row: a thread row of layout.js. piece: {tile, clipStart, clipEnd}.
// Adds the track's events and boxes of this piece to batches.
// labels: false leaves labels out (a collapsed process's summary row,
// where the top levels of all its threads overlap).
export function collectSlices(batches, piece, row, view, labels = true) {
    const t = piece.tile.tracks.get(row.track);
    if (!t)
        return;
    const span = pieceSpan(piece, view);
    if (!span)
        return;
    const { scale, xOf, cx0, cx1 } = span;
    const top = view.yOf(row.y);
    const shown = row.shownDepths;
    const h = view.rowPx - 1;

    const runs = batches.runs;
    runs.start(shown, top, view.rowPx, h);
    const box = t.box;
    for (let i = 0; i < box.n; i++) {
        const d = box.depth[i];
        if (d >= shown)
            continue;
        let x0 = xOf(box.start[i]);
        let x1 = xOf(box.end[i]);
        if (x1 < cx0 || x0 > cx1)
            continue;
        x0 = Math.max(x0, cx0);
        // A box lives in the tile where it starts but may run on into the
        // next one, which does not hold it: draw it to its end.
        x1 = Math.min(x1, view.clipX1);
        runs.add(d, x0, x1, box.busy[i] * scale, -1);
    }
    runs.flushAll();

    const ev = t.ev;
    const colors = piece.tile.colors;
    for (let i = 0; i < ev.n; i++) {
        const d = ev.depth[i];
        if (d >= shown)
            continue;
        const s = ev.start[i];
        let x0 = xOf(s);
        let x1 = xOf(s + ev.dur[i]);
        if (x1 < cx0 || x0 > cx1)
            continue;
        x0 = Math.max(x0, cx0);
        x1 = Math.min(x1, cx1);
        const w = x1 - x0;
        if (w < MERGE_PX) {
            runs.add(d, x0, x1, w, colors[ev.name[i]]);
            continue;
        }
        runs.flush(d);
        const y = top + d * view.rowPx;
        batches.ev[colors[ev.name[i]]].push(x0, y, w, h);
        if (labels && w >= LABEL_MIN_PX && !batches.labelled.has(ev.id[i])) {
            // An event crossing a tile edge is in both tiles: label it once,
            // over its whole visible extent.
            batches.labelled.add(ev.id[i]);
            const lx0 = Math.max(view.clipX0, xOf(s));
            const lx1 = Math.min(view.clipX1, xOf(s + ev.dur[i]));
            batches.labels.push([lx0, y, lx1 - lx0, piece.tile.names[ev.name[i]]]);
        }
    }
    runs.flushAll();
}

// Runs of narrow things on each level of one track: an event narrower
// than MERGE_PX, or an aggregate box, that starts within a pixel of the
// previous one's end joins its run instead of becoming a rectangle of its
// own. A run of one event keeps its colour; a longer run, or any box, is
// drawn as a box, shaded by the share of its pixels its events cover.
// color -1 marks a box. One Runs serves every track of a frame (start()
// before each), so a frame allocates its level arrays once, not per track.
class Runs {
    constructor(batches) {
        this.batches = batches;
        this.grow(8);
    }

    grow(levels) {
        this.x0s = new Float64Array(levels);
        this.x1s = new Float64Array(levels);
        this.busy = new Float64Array(levels);
        this.n = new Uint32Array(levels);
        this.color = new Int32Array(levels);
    }

    // A track whose level d has its top at canvas y top + d * rowPx, h tall.
    start(levels, top, rowPx, h) {
        if (levels > this.n.length)
            this.grow(levels);
        this.n.fill(0, 0, levels);
        this.levels = levels;
        this.top = top;
        this.rowPx = rowPx;
        this.h = h;
    }

    flush(d) {
        const n = this.n[d];
        if (n === 0)
            return;
        const x0 = this.x0s[d];
        const w = Math.max(1, this.x1s[d] - x0);
        const y = this.top + d * this.rowPx;
        if (n === 1 && this.color[d] >= 0)
            this.batches.ev[this.color[d]].push(x0, y, w, this.h);
        else
            this.batches.box[boxStep(this.busy[d] / w)].push(x0, y, w, this.h);
        this.n[d] = 0;
    }

    add(d, x0, x1, busyPx, c) {
        const end = Math.max(x1, x0 + 1);
        if (this.n[d] > 0 && x0 <= this.x1s[d] + 1) {
            this.x1s[d] = Math.max(this.x1s[d], end);
            this.busy[d] += busyPx;
            this.n[d] += 1;
            this.color[d] = -1;
            return;
        }
        this.flush(d);
        this.x0s[d] = x0;
        this.x1s[d] = end;
        this.busy[d] = busyPx;
        this.n[d] = 1;
        this.color[d] = c;
    }

    flushAll() {
        for (let d = 0; d < this.levels; d++)
            this.flush(d);
    }
}

// Fills rectangles on whole pixels: a rectangle with a fractional edge
// gets an anti-aliased edge, which the software rasteriser fills far more
// slowly, and a half-shaded edge pixel tells nothing about an event.
function fillList(ctx, style, r) {
    if (r.length === 0)
        return;
    ctx.fillStyle = style;
    for (let i = 0; i < r.length; i += 4) {
        const x0 = Math.round(r[i]);
        const x1 = Math.max(x0 + 1, Math.round(r[i] + r[i + 2]));
        ctx.fillRect(x0, Math.round(r[i + 1]), x1 - x0, r[i + 3]);
    }
}

// Fills the collected rectangles: boxes first, events over them.
// theme.boxRgb: the boxes' hue ("r, g, b"); theme.bg: the background the
// boxes are drawn on, so their shades can be drawn opaque (colors.js
// flatten). A collapsed process's summary lies on its header's band, not
// the background: its boxes come out a shade lighter than a blend would.
export function fillBatches(ctx, batches, theme) {
    for (let s = 0; s < BOX_STEPS; s++) {
        if (batches.box[s].length > 0)
            fillList(ctx, flatten(boxStepFill(s, theme.boxRgb), theme.bg), batches.box[s]);
    }
    for (let c = 0; c < PALETTE.length; c++)
        fillList(ctx, PALETTE[c], batches.ev[c]);
}

// The longest prefix of text (with an ellipsis) that fits in px, given
// the width of one character. '' when not even two characters fit.
export function fitLabel(text, px, charPx) {
    const n = Math.floor(px / charPx);
    if (n >= text.length)
        return text;
    if (n < 3)
        return '';
    return `${text.slice(0, n - 1)}…`;
}

// Draws the labels of events wide enough for one.
export function drawLabels(ctx, batches, view, theme) {
    if (batches.labels.length === 0)
        return;
    ctx.font = theme.labelFont;
    ctx.fillStyle = theme.labelFg;
    ctx.textBaseline = 'middle';
    const charPx = theme.charPx;
    for (const [x, y, w, name] of batches.labels) {
        const text = fitLabel(name || '', w - 2 * LABEL_PAD_PX, charPx);
        if (text)
            ctx.fillText(text, x + LABEL_PAD_PX, y + view.rowPx / 2);
    }
}
