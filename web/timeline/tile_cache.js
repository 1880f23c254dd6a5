// tile_cache.js: the tiles the browser holds, the requests for more, and
// what to draw while a tile is still on its way.
//
// The cache never fetches by itself: it calls the load(level, index,
// signal) function it is given (the view passes one built on api.js), which
// resolves to a decoded tile (tile_data.js). Requests run at most
// maxInFlight at a time, the ones the current frame needs first, then
// prefetches (neighbours of a pan, the coarser level of a zoom out).
// Tiles are immutable on the server, so a tile is never asked for twice
// while it is held; the least recently drawn ones are dropped past
// maxBytes, except level 0, which is what every gap falls back to.
//
// cover() answers "what do I draw for tiles first..last of level L": each
// tile itself when loaded, or else its nearest loaded ancestor clipped to
// the tile's range, so the screen never shows a blank gap.

const DEFAULT_MAX_BYTES = 96 * 1024 * 1024;
const DEFAULT_MAX_IN_FLIGHT = 4;
const MAX_QUEUE = 64;  // older wishes than this are stale after a fast pan

function key(level, index) {
    return `${level}/${index}`;
}

export class TileCache {
    // load(level, index, signal) -> Promise<decoded tile>;
    // onLoad(tile) runs after each arrival (the view redraws);
    // onError(err, level, index) after a failure that was not an abort.
    constructor({ load, onLoad, onError, maxBytes = DEFAULT_MAX_BYTES,
                  maxInFlight = DEFAULT_MAX_IN_FLIGHT }) {
        this.load = load;
        this.onLoad = onLoad || (() => {});
        this.onError = onError || (() => {});
        this.maxBytes = maxBytes;
        this.maxInFlight = maxInFlight;
        this.tiles = new Map();     // key -> {tile, used}
        this.pending = new Map();   // key -> AbortController
        this.failed = new Set();    // keys that failed; not retried until clear()
        this.queue = [];            // [level, index], most wanted first
        this.bytes = 0;
        this.clock = 0;             // use counter for LRU
        this.closed = false;
    }

    get(level, index) {
        const e = this.tiles.get(key(level, index));
        return e ? e.tile : undefined;
    }

    has(level, index) {
        return this.tiles.has(key(level, index));
    }

    // Nearest loaded tile at level or above that contains tile (level,
    // index), or undefined.
    ancestor(level, index) {
        for (let l = level, i = index; l >= 0; l--, i = Math.floor(i / 2)) {
            const e = this.tiles.get(key(l, i));
            if (e)
                return e;
        }
        return undefined;
    }

    // Replaces the wish list: needed tiles first (in order), then prefetch.
    // Tiles already held or in flight are skipped; requests in flight for
    // tiles no longer wished for (the view has moved on) are cancelled so
    // they do not hold up the ones it needs now.
    want(needed, prefetch = []) {
        const q = [];
        const seen = new Set();
        for (const [l, i] of [...needed, ...prefetch]) {
            const k = key(l, i);
            if (seen.has(k))
                continue;
            seen.add(k);
            if (this.tiles.has(k) || this.pending.has(k) || this.failed.has(k))
                continue;
            q.push([l, i]);
        }
        for (const [k, ctl] of this.pending) {
            if (!seen.has(k)) {
                ctl.abort();
                this.pending.delete(k);
            }
        }
        this.queue = q.slice(0, MAX_QUEUE);
        this.pump();
    }

    pump() {
        while (!this.closed && this.pending.size < this.maxInFlight && this.queue.length > 0) {
            const [level, index] = this.queue.shift();
            this.start(level, index);
        }
    }

    start(level, index) {
        const k = key(level, index);
        const ctl = new AbortController();
        this.pending.set(k, ctl);
        // Only this request's own entry is removed: a cancelled request may
        // settle after a new one for the same tile has started.
        const done = () => {
            if (this.pending.get(k) === ctl)
                this.pending.delete(k);
        };
        this.load(level, index, ctl.signal).then((tile) => {
            done();
            if (this.closed)
                return;
            this.insert(level, index, tile);
            this.onLoad(tile);
            this.pump();
        }, (err) => {
            done();
            if (this.closed || ctl.signal.aborted || (err && err.name === 'AbortError'))
                return;
            this.failed.add(k);
            this.onError(err, level, index);
            this.pump();
        });
    }

    insert(level, index, tile) {
        const k = key(level, index);
        if (this.tiles.has(k))
            return;
        this.tiles.set(k, { tile, used: ++this.clock, level });
        this.bytes += tile.bytes || 0;
        this.evict();
    }

    evict() {
        if (this.bytes <= this.maxBytes)
            return;
        const byAge = [...this.tiles.entries()]
            .filter(([, e]) => e.level > 0)
            .sort((a, b) => a[1].used - b[1].used);
        for (const [k, e] of byAge) {
            if (this.bytes <= this.maxBytes * 0.8)
                break;
            this.tiles.delete(k);
            this.bytes -= e.tile.bytes || 0;
        }
    }

    // Returns [{tile, clipStart, clipEnd}] covering tiles first..last of
    // level, coarse stand-ins merged when several neighbours share one, and
    // marks what it returns as recently used. bounds(level, i) gives a
    // tile's {startPs, endPs}. A part with no loaded ancestor at all (only
    // before level 0 has arrived) is left out.
    cover(level, first, last, bounds) {
        const out = [];
        for (let i = first; i <= last; i++) {
            const e = this.ancestor(level, i);
            if (!e)
                continue;
            e.used = ++this.clock;
            const b = bounds(level, i);
            const prev = out[out.length - 1];
            if (prev && prev.tile === e.tile && prev.clipEnd === b.startPs)
                prev.clipEnd = b.endPs;
            else
                out.push({ tile: e.tile, clipStart: b.startPs, clipEnd: b.endPs });
        }
        return out;
    }

    // Stops every request; the cache answers nothing new afterwards.
    close() {
        this.closed = true;
        for (const ctl of this.pending.values())
            ctl.abort();
        this.pending.clear();
        this.queue = [];
    }
}
