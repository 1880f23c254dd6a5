// table.js: shows a DataTable JSON (FORMATS.md §4.0, the Google-Charts
// shape every table-like tool returns) as a sortable, filterable, paged
// table with CSV export.
//
//   const t = createTable(el, dataTable, { name: 'kernel_stats' });
//   ...
//   t.destroy();
//
// The model functions (tableModel, filterRows, sortRows, toCsv) are pure and
// tested under node; createTable is the DOM part.

import { h, downloadText } from './dom.js';

const PAGE_SIZES = [25, 50, 100, 500];
const NUMBER_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

// ---- model (pure) ----------------------------------------------------------

// True for {"cols": [...], "rows": [...]} (rows may be absent when empty),
// or the compact {"cols": [...], "columns": [[values of column 0], ...]}.
export function isDataTable(x) {
    return x !== null && typeof x === 'object' && !Array.isArray(x) && Array.isArray(x.cols);
}

function cellText(v, f, type) {
    if (f !== undefined && f !== null)
        return String(f);
    if (v === null || v === undefined)
        return '';
    if (type === 'number' && typeof v === 'number')
        return NUMBER_FORMAT.format(v);
    return String(v);
}

// Turns a DataTable into {cols: [{id, label, type}], rows: [[{v, text}]],
// props}. Columns with a Google-Charts role (tooltip, annotation, style) are
// chart decoration, not data, and are left out. A column's p.pv_missing
// (text) is shown for its empty cells. The compact column form (see
// isDataTable) gives the same model.
export function tableModel(dt) {
    const keep = [];
    const cols = [];
    (dt.cols || []).forEach((c, i) => {
        if (c && c.p && c.p.role)
            return;
        keep.push(i);
        cols.push({ id: c.id || `col${i}`, label: c.label || c.id || `Column ${i + 1}`,
                    type: c.type || 'string', missing: (c.p && c.p.pv_missing) || '' });
    });
    let rows;
    if (Array.isArray(dt.columns)) {
        const data = keep.map((i) => dt.columns[i] || []);
        const n = data.length > 0 ? data[0].length : 0;
        rows = new Array(n);
        for (let ri = 0; ri < n; ri++) {
            const row = data.map((d, j) => new Cell(d[ri] === undefined ? null : d[ri],
                                                    undefined, cols[j]));
            row.index = ri;
            rows[ri] = row;
        }
    } else {
        rows = (dt.rows || []).map((r, ri) => {
            const cells = (r && r.c) || [];
            const row = keep.map((i, j) => {
                const cell = cells[i];
                return new Cell(cell && cell.v !== undefined ? cell.v : null,
                                cell ? cell.f : undefined, cols[j]);
            });
            row.index = ri;  // position in dt.rows, kept through filter and sort
            return row;
        });
    }
    return { cols, rows, props: dt.p || {} };
}

// A model cell: v is the value; text, the shown text, is formatted on first
// use, so a 100,000-row table formats only what is shown or searched.
class Cell {
    constructor(v, f, col) {
        this.v = v;
        this.f = f;
        this.col = col;
        this.shown = undefined;
    }

    get text() {
        if (this.shown === undefined) {
            this.shown = this.v === null && (this.f === undefined || this.f === null)
                ? this.col.missing : cellText(this.v, this.f, this.col.type);
        }
        return this.shown;
    }
}

// Rows whose text, in any column, contains query (case-insensitive).
// opts.cols (column indices) limits the search to those columns; with
// opts.regex the query is a regular expression (case-insensitive), and an
// invalid one matches nothing (the widget says so).
export function filterRows(rows, query, opts = {}) {
    const q = opts.regex ? query.trim() : query.trim().toLowerCase();
    if (q === '')
        return rows;
    const cols = opts.cols;
    let match;
    if (opts.regex) {
        let re;
        try {
            re = new RegExp(q, 'i');
        } catch (e) {
            return [];
        }
        match = (c) => re.test(c.text);
    } else {
        match = (c) => c.text.toLowerCase().includes(q);
    }
    if (!cols)
        return rows.filter((r) => r.some(match));
    return rows.filter((r) => cols.some((i) => match(r[i])));
}

// True when query is usable as a regular expression.
export function isValidRegex(query) {
    try {
        new RegExp(query);
        return true;
    } catch (e) {
        return false;
    }
}

