// op_profile.js: the op profile page (XProf's "Op Profile"): the device's
// time as a tree, program > HLO category > op (deduplicated ops under
// their group), each node with its share of the time, its FLOP rate and
// memory bandwidth as shares of the device's peaks. Nodes open and close
// (click, or Enter / arrow keys on the focused row); the ten largest
// children show first, "more" shows the rest. Clicking a name selects the
// node: its details, and for an op its HLO text and links to the trace
// viewer and the graph viewer.
//
// Data: XProf's op_profile JSON {byProgram, byProgramExcludeIdle,
// deviceType}. Tool state in the URL: idle=0 leaves IDLE out; node, the
// selected node's path (names from the root's child down, joined by
// NODE_SEP).

import { clear, h } from '../dom.js';
import { formatCount, formatDurationPs, formatPercent } from '../format.js';
import * as router from '../router.js';
import { dataPage } from './lib/page.js';
import { viewHead } from './lib/view_head.js';
import { XLA_STYLES, opLinks } from './lib/xla.js';

export const NODE_SEP = '|';
const FIRST_CHILDREN = 10;


// ---- tree (pure) -------------------------------------------------------------

// The node at path (names below root), or null.
export function nodeAt(root, path) {
    let n = root;
    for (const name of path) {
        n = (n.children || []).find((c) => c.name === name);
        if (!n)
            return null;
    }
    return n;
}

// A node's numbers: time (ps) and its share of the root's, FLOP rate and
// HBM bandwidth utilisation (0..1, of the device's peaks).
export function nodeStats(n, rootTimePs) {
    const m = n.metrics || {};
    const ps = Number(m.rawTime) || 0;
    return {
        ps,
        share: rootTimePs > 0 ? ps / rootTimePs : 0,
        flops: Number(m.flops) || 0,
        hbm: Array.isArray(m.bandwidthUtils) ? Number(m.bandwidthUtils[0]) || 0 : 0,
        occurrences: Number(m.occurrences) || 0,
    };
}

// The rows to draw: [{node, path, depth, open, more}] for the nodes whose
// parents are open; `more` rows stand for the children not shown yet.
export function visibleRows(root, isOpen, shown) {
    const out = [];
    const walk = (n, path, depth) => {
        const kids = n.children || [];
        const limit = shown(path) ?? FIRST_CHILDREN;
        kids.slice(0, limit).forEach((c) => {
            const p = path.concat(c.name);
            const open = isOpen(p);
            out.push({ node: c, path: p, depth, open, more: 0 });
            if (open)
                walk(c, p, depth + 1);
        });
        if (kids.length > limit)
            out.push({ node: null, path, depth, open: false, more: kids.length - limit });
    };
    walk(root, [], 0);
    return out;
}

const pathKey = (p) => p.join(NODE_SEP);

// The op a node names: a group of deduplicated ops is named after its
// first, "<op> and its duplicate(s)".
export function opName(nodeName) {
    return nodeName.replace(/ and its duplicate\(s\)$/, '');
}

// ---- page ------------------------------------------------------------------------

// Inline styles may be forbidden (dom.js): widths are set through CSSOM.
function bar(fraction, cls) {
    const fill = h('span');
    fill.style.width = `${(Math.max(0, Math.min(1, fraction)) * 100).toFixed(1)}%`;
    return h('span', { class: `xla-bar ${cls}`, 'aria-hidden': 'true' }, fill);
}

function indent(depth) {
    const pad = h('span', { class: 'xla-indent' });
    pad.style.width = `${depth * 1.25}rem`;
    return pad;
}

function details(state, node, path, rootPs) {
    if (!node)
        return h('p', { class: 'hint', text: 'Click a name to see its node here.' });
    const s = nodeStats(node, rootPs);
    const x = node.xla;
    const si = x && x.sourceInfo;
    return h('div', { class: 'xla-details' },
        h('h3', {}, node.name, h('span', { class: 'hint', text: `  ${path.join(' › ')}` })),
        x ? opLinks(state, x.programId, opName(node.name)) : null,
        x && x.expression ? h('pre', { class: 'xla-expr', tabindex: '0', text: x.expression })
            : null,
        h('dl', { class: 'xla-dl' },
            h('dt', { text: 'Time' }),
            h('dd', { text: `${formatDurationPs(s.ps)} (${formatPercent(s.share, 2)})` }),
            h('dt', { text: 'FLOP rate' }), h('dd', { text: `${formatPercent(s.flops, 2)} of peak` }),
            h('dt', { text: 'HBM bandwidth' }),
            h('dd', { text: `${formatPercent(s.hbm, 2)} of peak` }),
            x ? [h('dt', { text: 'Category' }), h('dd', { text: x.category || '–' }),
                 h('dt', { text: 'Framework op' }), h('dd', { text: x.provenance || '–' }),
                 h('dt', { text: 'Source' }),
                 h('dd', { text: si && si.fileName ? `${si.fileName}:${si.lineNumber}` : '–',
                           title: si ? si.stackFrame : null }),
                 h('dt', { text: 'Occurrences' }), h('dd', { text: formatCount(s.occurrences) })]
              : [h('dt', { text: 'Children' }),
                 h('dd', { text: formatCount(node.numChildren ?? (node.children || []).length) })]));
}

