// details.js: the panel under the tracks. For the selected event
// (api/trace/event) two tabs: the event (name, times, track, step, every
// stat) and its flow events (each partner, a button that jumps to it).
// For a box dragged over the tracks (api/trace/aggregate): its events
// summed by name, sortable and exportable. Also the short text of the
// hover tooltip. DOM only through dom.js's h(); no fetching.

import { h, clear } from '../dom.js';
import { cutText, formatBytes, formatCount, formatDurationPs, formatPercent } from '../format.js';
import { createTable } from '../table.js';

// track -> {process, thread} names, from api/trace/meta.
export function trackNames(meta) {
    const names = new Map();
    for (const p of meta.processes || []) {
        for (const t of p.threads || [])
            names.set(t.track, { process: p.name || `pid ${p.pid}`,
                                 thread: t.name || `tid ${t.tid}` });
    }
    return names;
}

function trackText(names, track) {
    const n = names.get(track);
    return n ? `${n.process} › ${n.thread}` : `track ${track}`;
}

// A time since the start of the trace, exact to the picosecond for the
// start column (people compare these by eye).
export function formatOffsetPs(ps) {
    return `+${formatDurationPs(ps, 9)}`;
}

function statValue(v) {
    if (v === null || v === undefined)
        return '';
    if (typeof v === 'object')
        return JSON.stringify(v);
    if (typeof v === 'number')
        return Number.isInteger(v) ? formatCount(v) : String(v);
    return String(v);
}

function row(label, value) {
    return [h('dt', { text: label }), h('dd', { text: value })];
}

// Longer names (generated kernel names run to a thousand characters) are
// cut in the box's table; the cell's tooltip has the whole name.
const NAME_CHARS = 80;

function head(title, onClose) {
    return h('div', { class: 'tv-details-head' },
        h('h3', { class: 'tv-details-name', text: title }),
        h('button', { type: 'button', class: 'tv-close', 'aria-label': 'Close details',
                      title: 'Close (Esc)', text: '×', on: { click: onClose } }));
}

function flowTable(flows, names, onJump) {
    if (flows.length === 0) {
        return h('p', { class: 'hint', text: 'No flow partners: no launch/kernel correlation ' +
                                             'or flow stats link this event.' });
    }
    return h('table', { class: 'data-table tv-flow-table' },
        h('thead', {}, h('tr', {}, ['Partner', 'Kind', 'Track', 'Start', 'Duration'].map(
            (t) => h('th', { scope: 'col', class: t === 'Start' || t === 'Duration' ? 'num' : null },
                     h('span', { class: 'tv-th', text: t }))))),
        h('tbody', {}, flows.map((f) => h('tr', {},
            h('td', {}, h('button', {
                type: 'button', class: 'tv-flow',
                title: 'Select this partner and bring it into view',
                on: { click: () => onJump(f) },
            }, `${f.direction === 'in' ? '← from' : '→ to'} ${f.name || `event ${f.id}`}`)),
            h('td', { text: f.kind || 'flow' }),
            h('td', { text: trackText(names, f.track) }),
            h('td', { class: 'num', text: formatOffsetPs(Number(f.start_ps) || 0) }),
            h('td', { class: 'num', text: formatDurationPs(Number(f.dur_ps) || 0) })))));
}

// The tabs of the event panel, in order: [id, label].
export function detailTabs(d) {
    return [['event', 'Event'], ['flows', `Flow events (${(d.flows || []).length})`]];
}

// Fills panel with event details d, on tab ('event' or 'flows').
// onJump(flow) is called when a flow partner is clicked, onTab(id) when a
// tab is chosen.
export function renderDetails(panel, d, names, { onJump, onClose, onFrame, tab, onTab }) {
    clear(panel);
    const stats = Object.entries(d.stats || {});
    const flows = d.flows || [];
    const about = h('section', {},
        h('dl', { class: 'props tv-props' },
            row('Duration', formatDurationPs(Number(d.dur_ps) || 0)),
            row('Start', formatOffsetPs(Number(d.start_ps) || 0)),
            row('End', formatOffsetPs((Number(d.start_ps) || 0) + (Number(d.dur_ps) || 0))),
            row('Track', trackText(names, d.track)),
            row('Depth', String(d.depth ?? 0)),
            d.step ? row('Step', d.step.name || `group ${d.step.group_id}`) : null,
            row('Event id', String(d.id))),
        h('button', { type: 'button', class: 'tv-frame', text: 'Zoom to event (F)',
                      on: { click: onFrame } }));
    const statsSec = h('section', {}, h('h4', { text: `Stats (${stats.length})` }),
        stats.length === 0
            ? h('p', { class: 'hint', text: 'This event carries no stats.' })
            : h('dl', { class: 'props tv-stats' }, stats.map(([k, v]) => row(k, statValue(v)))));
    const shown = tab === 'flows' ? 'flows' : 'event';
    const bar = h('div', { class: 'tv-tabs', role: 'tablist' }, detailTabs(d).map(([id, label]) =>
        h('button', { type: 'button', role: 'tab', class: 'tv-tab', 'data-tab': id,
                      'aria-selected': String(id === shown), text: label,
                      on: { click: () => onTab(id) } })));
    panel.append(
        head(d.name || '(unnamed)', onClose),
        h('p', { class: 'tv-long-name', hidden: !d.long_name || d.long_name === d.name,
                 text: d.long_name || '' }),
        bar,
        shown === 'flows'
            ? h('div', { role: 'tabpanel', class: 'tv-tabpanel' }, flowTable(flows, names, onJump))
            : h('div', { role: 'tabpanel', class: 'tv-details-body' }, about, statsSec));
}