function compareValues(a, b) {
    if (typeof a === 'number' && typeof b === 'number')
        return a - b;
    if (typeof a === 'boolean' && typeof b === 'boolean')
        return Number(a) - Number(b);
    return String(a).localeCompare(String(b), 'en', { numeric: true });
}

// A sorted copy of rows by column col, dir 'asc' or 'desc'. Empty cells go
// last either way; ties keep their order (Array.prototype.sort is stable).
export function sortRows(rows, col, dir) {
    const sign = dir === 'desc' ? -1 : 1;
    return rows.slice().sort((ra, rb) => {
        const a = ra[col].v;
        const b = rb[col].v;
        const aNone = a === null || a === '';
        const bNone = b === null || b === '';
        if (aNone || bNone)
            return Number(aNone) - Number(bNone);
        return sign * compareValues(a, b);
    });
}

// RFC 4180 quoting. A text cell starting with '=', '+' or '@' gets a leading
// apostrophe so a spreadsheet shows it instead of running it as a formula.
function csvField(cell) {
    let s;
    if (typeof cell.v === 'number' || typeof cell.v === 'boolean')
        s = String(cell.v);
    else
        s = cell.v === null ? '' : String(cell.v);
    if (/^[=+@]/.test(s))
        s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// CSV text (header line of labels, then one line per row, CRLF endings).
// Numbers are written raw (full precision), not as displayed.
export function toCsv(cols, rows) {
    const lines = [cols.map((c) => csvField({ v: c.label })).join(',')];
    for (const r of rows)
        lines.push(r.map(csvField).join(','));
    return lines.join('\r\n') + '\r\n';
}

// ---- widget ------------------------------------------------------------------

// Text this long wraps anywhere (op names are long paths without spaces),
// but its column keeps a readable width instead of shrinking to a sliver.
const LONG_TEXT_CHARS = 24;

function cellClass(col, cell) {
    if (col.type === 'number')
        return 'num';
    return cell.text.length > LONG_TEXT_CHARS ? 'long' : null;
}

// Renders dt into el and returns {destroy(), model} (model: tableModel(dt)).
// opts: {name (CSV file name stem), pageSize, caption,
// onRowClick(index) (optional: rows become clickable and keyboard-focusable;
// index is the row's position in dt.rows), filterColumns (column ids the
// filter searches; all when absent), filterLabel (its placeholder),
// regexToggle (adds a "Regex" checkbox), sort ({col: id, dir}: the initial
// order), onViewChange(rows) (called with the filtered, sorted model rows
// after each change)}.
export function createTable(el, dt, opts = {}) {
    const model = tableModel(dt);
    const st = { query: '', regex: false, sortCol: -1, sortDir: 'asc', page: 0,
                 pageSize: opts.pageSize || PAGE_SIZES[1] };
    let view = model.rows;
    const filterCols = opts.filterColumns
        ? model.cols.map((c, i) => (opts.filterColumns.includes(c.id) ? i : -1))
            .filter((i) => i >= 0)
        : null;

    const filterLabel = opts.filterLabel || 'Filter rows';
    const filter = h('input', { type: 'search', class: 'table-filter', placeholder: filterLabel,
                                'aria-label': filterLabel });
    const regexBox = h('input', { type: 'checkbox', 'aria-label': 'Filter is a regular expression' });
    const regexLabel = opts.regexToggle
        ? h('label', { class: 'table-regex' }, regexBox, ' Regex') : null;
    const sizeSel = h('select', { 'aria-label': 'Rows per page' },
        PAGE_SIZES.map((n) => h('option', { value: String(n), text: `${n} rows` })));
    sizeSel.value = String(st.pageSize);
    const csvBtn = h('button', { type: 'button', text: 'Export CSV' });
    const prev = h('button', { type: 'button', text: '‹ Prev', 'aria-label': 'Previous page' });
    const next = h('button', { type: 'button', text: 'Next ›', 'aria-label': 'Next page' });
    const info = h('span', { class: 'table-info', 'aria-live': 'polite' });
    const headRow = h('tr');
    const body = h('tbody');
    const table = h('table', { class: 'data-table' },
        opts.caption ? h('caption', { text: opts.caption }) : null,
        h('thead', {}, headRow), body);
    const root = h('div', { class: 'table-widget' },
        h('div', { class: 'table-toolbar' }, filter, regexLabel, sizeSel, csvBtn),
        h('div', { class: 'table-scroll' }, table),
        h('div', { class: 'table-pager' }, prev, info, next));

    const headers = model.cols.map((c, i) => {
        const btn = h('button', { type: 'button', class: 'sort', text: c.label,
                                  on: { click: () => sortBy(i) } });
        const th = h('th', { scope: 'col', class: c.type === 'number' ? 'num' : null }, btn);
        headRow.append(th);
        return th;
    });

    function rowProps(r) {
        if (!opts.onRowClick)
            return {};
        return { class: 'clickable', tabindex: '0', on: {
            click: () => opts.onRowClick(r.index),
            keydown: (e) => {
                if (e.key === 'Enter')
                    opts.onRowClick(r.index);
            },
        } };
    }

    function recompute() {
        view = filterRows(model.rows, st.query, { cols: filterCols, regex: st.regex });
        if (st.sortCol >= 0)
            view = sortRows(view, st.sortCol, st.sortDir);
        filter.classList.toggle('invalid', st.regex && !isValidRegex(st.query.trim()));
        if (opts.onViewChange)
            opts.onViewChange(view);
    }

    function render() {
        const pages = Math.max(1, Math.ceil(view.length / st.pageSize));
        st.page = Math.min(st.page, pages - 1);
        const start = st.page * st.pageSize;
        const slice = view.slice(start, start + st.pageSize);
        body.replaceChildren(...slice.map((r) => h('tr', rowProps(r),
            r.map((c, i) => h('td', { class: cellClass(model.cols[i], c), text: c.text })))));
        if (slice.length === 0) {
            body.append(h('tr', {}, h('td', { colspan: String(Math.max(1, model.cols.length)),
                                              class: 'empty', text: 'No rows' })));
        }
        headers.forEach((th, i) => {
            if (i === st.sortCol)
                th.setAttribute('aria-sort', st.sortDir === 'asc' ? 'ascending' : 'descending');
            else
                th.removeAttribute('aria-sort');
        });
        const shown = view.length === 0 ? '0' : `${start + 1}–${start + slice.length}`;
        const of = view.length === model.rows.length
            ? `${view.length}` : `${view.length} (filtered from ${model.rows.length})`;
        info.textContent = `Rows ${shown} of ${of} · page ${st.page + 1}/${pages}`;
        prev.disabled = st.page === 0;
        next.disabled = st.page >= pages - 1;
    }

    function sortBy(i) {
        // First click sorts numbers largest-first (what a profile reader
        // wants: the most expensive op on top) and text A–Z.
        if (st.sortCol === i)
            st.sortDir = st.sortDir === 'asc' ? 'desc' : 'asc';
        else
            st.sortDir = model.cols[i].type === 'number' ? 'desc' : 'asc';
        st.sortCol = i;
        st.page = 0;  // the new top rows are what the click asked to see
        recompute();
        render();
    }

    // Typing into a 100,000-row table re-filters once per pause, not per key.
    let filterTimer = null;
    const apply = () => {
        st.query = filter.value;
        st.regex = regexBox.checked;
        st.page = 0;
        recompute();
        render();
    };
    const refilter = () => {
        clearTimeout(filterTimer);
        if (model.rows.length > 5000)
            filterTimer = setTimeout(apply, 150);
        else
            apply();
    };
    filter.addEventListener('input', refilter);
    regexBox.addEventListener('change', refilter);
    sizeSel.addEventListener('change', () => {
        st.pageSize = Number(sizeSel.value);
        st.page = 0;
        render();
    });
    prev.addEventListener('click', () => { st.page -= 1; render(); });
    next.addEventListener('click', () => { st.page += 1; render(); });
    csvBtn.addEventListener('click', () => {
        downloadText(`${opts.name || 'table'}.csv`, toCsv(model.cols, view), 'text/csv');
    });

    if (opts.sort) {
        const i = model.cols.findIndex((c) => c.id === opts.sort.col);
        if (i >= 0) {
            st.sortCol = i;
            st.sortDir = opts.sort.dir === 'asc' ? 'asc' : 'desc';
        }
    }
    if (st.sortCol >= 0 || opts.onViewChange)
        recompute();
    render();
    el.append(root);
    return { model, destroy: () => { clearTimeout(filterTimer); root.remove(); } };
}

