// frame.js: one complete frame of the timeline, from a scene the view
// assembles. Pure (ctx, scene): the scene holds everything to draw and
// nothing here keeps state between frames.
//
// scene: {width, height, gutterPx, rulerPx, scrollY (CSS px),
//   vp (timeline/viewport.js), layout (timeline/layout.js),
//   pieces: [{tile, clipStart, clipEnd}] (timeline/tile_cache.js cover()),
//   ticks (timeline/ticks.js), theme, hover, selection (events as in
//   overlay.js, or null), flows ([{from, to}]), range ({t0, t1} or null),
//   box ({t0, t1, y0, y1} or null), marks ([t]), measure ({t0, t1} or
//   null), complete (every tile of the frame is at its own level),
//   gutterKept (see drawFrame)}
// Order: process bands, grid, slices, counters, outlines and arrows, range
// and box, then the gutter and ruler on top so events never cover names or
// times, then marks and the measured span over the ruler.

import { formatDurationPs } from '../format.js';
import { ROW_PX } from '../timeline/layout.js';
import { flatten } from './colors.js';
import { drawCounter } from './counters.js';
import { drawGutter } from './gutter.js';
import { drawBox, drawFlows, drawMarks, drawMeasure, drawOutline, drawRange } from './overlay.js';
import { drawGrid, drawRuler } from './ruler.js';
import { collectSlices, drawLabels, fillBatches, newBatches } from './slices.js';

// The view object every draw function takes.
export function frameView(scene) {
    const top = scene.rulerPx - scene.scrollY;
    return {
        vp: scene.vp,
        x0: scene.gutterPx,
        clipX0: scene.gutterPx,
        clipX1: scene.width,
        width: scene.width,
        height: scene.height,
        gutterPx: scene.gutterPx,
        rulerPx: scene.rulerPx,
        rowPx: ROW_PX,
        yOf: (y) => top + y,
    };
}

// The rows of layout that show between scrollY and the bottom edge.
export function visibleRows(layout, scrollY, heightPx) {
    const out = [];
    const bottom = scrollY + heightPx;
    for (const r of layout.rows) {
        if (r.y + r.h <= scrollY)
            continue;
        if (r.y >= bottom)
            break;
        out.push(r);
    }
    return out;
}

// A collapsed process still shows when it was busy: the top level of all
// its threads, overlaid in one row of its header.
function collectSummary(batches, pieces, header, view) {
    const pad = (header.h - ROW_PX) / 2;
    for (const track of header.tracks || []) {
        const pseudo = { track, y: header.y + pad, shownDepths: 1 };
        for (const p of pieces)
            collectSlices(batches, p, pseudo, view, false);
    }
}

function isEmpty(batches) {
    return batches.ev.every((l) => l.length === 0) && batches.box.every((l) => l.length === 0);
}

// Says in words that the window holds no event on the visible tracks, so
// an empty canvas is not mistaken for data still loading or lost.
function drawEmptyNote(ctx, view, theme) {
    const vp = view.vp;
    const text = `No events on these tracks between ${formatDurationPs(vp.startPs)} and ` +
        `${formatDurationPs(vp.endPs)} — zoom out (S) or scroll to other tracks.`;
    ctx.font = theme.font;
    ctx.fillStyle = theme.muted;
    ctx.textBaseline = 'middle';
    const w = ctx.measureText(text).width;
    const x = Math.max(view.clipX0 + 8, (view.clipX0 + view.clipX1 - w) / 2);
    ctx.fillText(text, x, view.rulerPx + 16);
}

// scene.gutterKept: the names column (and the ruler's corner above it)
// on the canvas is still what this scene would draw there (same rows,
// scroll, size and theme), so the frame leaves it alone: everything else
// is clipped to the time area. The canvas then changes, and has to be
// rasterised and composited, only where time is shown.
export function drawFrame(ctx, scene) {
    const view = frameView(scene);
    const theme = scene.theme;
    const rows = visibleRows(scene.layout, scene.scrollY, scene.height - scene.rulerPx);
    if (scene.gutterKept) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(view.x0, 0, scene.width - view.x0, scene.height);
        ctx.clip();
    }

    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, scene.width, scene.height);
    // Bands first and opaque (colors.js flatten), then the grid over them.
    ctx.fillStyle = flatten(theme.processBg, theme.bg);
    for (const r of rows) {
        if (r.kind === 'process')
            ctx.fillRect(view.x0, Math.round(view.yOf(r.y)), scene.width - view.x0, r.h);
    }
    drawGrid(ctx, scene.ticks, view, theme);

    const batches = newBatches();
    ctx.strokeStyle = theme.separator;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const r of rows) {
        const y = view.yOf(r.y);
        if (r.kind === 'process') {
            if (r.collapsed)
                collectSummary(batches, scene.pieces, r, view);
        } else if (r.kind === 'thread') {
            for (const p of scene.pieces)
                collectSlices(batches, p, r, view);
        }
        ctx.moveTo(0, Math.round(y + r.h) - 0.5);
        ctx.lineTo(scene.width, Math.round(y + r.h) - 0.5);
    }
    ctx.stroke();
    fillBatches(ctx, batches, theme);
    drawLabels(ctx, batches, view, theme);
    if (scene.complete && isEmpty(batches))
        drawEmptyNote(ctx, view, theme);
    for (const r of rows) {
        if (r.kind === 'counter') {
            for (const p of scene.pieces)
                drawCounter(ctx, p, r, view, theme);
        }
    }

    if (scene.hover)
        drawOutline(ctx, scene.hover, scene.layout, view, theme.hover);
    if (scene.selection)
        drawOutline(ctx, scene.selection, scene.layout, view, theme.selected);
    if (scene.flows && scene.flows.length > 0)
        drawFlows(ctx, scene.flows, scene.layout, view, theme);
    if (scene.range)
        drawRange(ctx, scene.range, view, theme);
    if (scene.box)
        drawBox(ctx, scene.box, view, theme);

    if (!scene.gutterKept)
        drawGutter(ctx, rows, view, theme);
    drawRuler(ctx, scene.ticks, view, theme);
    // Over the ruler, clipped to the time area: a mark at the left edge
    // must not cover the names column.
    if ((scene.marks && scene.marks.length) || scene.measure) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(view.x0, 0, scene.width - view.x0, scene.height);
        ctx.clip();
        if (scene.measure)
            drawMeasure(ctx, scene.measure, view, theme);
        if (scene.marks && scene.marks.length)
            drawMarks(ctx, scene.marks, view, theme);
        ctx.restore();
    }
    if (scene.gutterKept)
        ctx.restore();
}
