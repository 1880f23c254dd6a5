// trace_viewer.js: the trace viewer page (tools trace_viewer and
// trace_viewer@). It asks api/trace/meta for the track list, builds the
// toolbar, the canvas timeline (timeline/timeline.js), the tracks panel
// (timeline/tracks_panel.js) and the details panel, and keeps the window,
// the selected event, a box selection, marks, a measured span and which
// rows are shown in the URL hash (timeline/url_state.js) so a copied link
// reopens exactly this view.
//
// Data arrives in tiles (docs/trace_api.md); event details and search
// results are fetched only when asked for. Every failure is said in words
// on the page.

import * as api from '../api.js';
import { clear, ensureStylesheet, h } from '../dom.js';
import { formatCount, formatDurationPs } from '../format.js';
import { showError, showMessage, showProgress } from '../status.js';
import { tableUrl } from '../table.js';
import { BOX_RGB } from '../draw/colors.js';
import { renderAggregate, renderBox, renderDetails, tooltipText,
         trackNames } from '../timeline/details.js';
import { TraceSearch } from '../timeline/search.js';
import { decodeTileBin } from '../timeline/tile_data.js';
import { Timeline } from '../timeline/timeline.js';
import { tracksPanel } from '../timeline/tracks_panel.js';
import {
    formatKeys, formatParams, formatTimes, parseKeys, parseSelection, parseSpan, parseTimes,
    parseWindow, urlWriter,
} from '../timeline/url_state.js';
// The modules the ones above import in turn, named here too so that the
// browser fetches them all in one round instead of one round per level of
// the import tree (four levels: about 200 ms on a busy machine before the
// first frame).
import '../draw/counters.js';
import '../draw/frame.js';
import '../draw/gutter.js';
import '../draw/overlay.js';
import '../draw/ruler.js';
import '../draw/slices.js';
import '../timeline/hit.js';
import '../timeline/input.js';
import '../timeline/layout.js';
import '../timeline/ticks.js';
import '../timeline/tile_cache.js';
import '../timeline/viewport.js';

const BUTTON_ZOOM = 2;
// A click on the ruler this close to a mark (in pixels) removes it.
const MARK_HIT_PX = 5;
const HELP = 'Wheel or W/S: zoom · drag or A/D: pan · Shift+drag: zoom to range · ' +
    'Alt+drag: select a box (its events summed by name) · drag on the time ruler: measure · ' +
    'click the ruler or M: mark · Shift+wheel or wheel over the names: scroll tracks · ' +
    'click a name: collapse · click an event: details · [ ]: previous/next on its level · ' +
    'F: zoom to selection · 0: whole trace · Esc: clear · /: search';

let current = null;  // the mounted instance

// The stylesheet of this view, added to the page once. Returns its <link>.

// Colours and fonts for the canvas, read from the page's CSS so light and
// dark themes both work.
function readTheme(el) {
    const cs = getComputedStyle(el);
    const v = (name, fallback) => (cs.getPropertyValue(name).trim() || fallback);
    const family = cs.fontFamily || 'sans-serif';
    const font = `12px ${family}`;
    // A scratch canvas, not the timeline's: the first getContext call on a
    // canvas fixes its options, and the timeline's must be opaque (see
    // timeline.js) or the compositor blends it over the page every frame.
    const ctx = el.ownerDocument.createElement('canvas').getContext('2d');
    ctx.font = font;
    const sample = 'abcdefghijklmnopqrstuvwxyz_ABCDEF0123456789.:/';
    const charPx = (ctx.measureText(sample).width / sample.length) * 1.05;
    return {
        bg: v('--bg', '#fff'),
        fg: v('--fg', '#1b1f24'),
        muted: v('--fg-muted', '#57606a'),
        border: v('--border', '#d0d7de'),
        grid: v('--tv-grid', 'rgba(128,128,128,0.18)'),
        separator: v('--tv-separator', 'rgba(128,128,128,0.22)'),
        gutterBg: v('--bg-soft', '#f4f6f8'),
        processBg: v('--tv-process-bg', 'rgba(31,78,121,0.10)'),
        rulerBg: v('--bg-soft', '#f4f6f8'),
        rulerFg: v('--fg-muted', '#57606a'),
        accent: v('--accent', '#0b63c5'),
        hover: v('--tv-hover', 'rgba(0,0,0,0.55)'),
        selected: v('--tv-selected', '#d1242f'),
        flow: v('--tv-flow', '#d1242f'),
        range: v('--tv-range', 'rgba(11,99,197,0.15)'),
        counterFill: v('--tv-counter-fill', 'rgba(11,99,197,0.25)'),
        counterLine: v('--tv-counter-line', '#0b63c5'),
        mark: v('--tv-mark', '#8a3ffc'),
        measure: v('--tv-measure', '#0b63c5'),
        measureBg: v('--tv-measure-bg', 'rgba(11,99,197,0.18)'),
        boxRgb: v('--tv-box-rgb', BOX_RGB),
        labelFg: '#1b1f24',
        font,
        boldFont: `600 ${font}`,
        labelFont: `11px ${family}`,
        charPx: charPx * (11 / 12),
    };
}

