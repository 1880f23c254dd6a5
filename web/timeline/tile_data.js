// tile_data.js: turns one api/trace/tile answer (docs/trace_api.md), in
// the binary encoding the viewer asks for (decodeTileBin) or as JSON
// (decodeTile), into columns of typed arrays, the shape the drawing code
// walks every frame.
// Decoding once per tile keeps a frame free of JSON arrays and string
// hashing. Pure, tested under node.
//
// A decoded tile:
//   {level, index, startPs, endPs, names: [string], colors: Uint8Array
//    (palette index per name), tracks: Map(track -> {ev, box}),
//    counters: Map(id -> {t: Float64Array, v: Float64Array}), bytes}
//   ev:  {n, id, start, dur: Float64Array, depth, name: Uint32Array}
//   box: {n, start, end, busy: Float64Array, count: Float64Array, depth: Uint32Array}
// bytes estimates the memory the tile holds, for the cache's budget.

import { colorIndex } from '../draw/colors.js';

function decodeEvents(rows) {
    const n = rows.length;
    const ev = {
        n,
        id: new Float64Array(n),
        start: new Float64Array(n),
        dur: new Float64Array(n),
        depth: new Uint32Array(n),
        name: new Uint32Array(n),
    };
    for (let i = 0; i < n; i++) {
        const r = rows[i];
        ev.id[i] = r[0];
        ev.start[i] = r[1];
        ev.dur[i] = r[2];
        ev.depth[i] = r[3];
        ev.name[i] = r[4];
    }
    return ev;
}

function decodeBoxes(rows) {
    const n = rows.length;
    const box = {
        n,
        start: new Float64Array(n),
        end: new Float64Array(n),
        depth: new Uint32Array(n),
        count: new Float64Array(n),
        busy: new Float64Array(n),
    };
    for (let i = 0; i < n; i++) {
        const r = rows[i];
        box.start[i] = r[0];
        box.end[i] = r[1];
        box.depth[i] = r[2];
        box.count[i] = r[3];
        box.busy[i] = r[4];
    }
    return box;
}

// Returns the decoded tile. Missing arrays are read as empty, so a tile of
// an empty region needs no special case downstream.
export function decodeTile(json) {
    const names = Array.isArray(json.names) ? json.names.map(String) : [];
    const colors = Uint8Array.from(names, (s) => colorIndex(s));
    const tracks = new Map();
    let bytes = 200;
    for (const name of names)
        bytes += 40 + 2 * name.length;
    for (const tr of json.tracks || []) {
        const ev = decodeEvents(tr.events || []);
        const box = decodeBoxes(tr.boxes || []);
        tracks.set(tr.track, { ev, box });
        bytes += 100 + 40 * ev.n + 40 * box.n;
    }
    const counters = new Map();
    for (const c of json.counters || []) {
        const pts = c.points || [];
        const t = new Float64Array(pts.length);
        const v = new Float64Array(pts.length);
        pts.forEach((p, i) => {
            t[i] = p[0];
            v[i] = p[1];
        });
        counters.set(c.id, { t, v });
        bytes += 16 * pts.length;
    }
    return {
        level: json.level,
        index: json.index,
        startPs: json.start_ps,
        endPs: json.end_ps,
        names,
        colors,
        tracks,
        counters,
        bytes,
    };
}

// ---- binary tiles (docs/trace_api.md, "Binary tiles") ----------------------

const MAGIC = [0x50, 0x56, 0x54, 0x31];   // "PVT1"

// A reader over the bytes: unsigned LEB128 varints (exact up to 2^53:
// built with multiplications, not 32-bit shifts), zigzag varints, doubles.
class Reader {
    constructor(buf) {
        this.u8 = new Uint8Array(buf);
        this.dv = new DataView(this.u8.buffer, this.u8.byteOffset, this.u8.byteLength);
        this.p = 0;
    }

    uv() {
        const u8 = this.u8;
        let b = u8[this.p++];
        if (b < 0x80)
            return b;
        let v = b & 0x7f;
        let mul = 0x80;
        for (;;) {
            if (this.p >= u8.length)
                throw new Error('tile: truncated varint');
            b = u8[this.p++];
            v += (b & 0x7f) * mul;
            if (b < 0x80)
                return v;
            mul *= 0x80;
        }
    }

    sv() {
        const u = this.uv();
        return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
    }

    f64() {
        const v = this.dv.getFloat64(this.p, true);
        this.p += 8;
        return v;
    }

