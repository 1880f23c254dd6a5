// details.js: the side panel that shows everything known about the
// selected event (api/trace/event): name, times, track, step, every stat,
// and its flow partners as buttons that jump to them. Also the short text
// of the hover tooltip. DOM only through dom.js's h(); no fetching.

import { h, clear } from '../dom.js';
import { formatBytes, formatCount, formatDurationPs, formatPercent } from '../format.js';

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

// Fills panel with event details d. onJump(flow) is called when a flow
// partner is clicked.
export function renderDetails(panel, d, names, { onJump, onClose, onFrame }) {
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
    const flowSec = h('section', {}, h('h4', { text: `Flows (${flows.length})` }),
        flows.length === 0
            ? h('p', { class: 'hint',
                       text: 'No flow partners: no launch/kernel correlation or flow stats ' +
                             'link this event.' })
            : h('ul', { class: 'tv-flows' }, flows.map((f) => h('li', {},
                h('button', {
                    type: 'button', class: 'tv-flow',
                    title: 'Select this partner and bring it into view',
                    on: { click: () => onJump(f) },
                }, `${f.direction === 'in' ? '← from' : '→ to'} ${f.name || `event ${f.id}`}`),
                h('span', { class: 'hint',
                    text: ` ${f.kind || 'flow'} · ${trackText(names, f.track)} · ` +
                          `${formatDurationPs(Number(f.dur_ps) || 0)} at ` +
                          `${formatOffsetPs(Number(f.start_ps) || 0)}` })))));
    panel.append(
        h('div', { class: 'tv-details-head' },
            h('h3', { class: 'tv-details-name', text: d.name || '(unnamed)' }),
            h('button', { type: 'button', class: 'tv-close', 'aria-label': 'Close details',
                          title: 'Close (Esc)', text: '×', on: { click: onClose } })),
        h('p', { class: 'tv-long-name', hidden: !d.long_name || d.long_name === d.name,
                 text: d.long_name || '' }),
        h('div', { class: 'tv-details-body' }, about, statsSec, flowSec));
}

// Panel for an aggregate box (many events too small to draw at this zoom).
export function renderBox(panel, b, names, { onClose, onZoom }) {
    clear(panel);
    const span = b.end - b.start;
    panel.append(
        h('div', { class: 'tv-details-head' },
            h('h3', { class: 'tv-details-name', text: `${formatCount(b.count)} small events` }),
            h('button', { type: 'button', class: 'tv-close', 'aria-label': 'Close details',
                          text: '×', on: { click: onClose } })),
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