function render(el, state, inst, data) {
    clear(el);
    el.append(viewHead(state, 'Op profile'));
    const withIdle = router.getParams().idle !== '0';
    const root = (withIdle ? data.byProgram : data.byProgramExcludeIdle) || { children: [] };
    if (!root.children || root.children.length === 0) {
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'No XLA ops ran on a device in this profile.' }),
            h('p', { class: 'hint', text: `Device type: ${data.deviceType || 'unknown'}. The ` +
                'op profile shows the XLA ops of GPU and TPU device planes (JAX, or TensorFlow ' +
                'with XLA).' })));
        return;
    }
    const rootPs = nodeStats(root, 0).ps;
    const rootStats = nodeStats(root, rootPs);
    const idleBox = h('input', { type: 'checkbox' });
    idleBox.checked = withIdle;
    idleBox.addEventListener('change', () => {
        router.setParams({ idle: idleBox.checked ? undefined : '0' }, { replace: false });
        render(el, state, inst, data);
    });
    el.append(h('div', { class: 'ks-controls' },
        h('label', {}, idleBox, ' Include IDLE time'),
        h('span', { class: 'hint', text: `${data.deviceType || ''}: ` +
            `${formatDurationPs(rootPs)} of device time; FLOP rate ` +
            `${formatPercent(rootStats.flops, 1)} and HBM bandwidth ` +
            `${formatPercent(rootStats.hbm, 1)} of the device's peaks.` })));

    const sel = router.getParams().node;
    const selPath = sel ? sel.split(NODE_SEP) : null;
    const open = new Set();
    if (selPath) {
        for (let i = 1; i < selPath.length; i++)
            open.add(pathKey(selPath.slice(0, i)));
    } else if (root.children.length > 0) {
        open.add(pathKey([root.children.find((c) => c.name !== 'IDLE')?.name
                          ?? root.children[0].name]));
    }
    const shownMore = new Map();
    const detailBox = h('section', { class: 'xla-detail-box', 'aria-label': 'Selected node' });
    const body = h('tbody');
    const table = h('table', { class: 'data-table xla-tree', role: 'treegrid',
                               'aria-label': 'Op profile' },
        h('thead', {}, h('tr', {},
            h('th', { scope: 'col', text: 'Program › category › op' }),
            h('th', { scope: 'col', class: 'num', text: 'Time' }),
            h('th', { scope: 'col', text: 'Share' }),
            h('th', { scope: 'col', text: 'FLOP rate (of peak)' }),
            h('th', { scope: 'col', text: 'HBM bandwidth (of peak)' }))),
        body);
    let selected = selPath;
    const select = (path, push) => {
        selected = path;
        const node = path ? nodeAt(root, path) : null;
        detailBox.replaceChildren(details(state, node, path || [], rootPs));
        if (push)
            router.setParams({ node: path ? pathKey(path) : undefined }, { replace: false });
        draw();
    };
    const toggle = (path) => {
        const k = pathKey(path);
        if (open.has(k))
            open.delete(k);
        else
            open.add(k);
        draw();
        const row = body.querySelector(`tr[data-path="${CSS.escape(k)}"] .xla-toggle`);
        if (row)
            row.focus();
    };
    function draw() {
        const rows = visibleRows(root, (p) => open.has(pathKey(p)),
                                 (p) => shownMore.get(pathKey(p)));
        body.replaceChildren(...rows.map((r) => {
            if (!r.node) {
                return h('tr', { class: 'xla-more' }, h('td', { colspan: '5' }, indent(r.depth),
                    h('button', { type: 'button', text: `Show ${formatCount(r.more)} more`,
                                  on: { click: () => {
                                      shownMore.set(pathKey(r.path), Infinity);
                                      draw();
                                  } } })));
            }
            const s = nodeStats(r.node, rootPs);
            const leaf = !(r.node.children || []).length;
            const k = pathKey(r.path);
            const isSel = selected && pathKey(selected) === k;
            return h('tr', { 'data-path': k, 'aria-level': String(r.depth + 1),
                             'aria-expanded': leaf ? null : String(r.open),
                             'aria-selected': isSel ? 'true' : null,
                             class: isSel ? 'selected' : null },
                h('td', { class: 'xla-name' },
                    indent(r.depth),
                    leaf ? h('span', { class: 'xla-toggle-pad' })
                        : h('button', { type: 'button', class: 'xla-toggle',
                                        'aria-label': `${r.open ? 'Close' : 'Open'} ${r.node.name}`,
                                        text: r.open ? '▾' : '▸',
                                        on: { click: () => toggle(r.path),
                                              keydown: (e) => {
                                                  if ((e.key === 'ArrowRight' && !r.open) ||
                                                      (e.key === 'ArrowLeft' && r.open))
                                                      toggle(r.path);
                                              } } }),
                    h('button', { type: 'button', class: 'xla-node', text: r.node.name,
                                  on: { click: () => select(r.path, true) } })),
                h('td', { class: 'num', text: formatDurationPs(s.ps) }),
                h('td', {}, bar(s.share, 'xla-bar-time'),
                  ` ${formatPercent(s.share, 2)}`),
                h('td', {}, bar(s.flops, 'xla-bar-flops'), ` ${formatPercent(s.flops, 1)}`),
                h('td', {}, bar(s.hbm, 'xla-bar-hbm'), ` ${formatPercent(s.hbm, 1)}`));
        }));
    }
    el.append(detailBox, h('div', { class: 'table-scroll' }, table));
    select(selPath && nodeAt(root, selPath) ? selPath : null, false);
}

// TensorFlow's old op_profile.json has another shape: shown as it is.
export const { mount, unmount } = dataPage({
    label: 'Loading the op profile…', stylesheets: XLA_STYLES,
    render: (el, state, inst, data) => render(el, state, inst, data || {}),
    ours: (data) => !data || typeof data.byProgram === 'object' });
