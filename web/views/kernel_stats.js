// kernel_stats.js: the GPU kernel statistics page. A summary line, two
// Chart.js charts (the kernels with the most total time; how the time of
// Tensor-Core-eligible ops splits between kernels that used Tensor Cores
// and kernels that did not) and the table of kernel rows (sort, filter by
// text or regular expression on kernel and op names, paging, CSV). The
// charts follow the table's filter. Kernel names are shown short (template
// arguments and parameters left out, shortKernelName), with the full name
// as the cell's tooltip and in the details of a clicked row; the
// durations come right after the names, so they are in view without
// scrolling sideways.
//
// Tool state in the URL: the table's (table.js, key 'k'), all=1 after
// "Show all", kernel=<rank> for the row whose details are open.
//
// Data: the reference's kernel_stats DataTable (FORMATS.md §4.5), asked for
// in profview's compact column form (pv_format=columns: a quarter of the
// parse time on big tables), with pv_extras=1 (pv_total_rows, pv_gpu_planes
// in the table's "p") and max_rows (the reference stops at 1000 rows;
// "Show all" asks for all). A legacy kernel_stats.pb answers in the
// reference's row form; both work.

import { h } from '../dom.js';
import { cutText, formatCount, formatDurationUs, formatPercent } from '../format.js';
import * as router from '../router.js';
import { breakableText, createTable, reorderColumns, tableUrl } from '../table.js';
import { colIndex, rowCount } from './lib/datatable.js';
import { dataPage } from './lib/page.js';
import { shareChart } from './lib/share_chart.js';
import { LABEL_CHARS, topTimeChart } from './lib/top_chart.js';
import { viewHead } from './lib/view_head.js';

const TOP_KERNELS = 10;
// A table cell's short name is cut here: a generated kernel name (AMD's
// Tensile "Cijk_Ailk_..." names) has nothing to elide and runs to a
// thousand characters; its start says which kernel it is.
const CELL_NAME_CHARS = 64;
// What a reader compares first: which kernel, for which op, how often and
// how long. The launch details follow.
const COLUMN_ORDER = ['rank', 'kernel_name', 'op_name', 'occurrences', 'total_duration_us',
                      'avg_duration_us', 'min_duration_us', 'max_duration_us'];

// ---- summaries (pure) ------------------------------------------------------------

// A demangled kernel name without what makes it long and alike: the
// return type, the parameter list and the template arguments (shown as
// '<…>'): "void cudnn::cnn::wgrad_alg0_engine<float, 512, 6>(int, float*)"
// -> "cudnn::cnn::wgrad_alg0_engine<…>". "(anonymous namespace)" is kept;
// a name that is not C++ comes back as it is.
export function shortKernelName(name) {
    const s = String(name ?? '').trim().replace(/^void\s+/, '');
    const ANON = '(anonymous namespace)';
    let out = '';
    let depth = 0;
    for (let i = 0; i < s.length; i++) {
        const c = s[i];
        if (s.startsWith(ANON, i)) {
            if (depth === 0)
                out += ANON;
            i += ANON.length - 1;
        } else if (c === '<') {
            if (depth === 0)
                out += '<…>';
            depth += 1;
        } else if (c === '>' && depth > 0) {
            depth -= 1;
        } else if (depth === 0) {
            if (c === '(')
                break;
            out += c;
        }
    }
    return out.trim() || s;
}

// The n rows with the most total time, as [{name, op, us, rank, grid,
// block}], largest first. Rows of the same kernel name under different
// launch configurations stay apart, as in the table.
export function topKernels(cols, rows, n) {
    const at = (r, id) => {
        const i = colIndex(cols, id);
        return i >= 0 ? r[i].v : null;
    };
    return rows.map((r) => ({ name: String(at(r, 'kernel_name')), op: String(at(r, 'op_name') || ''),
                              us: Number(at(r, 'total_duration_us')) || 0, rank: at(r, 'rank'),
                              grid: at(r, 'grid_dim'), block: at(r, 'block_dim') }))
        .sort((a, b) => b.us - a.us)
        .slice(0, n);
}

