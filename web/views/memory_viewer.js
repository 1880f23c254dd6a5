// memory_viewer.js: the memory viewer (XProf's "Memory Viewer"): one XLA
// program's memory as its buffer assignment plans it. A module picker (the
// server's module list), the peak and what makes it up, the heap size at
// each step of the program (with and without padding; the peak marked),
// the allocation chart (each buffer's bytes over the steps it is live),
// and the buffers live at the peak, largest first, each with its shape,
// instruction, framework op and source, and a link to the graph viewer.
//
// Data: XProf's memory_viewer JSON (its PreprocessResult) for module_name
// and memory_space. Tool state in the URL: module (the module list's
// name), space (the memory space, 0 when absent), buf (the selected
// buffer's logical buffer id).

import { listModules, toolDataUrl } from '../api.js';
import { createChart } from '../chart.js';
import { clear, h } from '../dom.js';
import { formatBytes, formatCount } from '../format.js';
import * as router from '../router.js';
import { createTable } from '../table.js';
import { showAnswer } from './lib/answer_tables.js';
import { card, cardRow } from './lib/cards.js';
import { keepChart, loadToolData, pageSlot } from './lib/page.js';
import { viewHead } from './lib/view_head.js';
import { XLA_STYLES, openInGraph, paramPicker } from './lib/xla.js';

const MIB = 1024 * 1024;
const SVG_NS = 'http://www.w3.org/2000/svg';

const slot = pageSlot(XLA_STYLES);

// ---- summaries (pure) -----------------------------------------------------------

// MiB as bytes text ("10 MiB").
export const mib = (v) => formatBytes(Number(v || 0) * MIB);

// The peak's make-up in MiB: {peak, indefinite (parameters, outputs,
// constants), temporary (the rest)}.
export function peakParts(d) {
    const peak = Number(d.peakHeapMib) || 0;
    const indefinite = Number(d.indefiniteBufferAllocationMib) || 0;
    return { peak, indefinite, temporary: Math.max(0, peak - indefinite) };
}

// The buffers at the peak as a DataTable, largest first.
export function peakTable(d) {
    const cols = [['size', 'number', 'Size (MiB)'], ['unpadded', 'number', 'Unpadded (MiB)'],
                  ['group', 'string', 'Allocation'], ['instruction', 'string', 'Instruction'],
                  ['shape', 'string', 'Shape'], ['op', 'string', 'Framework op'],
                  ['source', 'string', 'Source']];
    const rows = (d.maxHeapBySize || []).map((o) => ({ c: [
        { v: Number(o.logicalBufferSizeMib) || 0 }, { v: Number(o.unpaddedShapeMib) || 0 },
        { v: o.groupName || '' }, { v: o.instructionName || o.label || '' },
        { v: o.shapeString || '' }, { v: o.tfOpName || '' },
        { v: o.sourceInfo ? `${o.sourceInfo.fileName}:${o.sourceInfo.lineNumber}` : '' }] }));
    return { cols: cols.map(([id, type, label]) => ({ id, type, label })), rows };
}

// The instruction a heap object names, without its shape index
// ("fusion.1{0}" -> "fusion.1").
export function instructionOf(name) {
    return String(name || '').replace(/\{[0-9,]*\}$/, '');
}

// ---- page ------------------------------------------------------------------------------

