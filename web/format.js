// format.js: how numbers read on every page — durations, sizes, shares.
// Pure functions, tested under node. Fixed 'en-US' digits so a table looks
// the same on every machine and in the tests.

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

// 1234567 -> "1,234,567" (rounded to an integer).
export function formatCount(n) {
    return GROUPED.format(n);
}

// A value with at most `digits` significant digits after scaling, without
// trailing zeros: 1.50 -> "1.5".
function trimmed(x, digits) {
    return String(Number(x.toPrecision(digits)));
}

const TIME_UNITS = [[1e12, 's'], [1e9, 'ms'], [1e6, 'µs'], [1e3, 'ns'], [1, 'ps']];

// A duration in picoseconds (the model's time unit) in the largest unit that
// keeps it ≥ 1: 1500000 -> "1.5 µs". 0 -> "0 ps".
export function formatDurationPs(ps, digits = 4) {
    const a = Math.abs(ps);
    for (const [scale, unit] of TIME_UNITS) {
        if (a >= scale)
            return `${trimmed(ps / scale, digits)} ${unit}`;
    }
    return `${trimmed(ps, digits)} ps`;
}

// Microseconds (what Chrome traces and most tables use) the same way.
export function formatDurationUs(us, digits = 4) {
    return formatDurationPs(us * 1e6, digits);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

// 1536 -> "1.5 KiB" (binary units, as allocators report them).
export function formatBytes(bytes, digits = 4) {
    let v = bytes;
    let i = 0;
    while (Math.abs(v) >= 1024 && i < BYTE_UNITS.length - 1) {
        v /= 1024;
        i += 1;
    }
    return `${i === 0 ? String(v) : trimmed(v, digits)} ${BYTE_UNITS[i]}`;
}

// A fraction 0..1 as a percentage: 0.1234 -> "12.3%".
export function formatPercent(fraction, decimals = 1) {
    return `${(fraction * 100).toFixed(decimals)}%`;
}

// text cut to at most max characters, the last one an ellipsis when cut:
// for labels whose full text is in a tooltip.
export function cutText(text, max) {
    const s = String(text ?? '');
    return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
