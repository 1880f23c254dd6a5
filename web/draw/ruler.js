// ruler.js: the time ruler across the top of the timeline and the faint
// grid lines its marks drop through the tracks. Pure: the marks come from
// timeline/ticks.js.

// view: {x0, vp, width, height, rulerPx}; ticks: computeTicks() result;
// theme: {rulerBg, rulerFg, grid, border, font}.
export function drawGrid(ctx, ticks, view, theme) {
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    ctx.strokeStyle = theme.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const tk of ticks.ticks) {
        const x = Math.round(view.x0 + (tk.t - vp.startPs) * scale) + 0.5;
        ctx.moveTo(x, view.rulerPx);
        ctx.lineTo(x, view.height);
    }
    ctx.stroke();
}

export function drawRuler(ctx, ticks, view, theme) {
    const vp = view.vp;
    const scale = vp.widthPx / (vp.endPs - vp.startPs);
    ctx.fillStyle = theme.rulerBg;
    ctx.fillRect(0, 0, view.width, view.rulerPx);
    ctx.strokeStyle = theme.border;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, view.rulerPx - 0.5);
    ctx.lineTo(view.width, view.rulerPx - 0.5);
    ctx.stroke();
    ctx.font = theme.font;
    ctx.fillStyle = theme.rulerFg;
    ctx.textBaseline = 'middle';
    ctx.beginPath();
    for (const tk of ticks.ticks) {
        const x = Math.round(view.x0 + (tk.t - vp.startPs) * scale) + 0.5;
        if (x < view.x0)
            continue;
        ctx.moveTo(x, view.rulerPx - 8);
        ctx.lineTo(x, view.rulerPx);
        // A label cut by the right edge would read as a different time.
        if (x + 3 + ctx.measureText(tk.label).width <= view.width)
            ctx.fillText(tk.label, x + 3, view.rulerPx / 2 - 2);
    }
    ctx.strokeStyle = theme.rulerFg;
    ctx.stroke();
}
