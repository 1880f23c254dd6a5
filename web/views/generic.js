// generic.js: the view for a tool that has no view of its own yet. It
// fetches the tool's data and shows it: DataTable JSON as tables (with sort,
// filter, paging and CSV), anything else as indented JSON, and an API error
// (501 for a tool not built yet, 422 for a bad file) in words.

import { toolDataUrl } from '../api.js';
import { h, clear } from '../dom.js';
import { loadToolData } from '../status.js';
import { createTable, isDataTable, tableUrl } from '../table.js';

// Shown JSON is cut here: a multi-megabyte <pre> freezes the page, and the
// full answer is one click away through the raw-data link.
const JSON_SHOW_CHARS = 200000;

let current = null;  // {controller, tables} of the mounted instance

function renderJson(el, data) {
    const text = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
    const cut = text.length > JSON_SHOW_CHARS;
    el.append(h('pre', { class: 'json', tabindex: '0', 'aria-label': 'Tool data as JSON' },
                cut ? text.slice(0, JSON_SHOW_CHARS) : text));
    if (cut) {
        el.append(h('p', { class: 'hint',
            text: `Showing the first ${JSON_SHOW_CHARS} of ${text.length} characters.` }));
    }
}

function renderTables(el, tables, state, inst) {
    tables.forEach((t, i) => {
        const props = t && t.p ? Object.entries(t.p) : [];
        const section = h('section', { class: 'table-section' },
            tables.length > 1 ? h('h3', { text: `Table ${i + 1} of ${tables.length}` }) : null,
            props.length ? h('dl', { class: 'props' },
                props.map(([k, v]) => [h('dt', { text: k }), h('dd', { text: String(v) })])) : null);
        el.append(section);
        if (!isDataTable(t)) {
            section.append(h('p', { class: 'hint', text: 'Empty table.' }));
            return;
        }
        const suffix = tables.length > 1 ? `_${i + 1}` : '';
        inst.tables.push(createTable(section, t, { name: `${state.tool}_${state.run}${suffix}`,
            url: tableUrl(state, `t${i + 1}`) }));
    });
}

export async function mount(el, state) {
    const inst = { controller: new AbortController(), tables: [] };
    current = inst;
    const signal = inst.controller.signal;
    const data = await loadToolData(el, state, {}, {
        signal, label: `Loading ${state.title || state.tool}…`,
        retry: () => { unmount(); mount(el, state); } });
    if (data === undefined)
        return;
    clear(el);
    const raw = toolDataUrl(state.run, state.tool, state.host);
    el.append(h('div', { class: 'view-head' },
        h('h2', { text: state.title || state.tool }),
        h('a', { href: raw, target: '_blank', rel: 'noopener', text: 'Raw data' })));
    const body = h('div', { class: 'view-body' });
    el.append(body);
    const tables = isDataTable(data) ? [data]
        : Array.isArray(data) && data.length > 0
          && data.every((t) => isDataTable(t) || (t && Object.keys(t).length === 0)) ? data
        : null;
    if (tables)
        renderTables(body, tables, state, inst);
    else
        renderJson(body, data);
}

export function unmount() {
    if (!current)
        return;
    current.controller.abort();
    current.tables.forEach((t) => t.destroy());
    current = null;
}
