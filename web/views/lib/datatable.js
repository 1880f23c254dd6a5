// datatable.js: reading the DataTables of tools' answers (FORMATS.md §4.0)
// the way pages need them: rows as objects, a table cut to some columns and
// rows, a column by id, a row count in either form. Pure.

// Index of the column with id in cols (a DataTable's or a table model's).
export function colIndex(cols, id) {
    return (cols || []).findIndex((c) => c.id === id);
}

// Rows in a DataTable, in its row form or its column form.
export function rowCount(dt) {
    if (Array.isArray(dt.columns))
        return dt.columns.length > 0 ? dt.columns[0].length : 0;
    return (dt.rows || []).length;
}

// Rows of a DataTable (row form) as objects keyed by column id.
export function rowObjects(dt) {
    const ids = (dt.cols || []).map((c) => c.id);
    return (dt.rows || []).map((r) => {
        const o = {};
        ids.forEach((id, i) => { o[id] = r.c[i] ? r.c[i].v : null; });
        return o;
    });
}

// A DataTable of the rows kept by keep(rowObject) and the columns named
// in ids (in that order, with labels from the table or from labels).
export function pickTable(dt, ids, keep = () => true, labels = {}) {
    const index = new Map((dt.cols || []).map((c, i) => [c.id, i]));
    const cols = ids.filter((id) => index.has(id)).map((id) => {
        const c = dt.cols[index.get(id)];
        return { ...c, label: labels[id] || c.label };
    });
    const objs = rowObjects(dt);
    const rows = [];
    (dt.rows || []).forEach((r, i) => {
        if (keep(objs[i]))
            rows.push({ c: cols.map((c) => r.c[index.get(c.id)] || { v: null }) });
    });
    return { ...dt, cols, rows };
}
