// graph_viewer.js: the graph viewer (XProf's "Graph Viewer"): an HLO
// module around one instruction, drawn here as SVG. Operands above, users
// below: layers by the longest path from the graph's inputs, each layer
// ordered by its operands' places (one barycenter pass), edges as curves.
// The center is highlighted; clicking a node centers on it, and a fusion
// opens its body (and its body leads back up). The selected node's HLO
// text, framework op and links to the trace viewer, and the module's text
// and DOT for download.
//
// Data: graph_viewer with type=graph&format=json (profview's nodes and
// edges). Tool state in the URL: program (a program id) or module (a
// module list name), node (the center), width (hops, 1..6).

import { toolDataUrl } from '../api.js';
import { clear, h } from '../dom.js';
import { formatCount } from '../format.js';
import * as router from '../router.js';
import { loadToolData, pageSlot } from './lib/page.js';
import { XLA_STYLES, modulesOrSay, opLinks } from './lib/xla.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const NODE_W = 190;
const NODE_H = 44;
const GAP_X = 24;
const GAP_Y = 46;
const NAME_CHARS = 26;

const slot = pageSlot(XLA_STYLES);

// ---- layout (pure) ----------------------------------------------------------------

// Layers: a node's layer is one more than its deepest operand's among the
// nodes (inputs at 0). Returns [layer per node].
export function layers(n, edges) {
    const ins = Array.from({ length: n }, () => []);
    for (const e of edges)
        ins[e.to].push(e.from);
    const layer = new Array(n).fill(-1);
    const visiting = new Array(n).fill(false);
    const depth = (v) => {
        if (layer[v] >= 0)
            return layer[v];
        if (visiting[v])
            return 0;   // a cycle cannot happen in HLO; guard anyway
        visiting[v] = true;
        let d = 0;
        for (const u of ins[v])
            d = Math.max(d, depth(u) + 1);
        visiting[v] = false;
        layer[v] = d;
        return d;
    };
    for (let v = 0; v < n; v++)
        depth(v);
    return layer;
}

// Positions {x, y} per node: rows by layer, each row ordered by the mean
// place of the node's operands in the row above, then centered.
export function layout(n, edges) {
    const layer = layers(n, edges);
    const rows = [];
    layer.forEach((l, v) => { (rows[l] = rows[l] || []).push(v); });
    const place = new Array(n).fill(0);
    const ins = Array.from({ length: n }, () => []);
    for (const e of edges)
        ins[e.to].push(e.from);
    const width = Math.max(1, ...rows.map((r) => (r ? r.length : 0)));
    const pos = new Array(n);
    rows.forEach((row, l) => {
        if (!row)
            return;
        if (l > 0) {
            const key = (v) => (ins[v].length ? ins[v].reduce((s, u) => s + place[u], 0) /
                                                ins[v].length : Infinity);
            row.sort((a, b) => key(a) - key(b) || a - b);
        }
        const offset = (width - row.length) / 2;
        row.forEach((v, i) => {
            place[v] = i + offset;
            pos[v] = { x: (i + offset) * (NODE_W + GAP_X), y: l * (NODE_H + GAP_Y) };
        });
    });
    return { pos, width: width * (NODE_W + GAP_X), height: rows.length * (NODE_H + GAP_Y) };
}

export const cut = (s, n = NAME_CHARS) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

// ---- drawing ---------------------------------------------------------------------------

function svgEl(tag, attrs = {}) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs))
        e.setAttribute(k, String(v));
    return e;
}