function heapChart(canvas, d) {
    const sizes = d.heapSizes || [];
    const unpadded = d.unpaddedHeapSizes || [];
    const names = d.hloInstructionNames || [];
    /* heapSizes[i] is the heap before step i; the peak XProf places at the
     * step whose allocation made it shows from the next entry on */
    const peakAt = Math.min(sizes.length - 1, (Number(d.peakHeapSizePosition) || 0) + 1);
    return createChart(canvas, {
        type: 'line',
        data: {
            labels: sizes.map((_, i) => i),
            datasets: [
                { label: 'Heap (MiB)', data: sizes, pointRadius: sizes.map((_, i) =>
                    (i === peakAt ? 5 : 0)), borderWidth: 2, stepped: true },
                { label: 'Unpadded (MiB)', data: unpadded, pointRadius: 0, borderWidth: 1,
                  borderDash: [4, 3], stepped: true },
            ],
        },
        options: {
            interaction: { mode: 'index', intersect: false },
            plugins: { tooltip: { callbacks: {
                title: (items) => `step ${items[0].dataIndex}: ${names[items[0].dataIndex] || 'end'}`,
                label: (item) => ` ${item.dataset.label}: ${Number(item.raw).toFixed(3)}`,
            } } },
            scales: {
                x: { title: { display: true, text: 'Program order (heap simulator steps)' },
                     ticks: { maxTicksLimit: 20 } },
                y: { title: { display: true, text: 'MiB' }, beginAtZero: true },
            },
        },
    });
}

// The allocation chart: a rectangle per buffer, steps across, bytes down.
function blocksSvg(d, onPick) {
    const blocks = d.bufferBlocks || [];
    const steps = Math.max(1, ...blocks.map((b) => Number(b.endStep) || 0));
    const bytes = Math.max(1, ...blocks.map((b) => (Number(b.offset) || 0) + (Number(b.size) || 0)));
    const W = 1000, H = 240;
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('class', 'mv-blocks');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Allocation chart: buffers over program steps');
    for (const b of blocks) {
        const r = document.createElementNS(SVG_NS, 'rect');
        const x = ((Number(b.startStep) || 0) / steps) * W;
        const w = Math.max(1, (((Number(b.endStep) || 0) - (Number(b.startStep) || 0)) / steps) * W);
        const y = ((Number(b.offset) || 0) / bytes) * H;
        const hh = Math.max(1, ((Number(b.size) || 0) / bytes) * H);
        r.setAttribute('x', x.toFixed(1));
        r.setAttribute('y', y.toFixed(1));
        r.setAttribute('width', w.toFixed(1));
        r.setAttribute('height', hh.toFixed(1));
        r.setAttribute('fill', b.color || '#ccc');
        r.setAttribute('stroke', b.logicalBufferId === -1 ? '#999' : '#fff');
        r.setAttribute('stroke-width', '0.5');
        const t = document.createElementNS(SVG_NS, 'title');
        t.textContent = b.logicalBufferId === -1
            ? `${b.name}: ${formatBytes(b.size)}`
            : `${b.name}: ${b.shapeString || ''}, ${formatBytes(b.size)}, steps ` +
              `${b.startStep || 0}–${b.endStep || 0}${b.tfOpName ? `\n${b.tfOpName}` : ''}`;
        r.append(t);
        if (b.logicalBufferId !== -1)
            r.addEventListener('click', () => onPick(b.name));
        svg.append(r);
    }
    return svg;
}