function buildDom(el) {
    const ui = {};
    ui.search = h('input', { type: 'search', class: 'tv-search',
                             placeholder: 'Search all event names', autocomplete: 'off',
                             'aria-label': 'Search event names in the whole trace' });
    ui.searchInfo = h('span', { class: 'tv-search-info', 'aria-live': 'polite' });
    ui.prev = h('button', { type: 'button', title: 'Previous match (Shift+Enter)', text: '◀' });
    ui.next = h('button', { type: 'button', title: 'Next match (Enter)', text: '▶' });
    ui.zoomIn = h('button', { type: 'button', title: 'Zoom in (W)', text: '+' });
    ui.zoomOut = h('button', { type: 'button', title: 'Zoom out (S)', text: '−' });
    ui.all = h('button', { type: 'button', title: 'Show the whole trace', text: 'All' });
    ui.rangeBtn = h('button', { type: 'button', 'aria-pressed': 'false',
                                title: 'Drag to zoom to a range (or hold Shift while dragging)',
                                text: 'Range zoom' });
    ui.selectBtn = h('button', { type: 'button', 'aria-pressed': 'false',
                                 title: 'Drag a box over tracks to sum its events by name ' +
                                        '(or hold Alt while dragging)',
                                 text: 'Select' });
    ui.tracksBtn = h('button', { type: 'button', 'aria-expanded': 'false',
                                 title: 'Filter, hide, pin, expand and collapse tracks',
                                 text: 'Tracks' });
    ui.marks = h('span', { class: 'tv-marks', hidden: true });
    ui.window = h('span', { class: 'tv-window', 'aria-live': 'off' });
    ui.status = h('span', { class: 'tv-status', role: 'status' });
    ui.loading = h('span', { class: 'tv-loading hint', hidden: true,
                             text: 'Loading finer detail… (coarser data is shown meanwhile)' });
    ui.form = h('form', { class: 'tv-search-form', role: 'search' },
        ui.search, ui.prev, ui.next, ui.searchInfo);
    ui.canvas = h('canvas', { class: 'tv-canvas', role: 'img',
                              'aria-label': 'Trace timeline; details of a clicked event ' +
                                            'appear in the panel below it' });
    ui.spacer = h('div', { class: 'tv-spacer' }, ui.canvas);
    ui.scroll = h('div', { class: 'tv-scroll' }, ui.spacer);
    ui.details = h('aside', { class: 'tv-details', 'aria-label': 'Selected event', hidden: true });
    ui.tooltip = h('div', { class: 'tv-tooltip', role: 'tooltip', hidden: true });
    ui.main = h('div', { class: 'tv-main' }, ui.scroll, ui.details, ui.tooltip);
    ui.root = h('div', { class: 'tv', 'data-complete': 'false' },
        h('div', { class: 'tv-toolbar' },
            ui.form,
            h('span', { class: 'tv-zoom' }, ui.zoomOut, ui.zoomIn, ui.all, ui.rangeBtn,
              ui.selectBtn, ui.tracksBtn),
            ui.window, ui.loading, ui.status),
        ui.main,
        // Below the tracks: a line that comes and goes here moves no track.
        h('div', { class: 'tv-foot' }, ui.marks, h('p', { class: 'tv-help hint', text: HELP })));
    clear(el);
    el.append(ui.root);
    return ui;
}