function drawGraph(g, onNode) {
    const { pos, width, height } = layout(g.nodes.length, g.edges);
    const svg = svgEl('svg', { viewBox: `-10 -10 ${width + 20} ${height + 20}`,
                               width: width + 20, height: height + 20, role: 'group',
                               'aria-label': `HLO graph around ${g.center}` });
    const defs = svgEl('defs');
    const marker = svgEl('marker', { id: 'gv-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5,
                                     markerWidth: 7, markerHeight: 7, orient: 'auto' });
    marker.append(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: 'gv-arrow' }));
    defs.append(marker);
    svg.append(defs);
    for (const e of g.edges) {
        const a = pos[e.from], b = pos[e.to];
        const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
        const my = (y1 + y2) / 2;
        svg.append(svgEl('path', { class: 'gv-edge', d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`,
                                   'marker-end': 'url(#gv-arrow)' }));
    }
    g.nodes.forEach((nd, i) => {
        const p = pos[i];
        const fusion = (nd.calls || []).length > 0;
        const grp = svgEl('g', { class: `gv-node${i === 0 ? ' gv-center' : ''}` +
                                        `${fusion ? ' gv-fusion' : ''}`,
                                 transform: `translate(${p.x},${p.y})`, tabindex: 0,
                                 role: 'button', 'data-name': nd.name,
                                 'aria-label': `${nd.name} (${nd.opcode})` });
        grp.append(svgEl('rect', { width: NODE_W, height: NODE_H, rx: 6, ry: 6 }));
        const t1 = svgEl('text', { x: 8, y: 17 });
        t1.textContent = cut(nd.name);
        const more = (nd.hiddenOperands || 0) + (nd.hiddenUsers || 0);
        const t2 = svgEl('text', { x: 8, y: 34 });
        t2.textContent = cut(`${nd.opcode}${more ? ` · +${more} more` : ''}`, NAME_CHARS + 4);
        const title = svgEl('title');
        title.textContent = `${nd.text}${nd.opName ? `\n${nd.opName}` : ''}`;
        grp.append(title, t1, t2);
        grp.addEventListener('click', () => onNode(nd));
        grp.addEventListener('keydown', (ev) => {
            if (ev.key === 'Enter' || ev.key === ' ') {
                ev.preventDefault();
                onNode(nd);
            }
        });
        svg.append(grp);
    });
    return svg;
}

// ---- page ------------------------------------------------------------------------------

function details(state, g, nd) {
    return h('div', { class: 'xla-details' },
        h('h3', {}, nd.name, h('span', { class: 'hint', text: `  ${nd.category} · ` +
            `${g.computation}${g.entry ? ' (entry)' : ''}` })),
        opLinks(state, g.programId, nd.name, { graph: false }),
        h('pre', { class: 'xla-expr', tabindex: '0', text: nd.text }),
        h('dl', { class: 'xla-dl' },
            h('dt', { text: 'Framework op' }), h('dd', { text: nd.opName || '–' }),
            h('dt', { text: 'Shape' }), h('dd', { text: nd.shape || '–' }),
            h('dt', { text: 'Left out' }), h('dd', { text: `${formatCount(nd.hiddenOperands)} ` +
                `operands, ${formatCount(nd.hiddenUsers)} users beyond ${g.width} hops` })));
}

async function show(el, state, inst, query) {
    const body = inst.body;
    const p = { type: 'graph', format: 'json', graph_width: query.width };
    if (query.program)
        p.program_id = query.program;
    else
        p.module_name = query.module;
    if (query.node)
        p.node_name = query.node;
    const g = await loadToolData(body, state, p, {
        signal: inst.signal, label: 'Loading the graph…',
        retry: () => show(el, state, inst, query) });
    if (g === undefined)
        return;
    clear(body);
    const go = (node) => {
        router.setParams({ node }, { replace: false });
        show(el, state, inst, { ...query, node });
    };
    const center = g.nodes[0];
    const nav = h('div', { class: 'ks-controls' });
    for (const c of center.calls || [])
        if (c.root)
            nav.append(h('button', { type: 'button', text: `Open ${c.computation}`,
                                     on: { click: () => go(c.root) } }));
    if (g.parent)
        nav.append(h('button', { type: 'button', text: `Up to ${g.parent}`,
                                 on: { click: () => go(g.parent) } }));
    const textUrl = (type) => toolDataUrl(state.run, state.tool, state.host,
        { ...(query.program ? { program_id: query.program } : { module_name: query.module }),
          type, ...(type === 'graph' ? { format: 'dot', node_name: g.center,
                                         graph_width: query.width } : {}) });
    nav.append(h('a', { href: textUrl('long_txt'), target: '_blank', rel: 'noopener',
                        text: 'Module text' }),
               h('a', { href: textUrl('graph'), target: '_blank', rel: 'noopener',
                        text: 'DOT' }));
    body.append(
        h('p', { class: 'ks-summary', text: `${g.module} (program ${g.programId}), ` +
            `${g.computation}: ${formatCount(g.nodes.length)} instructions within ` +
            `${g.width} hops of ${g.center}` +
            (g.truncated ? ' (the nearest only: the drawing is capped)' : '') }),
        nav, h('section', { class: 'xla-detail-box', 'aria-label': 'Center node' },
            details(state, g, center)),
        h('div', { class: 'gv-canvas' }, drawGraph(g, (nd) => go(nd.name))));
}

export async function mount(el, state) {
    const inst = slot.start();
    clear(el);
    el.append(h('div', { class: 'view-head' }, h('h2', { text: 'Graph viewer' })));
    const modules = await modulesOrSay(el, state, inst, 'The graph viewer draws the HLO ' +
                                       'modules XLA compiled;');
    if (modules === null)
        return;
    const params = router.getParams();
    const byProgram = (id) => modules.find((m) => m.endsWith(`(${id})`));
    const module = (params.program && byProgram(params.program))
        || (modules.includes(params.module) ? params.module : modules[0]);
    const query = { module, program: params.program && byProgram(params.program) ? params.program
                                                                                   : null,
                    node: params.node || '', width: params.width || '3' };
    const sel = h('select', { 'aria-label': 'Module' },
        modules.map((m) => h('option', { value: m, text: m })));
    sel.value = module;
    sel.addEventListener('change', () => {
        router.setParams({ module: sel.value, program: undefined, node: undefined },
                         { replace: false });
        show(el, state, inst, { ...query, module: sel.value, program: null, node: '' });
    });
    const nodeIn = h('input', { type: 'search', 'aria-label': 'Center instruction',
                                placeholder: 'instruction name (root when empty)',
                                value: query.node });
    const widthSel = h('select', { 'aria-label': 'Hops' },
        ['1', '2', '3', '4', '5', '6'].map((w) => h('option', { value: w, text: `${w} hops` })));
    widthSel.value = query.width;
    const apply = () => {
        const next = { ...query, module: sel.value, node: nodeIn.value.trim(),
                       width: widthSel.value };
        router.setParams({ node: next.node || undefined, width: next.width === '3'
            ? undefined : next.width }, { replace: false });
        show(el, state, inst, next);
    };
    widthSel.addEventListener('change', apply);
    const form = h('form', { class: 'ks-controls gv-controls' },
        h('label', {}, 'Module ', sel), h('label', {}, 'Center ', nodeIn), widthSel,
        h('button', { type: 'submit', text: 'Draw' }));
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        apply();
    });
    inst.body = h('div');
    el.append(form, inst.body);
    await show(el, state, inst, query);
}

export const unmount = slot.unmount;
