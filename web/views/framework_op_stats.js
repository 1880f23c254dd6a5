// framework_op_stats.js: the framework op statistics page (TensorBoard's
// "TensorFlow Stats"; also opened as tensorflow_stats). Device ops and host
// ops in separate tables (sort, filter by text or regular expression on op
// names and types, paging, CSV), a table and a chart of self time by op
// type, and a chart of self time by category. IDLE time is left out unless
// asked for (XProf's default too: IDLE would dominate every chart).
//
// Data: the reference's array of two DataTables [with IDLE, without IDLE]
// (FORMATS.md §4.6), whose shares are fractions: the page shows them, and
// exports them, as percentages. Tool state in the URL: idle=1 includes
// IDLE; group=input_shape or call_stack asks for a row per operator and
// input shape or call stack (a PyTorch trace recorded with them: the
// properties pv_has_input_shapes, pv_has_call_stacks); each table's filter,
// sort and page (table.js, keys dev, host, devtypes, hosttypes).

import { clear, h } from '../dom.js';
import * as router from '../router.js';
import { formatCount, formatDurationUs, formatPercent } from '../format.js';
import { createTable, isDataTable, tableUrl } from '../table.js';
import { rowObjects } from './lib/datatable.js';
import { dataPage } from './lib/page.js';
import { shareChart } from './lib/share_chart.js';
import { topTimeChart } from './lib/top_chart.js';
import { viewHead } from './lib/view_head.js';

const TOP_TYPES = 12;

// ---- grouping (pure) ---------------------------------------------------------

const INPUT_TYPES = /^(Dataset|IteratorGetNext\w*|MultiDeviceIteratorGetNextFromShard|InfeedEnqueue(Tuple)?|OutfeedDequeue\w*)$/;
const COMMUNICATION_TYPES = /(AllReduce|AllGather|AllToAll|ReduceScatter|Collective|Nccl|^_?(Host)?(Send|Recv)$|^all-reduce|^all-gather|^all-to-all|^reduce-scatter|^collective-permute|^psum|^ppermute|^all_gather|^all_to_all)/i;
const MEMORY_TYPES = /^(Memcpy\w*|copy\w*|Identity\w*|Transpose|ConjugateTranspose|Reshape|Squeeze|ExpandDims|Concat\w*|Split\w*|Slice|StridedSlice\w*|Gather\w*|Scatter\w*|Pad\w*|MirrorPad|Tile|Fill|Pack|Unpack|ReadVariableOp|AssignVariableOp|Const|ZerosLike|OnesLike|broadcast_in_dim|reshape|transpose|concatenate|dynamic_slice|dynamic_update_slice|slice|gather|scatter\w*|pad|convert_element_type|squeeze|expand_dims)$/;

// The category of an op type: 'idle', 'input' (tf.data, infeed),
// 'communication' (collectives, send/receive), 'memory' (copies and data
// movement) or 'compute'. This is profview's grouping of framework op
// types; the reference's op categories exist only for XLA ops.
export function opCategory(type) {
    if (type === 'IDLE')
        return 'idle';
    if (INPUT_TYPES.test(type))
        return 'input';
    if (COMMUNICATION_TYPES.test(type))
        return 'communication';
    if (MEMORY_TYPES.test(type))
        return 'memory';
    return 'compute';
}

// The columns that hold a share as a fraction of 1 (0.952 for 95.2 %):
// the '..._percent' ones and the Tensor Core utilization.
export function isFractionColumn(id) {
    return /_percent$/.test(id) || id === 'gpu_tensorcore_utilization';
}

// A copy of dt with its fraction columns as percentages (0.952 -> 95.2),
// so the table, its sorting and its CSV all read in percent as their
// labels say. The label of a fraction column without '%' in it gains
// ' (%)'.
export function asPercentages(dt) {
    const cols = dt.cols || [];
    const which = cols.map((c) => isFractionColumn(c.id || ''));
    if (!which.some(Boolean))
        return dt;
    const scale = (cell) => (cell && typeof cell.v === 'number'
        ? { ...cell, v: Math.round(cell.v * 1e6) / 1e4 } : cell);
    return {
        ...dt,
        cols: cols.map((c, i) => (which[i] && !/%/.test(c.label || '')
            ? { ...c, label: `${c.label} (%)` } : c)),
        rows: (dt.rows || []).map((r) => ({ ...r, c: (r.c || []).map((cell, i) =>
            (which[i] ? scale(cell) : cell)) })),
    };
}

