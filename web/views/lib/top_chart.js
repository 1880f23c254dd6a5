// top_chart.js: the page's one "top N by time" chart — a horizontal bar per
// item (kernels, op types, HLO ops), largest first, every bar with its
// label, its time and what else tells it apart in the tooltip.

import { createChart } from '../../chart.js';
import { cutText, formatDurationUs } from '../../format.js';
import { chartFollower } from './follower.js';

// Labels are cut here (at 1000 px a longer one leaves no room for the
// bars); the tooltip has the full name.
export const LABEL_CHARS = 30;

// bars: [{label (text, or two lines as an array), us, title (the full
// name, for the tooltip; default label), more (a tooltip line under the
// title, or ''), note (after the time), color (default the palette's
// first)}], already in order and cut to N.
function barData(bars) {
    return {
        labels: bars.map((b) => (Array.isArray(b.label) ? b.label
            : cutText(b.label, LABEL_CHARS))),
        data: bars.map((b) => b.us),
        colors: bars.map((b) => b.color || null),
    };
}

// A chart on canvas whose x axis is axisTitle (a time in µs). Returns a
// follower: draw(bars) draws or redraws it, destroy() removes it.
export function topTimeChart(canvas, axisTitle) {
    let bars = [];
    const apply = (chart, next) => {
        bars = next;
        const d = barData(bars);
        chart.data.labels = d.labels;
        chart.data.datasets[0].data = d.data;
        if (d.colors.some(Boolean))
            chart.data.datasets[0].backgroundColor = d.colors;
        chart.update();
    };
    return chartFollower((first) => {
        bars = first;
        const d = barData(bars);
        const dataset = { label: axisTitle, data: d.data };
        if (d.colors.some(Boolean))
            dataset.backgroundColor = d.colors;
        return createChart(canvas, {
            type: 'bar',
            data: { labels: d.labels, datasets: [dataset] },
            options: {
                indexAxis: 'y',
                plugins: {
                    legend: { display: false },
                    tooltip: { callbacks: {
                        title: (items) => {
                            const b = bars[items[0].dataIndex];
                            return b.title ?? [].concat(b.label).join(' ');
                        },
                        afterTitle: (items) => bars[items[0].dataIndex].more || '',
                        label: (item) => {
                            const note = bars[item.dataIndex].note;
                            return ` ${formatDurationUs(item.raw)}${note ? ` ${note}` : ''}`;
                        },
                    } },
                },
                scales: {
                    x: { title: { display: true, text: axisTitle } },
                    // Every bar keeps its label, however narrow the page.
                    y: { ticks: { autoSkip: false } },
                },
            },
        });
    }, apply);
}