// What tells the ops of a group of rows apart: the parts of each path
// where the paths differ, and its last part (the op itself), with '…' for
// the parts left out: "r_4/bert/layer_17/drop/Rand" and
// "r_6/bert/layer_22/drop/Rand" -> "r_4/…/layer_17/…/Rand" and
// "r_6/…/layer_22/…/Rand".
export function opDifferences(ops) {
    const parts = ops.map((op) => String(op || '').split('/'));
    const same = (i) => parts.every((p) => p[i] === parts[0][i]);
    return parts.map((p) => {
        const out = [];
        let skipped = false;
        p.forEach((x, i) => {
            if (i === p.length - 1 || !same(i)) {
                if (skipped && out.length > 0)
                    out.push('…');
                out.push(x);
                skipped = false;
            } else {
                skipped = true;
            }
        });
        return out.join('/');
    });
}

// Chart labels for topKernels' rows that tell every bar apart: the short
// kernel name, and under it, for names that repeat, what differs (the op,
// then the launch shape, then the rank). A label of two lines is an array.
export function kernelLabels(top) {
    const first = top.map((k) => cutText(shortKernelName(k.name), LABEL_CHARS));
    const second = top.map(() => null);
    const groups = new Map();
    first.forEach((name, i) => groups.set(name, [...(groups.get(name) || []), i]));
    for (const members of groups.values()) {
        if (members.length < 2)
            continue;
        const ops = opDifferences(members.map((i) => top[i].op));
        const tries = [
            (i, j) => cutText(ops[j], LABEL_CHARS),
            (i) => `grid ${top[i].grid} · block ${top[i].block}`,
            (i) => `rank ${top[i].rank}`,
        ];
        for (const make of tries) {
            const texts = members.map((i, j) => make(i, j));
            members.forEach((i, j) => { second[i] = texts[j]; });
            if (new Set(texts).size === texts.length)
                break;
        }
    }
    return top.map((_, i) => (second[i] ? [first[i], second[i]] : first[i]));
}

// Time of kernels whose op is Tensor-Core eligible, split by whether the
// kernel used Tensor Cores, and all kernel time: {tcUs, noTcUs, totalUs}.
export function tensorCoreShare(cols, rows) {
    const elig = colIndex(cols, 'is_op_tensor_core_eligible');
    const uses = colIndex(cols, 'is_kernel_using_tensor_core');
    const total = colIndex(cols, 'total_duration_us');
    const out = { tcUs: 0, noTcUs: 0, totalUs: 0 };
    for (const r of rows) {
        const us = Number(r[total].v) || 0;
        out.totalUs += us;
        if (r[elig].v !== true)
            continue;
        if (r[uses].v === true)
            out.tcUs += us;
        else
            out.noTcUs += us;
    }
    return out;
}

// Why a kernel table is empty, in words.
export function emptyReason(props) {
    const planes = Number(props && props.pv_gpu_planes);
    if (props && props.pv_gpu_planes !== undefined && planes === 0) {
        return ['No device kernels in this profile: it has no GPU device plane.',
                'Kernel statistics come from the kernels the CUDA (CUPTI) or ROCm tracer ' +
                'records on /device:GPU:N planes; CPU-only and TPU profiles have none.'];
    }
    return ['No device kernels in this profile.',
            'The GPU planes hold no kernel events with launch details (kernel_details); ' +
            'the device tracer may have been off (device_tracer_level=0) or the program ' +
            'ran nothing on the GPU while profiling.'];
}

// ---- charts -------------------------------------------------------------------

// The bars of the top chart for the table's rows (topKernels).
function topBars(cols, rows) {
    const top = topKernels(cols, rows, TOP_KERNELS);
    const labels = kernelLabels(top);
    return top.map((k, i) => ({ label: labels[i], us: k.us, title: k.name,
                                more: k.op ? `op: ${k.op}` : '' }));
}

// What the matrix units of the profile's GPUs are called: AMD's are Matrix
// Cores (props.pv_gpu_vendor, from the GPU planes), everyone else's are
// NVIDIA's Tensor Cores.
export function matrixUnit(props) {
    return props && props.pv_gpu_vendor === 'AMD' ? 'Matrix Core' : 'Tensor Core';
}

