// app.js: the page shell. It keeps the run, tool and host pickers in step
// with the URL hash (router.js), asks the server to load the profile, and
// mounts the tool's view (registry.js) in the content area.
//
// Flow for every navigation (a pick, Back/Forward, a pasted link):
//   URL state -> fill in missing run/tool/host with the first offered one
//   -> rewrite the URL with the full state (replace, so Back skips the
//   partial one) -> api/load with a progress bar -> view.mount(el, state).
// A #/page/<name> URL (compare, history: registry.js's loadPage)
// mounts that page instead, with no run to load.
// A later navigation overtakes an earlier one still in flight: every await
// is followed by a check of `seq`, and the view's signal is aborted.
//
// The state a view gets in mount(el, state):
//   run, host, tool  strings (host may be '' for host-less legacy files)
//   title            the tool's name for people (api/tools)
//   titleOf(tool)    any tool's name for people (a tool id when unknown)
//   params           the tool-state query of the URL ({start, end, sel, ...})
//   setParams(p, {replace})  change that query (replace: true by default)
//   signal           AbortSignal, aborted just before unmount()
// A view may also export update(state): called instead of a remount when
// only params changed through Back/Forward.

import * as api from './api.js';
import { fillSelect } from './dom.js';
import * as router from './router.js';
import { showError, showMessage, showProgress } from './status.js';
import { catalogEntry, loadPage, loadView, pausePrefetch, prefetchViews,
         toolTitle } from './registry.js';

const ALL_HOSTS = 'ALL_HOSTS';
// How often the run picker asks for new runs. The server rescans the logdir
// every 2 s by default; a few seconds more is soon enough for a person.
const RUNS_POLL_MS = 5000;

const ui = {
    run: document.getElementById('run'),
    tool: document.getElementById('tool'),
    host: document.getElementById('host'),
    refresh: document.getElementById('refresh'),
    content: document.getElementById('content'),
};

// Answers of the list routes, kept until Refresh: they change only when
// new runs are written into the logdir.
const cache = { runs: null, tools: new Map(), hosts: new Map(), catalog: null };

let seq = 0;                  // number of the newest navigation
let shown = null;             // {state, view, controller} of the mounted view
let lastPick = { run: undefined, host: undefined };  // to keep the host on a tool change
// The picker a navigation came from, until its view is up: focus then
// moves to the view, or the view's keys (the trace viewer's W/A/S/D, F)
// would go to the picker, whose type-ahead turns F into another tool.
let pickedFrom = null;

// ---- lists -------------------------------------------------------------------

async function runs() {
    if (!cache.runs)
        cache.runs = await api.listRuns();
    return cache.runs;
}

// Titles and aliases of every tool; a page that cannot fetch them shows names.
async function catalog() {
    if (!cache.catalog)
        cache.catalog = await api.listToolCatalog().catch(() => []);
    return cache.catalog;
}

async function tools(run) {
    if (!cache.tools.has(run))
        cache.tools.set(run, await api.listTools(run));
    return cache.tools.get(run);
}

async function hosts(run, tool) {
    const key = JSON.stringify([run, tool]);
    if (!cache.hosts.has(key))
        cache.hosts.set(key, await api.listHosts(run, tool));
    return cache.hosts.get(key);
}

function hostLabel(h) {
    if (h === ALL_HOSTS)
        return 'All hosts';
    return h === '' ? '(no host name)' : h;
}

const asOptions = (names, label = (n) => n) => names.map((n) => ({ value: n, label: label(n) }));

// A picker whose list could not be fetched shows just the URL's value.
function showOnly(select, value, label = (n) => n) {
    fillSelect(select, value === undefined ? [] : asOptions([value], label), value);
}

// ---- navigation ----------------------------------------------------------------

function viewState(state, signal, known) {
    return {
        run: state.run,
        host: state.host,
        tool: state.tool,
        page: state.page,
        title: toolTitle(known, state.tool),
        titleOf: (tool) => toolTitle(known, tool),
        params: { ...state.params },
        setParams: (p, opts) => router.setParams(p, opts),
        signal,
    };
}

