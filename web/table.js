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
import { getParams } from './router.js';

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
// invalid one matches nothing (the widget shows every row then and says
// why: regexError).
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
    return regexError(query) === null;
}

// Why query is not a regular expression, in the browser's words, or null
// when it is one.
export function regexError(query) {
    try {
        new RegExp(query, 'i');
        return null;
    } catch (e) {
        return e.message;
    }
}

// A copy of dt with the columns named in ids first, in that order, and
// the others after them in their own order (both DataTable forms). Ids
// the table lacks are skipped.
export function reorderColumns(dt, ids) {
    const cols = dt.cols || [];
    const first = ids.map((id) => cols.findIndex((c) => c.id === id)).filter((i) => i >= 0);
    const order = first.concat(cols.map((_, i) => i).filter((i) => !first.includes(i)));
    const out = { ...dt, cols: order.map((i) => cols[i]) };
    if (Array.isArray(dt.columns))
        out.columns = order.map((i) => dt.columns[i]);
    else
        out.rows = (dt.rows || []).map((r) => ({ ...r, c: order.map((i) => (r.c || [])[i]) }));
    return out;
}

// ---- table state in the URL ----------------------------------------------------
//
// A table remembers its filter, regex switch, sort, page and page size in
// the URL's tool state, under keys that start with its own prefix
// ('<key>_q', '<key>_re', '<key>_sort' as '<column id>:asc|desc',
// '<key>_page' counted from 1, '<key>_rows'), so a copied link reopens the
// same rows in the same order. Values left at their defaults are left out.

// The state params names: {query, regex, sort: {col, dir} | null, page
// (from 0), pageSize (null: the default)}. Unusable values read as absent.
export function readTableState(params, key) {
    const get = (k) => (params || {})[`${key}_${k}`];
    const m = /^(.+):(asc|desc)$/.exec(get('sort') || '');
    const page = Number(get('page'));
    const size = Number(get('rows'));
    return {
        query: get('q') || '',
        regex: get('re') === '1',
        sort: m ? { col: m[1], dir: m[2] } : null,
        page: Number.isInteger(page) && page >= 1 ? page - 1 : 0,
        pageSize: PAGE_SIZES.includes(size) ? size : null,
    };
}

// The url option of createTable for a table of the view whose state is
// state, kept under key: the URL's params as they are now (a view that
// redraws without remounting has older ones in state.params).
export function tableUrl(state, key) {
    return { key, params: getParams(), setParams: (p) => state.setParams(p) };
}

