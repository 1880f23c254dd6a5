// xla.js: what the XLA pages (hlo_stats, op_profile, roofline_model,
// memory_viewer, graph_viewer) share: the "show in trace" and "show in
// graph" links to an HLO op, the text of XProf's source cells, a labelled
// picker whose choice lives in the URL, and the host's HLO modules.

import * as api from '../../api.js';
import { h } from '../../dom.js';
import * as router from '../../router.js';
import { showError } from '../../status.js';

// The stylesheets of an XLA page (pageSlot, dataPage).
export const XLA_STYLES = ['kernel_stats', 'xla'];

// ---- pure ----------------------------------------------------------------------

// The text XProf's source cell shows ("<div ... title='stack'>file:line</div>"):
// {text: 'file:line', stack: 'file:line:col\n...'}; plain text stays as is.
export function sourceText(cell) {
    const s = String(cell || '');
    const m = /^<div[^>]*title='([^']*)'[^>]*>(.*)<\/div>$/s.exec(s);
    if (!m)
        return { text: s, stack: '' };
    const un = (x) => x.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    return { text: un(m[2]), stack: un(m[1]) };
}

// Kernel names an HLO op's events may carry in a GPU trace: the op name,
// with '.' as '_' (XLA names a fusion's kernel so), either one followed
// by ".kd" (ROCm). Most specific first.
export function traceNames(op) {
    const under = op.replace(/\./g, '_');
    return [...new Set([op, under, `${op}.kd`, `${under}.kd`])];
}

// The candidates among a trace search's results for op, best first: events
// on device tracks (deviceTracks, a Set of track ids) named as the op's
// kernel or XLA op, in time order; then such events on the lines derived
// from them (derivedTracks: a GPU's "XLA Ops - from #N"); then such names
// anywhere.
export function traceCandidates(op, results, deviceTracks, derivedTracks = new Set()) {
    const names = new Set(traceNames(op));
    const named = results.filter((r) => names.has(r.name));
    return named.filter((r) => deviceTracks.has(r.track))
        .concat(named.filter((r) => derivedTracks.has(r.track)))
        .concat(named.filter((r) => !deviceTracks.has(r.track) && !derivedTracks.has(r.track)));
}

// True when a trace event (api/trace/event) says it ran op of program
// programId: by its stats, or on a derived XLA Ops line by its long name
// "<program>/<op>" (unknown stats do not disagree).
export function eventIsOp(ev, op, programId) {
    const s = (ev && ev.stats) || {};
    if (s.hlo_op !== undefined && String(s.hlo_op) !== op)
        return false;
    const anyProgram = programId === undefined || programId === null;
    const long = ev && typeof ev.long_name === 'string' ? ev.long_name.split('/') : null;
    if (long && long.length === 2 && long[1] === op && s.program_id === undefined)
        return anyProgram || long[0] === String(programId);
    return anyProgram || s.program_id === undefined || String(s.program_id) === String(programId);
}

// A window of the trace around an event: the event and as much again on
// each side (at least 1 µs wide).
export function windowAround(ev) {
    const dur = Math.max(Number(ev.dur_ps) || 0, 1e6);
    const start = Number(ev.start_ps) || 0;
    return { start: Math.max(0, Math.round(start - dur)), end: Math.round(start + 2 * dur) };
}

// ---- links -----------------------------------------------------------------------

// Events whose stats are read to find the op's own program among
// same-named ops of other programs.
const EVENTS_CHECKED = 20;

// Opens the trace viewer at the first event of HLO op `op` of program
// programId (its XLA Ops event on a TPU, its kernel on a GPU), selected.
// Resolves to false when the trace has no such event (status then says so).
export async function openInTrace(state, op, status, programId) {
    status.textContent = `Looking for ${op} in the trace…`;
    try {
        await api.loadProfile(state.run, state.host);
        const meta = await api.traceMeta(state.run, state.host);
        const deviceTracks = new Set();
        const derivedTracks = new Set();
        for (const p of meta.processes || []) {
            if (String(p.name).startsWith('/device:')) {
                (p.threads || []).forEach((t) => (t.derived ? derivedTracks : deviceTracks)
                    .add(t.track));
            }
        }
        let found = [];
        for (const q of [...new Set([op, op.replace(/\./g, '_')])]) {
            const body = await api.traceSearch(state.run, state.host, q, 0, 500);
            found = found.concat(body.results || []);
        }
        const cands = traceCandidates(op, found, deviceTracks, derivedTracks);
        let best = cands[0] || null;
        for (const c of cands.slice(0, EVENTS_CHECKED)) {
            const ev = await api.traceEvent(state.run, state.host, c.id);
            if (eventIsOp(ev, op, programId)) {
                best = c;
                break;
            }
        }
        if (!best) {
            status.textContent = `No event named ${op} in the trace.`;
            return false;
        }
        status.textContent = '';
        const w = windowAround(best);
        router.navigate({ run: state.run, host: state.host, tool: 'trace_viewer@',
                          params: { start: String(w.start), end: String(w.end),
                                    sel: String(best.id) } });
        return true;
    } catch (e) {
        status.textContent = `The trace could not be searched: ${e.message}`;
        return false;
    }
}

// Opens the graph viewer on op of the module of program programId.
export function openInGraph(state, programId, op) {
    router.navigate({ run: state.run, host: state.host, tool: 'graph_viewer',
                      params: { program: String(programId), node: op } });
}

// The two link buttons of an op, and a line for what they report.
export function opLinks(state, programId, op, { graph = true } = {}) {
    const status = h('span', { class: 'hint xla-link-status', 'aria-live': 'polite' });
    return h('span', { class: 'xla-links' },
        h('button', { type: 'button', class: 'xla-trace-link', text: 'Show in trace',
                      on: { click: () => openInTrace(state, op, status, programId) } }),
        graph && programId !== undefined && programId !== null && String(programId) !== ''
            ? h('button', { type: 'button', class: 'xla-graph-link', text: 'Show in graph',
                            on: { click: () => openInGraph(state, programId, op) } })
            : null,
        status);
}

// ---- controls ----------------------------------------------------------------------

// A <select> labelled label over options [{value, text}], showing the URL
// parameter key (default: the first option); a change writes the key into
// the URL (a step Back can undo) and calls onChange(value).
export function paramPicker(label, key, options, onChange) {
    const params = router.getParams();
    const sel = h('select', { 'aria-label': label },
        options.map((o) => h('option', { value: o.value, text: o.text })));
    const want = params[key];
    sel.value = options.some((o) => o.value === want) ? want : (options[0] || {}).value;
    sel.addEventListener('change', () => {
        router.setParams({ [key]: sel.value === options[0].value ? undefined : sel.value },
                         { replace: false });
        onChange(sel.value);
    });
    return { el: h('label', { class: 'xla-picker' }, `${label} `, sel), select: sel };
}

// The host's HLO modules, or null after saying in el why there are none
// (what: what the page would have shown of them).
export async function modulesOrSay(el, state, inst, what) {
    let modules;
    try {
        modules = await api.listModules(state.run, state.host, { signal: inst.signal });
    } catch (e) {
        if (inst.alive())
            showError(el, e);
        return null;
    }
    if (modules.length === 0) {
        el.append(h('section', { class: 'message', role: 'status' },
            h('p', { text: 'This profile carries no XLA programs (HLO protos).' }),
            h('p', { class: 'hint', text: `${what} JAX and TensorFlow-with-XLA profiles carry ` +
                'them.' })));
        return null;
    }
    return modules;
}
