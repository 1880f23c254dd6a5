// hit.js: which event or aggregate box is under the pointer. Pure, tested
// under node.
//
// The pointer is a time t on nesting level depth of a track. An event
// narrower than a few pixels is hard to hit exactly, so anything within
// tolPs of t counts, and the nearest one wins (an event that contains t is
// at distance 0).

// Returns {kind: 'event', id, track, depth, start, dur, name} or {kind:
// 'box', track, depth, start, end, count, busy} or null. pieces: the tile
// pieces of the frame (tile_cache.js cover()).
export function hitTest(pieces, track, depth, t, tolPs) {
    let best = null;
    let bestDist = Infinity;
    for (const p of pieces) {
        if (t < p.clipStart - tolPs || t > p.clipEnd + tolPs)
            continue;
        const tr = p.tile.tracks.get(track);
        if (!tr)
            continue;
        const ev = tr.ev;
        for (let i = 0; i < ev.n; i++) {
            if (ev.depth[i] !== depth)
                continue;
            const s = ev.start[i];
            const e = s + ev.dur[i];
            const dist = t < s ? s - t : t > e ? t - e : 0;
            if (dist <= tolPs && dist < bestDist) {
                bestDist = dist;
                best = { kind: 'event', id: ev.id[i], track, depth, start: s, dur: ev.dur[i],
                         name: p.tile.names[ev.name[i]] };
            }
        }
        const box = tr.box;
        for (let i = 0; i < box.n; i++) {
            if (box.depth[i] !== depth)
                continue;
            const s = box.start[i];
            const e = box.end[i];
            const dist = t < s ? s - t : t > e ? t - e : 0;
            // An event at the same distance beats a box: it can be opened.
            if (dist <= tolPs && dist < bestDist) {
                bestDist = dist;
                best = { kind: 'box', track, depth, start: s, end: e, count: box.count[i],
                         busy: box.busy[i] };
            }
        }
    }
    return best;
}

// Looks up event id in the pieces' tiles: {track, depth, start, dur, name}
// or null when no drawn tile holds it.
export function findDrawn(pieces, id) {
    for (const p of pieces) {
        for (const [track, tr] of p.tile.tracks) {
            const ev = tr.ev;
            for (let i = 0; i < ev.n; i++) {
                if (ev.id[i] === id) {
                    return { track, depth: ev.depth[i], start: ev.start[i], dur: ev.dur[i],
                             name: p.tile.names[ev.name[i]] };
                }
            }
        }
    }
    return null;
}

// The value counter id holds at time t: the last point at or before t in
// the pieces, or null before its first point.
export function counterAt(pieces, id, t) {
    let best = null;
    for (const p of pieces) {
        if (t < p.clipStart || t > p.clipEnd)
            continue;
        const c = p.tile.counters.get(id);
        if (!c)
            continue;
        for (let i = 0; i < c.t.length && c.t[i] <= t; i++) {
            if (!best || c.t[i] >= best.t)
                best = { t: c.t[i], value: c.v[i] };
        }
    }
    return best;
}

// The event after (dir +1) or before (dir -1) time t on one level of a
// track, among the drawn tiles: {id, track, depth, start, dur, name} or
// null. For stepping through a stream's kernels with [ and ].
export function nextOnLevel(pieces, track, depth, t, dir) {
    let best = null;
    for (const p of pieces) {
        const tr = p.tile.tracks.get(track);
        if (!tr)
            continue;
        const ev = tr.ev;
        for (let i = 0; i < ev.n; i++) {
            if (ev.depth[i] !== depth)
                continue;
            const s = ev.start[i];
            const better = dir > 0 ? s > t && (!best || s < best.start)
                : s < t && (!best || s > best.start);
            if (better) {
                best = { id: ev.id[i], track, depth, start: s, dur: ev.dur[i],
                         name: p.tile.names[ev.name[i]] };
            }
        }
    }
    return best;
}
