// layout.js: the vertical layout of the timeline, from the track list of
// api/trace/meta: one header row per process (plane), under it one row per
// thread (line) tall enough for its nesting depths, then its counters.
// Pure, tested under node.
//
// Rows are keyed by strings so a choice survives a new layout: 'p:<pid>'
// a process, 't:<track>' a thread, 'c:<counter id>' a counter. Collapsing
// 'p:' hides a process's threads and counters, 't:' shrinks a thread to
// its top level. Rows can also be hidden, pinned (a pinned process goes
// first, a pinned thread first in its process) and filtered by name (a
// process whose name matches keeps all its rows; otherwise only its rows
// whose names match are shown, under its header).
//
// A row: {kind: 'process'|'thread'|'counter', y, h (CSS px), label, sub,
//   pid, track?, counter?, depths (levels the track has), shownDepths
//   (levels drawn), collapsed, key (for the collapse set), tracks (a
//   process header's thread tracks, for the summary drawn when collapsed),
//   derived (a thread: a line derived from a device stream, XProf's "XLA
//   Ops - from #16"; api/trace/meta's derived)}

import { formatBytes, formatCount } from '../format.js';

export const ROW_PX = 18;          // one nesting level of a thread
export const PROCESS_PX = 24;      // a process header
export const COUNTER_PX = 40;      // a counter track
export const THREAD_PAD_PX = 3;    // gap under a thread's last level