class TraceView {
    constructor(el, state) {
        this.el = el;
        this.state = state;
        this.controller = new AbortController();
        this.signal = this.controller.signal;
        this.selId = null;
        this.rangeMode = false;
        this.selectMode = false;
        this.tab = 'event';
        this.marks = [];
        this.measure = null;       // {t0, t1}
        this.box = null;           // {t0, t1, tracks}
        this.rows = { collapsed: new Set(), hidden: new Set(), pinned: new Set(), filter: '' };
        this.url = urlWriter(() => this.params(), (p) => this.state.setParams(p));
        this.tileErrors = 0;
    }

    // Shows the trace index being built (api/load says so) on the bar;
    // meta would wait for it without a word. A host that is no one file
    // (ALL_HOSTS, a hosts= list) has nothing to poll: meta answers for it.
    async waitIndex(run, host, progress) {
        if (!host || host === 'ALL_HOSTS' || host.includes(','))
            return;
        try {
            await api.loadProfile(run, host, { signal: this.signal, untilIndex: true,
                                               onProgress: progress });
        } catch (e) {
            if (api.isAbort(e) || this.signal.aborted)
                throw e;
            // meta reports a bad file in its own words
        }
    }

    async start() {
        const { run, host } = this.state;
        // fetched while the track list is on its way
        this.styleLink = ensureStylesheet('trace_viewer');
        const progress = showProgress(this.el, 'Loading the trace…');
        let meta;
        try {
            await this.waitIndex(run, host, progress);
            meta = await api.traceMeta(run, host, { signal: this.signal });
        } catch (e) {
            if (api.isAbort(e) || this.signal.aborted)
                return;
            showError(this.el, e, { retry: () => this.start() });
            return;
        }
        if (this.signal.aborted)
            return;
        const nTracks = (meta.processes || []).reduce((s, p) => s + (p.threads || []).length, 0);
        if (nTracks === 0 && (meta.counters || []).length === 0) {
            showMessage(this.el, 'This profile has no trace events.',
                        'Nothing was recorded on any host thread or device stream ' +
                        '(the profiler may have been stopped before the first step).');
            return;
        }
        this.meta = meta;
        this.names = trackNames(meta);
        this.mountTimeline();
        // a trace cut off by a crashed run is shown as far as it was read
        if ((meta.warnings || []).length > 0)
            this.say(meta.warnings.join(' · '));
        this.applyParams(this.state.params, true);
    }