function unmountView() {
    if (!shown)
        return;
    shown.controller.abort();
    try {
        shown.view.unmount();
    } catch (e) {
        console.error('unmount failed', e);
    }
    shown = null;
}

function setBusy(busy) {
    ui.content.setAttribute('aria-busy', busy ? 'true' : 'false');
}

// Fills in the parts of state the URL leaves out, filling the pickers on the
// way. Returns the full state, or null when there is nothing to show (a
// message is on the page then) or a newer navigation took over.
async function resolve(state, stale) {
    const runList = await runs();
    if (stale())
        return null;
    fillSelect(ui.run, asOptions(runList), state.run ?? runList[0]);
    if (state.run === undefined && runList.length === 0) {
        fillSelect(ui.tool, [], undefined);
        fillSelect(ui.host, [], undefined);
        showMessage(ui.content, 'No profiles found in the logdir.',
                    'profview lists every <dir>/plugins/profile/<run>/ folder below --logdir. ' +
                    'Runs written later appear here on their own within seconds.');
        return null;
    }
    const run = state.run ?? runList[0];

    let toolList;
    try {
        toolList = await tools(run);
    } catch (e) {
        // Leave no other run's tools and hosts in the pickers beside the error.
        showOnly(ui.tool, state.tool);
        showOnly(ui.host, state.host, hostLabel);
        throw e;
    }
    if (stale())
        return null;
    const known = await catalog();
    fillSelect(ui.tool, asOptions(toolList, (t) => toolTitle(known, t)), state.tool ?? toolList[0]);
    if (state.tool === undefined && toolList.length === 0) {
        fillSelect(ui.host, [], undefined);
        showMessage(ui.content, `Run "${run}" has no profile data that profview can show.`);
        return null;
    }
    const tool = state.tool ?? toolList[0];

    let hostList;
    try {
        hostList = await hosts(run, tool);
    } catch (e) {
        showOnly(ui.host, state.host, hostLabel);
        throw e;
    }
    if (stale())
        return null;
    let host = state.host;
    if (host === undefined && catalogEntry(known, tool)?.opens_on_all_hosts &&
        hostList.includes(ALL_HOSTS)) {
        // A view that compares hosts shows them all, whichever host was picked.
        host = ALL_HOSTS;
    } else if (host === undefined) {
        // A new tool of the same run keeps the host the user was looking at.
        const keep = lastPick.run === run && hostList.includes(lastPick.host);
        host = keep ? lastPick.host : hostList[0];
    }
    fillSelect(ui.host, asOptions(hostList, hostLabel), host);
    if (host === undefined) {
        showMessage(ui.content, `No host of run "${run}" has data for ${toolTitle(known, tool)}.`);
        return null;
    }
    return { run, host, tool, params: state.params || {} };
}

// Mounts a page across runs (#/page/<name>: compare, history); the run
// picker then offers every run, and picking one leaves the page.
async function showPage(state, stale) {
    const [view, runList, known] = await Promise.all([loadPage(state.page),
                                                     runs().catch(() => []), catalog()]);
    if (stale())
        return;
    // No run is shown: the run picker offers them all, to open one.
    fillSelect(ui.run, [{ value: '', label: 'Open a run…' }, ...asOptions(runList)], '');
    fillSelect(ui.tool, [], undefined);
    fillSelect(ui.host, [], undefined);
    if (!view) {
        showMessage(ui.content, `There is no page called "${state.page}".`);
        return;
    }
    document.title = `${state.page === 'compare' ? 'Compare runs' : 'Run history'} — profview`;
    const controller = new AbortController();
    shown = { state, view, controller, known };
    ui.content.replaceChildren();
    await view.mount(ui.content, viewState(state, controller.signal, known));
}

