// overlay.js: what is drawn over the events — the hovered and the selected
// event's outline, flow arrows between an event and its partners (a host
// launch and its kernel), the shaded range of a zoom-to-range drag, a box
// selection, marks (vertical flags) and a measured span with its length.
// Pure.

import { formatDurationPs } from '../format.js';
import { depthMidY, ROW_PX } from '../timeline/layout.js';

// Where an event sits on the canvas: {x0, x1, y, h} or null when its track
// is not laid out (its process is collapsed). ev: {track, depth, start,
// dur} in ps.
export function eventRect(ev, layout, view) {
    const row = layout.byTrack.get(ev.track);
    if (!row)
        return null;
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    const x0 = view.x0 + (ev.start - vp.startPs) * scale;
    const x1 = Math.max(x0 + 1, view.x0 + (ev.start + ev.dur - vp.startPs) * scale);
    const mid = view.yOf(depthMidY(row, ev.depth));
    return { x0, x1, y: mid - ROW_PX / 2, h: ROW_PX - 1 };
}

function clipX(x, view) {
    return Math.max(view.clipX0 - 2, Math.min(view.clipX1 + 2, x));
}

// Outlines ev (see eventRect) in color, two pixels wide.
export function drawOutline(ctx, ev, layout, view, color) {
    const r = eventRect(ev, layout, view);
    if (!r || r.x1 < view.clipX0 || r.x0 > view.clipX1)
        return;
    const x0 = clipX(r.x0, view);
    const x1 = clipX(r.x1, view);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, r.y + 1, Math.max(1, x1 - x0), r.h - 1);
}

function arrowHead(ctx, x, y, angle, size) {
    ctx.moveTo(x, y);
    ctx.lineTo(x - size * Math.cos(angle - 0.45), y - size * Math.sin(angle - 0.45));
    ctx.moveTo(x, y);
    ctx.lineTo(x - size * Math.cos(angle + 0.45), y - size * Math.sin(angle + 0.45));
}

// flows: [{from: ev, to: ev}] with ev as for eventRect; the arrow leaves
// the end of `from` and enters the start of `to`. Arrows whose ends are
// both off the time area are skipped.
export function drawFlows(ctx, flows, layout, view, theme) {
    ctx.strokeStyle = theme.flow;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (const f of flows) {
        const a = eventRect(f.from, layout, view);
        const b = eventRect(f.to, layout, view);
        if (!a || !b)
            continue;
        const ax = clipX(a.x1, view);
        const bx = clipX(b.x0, view);
        if ((ax < view.clipX0 && bx < view.clipX0) || (ax > view.clipX1 && bx > view.clipX1))
            continue;
        const ay = a.y + a.h / 2;
        const by = b.y + b.h / 2;
        const bend = Math.max(20, Math.abs(bx - ax) / 3);
        ctx.moveTo(ax, ay);
        ctx.bezierCurveTo(ax + bend, ay, bx - bend, by, bx, by);
        arrowHead(ctx, bx, by, 0, 7);
    }
    ctx.stroke();
}

// Shades the time range [t0, t1] (a drag in progress) over the content.
export function drawRange(ctx, range, view, theme) {
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    const x0 = clipX(view.x0 + (Math.min(range.t0, range.t1) - vp.startPs) * scale, view);
    const x1 = clipX(view.x0 + (Math.max(range.t0, range.t1) - vp.startPs) * scale, view);
    ctx.fillStyle = theme.range;
    ctx.fillRect(x0, view.rulerPx, x1 - x0, view.height - view.rulerPx);
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + 0.5, view.rulerPx + 0.5, Math.max(0, x1 - x0 - 1),
                   view.height - view.rulerPx - 1);
}

// Canvas x of time t (ps).
function xAt(view, t) {
    const vp = view.vp;
    return view.x0 + ((t - vp.startPs) * vp.widthPx) / (vp.endPs - vp.startPs);
}

// A box selection: times [t0, t1] over content rows [y0, y1] (layout px).
export function drawBox(ctx, box, view, theme) {
    const x0 = clipX(xAt(view, Math.min(box.t0, box.t1)), view);
    const x1 = clipX(xAt(view, Math.max(box.t0, box.t1)), view);
    const y0 = Math.max(view.rulerPx, view.yOf(Math.min(box.y0, box.y1)));
    const y1 = Math.min(view.height, view.yOf(Math.max(box.y0, box.y1)));
    if (x1 <= x0 || y1 <= y0)
        return;
    ctx.fillStyle = theme.range;
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.max(0, Math.round(x1 - x0) - 1),
                   Math.max(0, Math.round(y1 - y0) - 1));
}

// Marks: a line down through the tracks and a flag in the ruler for each
// time in marks (ps).
export function drawMarks(ctx, marks, view, theme) {
    ctx.strokeStyle = theme.mark;
    ctx.fillStyle = theme.mark;
    ctx.lineWidth = 1;
    for (const t of marks) {
        const x = Math.round(xAt(view, t)) + 0.5;
        if (x < view.clipX0 || x > view.clipX1)
            continue;
        ctx.beginPath();
        ctx.moveTo(x, 2);
        ctx.lineTo(x, view.height);
        ctx.stroke();
        ctx.beginPath();
        ctx.moveTo(x, 2);
        ctx.lineTo(x + 8, 6);
        ctx.lineTo(x, 10);
        ctx.closePath();
        ctx.fill();
    }
}

// A measured span [t0, t1]: its two edges down through the tracks, the
// span shaded in the ruler, and its length written there.
export function drawMeasure(ctx, m, view, theme) {
    const a = xAt(view, Math.min(m.t0, m.t1));
    const b = xAt(view, Math.max(m.t0, m.t1));
    const x0 = clipX(a, view);
    const x1 = clipX(b, view);
    ctx.fillStyle = theme.measureBg;
    ctx.fillRect(x0, 0, Math.max(1, x1 - x0), view.rulerPx);
    ctx.strokeStyle = theme.measure;
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    for (const x of [a, b]) {
        if (x >= view.clipX0 && x <= view.clipX1) {
            ctx.moveTo(Math.round(x) + 0.5, 0);
            ctx.lineTo(Math.round(x) + 0.5, view.height);
        }
    }
    ctx.stroke();
    ctx.setLineDash([]);
    const text = formatDurationPs(Math.abs(m.t1 - m.t0));
    ctx.font = theme.boldFont;
    ctx.textBaseline = 'middle';
    const w = ctx.measureText(text).width;
    const mid = Math.max(view.clipX0 + 2, Math.min(view.clipX1 - w - 2, (x0 + x1 - w) / 2));
    ctx.fillStyle = theme.bg;
    ctx.fillRect(mid - 3, 4, w + 6, view.rulerPx - 8);
    ctx.fillStyle = theme.measure;
    ctx.fillText(text, mid, view.rulerPx / 2);
}