    mountTimeline() {
        const ui = buildDom(this.el);
        this.ui = ui;
        const { run, host } = this.state;
        const version = this.meta.source_id;   // undefined from an older server: left out
        this.timeline = new Timeline({
            scroll: ui.scroll,
            spacer: ui.spacer,
            canvas: ui.canvas,
            meta: this.meta,
            theme: readTheme(ui.root),
            loadTile: async (level, index, signal) =>
                decodeTileBin(await api.traceTile(run, host, level, index, { signal, version })),
            onViewChange: (vp) => this.viewChanged(vp),
            onClick: (hit) => this.clicked(hit),
            onHover: (hit, x, y) => this.hovered(hit, x, y),
            onTileError: (err) => this.tileFailed(err),
            onFrame: (f) => this.framed(f),
            onKey: (k) => this.key(k),
            rangeMode: () => this.rangeMode,
            selectMode: () => this.selectMode,
            onBox: (t0, t1, tracks) => this.selectBox({ t0, t1, tracks }),
            onMeasure: (span) => {
                this.measure = span;
                this.showMarks();
                this.remember(true);
            },
            onRulerClick: (t, psPerPx) => this.toggleMark(t, psPerPx),
            onRows: (collapsed) => {
                this.rows.collapsed = collapsed;
                this.rowsChanged();
            },
        });
        this.tracks = tracksPanel(this.meta, {
            onFilter: (text) => {
                this.rows.filter = text;
                this.rowsChanged(false);
            },
            onHidden: (key, hidden) => this.setKey('hidden', key, hidden),
            onPinned: (key, pinned) => this.setKey('pinned', key, pinned),
            onExpandAll: () => {
                this.rows.collapsed = new Set();
                this.rowsChanged();
            },
            onCollapseAll: () => {
                this.rows.collapsed = new Set((this.meta.processes || []).map((p) => `p:${p.pid}`));
                this.rowsChanged();
            },
            onShowAll: () => {
                this.rows.hidden = new Set();
                this.rows.filter = '';
                this.rowsChanged();
            },
            onClose: () => this.showTracks(false),
        });
        ui.main.append(this.tracks.el);
        // The canvas colours come from the stylesheet's variables: read them
        // again once it has arrived (the first frames used the defaults).
        if (!this.styleLink.sheet) {
            this.styleLink.addEventListener('load', () => {
                if (this.timeline && !this.signal.aborted)
                    this.timeline.setTheme(readTheme(ui.root));
            }, { once: true });
        }
        this.search = new TraceSearch({
            search: (q, offset, limit) => api.traceSearch(run, host, q, offset, limit,
                                                          { signal: this.signal, version }),
            onResult: (r) => this.select(r.id, { start: r.start_ps, dur: r.dur_ps, track: r.track,
                                                 reveal: true }),
            onInfo: (text) => { ui.searchInfo.textContent = text; },
            onError: (e) => this.say(`Search failed: ${e.message}`),
        });
        ui.form.addEventListener('submit', (e) => {
            e.preventDefault();
            this.search.run(ui.search.value, 1);
        });
        ui.search.addEventListener('keydown', (e) => {
            if (e.key === 'Enter' && e.shiftKey) {
                e.preventDefault();
                this.search.run(ui.search.value, -1);
            } else if (e.key === 'Escape') {
                ui.search.blur();
            }
        });
        ui.next.addEventListener('click', () => this.search.run(ui.search.value, 1));
        ui.prev.addEventListener('click', () => this.search.run(ui.search.value, -1));
        ui.zoomIn.addEventListener('click', () => this.timeline.zoomCentre(BUTTON_ZOOM));
        ui.zoomOut.addEventListener('click', () => this.timeline.zoomCentre(1 / BUTTON_ZOOM));
        ui.all.addEventListener('click', () => this.timeline.showAll());
        ui.rangeBtn.addEventListener('click', () => {
            this.rangeMode = !this.rangeMode;
            this.selectMode = false;
            ui.rangeBtn.setAttribute('aria-pressed', String(this.rangeMode));
            ui.selectBtn.setAttribute('aria-pressed', 'false');
        });
        ui.selectBtn.addEventListener('click', () => {
            this.selectMode = !this.selectMode;
            this.rangeMode = false;
            ui.selectBtn.setAttribute('aria-pressed', String(this.selectMode));
            ui.rangeBtn.setAttribute('aria-pressed', 'false');
        });
        ui.tracksBtn.addEventListener('click', () => this.showTracks(this.tracks.el.hidden));
        this.showWindow(this.timeline.viewport());
    }

    // Everything of this view that goes in the URL (url_state.js).
    params() {
        const b = this.box;
        return {
            ...formatParams(this.timeline.viewport(), this.selId),
            marks: formatTimes(this.marks),
            measure: this.measure ? formatTimes([this.measure.t0, this.measure.t1]) : undefined,
            box: b ? formatTimes([b.t0, b.t1]) : undefined,
            boxtracks: b ? b.tracks.join(',') : undefined,
            tab: this.tab === 'flows' ? 'flows' : undefined,
            fold: formatKeys(this.rows.collapsed),
            hide: formatKeys(this.rows.hidden),
            pin: formatKeys(this.rows.pinned),
            tracks: this.rows.filter ? this.rows.filter : undefined,
        };
    }

    // Writes the URL now: a step the user can go Back from (push), or a
    // change that replaces the entry.
    remember(push) {
        this.url.cancel();
        this.state.setParams(this.params(), { replace: !push });
    }

    // Applies start/end/sel from the URL (on mount, and on Back/Forward).
    applyParams(params, first) {
        const win = parseWindow(params);
        if (win)
            this.timeline.setWindow(win.startPs, win.endPs);
        this.marks = parseTimes(params.marks);
        this.measure = parseSpan(params.measure);
        this.tab = params.tab === 'flows' ? 'flows' : 'event';
        this.rows = { collapsed: parseKeys(params.fold), hidden: parseKeys(params.hide),
                      pinned: parseKeys(params.pin), filter: params.tracks || '' };
        this.timeline.setMarks(this.marks);
        this.timeline.setMeasure(this.measure);
        this.applyRows();
        this.showMarks();
        const span = parseSpan(params.box);
        const tracks = parseTimes(params.boxtracks);
        const box = span && tracks.length ? { ...span, tracks } : null;
        if (JSON.stringify(box) !== JSON.stringify(this.box)) {
            if (box)
                this.selectBox(box, { fromUrl: true, quiet: params.sel !== undefined });
            else
                this.clearBox(true);
        }
        const sel = parseSelection(params);
        if (sel !== this.selId) {
            if (sel === null)
                this.clearSelection(true);
            else
                this.select(sel, { reveal: first && !win, fromUrl: true });
        }
    }

