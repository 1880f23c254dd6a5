// registry.js: which module draws which tool. A tool missing here gets the
// generic view (its data as tables or JSON, or the server's error in words).
//
// Adding a view is one line in VIEWS, keyed by the exact tool name the
// server lists in run_tools ('trace_viewer@' keeps its '@'), e.g.
//     kernel_stats: () => import('./kernel_stats.js'),
// The module exports mount(el, state) and unmount(); see app.js for state.
// import() runs only when the tool is opened, so unused views cost nothing.

const VIEWS = {
    memory_profile: () => import('./memory_profile.js'),
    overview_page: () => import('./overview_page.js'),
    input_pipeline_analyzer: () => import('./input_pipeline_analyzer.js'),
    'trace_viewer@': () => import('./trace_viewer.js'),
    trace_viewer: () => import('./trace_viewer.js'),
    kernel_stats: () => import('./kernel_stats.js'),
    framework_op_stats: () => import('./framework_op_stats.js'),
};

// Old names of a tool whose payload is the same as the new name's.
const ALIASES = {
    tensorflow_stats: 'framework_op_stats',
};

// Resolves to the view module for tool.
export function loadView(tool) {
    const key = VIEWS[tool] ? tool : ALIASES[tool];
    const load = VIEWS[key] || (() => import('./generic.js'));
    return load();
}

// True when tool has its own view (not the generic one).
export function hasView(tool) {
    return Boolean(VIEWS[tool] || VIEWS[ALIASES[tool]]);
}
