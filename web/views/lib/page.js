// page.js: what every tool page is built on. A page mounted in the content
// area owns an instance: an abort controller (aborted when the page is
// left) and the charts and tables it drew (destroyed together). dataPage
// gives a page that draws one answer of its tool its mount and unmount:
// progress while the answer loads, the error in words when it fails, the
// answer shown as plain tables when it has a layout the page does not read.

import { getToolData, isAbort } from '../../api.js';
import { clear, ensureStylesheet } from '../../dom.js';
import { showError, showProgress } from '../../status.js';
import { showAnswer } from './answer_tables.js';

// A new instance: {controller, signal, charts, tables, destroyParts(),
// alive()}. charts and tables hold anything with destroy(); destroyParts
// destroys them (before a redraw, and when the page is left); alive() is
// false once the page was left, so work that finishes after an await can
// drop what it made.
export function pageInstance() {
    const controller = new AbortController();
    const inst = { controller, signal: controller.signal, charts: [], tables: [] };
    inst.destroyParts = () => {
        inst.charts.splice(0).forEach((c) => c.destroy());
        inst.tables.splice(0).forEach((t) => t.destroy());
    };
    inst.alive = () => !controller.signal.aborted;
    return inst;
}

// The one mounted instance of a page: start() makes it (after the
// stylesheets, names of web/views/<name>.css), unmount() aborts it and
// destroys its parts.
export function pageSlot(stylesheets = []) {
    let current = null;
    const slot = {
        start() {
            slot.unmount();
            stylesheets.forEach(ensureStylesheet);
            current = pageInstance();
            return current;
        },
        unmount() {
            if (!current)
                return;
            current.controller.abort();
            current.destroyParts();
            current = null;
        },
    };
    return slot;
}

// Shows progress (label) in el while the answer of state's tool for the
// request parameters params loads (api.js getToolData). Resolves to the
// answer, or to undefined when signal aborted the load (the page was
// left) or the load failed: the error is then shown in el, with a "Try
// again" button that calls retry.
export async function loadToolData(el, state, params, { signal, label, retry }) {
    showProgress(el, label);
    try {
        const data = await getToolData(state.run, state.tool, state.host, params, { signal });
        return signal.aborted ? undefined : data;
    } catch (e) {
        if (!isAbort(e) && !signal.aborted)
            showError(el, e, { retry });
        return undefined;
    }
}

// The mount and unmount of a page that draws one answer of its tool:
//   render(el, state, inst, data)  draws the answer into el (emptied
//       first); may be async; its charts and tables go to inst.charts and
//       inst.tables; a throw is shown in words
//   label        what the progress bar says (default "Loading <title>…")
//   params(state)  the request's parameters (default none)
//   ours(data)   false for an answer of a layout render does not read: it
//       is shown as plain tables instead (default: every answer is ours)
//   stylesheets  names of web/views/<name>.css the page needs
// inst.reload(state) mounts the page again (after a change of the
// parameters that the request depends on).
export function dataPage({ render, label, params = () => ({}), ours = () => true,
                           stylesheets = [] }) {
    const slot = pageSlot(stylesheets);
    async function mount(el, state) {
        const inst = slot.start();
        inst.reload = (next) => mount(el, next);
        const data = await loadToolData(el, state, params(state), {
            signal: inst.signal, label: label || `Loading ${state.title || state.tool}…`,
            retry: () => mount(el, state) });
        if (data === undefined)
            return;
        clear(el);
        try {
            if (ours(data))
                await render(el, state, inst, data);
            else
                showAnswer(el, state, inst, data);
        } catch (e) {
            if (inst.alive())
                showError(el, e);
        }
    }
    return { mount, unmount: slot.unmount };
}

// Keeps the chart that promise makes in inst.charts, unless the page was
// left meanwhile; a failure is said in place of box.
export function keepChart(inst, promise, box) {
    promise.then((c) => {
        if (inst.alive())
            inst.charts.push(c);
        else
            c.destroy();
    }).catch((e) => showError(box, e));
}