    update(state) {
        this.state = state;
        if (this.timeline)
            this.applyParams(state.params, false);
    }

    // ---- reactions -------------------------------------------------------------

    viewChanged(vp) {
        this.showWindow(vp);
        this.url.write();
    }

    showWindow(vp) {
        const text = `Window ${formatDurationPs(vp.endPs - vp.startPs)} of ` +
            `${formatDurationPs(Number(this.meta.span_ps) || 0)} · ` +
            `${formatCount(Number(this.meta.n_events) || 0)} events`;
        if (this.ui.window.textContent !== text)
            this.ui.window.textContent = text;
    }

    // data-complete (every tile of the frame at its own level) and
    // data-frame-ms (the drawing time of the last frame) are read by the
    // browser test and bench/trace_frame.mjs.
    framed(f) {
        const v = f.complete ? 'true' : 'false';
        if (this.ui.root.dataset.complete !== v)
            this.ui.root.dataset.complete = v;
        this.ui.root.dataset.frameMs = f.ms.toFixed(3);
        if (this.ui.loading.hidden !== f.complete)
            this.ui.loading.hidden = f.complete;
        if (f.complete && !this.firstComplete) {
            this.firstComplete = true;
            performance.mark('pv-trace-first-complete-frame');
        }
    }

    tileFailed(err) {
        this.tileErrors += 1;
        this.say(`${this.tileErrors} tile request(s) failed; coarser data is shown there. ` +
                 `Last error: ${err.message}`);
    }

    say(text) {
        this.ui.status.textContent = text;
    }

    hovered(hit, x, y) {
        const tip = this.ui.tooltip;
        if (!hit) {
            tip.hidden = true;
            return;
        }
        tip.textContent = tooltipText(hit);
        tip.hidden = false;
        const maxX = this.ui.scroll.clientWidth - tip.offsetWidth - 4;
        tip.style.left = `${Math.max(0, Math.min(maxX, x + 14))}px`;
        tip.style.top = `${y + 16}px`;
    }

    clicked(hit) {
        if (hit && hit.kind === 'counter')
            return;
        if (!hit) {
            this.clearSelection();
            return;
        }
        if (hit.kind === 'box') {
            this.showBox(hit);
            return;
        }
        this.select(hit.id, { start: hit.start, dur: hit.dur, track: hit.track, depth: hit.depth });
    }

    // ---- rows, marks, measure ---------------------------------------------------

    applyRows() {
        const { collapsed, hidden, pinned, filter } = this.rows;
        const layout = this.timeline.setRows(collapsed, { hidden, pinned, filter });
        this.tracks.update({ filter, hidden, pinned, nHidden: layout.nHidden,
                             nFiltered: layout.nFiltered });
    }

    rowsChanged(push = true) {
        this.applyRows();
        this.remember(push);
    }

    // Adds (on) or removes key in one of the row sets ('hidden', 'pinned').
    setKey(set, key, on) {
        const next = new Set(this.rows[set]);
        if (on)
            next.add(key);
        else
            next.delete(key);
        this.rows[set] = next;
        this.rowsChanged();
    }

    showTracks(open) {
        this.tracks.el.hidden = !open;
        this.ui.tracksBtn.setAttribute('aria-expanded', String(open));
    }

    // A click on the ruler: removes the mark within MARK_HIT_PX of t, or
    // adds one at t.
    toggleMark(t, psPerPx) {
        const near = this.marks.findIndex((m) => Math.abs(m - t) <= MARK_HIT_PX * psPerPx);
        this.marks = near >= 0 ? this.marks.filter((_, i) => i !== near)
            : [...this.marks, Math.round(t)].sort((a, b) => a - b);
        this.timeline.setMarks(this.marks);
        this.showMarks();
        this.remember(true);
    }

