// registry.js: which module draws which tool. A tool missing here gets the
// generic view (its data as tables or JSON, or the server's error in words).
//
// Adding a view is one line in VIEWS, keyed by the exact tool name the
// server lists in run_tools ('trace_viewer@' keeps its '@'), e.g.
//     kernel_stats: () => import('./views/kernel_stats.js'),
// The module exports mount(el, state) and unmount(); see app.js for state.
// import() runs when the tool is opened, or once the page is idle
// (prefetchViews), so views cost nothing until a page has been shown.
// Titles and older names of tools come from the server's registry
// (api/tools): they are written down once, there.

const VIEWS = {
    memory_profile: () => import('./views/memory_profile.js'),
    overview_page: () => import('./views/overview_page.js'),
    input_pipeline_analyzer: () => import('./views/input_pipeline_analyzer.js'),
    'trace_viewer@': () => import('./views/trace_viewer.js'),
    trace_viewer: () => import('./views/trace_viewer.js'),
    kernel_stats: () => import('./views/kernel_stats.js'),
    framework_op_stats: () => import('./views/framework_op_stats.js'),
    hlo_stats: () => import('./views/hlo_stats.js'),
    op_profile: () => import('./views/op_profile.js'),
    roofline_model: () => import('./views/roofline_model.js'),
    memory_viewer: () => import('./views/memory_viewer.js'),
    graph_viewer: () => import('./views/graph_viewer.js'),
    pod_viewer: () => import('./views/pod_viewer.js'),
};

// Pages across runs (#/page/<name>), not one run's tool.
const PAGES = {
    compare: () => import('./views/compare.js'),
    history: () => import('./views/history.js'),
};

// Resolves to the view module of a page, or null when there is none.
export function loadPage(name) {
    return PAGES[name] ? PAGES[name]() : Promise.resolve(null);
}

// The catalog entry (api/tools) of a tool name or alias, or undefined.
export function catalogEntry(catalog, tool) {
    return catalog.find((t) => t.name === tool || t.aliases.includes(tool));
}

// A tool's title for people; its name when the catalog does not know it.
export function toolTitle(catalog, tool) {
    return catalogEntry(catalog, tool)?.title ?? tool;
}

// Resolves to the view module for tool (a name or an alias in catalog).
export function loadView(tool, catalog = []) {
    const key = catalogEntry(catalog, tool)?.name ?? tool;
    const load = VIEWS[key] || (() => import('./views/generic.js'));
    return load();
}

// Fetches the view modules of tools (a run's tool names), one at a time
// while the page is idle, between one view being shown and the next
// navigation. A view's modules arrive as a chain of requests (its module,
// then the twenty it imports, six at a time): on a two-core machine that
// was a third of the time from choosing the trace viewer to its first
// frame. Fetched ahead, a switch waits only for data.
const ahead = { queue: null, running: false, paused: false };

export function prefetchViews(tools) {
    if (ahead.queue === null) {
        // The trace viewer first: the tool most opened, with the longest chain.
        const order = [...tools].sort((a, b) => (b === 'trace_viewer@') - (a === 'trace_viewer@'));
        ahead.queue = order.filter((t) => VIEWS[t]).map((t) => VIEWS[t]);
    }
    ahead.paused = false;
    if (!ahead.running)
        prefetchNext();
}

// A navigation starts: its own requests go first (the fetch under way
// finishes; the next waits for prefetchViews after the view is shown).
export function pausePrefetch() {
    ahead.paused = true;
}

function prefetchNext() {
    ahead.running = !ahead.paused && ahead.queue.length > 0;
    if (!ahead.running)
        return;
    const idle = window.requestIdleCallback ?? ((f) => setTimeout(f, 100));
    idle(() => {
        if (ahead.paused) {
            ahead.running = false;
            return;
        }
        ahead.queue.shift()().catch(() => {}).then(prefetchNext);
    });
}

// True when tool (a tool's name) has its own view (not the generic one).
export function hasView(tool) {
    return Boolean(VIEWS[tool]);
}
