// colors.js: the colour of an event, chosen by its name so the same op has
// the same colour everywhere (every tile, every zoom, every reload). Pure.
//
// The name is hashed with 32-bit FNV-1a (the same hash the server uses for
// other purposes, util/hash.h) into a fixed palette. The palette is
// mid-saturated so black labels stay readable on every entry.

export const PALETTE = [
    '#8fb5e0', '#f2b179', '#9fd39b', '#e79a9a', '#c3a9e0', '#d9c08a',
    '#8fd3d0', '#efa9cf', '#b8c97c', '#a8b3c9', '#f0d27a', '#92c5a8',
    '#d3a58c', '#a9c7f0', '#e0b0e8', '#b9d9a0', '#e8a07c', '#9cc0c9',
];

// The palette index for name. Cannot fail; '' and undefined map to 0.
export function colorIndex(name) {
    let h = 0x811c9dc5;
    const s = name || '';
    for (let i = 0; i < s.length; i++) {
        h ^= s.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h % PALETTE.length;
}

export function colorFor(name) {
    return PALETTE[colorIndex(name)];
}

// Aggregate boxes (runs of events too small to draw) are one neutral hue
// whose opacity shows how busy the run is, so they never pass for an op.
// The hue is the theme's (light and dark pages need different ones); this
// is the light one.
export const BOX_RGB = '70, 90, 120';
export const BOX_MIN_ALPHA = 0.15;

// The fill of a box whose events keep it busy for fraction (0..1) of its
// width; rgb is "r, g, b".
export function boxFill(fraction, rgb = BOX_RGB) {
    const f = Math.max(0, Math.min(1, fraction));
    const a = BOX_MIN_ALPHA + (1 - BOX_MIN_ALPHA) * f;
    return `rgba(${rgb}, ${a.toFixed(2)})`;
}

// Opacity steps used when boxes are batched by fill (drawing thousands of
// boxes with one fillStyle each is slow): fraction -> one of BOX_STEPS.
export const BOX_STEPS = 8;
export function boxStep(fraction) {
    const f = Math.max(0, Math.min(1, fraction));
    return Math.min(BOX_STEPS - 1, Math.floor(f * BOX_STEPS));
}
export function boxStepFill(step, rgb = BOX_RGB) {
    return boxFill((step + 0.5) / BOX_STEPS, rgb);
}

// ---- opaque fills ------------------------------------------------------------
//
// The software rasteriser (headless Chromium, machines without a GPU)
// blends a translucent fill pixel by pixel; an opaque one is a plain copy.
// Boxes and process bands sit straight on the background, so their
// translucent colours are worked out once against it and drawn opaque.

// [r, g, b, a] of a CSS colour written #rgb, #rrggbb, rgb() or rgba()
// (a 1 unless given), or null for anything else (a colour name, a
// variable). Cannot fail.
export function parseColor(css) {
    const s = String(css || '').trim();
    let m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(s);
    if (m) {
        const hex = m[1].length === 3 ? m[1].replace(/./g, '$&$&') : m[1];
        return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).concat(1);
    }
    m = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/i.exec(s);
    if (!m)
        return null;
    return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
}

// The opaque colour that css drawn over the background bg shows, as
// "rgb(r, g, b)"; css itself when either cannot be parsed or bg is not
// opaque. Cannot fail.
export function flatten(css, bg) {
    const c = parseColor(css);
    const b = parseColor(bg);
    if (!c || !b || b[3] !== 1)
        return css;
    const mix = (i) => Math.round(c[i] * c[3] + b[i] * (1 - c[3]));
    return `rgb(${mix(0)}, ${mix(1)}, ${mix(2)})`;
}
