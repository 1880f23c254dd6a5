// tile_data.js: turns one api/trace/tile answer (docs/trace_api.md) into
// columns of typed arrays, the shape the drawing code walks every frame.
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
