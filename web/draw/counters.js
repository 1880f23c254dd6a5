// counters.js: a counter track (memory in use, a `_counters_` line) as a
// step chart scaled to the counter's min..max over the whole trace, so the
// height means the same thing in every tile and at every zoom. Pure.

import { flatten } from './colors.js';
import { pieceSpan } from './slices.js';

const PAD_PX = 4;

// view: as in slices.js. row: a counter row of layout.js (row.counter has
// min and max). piece: {tile, clipStart, clipEnd}. theme: {counterFill,
// counterLine, bg}.
export function drawCounter(ctx, piece, row, view, theme) {
    const c = piece.tile.counters.get(row.counter.id);
    if (!c || c.t.length === 0)
        return;
    const span = pieceSpan(piece, view);
    if (!span)
        return;
    const { xOf, cx0, cx1 } = span;
    const min = Math.min(0, Number(row.counter.min) || 0);
    const max = Number(row.counter.max) || 0;
    const range = max > min ? max - min : 1;
    const top = view.yOf(row.y) + PAD_PX;
    const base = view.yOf(row.y + row.h) - PAD_PX;
    const yOf = (v) => base - ((v - min) / range) * (base - top);

    const line = new Path2D();
    const area = new Path2D();
    let started = false;
    let prevY = base;
    let firstX = cx0;
    let lastX = cx0;
    for (let i = 0; i < c.t.length; i++) {
        const x = Math.min(cx1, Math.max(cx0, xOf(c.t[i])));
        const y = yOf(c.v[i]);
        if (!started) {
            firstX = x;
            line.moveTo(x, y);
            area.moveTo(x, base);
            area.lineTo(x, y);
            started = true;
        } else {
            line.lineTo(x, prevY);
            line.lineTo(x, y);
            area.lineTo(x, prevY);
            area.lineTo(x, y);
        }
        prevY = y;
        lastX = x;
        if (xOf(c.t[i]) > cx1)
            break;
    }
    // The last value holds until the end of the piece.
    if (lastX < cx1 && xOf(c.t[c.t.length - 1]) <= cx1) {
        line.lineTo(cx1, prevY);
        area.lineTo(cx1, prevY);
        lastX = cx1;
    }
    area.lineTo(lastX, base);
    area.lineTo(firstX, base);
    area.closePath();
    // Opaque over the background (colors.js flatten): the area is wide.
    ctx.fillStyle = flatten(theme.counterFill, theme.bg);
    ctx.fill(area);
    ctx.strokeStyle = theme.counterLine;
    ctx.lineWidth = 1;
    ctx.stroke(line);
}
