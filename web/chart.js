// chart.js: the one door to Chart.js 3.9.1 (the server embeds Debian's UMD
// build at vendor/chart.min.js; it defines window.Chart). The script is
// loaded on first use, so pages without a chart never pay for it, and every
// chart gets the same look: system font, no animation, the page's palette.
//
//   const chart = await createChart(canvas, { type: 'line', data, options });
//   ...
//   chart.destroy();

const CHART_SRC = 'vendor/chart.min.js';  // relative: works under a path prefix

// Colours that stay apart for colour-blind readers (Okabe–Ito order).
export const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9',
                        '#d55e00', '#f0e442', '#000000'];

// One promise per page: loading the script twice would define Chart twice.
let loading = null;

// Resolves to window.Chart, adding the <script> tag on the first call.
export function loadChartJs() {
    if (window.Chart)
        return Promise.resolve(window.Chart);
    if (!loading) {
        loading = new Promise((resolve, reject) => {
            const s = document.createElement('script');
            s.src = CHART_SRC;
            s.onload = () => (window.Chart ? resolve(window.Chart)
                : reject(new Error(`${CHART_SRC} loaded but did not define Chart`)));
            s.onerror = () => {
                loading = null;
                reject(new Error(`Could not load ${CHART_SRC} from the server`));
            };
            document.head.append(s);
        });
    }
    return loading;
}

// The colour for series i, cycling through PALETTE.
export function seriesColor(i) {
    return PALETTE[i % PALETTE.length];
}

function cssVar(name, fallback) {
    const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return v || fallback;
}

// Creates a Chart on canvas with profview's defaults underneath config
// (config wins where both set a value). Resolves to the Chart instance;
// the caller destroys it when its view unmounts.
export async function createChart(canvas, config) {
    const Chart = await loadChartJs();
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    Chart.defaults.color = cssVar('--fg-muted', '#555');
    Chart.defaults.borderColor = cssVar('--border', '#ddd');
    const options = {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        ...(config.options || {}),
    };
    const datasets = ((config.data && config.data.datasets) || []).map((d, i) => ({
        borderColor: seriesColor(i),
        backgroundColor: seriesColor(i),
        ...d,
    }));
    return new Chart(canvas, { ...config, data: { ...config.data, datasets }, options });
}