// The table's column labels in the words of matrixUnit.
export function relabelUnit(dt, unit) {
    if (unit === 'Tensor Core')
        return dt;
    const cols = (dt.cols || []).map((c) => ({
        ...c, label: String(c.label || '').replace(/Tensor ?Core/g, unit) }));
    return { ...dt, cols };
}

// The Tensor Core doughnut of the table's rows, with a note that says in
// words what it shows, or why there is none (the box is hidden then).
function tensorCoreChart(box, canvas, note, cols, unit) {
    const units = `${unit}s`;
    const chart = shareChart(canvas);
    const draw = (rows) => {
        const s = tensorCoreShare(cols, rows);
        const eligible = s.tcUs + s.noTcUs;
        note.textContent = eligible > 0
            ? `${formatPercent(eligible / s.totalUs)} of kernel time is in ops that can use ` +
              `${units}; ${formatPercent(s.tcUs / eligible)} of that ran in kernels ` +
              'that used them.'
            : `No kernel time here is in ${unit}-eligible ops (convolutions, matrix ` +
              'multiplications, two-input einsums), so there is no split to show.';
        box.hidden = eligible === 0;
        return chart.draw([{ label: `Used ${units}`, us: s.tcUs, color: '#009e73' },
                           { label: `Did not use ${units}`, us: s.noTcUs, color: '#d55e00' }]);
    };
    return { draw, destroy: () => chart.destroy() };
}

// ---- page -----------------------------------------------------------------------

// Profiles without occupancy data give 0 % for every kernel: show those
// cells as "n/a" (a kernel that ran had some occupancy). In the row form
// the value, used for sorting and CSV, stays as the server sent it; in the
// column form it becomes empty (sorted last, empty in CSV).
export function markMissingOccupancy(dt) {
    const col = (dt.cols || []).findIndex((c) => c.id === 'occupancy_pct');
    if (col < 0)
        return dt;
    if (Array.isArray(dt.columns)) {
        const vals = dt.columns[col] || [];
        for (let i = 0; i < vals.length; i++) {
            if (vals[i] === 0)
                vals[i] = null;
        }
        dt.cols[col] = { ...dt.cols[col], p: { ...(dt.cols[col].p || {}), pv_missing: 'n/a' } };
        return dt;
    }
    for (const r of dt.rows || []) {
        const cell = r.c && r.c[col];
        if (cell && cell.v === 0)
            cell.f = 'n/a';
    }
    return dt;
}

// The details of one kernel row: every column, names in full.
function showDetails(box, model, index, onClose) {
    const row = model.rows.find((r) => r.index === index);
    if (!row) {
        box.hidden = true;
        return;
    }
    const name = row[colIndex(model.cols, 'kernel_name')];
    box.replaceChildren(
        h('div', { class: 'ks-details-head' },
            h('h3', { class: 'ks-details-name' },
              breakableText(cutText(shortKernelName(name.v), CELL_NAME_CHARS))),
            h('button', { type: 'button', class: 'ks-close', text: '×',
                          'aria-label': 'Close the kernel details', on: { click: onClose } })),
        h('dl', { class: 'props' }, model.cols.map((c, i) => [
            h('dt', { text: c.label }),
            h('dd', { class: c.type === 'number' ? 'num' : 'ks-full' },
              breakableText(row[i].text))])));
    box.hidden = false;
}

// The request's parameters: profview's column form and extras, and all
// rows after "Show all" (all=1 in the URL).
function requestParams(state) {
    const p = { pv_extras: 1, pv_format: 'columns' };
    if (state.params.all === '1')
        p.max_rows = 0;
    return p;
}

