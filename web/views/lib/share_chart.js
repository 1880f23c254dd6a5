// share_chart.js: the page's one "where the time went" doughnut — a slice
// per part (a category, Tensor Cores used or not), each with its time and
// its share of the whole in the tooltip.

import { createChart, seriesColor } from '../../chart.js';
import { formatDurationUs, formatPercent } from '../../format.js';
import { chartFollower } from './follower.js';

// A chart on canvas. Returns a follower: draw(slices) draws or redraws it
// with slices [{label, us, color (default the palette's)}], destroy()
// removes it.
export function shareChart(canvas) {
    let total = 1;
    const values = (slices) => {
        total = slices.reduce((s, x) => s + x.us, 0) || 1;
        return slices.map((x) => x.us);
    };
    const colors = (slices) => slices.map((x, i) => x.color || seriesColor(i));
    return chartFollower((slices) => createChart(canvas, {
        type: 'doughnut',
        data: {
            labels: slices.map((x) => x.label),
            datasets: [{ data: values(slices), backgroundColor: colors(slices),
                         borderColor: '#fff' }],
        },
        options: {
            interaction: { mode: 'nearest', intersect: true },
            plugins: { tooltip: { callbacks: {
                label: (item) => ` ${item.label}: ${formatDurationUs(item.raw)} ` +
                    `(${formatPercent(item.raw / total)})`,
            } } },
        },
    }), (chart, slices) => {
        chart.data.labels = slices.map((x) => x.label);
        chart.data.datasets[0].data = values(slices);
        chart.data.datasets[0].backgroundColor = colors(slices);
        chart.update();
    });
}
