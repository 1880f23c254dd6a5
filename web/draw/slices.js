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
// (an instant stays visible), and further sub-pixel events that fall in a
// pixel already filled on the same level are skipped: the screen cannot
// show them and skipping them keeps a frame's work bounded by its width.

import { PALETTE, BOX_STEPS, boxStep, boxStepFill } from './colors.js';

const LABEL_MIN_PX = 28;   // narrower events get no label
const LABEL_PAD_PX = 3;

// Empty batches for one frame.
export function newBatches() {
    return {
        ev: PALETTE.map(() => []),     // [x, y, w, h, x, y, w, h, ...]
        box: Array.from({ length: BOX_STEPS }, () => []),
        labels: [],  // [x, y, w, text]
        labelled: new Set(),  // event ids already labelled in this frame
    };
}

// view: {x0 (canvas x of time startPs), vp: {startPs, endPs, widthPx},
//   rowPx, yOf(contentY) -> canvas y, clipX0, clipX1 (time area in canvas x)}
// row: a thread row of layout.js. piece: {tile, clipStart, clipEnd}.
// Adds the track's events and boxes of this piece to batches.
export function collectSlices(batches, piece, row, view) {
    const t = piece.tile.tracks.get(row.track);
    if (!t)
        return;
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    const xOf = (ps) => view.x0 + (ps - vp.startPs) * scale;
    const cx0 = Math.max(view.clipX0, xOf(piece.clipStart));
    const cx1 = Math.min(view.clipX1, xOf(piece.clipEnd));
    if (cx1 <= cx0)
        return;
    const top = view.yOf(row.y);
    const shown = row.shownDepths;
    const h = view.rowPx - 1;

    const box = t.box;
    const boxLast = new Float64Array(shown).fill(-Infinity);
    for (let i = 0; i < box.n; i++) {
        const d = box.depth[i];
        if (d >= shown)
            continue;
        let x0 = xOf(box.start[i]);
        let x1 = xOf(box.end[i]);
        if (x1 < cx0 || x0 > cx1)
            continue;
        x0 = Math.max(x0, cx0);
        x1 = Math.min(x1, cx1);
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        if (x1 <= boxLast[d])
            continue;
        boxLast[d] = x1;
        const span = box.end[i] - box.start[i];
        const frac = span > 0 ? box.busy[i] / span : 1;
        batches.box[boxStep(frac)].push(x0, top + d * view.rowPx, x1 - x0, h);
    }

    const ev = t.ev;
    const last = new Float64Array(shown).fill(-Infinity);
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
        if (w < 1) {
            if (x0 + 1 <= last[d])
                continue;
            x1 = x0 + 1;
        }
        last[d] = x1;
        const y = top + d * view.rowPx;
        batches.ev[colors[ev.name[i]]].push(x0, y, x1 - x0, h);
        if (w >= LABEL_MIN_PX && !batches.labelled.has(ev.id[i])) {
            // An event crossing a tile edge is in both tiles: label it once,
            // over its whole visible extent.
            batches.labelled.add(ev.id[i]);
            const lx0 = Math.max(view.clipX0, xOf(s));
            const lx1 = Math.min(view.clipX1, xOf(s + ev.dur[i]));
            batches.labels.push([lx0, y, lx1 - lx0, piece.tile.names[ev.name[i]]]);
        }
    }
}

function fillList(ctx, style, r) {
    if (r.length === 0)
        return;
    ctx.fillStyle = style;
    for (let i = 0; i < r.length; i += 4)
        ctx.fillRect(r[i], r[i + 1], r[i + 2], r[i + 3]);
}

// Fills the collected rectangles: boxes first, events over them.
export function fillBatches(ctx, batches) {
    for (let s = 0; s < BOX_STEPS; s++)
        fillList(ctx, boxStepFill(s), batches.box[s]);
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
