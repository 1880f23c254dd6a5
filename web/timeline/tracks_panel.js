// tracks_panel.js: the trace viewer's "Tracks" panel — the track filter,
// expand and collapse all, and every process and thread with a switch to
// show or hide it and a button to pin it on top. It shows the rows'
// state and says what a person asked for through callbacks; the view
// keeps the state (and the URL). DOM only through dom.js's h().

import { h, setText } from '../dom.js';
import { displayOrder } from './layout.js';

// The processes and their rows as the panel lists them: [{key, label,
// rows: [{key, label}]}], devices first as on the timeline.
export function trackList(meta) {
    const countersOf = new Map();
    for (const c of meta.counters || [])
        countersOf.set(c.pid, [...(countersOf.get(c.pid) || []), c]);
    return displayOrder(meta.processes || []).map((p) => ({
        key: `p:${p.pid}`,
        label: p.name || `pid ${p.pid}`,
        rows: [
            ...(p.threads || []).map((t) => ({ key: `t:${t.track}`, label: t.name || `tid ${t.tid}`,
                                               derived: Boolean(t.derived) })),
            ...(countersOf.get(p.pid) || []).map((c) => ({ key: `c:${c.id}`,
                                                           label: c.name || `counter ${c.id}` })),
        ],
    }));
}

// Builds the panel for meta. cb: {onFilter(text), onHidden(key, hidden),
// onPinned(key, pinned), onExpandAll(), onCollapseAll(), onShowAll(),
// onClose()}. Returns {el, update({filter, hidden, pinned, nHidden,
// nFiltered})}.
export function tracksPanel(meta, cb) {
    const filter = h('input', { type: 'search', class: 'tv-track-filter',
                                placeholder: 'Show tracks whose name contains…',
                                'aria-label': 'Track filter', autocomplete: 'off' });
    filter.addEventListener('input', () => cb.onFilter(filter.value));
    const note = h('p', { class: 'hint tv-tracks-note', 'aria-live': 'polite' });
    const switches = new Map();   // key -> {box, pin}
    const line = (item, cls) => {
        const box = h('input', { type: 'checkbox', 'aria-label': `Show ${item.label}` });
        box.addEventListener('change', () => cb.onHidden(item.key, !box.checked));
        const pin = h('button', { type: 'button', class: 'tv-pin', 'aria-pressed': 'false',
                                  title: 'Pin to the top', 'aria-label': `Pin ${item.label}`,
                                  text: 'Pin' });
        pin.addEventListener('click', () => cb.onPinned(item.key,
                                                       pin.getAttribute('aria-pressed') !== 'true'));
        switches.set(item.key, { box, pin });
        return h('li', { class: cls, 'data-key': item.key },
            h('label', {}, box, ' ', h('span', { class: 'tv-track-name', text: item.label })), pin);
    };
    const list = h('ul', { class: 'tv-track-list' }, trackList(meta).map((p) => [
        line(p, 'tv-track-process'),
        p.rows.map((r) => line(r, ['tv-track-row', r.derived ? 'tv-track-derived' : '',
                                   r.derived && / - from #\d+$/.test(r.label) ? 'tv-track-from' : '']
            .filter(Boolean).join(' '))),
    ]));
    const el = h('aside', { class: 'tv-tracks', 'aria-label': 'Tracks', hidden: true },
        h('div', { class: 'tv-details-head' },
            h('h3', { class: 'tv-details-name', text: 'Tracks' }),
            h('button', { type: 'button', class: 'tv-close', 'aria-label': 'Close the tracks panel',
                          text: '×', on: { click: cb.onClose } })),
        filter,
        h('div', { class: 'tv-tracks-actions' },
            h('button', { type: 'button', text: 'Expand all', on: { click: cb.onExpandAll } }),
            h('button', { type: 'button', text: 'Collapse all', on: { click: cb.onCollapseAll } }),
            h('button', { type: 'button', text: 'Show all', on: { click: cb.onShowAll } })),
        note, list);
    return {
        el,
        update(st) {
            if (filter.value !== st.filter)
                filter.value = st.filter;
            for (const [key, s] of switches) {
                s.box.checked = !st.hidden.has(key);
                s.pin.setAttribute('aria-pressed', String(st.pinned.has(key)));
            }
            const parts = [];
            if (st.nHidden)
                parts.push(`${st.nHidden} hidden`);
            if (st.nFiltered)
                parts.push(`${st.nFiltered} left out by the filter`);
            setText(note, parts.join(' · '));
        },
    };
}