    // The toolbar's line about marks and the measured span, with a button
    // that clears them.
    showMarks() {
        const el = this.ui.marks;
        const parts = [];
        if (this.measure)
            parts.push(`Measured ${formatDurationPs(this.measure.t1 - this.measure.t0)}`);
        if (this.marks.length) {
            parts.push(`${this.marks.length} mark${this.marks.length === 1 ? '' : 's'}`);
            if (this.marks.length > 1) {
                parts.push(`first to last ${formatDurationPs(this.marks[this.marks.length - 1] -
                                                             this.marks[0])}`);
            }
        }
        el.hidden = parts.length === 0;
        clear(el);
        if (parts.length) {
            el.append(h('span', { class: 'tv-marks-text', text: parts.join(' · ') }), ' ',
                h('button', { type: 'button', text: 'Clear', title: 'Remove the marks and ' +
                              'the measured span', on: { click: () => {
                    this.marks = [];
                    this.measure = null;
                    this.timeline.setMarks([]);
                    this.timeline.setMeasure(null);
                    this.showMarks();
                    this.remember(true);
                } } }));
        }
    }

    // ---- box selection --------------------------------------------------------------

    // Sums the events of box {t0, t1, tracks} (api/trace/aggregate) into
    // the panel. opts.fromUrl: the URL has it already; opts.quiet: draw the
    // box but leave the panel to the selected event.
    async selectBox(box, opts = {}) {
        this.box = { t0: Math.round(box.t0), t1: Math.round(box.t1), tracks: box.tracks };
        this.timeline.setBox(this.box);
        if (!opts.fromUrl) {
            this.selId = null;
            this.selection = null;
            this.timeline.setSelection(null);
            this.timeline.setFlows([]);
            this.remember(true);
        }
        if (opts.quiet)
            return;
        if (this.detailsCtl)
            this.detailsCtl.abort();
        const ctl = new AbortController();
        this.detailsCtl = ctl;
        this.showPanelMessage('Summing the events in the box…');
        let agg;
        try {
            agg = await api.traceAggregate(this.state.run, this.state.host, this.box.t0,
                                           this.box.t1, this.box.tracks,
                                           { signal: ctl.signal, version: this.meta.source_id });
        } catch (e) {
            if (!api.isAbort(e) && !ctl.signal.aborted)
                this.showPanelMessage(`Could not sum the box: ${e.message}`);
            return;
        }
        if (ctl.signal.aborted)
            return;
        this.dropAggTable();
        this.ui.details.hidden = false;
        const b = this.box;
        this.aggTable = renderAggregate(this.ui.details, agg, b, {
            onClose: () => this.clearBox(),
            onZoom: () => this.timeline.frame(b.t0, b.t1 - b.t0),
            url: tableUrl(this.state, 'agg'),
            name: `trace_selection_${this.state.run}_${this.state.host || ''}`,
        });
    }

    dropAggTable() {
        if (this.aggTable) {
            this.aggTable.destroy();
            this.aggTable = null;
        }
    }

    clearBox(fromUrl = false) {
        if (!this.box)
            return;
        this.box = null;
        this.timeline.setBox(null);
        this.dropAggTable();
        if (this.selId === null) {
            if (this.detailsCtl)
                this.detailsCtl.abort();
            this.ui.details.hidden = true;
            clear(this.ui.details);
        }
        if (!fromUrl)
            this.remember(true);
    }

    key(k) {
        if (k === 'm') {
            this.toggleMark(this.timeline.pointerTime(), 0);
            return true;
        }
        if (k === 'f' && this.selection) {
            this.timeline.frame(this.selection.start, this.selection.dur);
            return true;
        }
        if (k === 'Escape') {
            this.clearSelection();
            this.clearBox();
            return true;
        }
        if ((k === '[' || k === ']') && this.selection) {
            const n = this.timeline.neighbour(this.selection, k === ']' ? 1 : -1);
            if (n)
                this.select(n.id, { ...n, reveal: true });
            return true;
        }
        if (k === '0') {
            this.timeline.showAll();
            return true;
        }
        if (k === '/') {
            this.ui.search.focus();
            return true;
        }
        return false;
    }

    // ---- selection -------------------------------------------------------------