// The params for a table state (readTableState's shape, sort by column
// id); defaults are undefined, which removes them from the URL.
export function tableStateParams(key, st, defaultPageSize = PAGE_SIZES[1]) {
    return {
        [`${key}_q`]: st.query ? st.query : undefined,
        [`${key}_re`]: st.regex ? '1' : undefined,
        [`${key}_sort`]: st.sort ? `${st.sort.col}:${st.sort.dir}` : undefined,
        [`${key}_page`]: st.page > 0 ? String(st.page + 1) : undefined,
        [`${key}_rows`]: st.pageSize && st.pageSize !== defaultPageSize
            ? String(st.pageSize) : undefined,
    };
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

// Text this long gets a readable minimum width instead of shrinking to a
// sliver, and wraps only where a name has a joint (see breakable).
const LONG_TEXT_CHARS = 24;

// A piece of a name longer than this may also wrap after its underscores.
const LONG_PIECE_CHARS = 20;

// Where a long name may wrap: after a path separator, a scope ('::') or a
// comma, and before an opening bracket, so that "RandomUniform/mul" never
// wraps as "RandomUnifor" / "m/mul"; after an underscore only inside a
// piece too long for a narrow column ("conv2d_grouped_direct_kernel",
// AMD's "Cijk_Ailk_Bljk_..."), or an op path would break at every "_" of
// "bert_encoder_1". Returns the pieces between those points (joined, they
// give text back).
export function nameSegments(text) {
    const out = [];
    let last = 0;
    const cut = (piece) => {
        if (piece.length <= LONG_PIECE_CHARS) {
            out.push(piece);
            return;
        }
        let from = 0;
        for (let i = 1; i < piece.length; i++) {
            if (piece[i - 1] === '_') {
                out.push(piece.slice(from, i));
                from = i;
            }
        }
        out.push(piece.slice(from));
    };
    for (let i = 1; i < text.length; i++) {
        const prev = text[i - 1];
        const c = text[i];
        const after = prev === '/' || prev === ',' ||
            (prev === ':' && text[i - 2] === ':' && c !== ':');
        const before = c === '(' || c === '<' || c === '[';
        if (after || before) {
            cut(text.slice(last, i));
            last = i;
        }
    }
    cut(text.slice(last));
    return out;
}

// nameSegments as children for h(), with <wbr> at each point.
export function breakableText(text) {
    const segs = nameSegments(text);
    const out = [];
    segs.forEach((seg, i) => {
        if (i > 0)
            out.push(h('wbr'));
        out.push(seg);
    });
    return out;
}

function cellClass(col, cell) {
    if (col.type === 'number')
        return 'num';
    return cell.text.length > LONG_TEXT_CHARS ? 'long' : null;
}

// The cell's content: a column's display(v) may give a shorter text (the
// full one is then the cell's tooltip); long names get wrap points.
function cellContent(col, cell, display) {
    const shown = display ? display(cell.v, cell) : null;
    if (shown !== null && shown !== undefined && shown !== cell.text)
        return { title: cell.text, children: breakableText(String(shown)) };
    if (col.type === 'number' || cell.text.length <= LONG_TEXT_CHARS)
        return { children: [cell.text] };
    return { children: breakableText(cell.text) };
}

// Renders dt into el and returns {destroy(), model} (model: tableModel(dt)).
// opts: {name (CSV file name stem), pageSize, caption,
// onRowClick(index) (optional: rows become clickable and keyboard-focusable;
// index is the row's position in dt.rows), filterColumns (column ids the
// filter searches; all when absent), filterLabel (its placeholder),
// regexToggle (adds a "Regex" checkbox), sort ({col: id, dir}: the initial
// order), onViewChange(rows) (called with the filtered, sorted model rows
// after each change), display ({column id: (v, cell) -> text}: what a cell
// shows instead of its text, which becomes its tooltip; the filter and the
// CSV still use the full text), url ({key, params, setParams(p)}: keep the
// filter, sort and page in the URL under key, see readTableState)}.
export function createTable(el, dt, opts = {}) {
    const model = tableModel(dt);
    const defaultSize = opts.pageSize || PAGE_SIZES[1];
    const st = { query: '', regex: false, sortCol: -1, sortDir: 'asc', page: 0,
                 pageSize: defaultSize };
    let view = model.rows;
    const filterCols = opts.filterColumns
        ? model.cols.map((c, i) => (opts.filterColumns.includes(c.id) ? i : -1))
            .filter((i) => i >= 0)
        : null;
    const display = model.cols.map((c) => (opts.display || {})[c.id]);

    const filterLabel = opts.filterLabel || 'Filter rows';
    const filter = h('input', { type: 'search', class: 'table-filter', placeholder: filterLabel,
                                'aria-label': filterLabel });
    const regexBox = h('input', { type: 'checkbox', 'aria-label': 'Filter is a regular expression' });
    const regexLabel = opts.regexToggle
        ? h('label', { class: 'table-regex' }, regexBox, ' Regex') : null;
    const sizeSel = h('select', { 'aria-label': 'Rows per page' },
        PAGE_SIZES.map((n) => h('option', { value: String(n), text: `${n} rows` })));
    const csvBtn = h('button', { type: 'button', text: 'Export CSV' });
    const prev = h('button', { type: 'button', text: '‹ Prev', 'aria-label': 'Previous page' });
    const next = h('button', { type: 'button', text: 'Next ›', 'aria-label': 'Next page' });
    const info = h('span', { class: 'table-info', 'aria-live': 'polite' });
    const problem = h('span', { class: 'table-problem', role: 'alert', hidden: true });
    const headRow = h('tr');
    const body = h('tbody');
    const table = h('table', { class: 'data-table' },
        opts.caption ? h('caption', { text: opts.caption }) : null,
        h('thead', {}, headRow), body);
    const root = h('div', { class: 'table-widget' },
        h('div', { class: 'table-toolbar' }, filter, regexLabel, sizeSel, csvBtn, problem),
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

    // An expression still being typed ("volta_(") is not one yet: the
    // rows stay unfiltered and the toolbar says why.
    function recompute() {
        const bad = st.regex ? regexError(st.query.trim()) : null;
        view = filterRows(model.rows, bad ? '' : st.query, { cols: filterCols, regex: st.regex });
        if (st.sortCol >= 0)
            view = sortRows(view, st.sortCol, st.sortDir);
        filter.classList.toggle('invalid', bad !== null);
        filter.setAttribute('aria-invalid', bad !== null ? 'true' : 'false');
        problem.hidden = bad === null;
        problem.textContent = bad === null ? ''
            : `Not a regular expression (${bad}); showing every row.`;
        if (opts.onViewChange)
            opts.onViewChange(view);
    }

    function render() {
        const pages = Math.max(1, Math.ceil(view.length / st.pageSize));
        st.page = Math.min(st.page, pages - 1);
        const start = st.page * st.pageSize;
        const slice = view.slice(start, start + st.pageSize);
        body.replaceChildren(...slice.map((r) => h('tr', rowProps(r), r.map((c, i) => {
            const content = cellContent(model.cols[i], c, display[i]);
            return h('td', { class: cellClass(model.cols[i], c), title: content.title },
                     content.children);
        }))));
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

    function remember() {
        if (!opts.url)
            return;
        const sort = st.sortCol >= 0 ? { col: model.cols[st.sortCol].id, dir: st.sortDir } : null;
        opts.url.setParams(tableStateParams(opts.url.key, {
            query: st.query, regex: st.regex, sort, page: st.page, pageSize: st.pageSize,
        }, defaultSize));
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
        remember();
    }

    // Typing into a 100,000-row table re-filters once per pause, not per key.
    let filterTimer = null;
    const apply = () => {
        st.query = filter.value;
        st.regex = regexBox.checked;
        st.page = 0;
        recompute();
        render();
        remember();
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
        remember();
    });
    const turn = (by) => {
        st.page += by;
        render();
        remember();
    };
    prev.addEventListener('click', () => turn(-1));
    next.addEventListener('click', () => turn(1));
    csvBtn.addEventListener('click', () => {
        downloadText(`${opts.name || 'table'}.csv`, toCsv(model.cols, view), 'text/csv');
    });

    // The URL's state wins over the view's defaults: it is what the link
    // that opened the page showed.
    const saved = opts.url ? readTableState(opts.url.params, opts.url.key) : null;
    const sort = (saved && saved.sort) || opts.sort;
    if (sort) {
        const i = model.cols.findIndex((c) => c.id === sort.col);
        if (i >= 0) {
            st.sortCol = i;
            st.sortDir = sort.dir === 'asc' ? 'asc' : 'desc';
        }
    }
    if (saved) {
        st.query = saved.query;
        st.regex = saved.regex;
        st.page = saved.page;
        st.pageSize = saved.pageSize || defaultSize;
        filter.value = st.query;
        regexBox.checked = st.regex;
    }
    sizeSel.value = String(st.pageSize);
    if (st.sortCol >= 0 || st.query || opts.onViewChange)
        recompute();
    render();
    el.append(root);
    return { model, destroy: () => { clearTimeout(filterTimer); root.remove(); } };
}
