// step_parts.js: the parts the step pages (the overview page and the
// input pipeline analyzer, GPU/CPU and TPU) draw: their head with the
// host-steps switch, the verdict with advice, the stacked step chart with
// a step selector that opens the trace viewer over a step, diagnostics.

import { createChart } from '../../chart.js';
import { clear, h } from '../../dom.js';
import * as router from '../../router.js';
import { sampleSteps, stepParams, stripTags } from './step_table.js';
import { viewHead } from './view_head.js';

// The stylesheets of a step page.
export const STEP_STYLES = ['step_common'];

// Replaces el's content with a step view's head (title, a link to the raw
// data, the host-steps switch where it applies; remount as for
// hostStepsToggle) and returns the body for the rest of the view.
export function stepViewBody(el, state, title, hw, fromTrace, remount) {
    clear(el);
    el.append(viewHead(state, title, { params: stepParams(state) }));
    const toggle = hostStepsToggle(state, hw, fromTrace, remount);
    if (toggle)
        el.append(toggle);
    const body = h('div', { class: 'view-body' });
    el.append(body);
    return body;
}

// The switch between XProf's steps (device events only when there is a
// device) and TensorFlow 2.x's (host threads' time inside each device step
// counted too). Shown for device profiles only; remount(newState) redraws.
export function hostStepsToggle(state, hw, fromTrace, remount) {
    if (hw === 'CPU_ONLY' || !fromTrace)
        return null;
    const on = (state.params || {}).host_steps === '1';
    const box = h('input', { type: 'checkbox', checked: on, on: { change: () => {
        const host_steps = box.checked ? '1' : undefined;
        router.setParams({ host_steps }, { replace: false });
        const params = { ...(state.params || {}) };
        if (host_steps)
            params.host_steps = host_steps;
        else
            delete params.host_steps;
        remount({ ...state, params });
    } } });
    return h('label', { class: 'steps-toggle' }, box,
        ' Count host-thread time inside device steps (input waits, kernel launch), as ' +
        'TensorFlow 2.x did; off = XProf\'s device-only steps');
}

// Opens the trace viewer over step s (its window is in trace time).
export function openStepInTrace(state, s) {
    if (s.startPs === undefined || s.durPs === undefined)
        return;
    router.navigate({ run: state.run, host: state.host, tool: 'trace_viewer@',
                      params: { start: String(Math.round(s.startPs)),
                                end: String(Math.round(s.startPs + s.durPs)) } });
}

// The verdict box: the input statement, then advice items.
export function verdictBox(statement, advice, nextStep) {
    return h('section', { class: 'steps-verdict', 'aria-label': 'Verdict' },
        h('p', { class: 'steps-verdict-main', text: stripTags(statement) }),
        advice.length ? h('ul', {}, advice.map((a) => h('li', {},
            h('span', { class: 'steps-why', text: a.why }), ' ', h('span', { text: a.what }))))
            : null,
        nextStep ? h('p', { class: 'hint', text: stripTags(nextStep) }) : null);
}

export function diagnosticsList(dt) {
    const rows = (dt && dt.rows) || [];
    if (rows.length === 0)
        return null;
    return h('section', { class: 'steps-diag' }, h('h3', { text: 'Diagnostics' }),
        h('ul', {}, rows.map((r) => h('li', {},
            h('strong', { text: `${r.c[0].v}: ` }), String(r.c[1].v)))));
}

// A stacked bar per step of the series [{label, values, color}] in box,
// with a step selector below that opens the trace viewer over the chosen
// step. The chart goes to inst.charts; resolves to false when the page was
// left while Chart.js loaded (the chart is gone then).
export async function stepChart(box, state, inst, allSteps, allSeries, yLabel) {
    const pick = sampleSteps(allSteps.length);
    const steps = pick.map((i) => allSteps[i]);
    const series = allSeries.map((s) => ({ ...s, values: pick.map((i) => s.values[i]) }));
    if (pick.length < allSteps.length) {
        box.append(h('p', { class: 'hint', text: `${allSteps.length} steps: the chart shows ` +
            `one step in every ${pick[1] - pick[0]} (${steps.length} bars); the summaries and ` +
            'tables use all of them.' }));
    }
    const canvas = h('canvas', { role: 'img',
        'aria-label': `${yLabel} per step, stacked by category` });
    const holder = h('div', { class: 'steps-chart' }, canvas);
    const sel = h('select', { 'aria-label': 'Step' },
        steps.map((s, i) => h('option', { value: String(i),
            text: `Step ${s.name} (${s.stepMs.toFixed(2)} ms)` })));
    const open = h('button', { type: 'button', text: 'Open this step in the trace viewer',
        on: { click: () => openStepInTrace(state, steps[Number(sel.value)]) } });
    const timed = steps.length > 0 && steps[0].startPs !== undefined;
    box.append(holder, h('div', { class: 'steps-picker' }, h('label', { text: 'Step ' }, sel),
        timed ? open : null,
        h('span', { class: 'hint', text: timed ? 'or click a bar to select its step'
            : 'This profile is a legacy per-tool file: it has no trace to open.' })));
    const chart = await createChart(canvas, {
        type: 'bar',
        data: {
            labels: steps.map((s) => s.name),
            datasets: series.map((s) => ({ label: s.label, data: s.values,
                                           backgroundColor: s.color, borderColor: s.color })),
        },
        options: {
            scales: {
                x: { stacked: true, title: { display: true, text: 'Step' } },
                y: { stacked: true, title: { display: true, text: yLabel } },
            },
            plugins: {
                tooltip: { callbacks: {
                    label: (c) => `${c.dataset.label}: ${Number(c.raw).toFixed(3)} ms`,
                    footer: (items) => (items.length
                        ? `Step time: ${steps[items[0].dataIndex].stepMs.toFixed(3)} ms` : ''),
                } },
            },
            onClick: (_e, els) => {
                if (els.length)
                    sel.value = String(els[0].index);
            },
        },
    });
    if (!inst.alive()) {
        chart.destroy();
        return false;
    }
    inst.charts.push(chart);
    return true;
}