function plural(n, one, many) {
    return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

// The top of a counter's scale, in words, so its height can be read:
// "max 1.5 GiB" for a counter of bytes, "max 1,234" otherwise.
function counterScale(c) {
    const max = Number(c.max);
    if (!Number.isFinite(max))
        return '';
    return `max ${/bytes/i.test(c.name || '') ? formatBytes(max) : formatCount(max)}`;
}

// The processes in the order they are shown: the devices first, as XProf
// shows them, so a GPU's streams are not below a host's 32 threads; then
// the rest. Each group keeps the server's order (devices by ordinal).
export function displayOrder(processes) {
    const isDevice = (p) => /^\/device:/.test(p.name || '');
    return [...processes.filter(isDevice), ...processes.filter((p) => !isDevice(p))];
}

// True when name contains the filter text (any case); an empty filter
// matches everything.
export function matchesFilter(name, filter) {
    const f = (filter || '').trim().toLowerCase();
    return f === '' || String(name || '').toLowerCase().includes(f);
}

// The items (processes or threads, keyed by keyOf) with the pinned ones
// first, each group in its own order.
function pinnedFirst(items, keyOf, pinned) {
    if (!pinned || pinned.size === 0)
        return items;
    return [...items.filter((x) => pinned.has(keyOf(x))),
            ...items.filter((x) => !pinned.has(keyOf(x)))];
}

// Returns {rows, height, byTrack: Map(track -> row), byCounter: Map(id ->
// row), byPid: Map(pid -> header row), nHidden (rows left out by hidden),
// nFiltered (threads and counters the filter left out)}. opts: {hidden,
// pinned: sets of row keys, filter: text}.
export function computeLayout(meta, collapsed = new Set(), opts = {}) {
    const hidden = opts.hidden || new Set();
    const filter = opts.filter || '';
    let nHidden = 0;
    let nFiltered = 0;
    const rows = [];
    const byTrack = new Map();
    const byCounter = new Map();
    const byPid = new Map();
    const countersOf = new Map();
    for (const c of meta.counters || []) {
        if (!countersOf.has(c.pid))
            countersOf.set(c.pid, []);
        countersOf.get(c.pid).push(c);
    }
    let y = 0;
    const push = (row) => {
        row.y = y;
        y += row.h;
        rows.push(row);
        return row;
    };
    const seenPids = new Set();
    const addProcess = (p) => {
        seenPids.add(p.pid);
        const pkey = `p:${p.pid}`;
        if (hidden.has(pkey)) {
            nHidden += 1;
            return;
        }
        const whole = matchesFilter(p.name || `pid ${p.pid}`, filter);
        const shows = (key, name) => {
            if (hidden.has(key)) {
                nHidden += 1;
                return false;
            }
            if (!whole && !matchesFilter(name, filter)) {
                nFiltered += 1;
                return false;
            }
            return true;
        };
        const allThreads = p.threads || [];
        const threads = pinnedFirst(allThreads.filter((t) => shows(`t:${t.track}`,
                                                                  t.name || `tid ${t.tid}`)),
                                    (t) => `t:${t.track}`, opts.pinned);
        const counters = (countersOf.get(p.pid) || []).filter((c) => shows(`c:${c.id}`, c.name));
        if (!whole && threads.length === 0 && counters.length === 0)
            return;
        const pclosed = collapsed.has(pkey);
        const nEvents = allThreads.reduce((s, t) => s + (Number(t.n_events) || 0), 0);
        const header = push({
            kind: 'process', h: PROCESS_PX, label: p.name || `pid ${p.pid}`,
            sub: `${plural(allThreads.length, 'thread', 'threads')}, ` +
                 `${plural(nEvents, 'event', 'events')}`,
            pid: p.pid, key: pkey, collapsed: pclosed, depths: 0, shownDepths: 0,
            tracks: threads.map((t) => t.track),
        });
        byPid.set(p.pid, header);
        if (pclosed)
            return;
        for (const t of threads) {
            const depths = Math.max(1, Number(t.depths) || 1);
            const tkey = `t:${t.track}`;
            const tclosed = depths > 1 && collapsed.has(tkey);
            const shown = tclosed ? 1 : depths;
            byTrack.set(t.track, push({
                kind: 'thread', h: shown * ROW_PX + THREAD_PAD_PX, label: t.name || `tid ${t.tid}`,
                sub: plural(Number(t.n_events) || 0, 'event', 'events'),
                pid: p.pid, track: t.track, key: tkey, collapsed: tclosed,
                depths, shownDepths: shown, derived: Boolean(t.derived),
            }));
        }
        for (const c of counters) {
            byCounter.set(c.id, push({
                kind: 'counter', h: COUNTER_PX, label: c.name || `counter ${c.id}`,
                sub: counterScale(c),
                pid: p.pid, counter: c, key: `c:${c.id}`, collapsed: false,
                depths: 0, shownDepths: 0,
            }));
        }
    };
    const procs = displayOrder(meta.processes || []);
    for (const p of pinnedFirst(procs, (x) => `p:${x.pid}`, opts.pinned))
        addProcess(p);
    // Counters of a pid with no process entry still get a home.
    for (const pid of countersOf.keys()) {
        if (!seenPids.has(pid))
            addProcess({ pid, name: `pid ${pid}`, threads: [] });
    }
    return { rows, height: y, byTrack, byCounter, byPid, nHidden, nFiltered };
}

// The row at content y (0 = top of the first row), or null.
export function rowAt(layout, y) {
    const rows = layout.rows;
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const r = rows[mid];
        if (y < r.y)
            hi = mid - 1;
        else if (y >= r.y + r.h)
            lo = mid + 1;
        else
            return r;
    }
    return null;
}

// The nesting level at content y inside a thread row, or -1 in its gap.
export function depthAt(row, y) {
    const d = Math.floor((y - row.y) / ROW_PX);
    return d >= 0 && d < row.shownDepths ? d : -1;
}

// Content y of the middle of level depth in row (the last shown level when
// the row is collapsed below it).
export function depthMidY(row, depth) {
    const d = Math.min(Math.max(0, depth), Math.max(0, row.shownDepths - 1));
    return row.y + d * ROW_PX + ROW_PX / 2;
}

// Returns a copy of collapsed with key toggled.
export function toggle(collapsed, key) {
    const next = new Set(collapsed);
    if (next.has(key))
        next.delete(key);
    else
        next.add(key);
    return next;
}
