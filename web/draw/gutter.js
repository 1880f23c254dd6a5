// gutter.js: the names column at the left of the timeline — process
// headers with their collapse arrow and counts, thread names, counter
// names. Pure; the rows to draw come from timeline/layout.js.

const INDENT_PX = 14;
// The lines XProf derives are drawn in the muted colour, so the device's
// own lines read first; those derived from a GPU stream ("XLA Ops - from
// #16") sit a step further in, under the stream they follow.
const DERIVED_INDENT_PX = 10;
const FROM_STREAM = / - from #\d+$/;

function ellipsize(text, px, charPx) {
    const n = Math.floor(px / charPx);
    if (n >= text.length)
        return text;
    return n < 2 ? '' : `${text.slice(0, n - 1)}…`;
}

// The longest form of a thread's name that ctx draws within px (measured,
// not guessed: names of capitals and spaces run wider than the average
// character): the name itself, or cut with "…", in its middle when it
// says which stream a derived line comes from ("Framework Name Sc… - from
// #16"), since the lines of two streams differ only there.
export function fitName(ctx, text, px) {
    const width = (t) => ctx.measureText(t).width;
    if (width(text) <= px)
        return text;
    const m = FROM_STREAM.exec(text);
    const tail = m && width(`xx…${m[0]}`) <= px ? m[0] : '';
    let lo = 0;
    let hi = text.length - tail.length;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (width(`${text.slice(0, mid)}…${tail}`) <= px)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo === 0 && tail === '' ? '' : `${text.slice(0, lo)}…${tail}`;
}

// view: {gutterPx, rulerPx, yOf, height}; rows: the visible rows;
// theme: {gutterBg, fg, muted, border, font, boldFont, charPx}.
export function drawGutter(ctx, rows, view, theme) {
    ctx.fillStyle = theme.gutterBg;
    ctx.fillRect(0, view.rulerPx, view.gutterPx, view.height - view.rulerPx);
    ctx.textBaseline = 'middle';
    for (const r of rows) {
        const y = view.yOf(r.y);
        if (r.kind === 'process') {
            ctx.fillStyle = theme.processBg;
            ctx.fillRect(0, y, view.gutterPx, r.h);
            ctx.fillStyle = theme.fg;
            ctx.font = theme.boldFont;
            const arrow = r.collapsed ? '▸' : '▾';
            ctx.fillText(`${arrow} ${ellipsize(r.label, view.gutterPx - 24, theme.charPx)}`,
                         4, y + r.h / 2);
            continue;
        }
        ctx.font = theme.font;
        const mid = y + Math.min(r.h, 18) / 2;
        const arrow = r.kind === 'thread' && r.depths > 1 ? (r.collapsed ? '▸ ' : '▾ ') : '';
        ctx.fillStyle = r.kind === 'counter' || r.derived ? theme.muted : theme.fg;
        const x = INDENT_PX + (r.derived && FROM_STREAM.test(r.label) ? DERIVED_INDENT_PX : 0);
        const room = view.gutterPx - x - 6;
        ctx.fillText(fitName(ctx, arrow + r.label, room), x, mid);
        if (r.h >= 34 && r.sub) {
            ctx.fillStyle = theme.muted;
            ctx.fillText(ellipsize(r.sub, room, theme.charPx), x, mid + 15);
        }
    }
    ctx.strokeStyle = theme.border;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(view.gutterPx - 0.5, view.rulerPx);
    ctx.lineTo(view.gutterPx - 0.5, view.height);
    ctx.stroke();
}
