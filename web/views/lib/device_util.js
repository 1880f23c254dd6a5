// device_util.js: the overview page's device utilization section: each
// device's busy share over the whole profile as a curve (the
// device_utilization tool, 200 buckets), with its mean and idle gaps. The
// trace viewer shows the same shares as a counter track per device.
//
// A device's busy time is the union of its streams' kernels over the window
// from the first device event to the last. The overview's device idle share
// is XProf's: the IDLE share of the device op table (each device's ops over
// its own span, added up), so the two differ a little where streams overlap
// or devices start apart.

import { getToolData } from '../../api.js';
import { createChart } from '../../chart.js';
import { h } from '../../dom.js';

const BUCKETS = 200;

// Curve points {x: ms from the window's start, y: busy %} of one device.
export function curve(data, device) {
    const step = data.bucket_ps / 1e9;
    return device.busy_percent.map((y, i) => ({ x: Math.round(i * step * 1000) / 1000, y }));
}

// Appends the section to body and returns {destroy}. Nothing is shown for a
// profile without devices, or for all hosts together (each host has its own
// clock).
export function utilizationSection(body, state, signal) {
    const sec = h('section', { class: 'util-section' });
    const out = { chart: null, destroy() { this.chart?.destroy(); } };
    if (state.host === 'ALL_HOSTS')
        return out;
    body.append(sec);
    getToolData(state.run, 'device_utilization', state.host, { buckets: BUCKETS }, { signal })
        .then(async (data) => {
            if (!data.devices.length) {
                sec.remove();
                return;
            }
            const canvas = h('canvas', { 'aria-label': 'Device utilization over the profile' });
            const gaps = data.devices.map((d) => `${d.name}: ${d.mean_percent.toFixed(1)}% busy, ` +
                `${d.idle_gaps} idle gap${d.idle_gaps === 1 ? '' : 's'} of 1% of the window ` +
                'or more');
            sec.append(h('h3', { text: 'Device utilization' }),
                h('p', { class: 'util-mean', text: `${data.mean_percent.toFixed(1)}% busy on ` +
                    `average over ${data.devices.length} device${data.devices.length === 1 ? ''
                        : 's'} and ${(data.window_ps / 1e9).toFixed(1)} ms` }),
                h('div', { class: 'util-chart' }, canvas),
                h('ul', { class: 'hint util-gaps' }, gaps.map((g) => h('li', { text: g }))));
            const chart = await createChart(canvas, {
                type: 'line',
                data: { datasets: data.devices.map((d) => ({
                    label: d.name, data: curve(data, d), pointRadius: 0, borderWidth: 1.5,
                    stepped: 'before', fill: false })) },
                options: { parsing: false, scales: {
                    x: { type: 'linear',
                         title: { display: true, text: 'ms from the first device event' } },
                    y: { min: 0, max: 100, title: { display: true, text: 'busy (%)' } } } },
            });
            if (signal.aborted)
                chart.destroy();
            else
                out.chart = chart;
        })
        // The section adds to the page: without its answer the page is as before.
        .catch(() => sec.remove());
    return out;
}