async function show(state) {
    const my = ++seq;
    const stale = () => my !== seq;

    // Only the tool-state query changed (Back/Forward inside a tool).
    if (shown && router.sameView(shown.state, state) && shown.view.update) {
        shown.state = state;
        shown.view.update(viewState(state, shown.controller.signal, shown.known));
        return;
    }
    unmountView();
    setBusy(true);
    pausePrefetch();
    try {
        if (state.page !== undefined) {
            await showPage(state, stale);
            return;
        }
        // An address naming one host starts its read at once, a few
        // requests before the pickers are filled (resolve keeps a host the
        // run has, and this page loads it for any tool).
        if (state.run !== undefined && state.host !== undefined && state.host !== ALL_HOSTS &&
            !state.host.includes(','))
            api.startLoad(state.run, state.host);
        const full = await resolve(state, stale);
        if (!full)
            return;
        if (!router.sameView(full, state))
            router.navigate(full, { replace: true, silent: true });
        lastPick = { run: full.run, host: full.host };
        const known = await catalog();
        document.title = `${toolTitle(known, full.tool)} · ${hostLabel(full.host)} · ` +
            `${full.run} — profview`;

        const controller = new AbortController();
        // The view's modules arrive while the server reads the profile;
        // a failure to fetch them is reported where the view is awaited.
        const viewLoad = loadView(full.tool, known);
        viewLoad.catch(() => {});
        let progress = null;
        if (full.host !== ALL_HOSTS) {
            // The pseudo host is not one file: the tool's own request loads
            // what it needs, and its view shows the wait.
            showMessage(ui.content, `Opening ${full.run} on ${hostLabel(full.host)}…`);
            await api.loadProfile(full.run, full.host, {
                signal: controller.signal,
                onProgress: (p) => {
                    if (stale())
                        return;
                    if (!progress)
                        progress = showProgress(ui.content, `Loading the profile of ${hostLabel(full.host)}…`);
                    progress(p);
                },
            });
        }
        if (stale())
            return;
        const view = await viewLoad;
        if (stale())
            return;
        shown = { state: full, view, controller, known };
        ui.content.replaceChildren();
        await view.mount(ui.content, viewState(full, controller.signal, known));
        if (!stale() && pickedFrom && document.activeElement === pickedFrom)
            ui.content.focus({ preventScroll: true });
        pickedFrom = null;
        prefetchViews(cache.tools.get(full.run) ?? []);
    } catch (e) {
        if (stale() || api.isAbort(e))
            return;
        showError(ui.content, e, { retry: () => show(router.current()) });
    } finally {
        if (!stale())
            setBusy(false);
    }
}

// New runs written while the page is open appear in the run picker without
// a reload or a click. Only the list changes; what is shown stays.
async function pollRuns() {
    if (document.hidden || !cache.runs)
        return;
    let fresh;
    try {
        fresh = await api.listRuns();
    } catch {
        return;  // the next poll tries again; a broken server shows on the next pick
    }
    if (JSON.stringify(fresh) === JSON.stringify(cache.runs))
        return;
    const before = cache.runs;
    cache.runs = fresh;
    const cur = router.current();
    // The page said "no profiles", or a link named a run the server did not
    // offer yet (its file still being written): now there is one to open.
    if (cur.run === undefined || (!before.includes(cur.run) && fresh.includes(cur.run))) {
        show(cur);
        return;
    }
    fillSelect(ui.run, asOptions(fresh), cur.run);
}

// ---- pickers -------------------------------------------------------------------

function pick(partial, from) {
    pickedFrom = from;
    router.navigate({ ...partial, params: {} });
}

function init() {
    ui.run.addEventListener('change', () => {
        if (ui.run.value !== '')
            pick({ run: ui.run.value }, ui.run);
    });
    ui.tool.addEventListener('change', () => pick({ run: router.current().run ?? ui.run.value,
                                                    tool: ui.tool.value }, ui.tool));
    ui.host.addEventListener('change', () => {
        const cur = router.current();
        pick({ run: cur.run ?? ui.run.value, tool: cur.tool ?? ui.tool.value, host: ui.host.value },
             ui.host);
    });
    ui.refresh.addEventListener('click', () => {
        cache.runs = null;
        cache.tools.clear();
        cache.hosts.clear();
        unmountView();
        show(router.current());
    });
    document.getElementById('pickers').addEventListener('submit', (e) => e.preventDefault());

    router.start();
    router.subscribe(show);
    show(router.current());
    setInterval(pollRuns, RUNS_POLL_MS);
}

init();
