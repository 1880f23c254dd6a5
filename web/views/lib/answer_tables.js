// answer_tables.js: a tool's answer shown as it is — its DataTables as
// tables (sort, filter, paging, CSV) with their properties, anything else as
// indented JSON. The page of a tool that has no page of its own, and what a
// page shows for an answer of a layout it does not read.

import { h } from '../../dom.js';
import { createTable, isDataTable, tableUrl } from '../../table.js';
import { viewHead } from './view_head.js';

// Shown JSON is cut here: a multi-megabyte <pre> freezes the page, and the
// full answer is one click away through the raw-data link.
const JSON_SHOW_CHARS = 200000;

// The DataTables of an answer (one, or an array of them and empty
// objects), or null when it is not made of tables.
export function answerTables(data) {
    if (isDataTable(data))
        return [data];
    if (Array.isArray(data) && data.length > 0 &&
        data.every((t) => isDataTable(t) || (t && Object.keys(t).length === 0)))
        return data;
    return null;
}

function jsonBlock(el, data) {
    const text = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
    const cut = text.length > JSON_SHOW_CHARS;
    el.append(h('pre', { class: 'json', tabindex: '0', 'aria-label': 'Tool data as JSON' },
                cut ? text.slice(0, JSON_SHOW_CHARS) : text));
    if (cut) {
        el.append(h('p', { class: 'hint',
            text: `Showing the first ${JSON_SHOW_CHARS} of ${text.length} characters.` }));
    }
}

// Appends a section per table to el; the tables go to inst.tables. Their
// state is kept in the URL under t1, t2, ...
export function tableSections(el, tables, state, inst) {
    tables.forEach((t, i) => {
        const props = t && t.p ? Object.entries(t.p) : [];
        const section = h('section', { class: 'table-section' },
            tables.length > 1 ? h('h3', { text: `Table ${i + 1} of ${tables.length}` }) : null,
            props.length ? h('dl', { class: 'props' }, props.map(([k, v]) =>
                [h('dt', { text: k }), h('dd', { text: String(v) })])) : null);
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

// Appends the page of an answer to el: the tool's title, a link to the raw
// answer, and the answer as tables or JSON.
export function showAnswer(el, state, inst, data) {
    const body = h('div', { class: 'view-body' });
    el.append(viewHead(state, state.title || state.tool), body);
    const tables = answerTables(data);
    if (tables)
        tableSections(body, tables, state, inst);
    else
        jsonBlock(body, data);
}