// A DataTable with only the rows of one side ('Device' or 'Host').
export function sideTable(dt, side) {
    const col = (dt.cols || []).findIndex((c) => c.id === 'host_or_device');
    return { ...dt, rows: (dt.rows || []).filter((r) => r.c[col] && r.c[col].v === side) };
}

// Ops grouped by type: [{type, category, ops, occurrences, totalUs, selfUs,
// share}], most self time first; share is of the side's self time.
export function groupByType(rows) {
    const by = new Map();
    let all = 0;
    for (const r of rows) {
        const t = String(r.type);
        let g = by.get(t);
        if (!g) {
            g = { type: t, category: opCategory(t), ops: 0, occurrences: 0, totalUs: 0,
                  selfUs: 0, share: 0 };
            by.set(t, g);
        }
        g.ops += 1;
        g.occurrences += Number(r.occurrences) || 0;
        g.totalUs += Number(r.total_time) || 0;
        g.selfUs += Number(r.total_self_time) || 0;
        all += Number(r.total_self_time) || 0;
    }
    const out = [...by.values()].sort((a, b) => b.selfUs - a.selfUs || a.type.localeCompare(b.type));
    out.forEach((g) => { g.share = all > 0 ? g.selfUs / all : 0; });
    return out;
}

// Self time per category: {compute, memory, communication, input, idle}.
export function byCategory(groups) {
    const out = { compute: 0, memory: 0, communication: 0, input: 0, idle: 0 };
    for (const g of groups)
        out[g.category] += g.selfUs;
    return out;
}

// A DataTable of the type groups, for the shared table widget.
export function typeTable(groups) {
    const cols = [['type', 'string', 'Operation Type'], ['category', 'string', 'Category'],
                  ['ops', 'number', 'Ops'], ['occurrences', 'number', '#Occurrences'],
                  ['total_time', 'number', 'Total time (us)'],
                  ['total_self_time', 'number', 'Total self-time (us)'],
                  ['share', 'number', 'Share of self-time (%)']];
    return {
        cols: cols.map(([id, type, label]) => ({ id, type, label })),
        rows: groups.map((g) => ({ c: [{ v: g.type }, { v: g.category }, { v: g.ops },
            { v: g.occurrences }, { v: g.totalUs }, { v: g.selfUs },
            { v: g.share * 100 }] })),
    };
}

// ---- page ------------------------------------------------------------------------

const CATEGORY_COLORS = { compute: '#0072b2', memory: '#e69f00', communication: '#cc79a7',
                          input: '#009e73', idle: '#999999' };

// The bars of the top chart: the op types with the most self time.
function typeBars(groups, side) {
    return groups.slice(0, TOP_TYPES).map((g) => ({
        label: g.type, us: g.selfUs, color: CATEGORY_COLORS[g.category],
        note: `(${formatPercent(g.share)} of ${side} self time, ${g.category})` }));
}

// The slices of the category chart: the categories with time.
function categorySlices(groups) {
    const cats = byCategory(groups);
    return Object.keys(cats).filter((k) => cats[k] > 0)
        .map((k) => ({ label: k, us: cats[k], color: CATEGORY_COLORS[k] }));
}