    // Selects event id. known: what the caller already knows of it ({start,
    // dur, track, depth}) so the outline shows before the details arrive;
    // reveal: bring it into view.
    async select(id, known = {}) {
        const same = id === this.selId;
        this.selId = id;
        if (!same)
            this.pushSelection(known.fromUrl);
        if (known.start !== undefined) {
            this.selection = { id, track: known.track, depth: known.depth ?? 0,
                               start: Number(known.start), dur: Number(known.dur) || 0 };
            this.timeline.setSelection(this.selection);
            if (known.reveal)
                this.timeline.reveal(this.selection.start, this.selection.dur);
        }
        this.timeline.setFlows([]);
        if (this.detailsCtl)
            this.detailsCtl.abort();
        const ctl = new AbortController();
        this.detailsCtl = ctl;
        this.showPanelMessage('Loading event details…');
        if (this.selection && this.selection.id === id)
            this.timeline.keepVisible(this.selection.track, this.selection.depth);
        let d;
        try {
            d = await api.traceEvent(this.state.run, this.state.host, id,
                                     { signal: ctl.signal, version: this.meta.source_id });
        } catch (e) {
            if (api.isAbort(e) || ctl.signal.aborted)
                return;
            this.showPanelMessage(`Could not load event ${id}: ${e.message}`);
            return;
        }
        if (ctl.signal.aborted || this.selId !== id)
            return;
        this.selection = { id, track: d.track, depth: Number(d.depth) || 0,
                           start: Number(d.start_ps), dur: Number(d.dur_ps) || 0 };
        this.timeline.setSelection(this.selection);
        if (known.reveal && known.start === undefined)
            this.timeline.reveal(this.selection.start, this.selection.dur);
        this.timeline.setFlows(this.flowArrows(d));
        this.ui.details.hidden = false;
        this.dropAggTable();
        const draw = () => renderDetails(this.ui.details, d, this.names, {
            onJump: (f) => this.select(f.id, { start: f.start_ps, dur: f.dur_ps, track: f.track,
                                               reveal: true }),
            onClose: () => this.clearSelection(),
            onFrame: () => this.timeline.frame(this.selection.start, this.selection.dur),
            tab: this.tab,
            onTab: (tab) => {
                this.tab = tab;
                this.remember(false);
                draw();
            },
        });
        draw();
        if (known.reveal)
            this.timeline.scrollToTrack(this.selection.track);
        this.timeline.keepVisible(this.selection.track, this.selection.depth);
    }

    flowArrows(d) {
        const self = this.selection;
        return (d.flows || []).map((f) => {
            const drawn = this.timeline.drawnEvent(f.id);
            const other = { track: f.track, depth: drawn ? drawn.depth : 0,
                            start: Number(f.start_ps), dur: Number(f.dur_ps) || 0 };
            return f.direction === 'in' ? { from: other, to: self } : { from: self, to: other };
        });
    }

    showBox(hit) {
        this.clearSelection();
        this.ui.details.hidden = false;
        renderBox(this.ui.details, hit, this.names, {
            onClose: () => this.clearSelection(),
            onZoom: () => this.timeline.frame(hit.start, hit.end - hit.start),
        });
    }

    showPanelMessage(text) {
        this.dropAggTable();
        this.ui.details.hidden = false;
        clear(this.ui.details);
        this.ui.details.append(h('p', { class: 'hint', text }));
    }

    clearSelection(fromUrl = false) {
        if (this.detailsCtl)
            this.detailsCtl.abort();
        const had = this.selId !== null;
        this.selId = null;
        this.selection = null;
        this.timeline.setSelection(null);
        this.timeline.setFlows([]);
        this.ui.details.hidden = true;
        clear(this.ui.details);
        if (had)
            this.pushSelection(fromUrl);
    }

    // A new selection is a history step (Back returns to the previous
    // one), unlike the window, which is replaced while panning. A selection
    // that came from the URL is already there.
    pushSelection(fromUrl) {
        if (!fromUrl)
            this.remember(true);
    }

    destroy() {
        this.controller.abort();
        if (this.detailsCtl)
            this.detailsCtl.abort();
        // Not flush(): the URL may already belong to the next view.
        this.url.cancel();
        if (this.timeline)
            this.timeline.destroy();
    }
}

export async function mount(el, state) {
    unmount();
    const view = new TraceView(el, state);
    current = view;
    await view.start();
}

export function update(state) {
    if (current)
        current.update(state);
}

export function unmount() {
    if (!current)
        return;
    current.destroy();
    current = null;
}
