// ticks.js: where the time ruler puts its marks and what it writes there.
// Pure, tested under node.
//
// Marks fall on round multiples (1, 2 or 5 times a power of ten) of
// picoseconds, at least minGapPx apart. Every label uses one unit, the one
// that suits the largest time shown, with just enough decimals to tell two
// neighbouring marks apart: at 1.2 s into a trace with marks 2 µs apart the
// labels read "1.234566 s", "1.234568 s".

const UNITS = [[1e12, 's'], [1e9, 'ms'], [1e6, 'µs'], [1e3, 'ns'], [1, 'ps']];
const MAX_TICKS = 200;  // a guard against a zero-width window

// The smallest round step in ps that keeps marks at least minGapPx apart.
export function niceStepPs(psPerPx, minGapPx) {
    const raw = Math.max(1, psPerPx * minGapPx);
    const pow = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 5, 10]) {
        if (m * pow >= raw)
            return m * pow;
    }
    return 10 * pow;
}

// The unit [scale, name] for labels of times up to maxPs.
export function unitFor(maxPs) {
    const a = Math.abs(maxPs);
    for (const u of UNITS) {
        if (a >= u[0])
            return u;
    }
    return UNITS[UNITS.length - 1];
}

// Formats time t (ps) in unit u with decimals.
export function formatTick(t, u, decimals) {
    return `${(t / u[0]).toFixed(decimals)} ${u[1]}`;
}

// Returns {stepPs, unit, decimals, ticks: [{t, label}]} for the window
// [startPs, endPs] drawn over widthPx pixels.
export function computeTicks(startPs, endPs, widthPx, minGapPx = 90) {
    const psPx = (endPs - startPs) / Math.max(1, widthPx);
    const stepPs = niceStepPs(psPx, minGapPx);
    const u = unitFor(Math.max(Math.abs(endPs), stepPs));
    const decimals = Math.max(0, Math.min(12, Math.ceil(Math.log10(u[0] / stepPs) - 1e-9)));
    const ticks = [];
    const first = Math.ceil(startPs / stepPs);
    for (let k = first; k * stepPs <= endPs && ticks.length < MAX_TICKS; k++) {
        const t = k * stepPs;
        ticks.push({ t, label: formatTick(t, u, decimals) });
    }
    return { stepPs, unit: u[1], decimals, ticks };
}
