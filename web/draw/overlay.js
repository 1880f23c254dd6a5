// overlay.js: what is drawn over the events — the hovered and the selected
// event's outline, flow arrows between an event and its partners (a host
// launch and its kernel), and the shaded range of a zoom-to-range drag.
// Pure.

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