// A DataTable of a box's sums (api/trace/aggregate), durations in µs.
export function aggregateTable(agg) {
    const us = (ps) => ({ v: Math.round(ps) / 1e6 });
    const cols = [
        ['name', 'string', 'Name'], ['count', 'number', 'Count'],
        ['wall', 'number', 'Wall duration (µs)'], ['self', 'number', 'Self time (µs)'],
        ['avg', 'number', 'Average (µs)'], ['min', 'number', 'Min (µs)'],
        ['max', 'number', 'Max (µs)'],
    ].map(([id, type, label]) => ({ id, type, label }));
    const rows = (agg.rows || []).map((r) => ({ c: [
        { v: r.name }, { v: r.count }, us(r.wall_ps), us(r.self_ps),
        us(r.count > 0 ? r.wall_ps / r.count : 0), us(r.min_ps), us(r.max_ps),
    ] }));
    return { cols, rows };
}

// Fills panel with the sums of a box over nTracks tracks in [t0, t1]
// (agg from api/trace/aggregate). Returns the table (destroy() it).
export function renderAggregate(panel, agg, box, { onClose, onZoom, url, name }) {
    clear(panel);
    const span = box.t1 - box.t0;
    panel.append(
        head(`${formatCount(agg.n_events)} events selected`, onClose),
        h('p', { class: 'hint', text: `${formatDurationPs(span)} from ` +
            `${formatOffsetPs(box.t0)} on ${box.tracks.length} ` +
            `track${box.tracks.length === 1 ? '' : 's'}; every event that overlaps the box ` +
            'counts whole. Self time leaves out the events nested inside.' }),
        h('button', { type: 'button', text: 'Zoom to the box', on: { click: onZoom } }));
    const box2 = h('div', { class: 'tv-agg' });
    panel.append(box2);
    return createTable(box2, aggregateTable(agg), {
        name, url, pageSize: 25, filterLabel: 'Filter names',
        sort: { col: 'wall', dir: 'desc' },
        display: { name: (v) => cutText(v, NAME_CHARS) },
    });
}

// Panel for an aggregate box (many events too small to draw at this zoom).
export function renderBox(panel, b, names, { onClose, onZoom }) {
    clear(panel);
    const span = b.end - b.start;
    panel.append(
        head(`${formatCount(b.count)} small events`, onClose),
        h('p', { class: 'hint',
            text: 'Too small to draw one by one at this zoom. Zoom in to see them.' }),
        h('dl', { class: 'props tv-props' },
            row('Span', formatDurationPs(span)),
            row('Busy', `${formatDurationPs(b.busy)} ` +
                        `(${formatPercent(span > 0 ? b.busy / span : 1)})`),
            row('Start', formatOffsetPs(b.start)),
            row('Track', trackText(names, b.track)),
            row('Depth', String(b.depth))),
        h('button', { type: 'button', text: 'Zoom in here', on: { click: onZoom } }));
}

// The tooltip text for a hit (hit.js).
export function tooltipText(hit) {
    if (hit.kind === 'counter') {
        const v = /bytes/i.test(hit.name) ? formatBytes(hit.value) : formatCount(hit.value);
        return `${hit.name}\n${v} at ${formatOffsetPs(hit.start)}`;
    }
    if (hit.kind === 'box') {
        const span = hit.end - hit.start;
        return `${formatCount(hit.count)} events in ${formatDurationPs(span)}\n` +
               `busy ${formatDurationPs(hit.busy)} ` +
               `(${formatPercent(span > 0 ? hit.busy / span : 1)})`;
    }
    return `${hit.name || '(unnamed)'}\n${formatDurationPs(hit.dur)}`;
}