function sideSection(inst, el, state, dt, side, emptyText) {
    const sub = asPercentages(sideTable(dt, side));
    const rows = rowObjects(sub);
    const selfUs = rows.reduce((s, r) => s + (Number(r.total_self_time) || 0), 0);
    const section = h('section', { class: 'table-section' },
        h('h3', { text: `${side} ops` }));
    el.append(section);
    if (rows.length === 0) {
        section.append(h('p', { class: 'message', text: emptyText }));
        return;
    }
    section.append(h('p', { class: 'ks-summary', text: `${formatCount(rows.length)} rows, ` +
        `${formatDurationUs(selfUs)} of self time.` }));
    const groups = groupByType(rows);
    const typeCanvas = h('canvas', { 'aria-label': `${side} self time by op type` });
    const catCanvas = h('canvas', { 'aria-label': `${side} self time by category` });
    section.append(h('div', { class: 'ks-charts' },
        h('figure', { class: 'ks-chart' },
            h('figcaption', { text: `${side}: self time by op type (top ${TOP_TYPES})` }),
            h('div', { class: 'ks-chart-box' }, typeCanvas)),
        h('figure', { class: 'ks-chart' },
            h('figcaption', { text: `${side}: self time by category` }),
            h('div', { class: 'ks-chart-box ks-chart-small' }, catCanvas),
            h('p', { class: 'hint', text: 'Categories group op types: compute, memory ' +
                '(copies, data movement), communication (collectives, send/receive), ' +
                'input (tf.data, infeed).' }))));
    const top = topTimeChart(typeCanvas, 'Self time (µs)');
    const cats = shareChart(catCanvas);
    inst.charts.push(top, cats);
    top.draw(typeBars(groups, side.toLowerCase())).catch(() => {});
    cats.draw(categorySlices(groups)).catch(() => {});
    const name = `framework_op_stats_${state.run}_${state.host || ''}_${side.toLowerCase()}`;
    const key = side === 'Device' ? 'dev' : 'host';
    inst.tables.push(createTable(section, sub, {
        name,
        filterColumns: ['operation', 'type', 'input_shape', 'call_stack'],
        filterLabel: 'Filter op names and types',
        regexToggle: true,
        url: tableUrl(state, key),
    }));
    const byType = h('details', { class: 'table-section' },
        h('summary', { text: `${side} ops grouped by type (${groups.length} types)` }));
    section.append(byType);
    inst.tables.push(createTable(byType, typeTable(groups), {
        name: `${name}_by_type`,
        filterColumns: ['type', 'category'],
        filterLabel: 'Filter types and categories',
        regexToggle: true,
        url: tableUrl(state, `${key}types`),
    }));
}

// PyTorch's groupings the trace has data for: [URL value, label, property].
const GROUPS = [['input_shape', 'operator and input shape', 'pv_has_input_shapes'],
                ['call_stack', 'operator and call stack', 'pv_has_call_stacks']];

// The request's parameters: the grouping the URL asks for (group=).
function requestParams(state) {
    const group = state.params.group;
    return GROUPS.some((g) => g[0] === group) ? { group_by: group } : {};
}

// "Rows per ..." for a PyTorch trace with shapes or stacks; null otherwise.
function groupPicker(state, inst, props) {
    const have = GROUPS.filter((g) => props[g[2]] === '1');
    if (!have.length)
        return null;
    const select = h('select', { 'aria-label': 'Rows per' },
        h('option', { value: '', text: 'operator' }),
        have.map(([value, label]) => h('option', { value, text: label })));
    select.value = router.getParams().group || '';
    select.addEventListener('change', () => {
        router.setParams({ group: select.value || undefined }, { replace: false });
        inst.reload({ ...state, params: router.getParams() });
    });
    return h('label', {}, 'Rows per ', select);
}

function render(el, state, inst, data) {
    clear(el);
    const withIdle = router.getParams().idle === '1';
    const idleBox = h('input', { type: 'checkbox' });
    idleBox.checked = withIdle;
    idleBox.addEventListener('change', () => {
        router.setParams({ idle: idleBox.checked ? '1' : undefined }, { replace: false });
        inst.destroyParts();
        render(el, state, inst, data);
    });
    el.append(viewHead(state, 'Framework op stats'));
    const tables = Array.isArray(data) ? data : [];
    const dt = tables[withIdle ? 0 : 1];
    if (!isDataTable(dt)) {
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'No framework op statistics in this profile.' })));
        return;
    }
    const props = dt.p || {};
    el.append(h('div', { class: 'ks-controls' },
        h('label', {}, idleBox, ' Include IDLE time'),
        groupPicker(state, inst, props),
        props.task_type ? h('span', { class: 'hint', text: `Task: ${props.task_type}` }) : null));
    sideSection(inst, el, state, dt, 'Device',
        'No device ops: profview counts device ops from the GPU kernels that name a framework ' +
        'op and from the XLA ops of GPU and TPU devices, and this profile has none. A ' +
        'CPU-only profile has no device; a GPU profile without them was taken with the ' +
        'device tracer off.');
    sideSection(inst, el, state, dt, 'Host',
        'No host ops were recorded: the host tracer writes framework ops at ' +
        'host_tracer_level 2 or higher.');
}

export const { mount, unmount } = dataPage({
    label: 'Loading framework op stats…', stylesheets: ['kernel_stats'], params: requestParams,
    render });