function render(el, state, inst, dt) {
    markMissingOccupancy(dt);
    const props = dt.p || {};
    const unit = matrixUnit(props);
    el.append(viewHead(state, 'Kernel stats'));
    const nRows = rowCount(dt);
    if (nRows === 0) {
        const [text, hint] = emptyReason(props);
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text }), h('p', { class: 'hint', text: hint })));
        return;
    }
    const totalRows = Number(props.pv_total_rows || nRows);
    const more = totalRows > nRows;
    const summary = h('p', { class: 'ks-summary' });
    el.append(summary);

    const topCanvas = h('canvas', { 'aria-label': 'Kernels with the most total time' });
    const tcCanvas = h('canvas', { 'aria-label': `${unit} use of eligible op time` });
    const tcNote = h('p', { class: 'hint' });
    const tcBox = h('div', { class: 'ks-chart-box ks-chart-small' }, tcCanvas);
    el.append(h('div', { class: 'ks-charts' },
        h('figure', { class: 'ks-chart' },
            h('figcaption', { text: `Top ${TOP_KERNELS} kernels by total time` }),
            h('div', { class: 'ks-chart-box ks-chart-top' }, topCanvas)),
        h('figure', { class: 'ks-chart' },
            h('figcaption', { text: `${unit} use in eligible ops` }), tcBox, tcNote)));
    // The charts follow the table's rows (its filter).
    const followers = [];
    const redraw = (rows) => followers.forEach((f) => f(rows).catch((e) => {
        tcNote.textContent = `The charts could not be drawn: ${e.message}`;
    }));
    const details = h('section', { class: 'ks-details', 'aria-label': 'Kernel details',
                                   hidden: true });
    const section = h('section', { class: 'table-section ks-table' }, details);
    el.append(section);
    // The table builds the row model once; the charts and the summary read
    // it too. Its first onViewChange comes before the charts exist.
    let pending = null;
    let table = null;
    const rankCol = colIndex(dt.cols || [], 'rank');
    const open = (index, push) => {
        const row = table.model.rows.find((r) => r.index === index);
        const rank = row && rankCol >= 0 ? String(row[rankCol].v) : undefined;
        state.setParams({ kernel: rank }, { replace: !push });
        showDetails(details, table.model, index, () => {
            details.hidden = true;
            state.setParams({ kernel: undefined }, { replace: false });
        });
        if (push)
            details.scrollIntoView({ block: 'nearest' });
    };
    table = createTable(section, relabelUnit(reorderColumns(dt, COLUMN_ORDER), unit), {
        name: `kernel_stats_${state.run}_${state.host || ''}`,
        filterColumns: ['kernel_name', 'op_name'],
        filterLabel: 'Filter kernel and op names',
        regexToggle: true,
        display: { kernel_name: (v) => cutText(shortKernelName(v), CELL_NAME_CHARS) },
        onRowClick: (index) => open(index, true),
        url: tableUrl(state, 'k'),
        onViewChange: (rows) => {
            if (followers.length > 0)
                redraw(rows);
            else
                pending = rows;
        },
    });
    inst.tables.push(table);
    const model = table.model;
    const top = topTimeChart(topCanvas, 'Total time (µs)');
    const tc = tensorCoreChart(tcBox, tcCanvas, tcNote, model.cols, unit);
    inst.charts.push(top, tc);
    followers.push((rows) => top.draw(topBars(model.cols, rows)), tc.draw);
    redraw(pending || model.rows);
    const wanted = model.rows.find((r) => rankCol >= 0 && String(r[colIndex(model.cols, 'rank')].v)
                                    === state.params.kernel);
    if (wanted)
        open(wanted.index, false);

    const s = tensorCoreShare(model.cols, model.rows);
    summary.append(
        `${formatCount(nRows)} kernel rows` +
        (more ? ` (the top ${formatCount(nRows)} of ${formatCount(totalRows)} ` +
                'by total time, as TensorBoard shows)' : '') +
        `, ${formatDurationUs(s.totalUs)} of kernel time. Click a row for its full names. `,
        more ? h('button', { type: 'button', text: `Show all ${formatCount(totalRows)} rows`,
                             on: { click: () => {
                                 state.setParams({ all: '1' }, { replace: false });
                                 inst.reload({ ...state, params: router.getParams() });
                             } } }) : '');
}

export const { mount, unmount } = dataPage({
    label: 'Loading kernel stats…', stylesheets: ['kernel_stats'], params: requestParams,
    render });