function render(el, state, inst, modules, module, d) {
    inst.destroyParts();
    const body = inst.body;
    clear(body);
    if (!d) {
        body.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'No module chosen.' })));
        return;
    }
    const parts = peakParts(d);
    body.append(cardRow([
        card('Peak heap', mib(parts.peak), `at step ${Number(d.peakHeapSizePosition) || 0}`),
        card('Live throughout', mib(parts.indefinite), 'parameters, outputs, constants'),
        card('Temporaries at the peak', mib(parts.temporary)),
        card('Parameters', mib(d.entryComputationParametersMib)),
        card('Outputs', mib(d.maybeLiveOutMib)),
        card('All allocations', mib(d.totalBufferAllocationMib))]));
    if ((d.heapSizes || []).length > 0) {
        const canvas = h('canvas', { 'aria-label': 'Heap size over the program' });
        body.append(h('figure', { class: 'ks-chart' },
            h('figcaption', { text: `Heap size over ${formatCount(d.heapSizes.length)} steps ` +
                                     'of the program (the peak marked)' }),
            h('div', { class: 'ks-chart-box mv-chart-box' }, canvas)));
        keepChart(inst, heapChart(canvas, d), canvas.parentElement);
    } else {
        body.append(h('p', { class: 'hint', text: 'No heap steps: XLA placed no temporary ' +
            'buffers in this memory space, so its memory is what lives throughout.' }));
    }
    const status = h('p', { class: 'hint', 'aria-live': 'polite' });
    const goGraph = (name) => {
        const m = /\((\d+)\)$/.exec(module);
        if (m)
            openInGraph(state, m[1], instructionOf(name));
        else
            status.textContent = `No program id in ${module}.`;
    };
    if ((d.bufferBlocks || []).length > 0) {
        body.append(h('figure', { class: 'ks-chart' },
            h('figcaption', { text: 'Allocation chart: each buffer\'s bytes (down) over the ' +
                                     'steps it is live (across); click one for its graph' }),
            blocksSvg(d, goGraph)));
    }
    const section = h('section', { class: 'table-section' },
        h('h3', { text: `Buffers at the peak (${formatCount((d.maxHeapBySize || []).length)})` }),
        h('p', { class: 'hint', text: 'Largest first. Click a row to open its instruction in ' +
                                      'the graph viewer.' }), status);
    body.append(section);
    const objs = d.maxHeapBySize || [];
    inst.tables.push(createTable(section, peakTable(d), {
        name: `memory_viewer_${state.run}_${module}`,
        filterColumns: ['instruction', 'shape', 'op', 'group'],
        filterLabel: 'Filter instructions, shapes and ops',
        regexToggle: true,
        onRowClick: (i) => {
            if (objs[i] && objs[i].instructionName)
                goGraph(objs[i].instructionName);
        },
    }));
}

async function loadModule(el, state, inst, modules, module, space) {
    const d = await loadToolData(inst.body, state, { module_name: module, memory_space: space }, {
        signal: inst.signal, label: `Loading ${module}…`,
        retry: () => loadModule(el, state, inst, modules, module, space) });
    if (d === undefined)
        return;
    render(el, state, inst, modules, module, d);
}

export async function mount(el, state) {
    const inst = slot.start();
    clear(el);
    el.append(viewHead(state, 'Memory viewer'));
    const raw = el.querySelector('.view-head a');
    const modules = await listModules(state.run, state.host,
                                      { signal: inst.signal }).catch((e) => e);
    if (!inst.alive())
        return;
    if (!Array.isArray(modules) || modules.length === 0) {
        /* no modules to pick: what the server answers for the tool itself
         * (TensorFlow's memory_viewer.json, or why there is none) */
        const data = await loadToolData(el, state, {}, {
            signal: inst.signal, label: `Loading ${state.title || state.tool}…`,
            retry: () => mount(el, state) });
        if (data === undefined)
            return;
        clear(el);
        showAnswer(el, state, inst, data);
        return;
    }
    const params = router.getParams();
    const module = modules.includes(params.module) ? params.module : modules[0];
    const space = params.space || '0';
    inst.body = h('div');
    const pick = paramPicker('Module', 'module',
        modules.map((m) => ({ value: m, text: m })), (m) => {
            loadModule(el, state, inst, modules, m, router.getParams().space || '0');
        });
    pick.select.value = module;
    const spacePick = paramPicker('Memory space', 'space',
        [{ value: '0', text: '0 (device memory)' }, { value: '1', text: '1 (on-chip)' }],
        (s) => loadModule(el, state, inst, modules, pick.select.value, s));
    /* the raw data of the module shown */
    raw.addEventListener('click', () => {
        raw.href = toolDataUrl(state.run, state.tool, state.host,
                               { module_name: pick.select.value,
                                 memory_space: router.getParams().space || '0' });
    });
    el.append(h('div', { class: 'ks-controls' }, pick.el, spacePick.el), inst.body);
    await loadModule(el, state, inst, modules, module, space);
}

export const unmount = slot.unmount;