    // Each of n zigzag deltas added to the previous value, from base.
    deltas(out, n, base) {
        let prev = base;
        for (let i = 0; i < n; i++) {
            prev += this.sv();
            out[i] = prev;
        }
    }

    column(out, n) {
        for (let i = 0; i < n; i++)
            out[i] = this.uv();
    }
}

// Times in the tracks section are in units of `unit` ps, as deltas from
// base (the tile's start rounded down to a multiple of unit, in units).
function readEvents(r, n, base, unit) {
    const ev = {
        n,
        id: new Float64Array(n),
        start: new Float64Array(n),
        dur: new Float64Array(n),
        depth: new Uint32Array(n),
        name: new Uint32Array(n),
    };
    r.deltas(ev.id, n, 0);
    r.deltas(ev.start, n, base);
    r.column(ev.dur, n);
    if (unit !== 1) {
        for (let i = 0; i < n; i++) {
            ev.start[i] *= unit;
            ev.dur[i] *= unit;
        }
    }
    r.column(ev.depth, n);
    r.column(ev.name, n);
    return ev;
}

function readBoxes(r, n, base, unit) {
    const box = {
        n,
        start: new Float64Array(n),
        end: new Float64Array(n),
        depth: new Uint32Array(n),
        count: new Float64Array(n),
        busy: new Float64Array(n),
    };
    r.deltas(box.start, n, base);
    r.column(box.end, n);
    for (let i = 0; i < n; i++) {
        box.start[i] *= unit;
        box.end[i] = box.start[i] + box.end[i] * unit;
    }
    r.column(box.depth, n);
    r.column(box.count, n);
    r.column(box.busy, n);
    if (unit !== 1) {
        for (let i = 0; i < n; i++)
            box.busy[i] *= unit;
    }
    return box;
}

const utf8 = new TextDecoder();

// Decodes a binary tile (an ArrayBuffer or typed array) into the same
// shape as decodeTile. Throws on bytes that are not a tile.
export function decodeTileBin(buf) {
    const r = new Reader(buf);
    if (r.u8.length < 4 || MAGIC.some((b, i) => r.u8[i] !== b))
        throw new Error('tile: not a binary tile');
    r.p = 4;
    const level = r.uv();
    const index = r.uv();
    const startPs = r.uv();
    const endPs = startPs + r.uv();
    const unit = r.uv();
    if (unit < 1)
        throw new Error('tile: bad time unit');
    const base = Math.floor(startPs / unit);
    const tracks = new Map();
    let bytes = 200;
    const nTracks = r.uv();
    for (let k = 0; k < nTracks; k++) {
        const track = r.uv();
        const nEv = r.uv();
        const nBox = r.uv();
        const ev = readEvents(r, nEv, base, unit);
        const box = readBoxes(r, nBox, base, unit);
        tracks.set(track, { ev, box });
        bytes += 100 + 40 * nEv + 40 * nBox;
    }
    const nNames = r.uv();
    const nameBytes = r.uv();
    if (r.p + nameBytes > r.u8.length)
        throw new Error('tile: truncated names');
    const names = nNames === 0 ? []
        : utf8.decode(r.u8.subarray(r.p, r.p + nameBytes)).split('\0');
    r.p += nameBytes;
    if (names.length !== nNames)
        throw new Error('tile: name count does not match');
    for (const name of names)
        bytes += 40 + 2 * name.length;
    const colors = Uint8Array.from(names, (s) => colorIndex(s));
    const counters = new Map();
    const nCounters = r.uv();
    for (let k = 0; k < nCounters; k++) {
        const id = r.uv();
        const n = r.uv();
        const t = new Float64Array(n);
        const v = new Float64Array(n);
        r.deltas(t, n, startPs);
        if (r.p + 8 * n > r.u8.length)
            throw new Error('tile: truncated counter');
        for (let i = 0; i < n; i++)
            v[i] = r.f64();
        counters.set(id, { t, v });
        bytes += 16 * n;
    }
    if (r.p > r.u8.length)
        throw new Error('tile: truncated');
    return { level, index, startPs, endPs, names, colors, tracks, counters, bytes };
}

// Finds event id in the tile: {track, i} or null.
export function findEvent(tile, id) {
    for (const [track, t] of tile.tracks) {
        const ids = t.ev.id;
        for (let i = 0; i < t.ev.n; i++) {
            if (ids[i] === id)
                return { track, i };
        }
    }
    return null;
}
