// gutter.js: the names column at the left of the timeline — process
// headers with their collapse arrow and counts, thread names, counter
// names. Pure; the rows to draw come from timeline/layout.js.

const INDENT_PX = 14;

function ellipsize(text, px, charPx) {
    const n = Math.floor(px / charPx);
    if (n >= text.length)
        return text;
    return n < 2 ? '' : `${text.slice(0, n - 1)}…`;
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
        ctx.fillStyle = r.kind === 'counter' ? theme.muted : theme.fg;
        const room = view.gutterPx - INDENT_PX - 6;
        ctx.fillText(ellipsize(arrow + r.label, room, theme.charPx), INDENT_PX, mid);
        if (r.h >= 34 && r.sub) {
            ctx.fillStyle = theme.muted;
            ctx.fillText(ellipsize(r.sub, room, theme.charPx), INDENT_PX, mid + 15);
        }
    }
    ctx.strokeStyle = theme.border;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(view.gutterPx - 0.5, view.rulerPx);
    ctx.lineTo(view.gutterPx - 0.5, view.height);
    ctx.stroke();
}
