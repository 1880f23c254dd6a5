// timeline.js: the canvas timeline of the trace viewer — it owns the
// viewport, the vertical layout, the tile cache and the redraw loop, and
// turns input (input.js) into changes of them. The surrounding page
// (views/trace_viewer.js) owns the toolbar, the details panel, search and
// the URL, and talks to the timeline through the methods below and the
// callbacks it passes in.
//
// Redraws are driven by requestAnimationFrame and happen only when
// something changed (the window, a tile arrived, the hover, the size): an
// idle timeline costs nothing. Canvas sizing and devicePixelRatio are
// dom.js's job (sizeCanvas, watchDpr).
//
// DOM it expects: scroll (a scrolling element), spacer (its only child,
// sized here to the content height) and canvas (inside spacer, CSS
// position: sticky; top: 0, so it stays in view while spacer scrolls).

import { sizeCanvas, watchDpr } from '../dom.js';
import { drawFrame } from '../draw/frame.js';
import { counterAt, findDrawn, hitTest, nextOnLevel } from './hit.js';
import { attachInput } from './input.js';
import { ROW_PX, computeLayout, depthAt, depthMidY, rowAt, toggle } from './layout.js';
import { computeTicks } from './ticks.js';
import { TileCache } from './tile_cache.js';
import * as V from './viewport.js';

export const GUTTER_PX = 230;
export const RULER_PX = 26;
const HOVER_TOL_PX = 3;
const PREFETCH_AHEAD = 2;  // tiles fetched ahead of the window in the pan's direction
const PREFETCH_BEHIND = 1; // and behind it

export class Timeline {
    // opts: {scroll, spacer, canvas, meta, loadTile(level, index, signal),
    //   theme, onViewChange(vp), onClick(hit|null), onHover(hit|null, x, y),
    //   onTileError(err), onFrame({complete, ms}), onKey(key) -> bool,
    //   rangeMode() -> bool, selectMode() -> bool, onBox(t0, t1, tracks),
    //   onMeasure(span|null), onRulerClick(t), onRows(collapsed)}
    constructor(opts) {
        this.o = opts;
        this.meta = opts.meta;
        this.span = Math.max(1, Number(opts.meta.span_ps) || 1);
        this.maxLevel = Math.max(0, Number(opts.meta.max_level) || 0);
        this.tilePx = Math.max(1, Number(opts.meta.tile_px) || 1024);
        this.theme = opts.theme;
        this.collapsed = new Set();
        this.rowOpts = {};          // layout.js: hidden, pinned, filter
        this.layout = computeLayout(this.meta, this.collapsed);
        this.marks = [];
        this.measure = null;        // {t0, t1}
        this.box = null;            // {t0, t1, tracks}
        this.boxDrag = null;        // {t0, t1, y0, y1} while dragging
        this.vp = V.fullViewport(this.span, 1000);
        this.size = { width: 0, height: 0 };
        this.ctx = null;
        this.pieces = [];
        this.hover = null;
        this.selection = null;
        this.flows = [];
        this.range = null;
        this.raf = 0;
        this.panDir = 1;       // +1 after a pan to later times, -1 to earlier
        this.complete = false;
        this.gutterDrawn = null;  // what the names column on the canvas was drawn from
        this.destroyed = false;
        this.cache = new TileCache({
            load: opts.loadTile,
            onLoad: () => this.redraw(),
            onError: (err) => opts.onTileError && opts.onTileError(err),
        });
        // Opaque: the frame paints every pixel, and the compositor can skip
        // blending the canvas with the page under it (and painting the page
        // there at all). Only the first getContext call on a canvas sets its
        // options, so nothing may call it before this (docs/trace_viewer_ui.md).
        opts.canvas.getContext('2d', { alpha: false });
        this.resizeObserver = new ResizeObserver(() => this.resize());
        this.resizeObserver.observe(opts.scroll);
        this.stopDpr = watchDpr(() => this.resize(true));
        this.onScroll = () => this.redraw();
        opts.scroll.addEventListener('scroll', this.onScroll);
        this.detachInput = attachInput(opts.canvas, this.inputHandlers(), {
            rangeMode: opts.rangeMode,
            widthPx: () => this.vp.widthPx,
            selectMode: opts.selectMode,
            scrollsAt: (x) => x < GUTTER_PX,
            inRuler: (x, y) => y < RULER_PX && x >= GUTTER_PX,
            anchorX: () => (this.pointerX !== undefined ? this.pointerX
                : GUTTER_PX + this.vp.widthPx / 2),
        });
        this.resize();
    }

    // ---- public ---------------------------------------------------------------

    viewport() {
        return this.vp;
    }

    // Shows [startPs, endPs] (clamped into the trace).
    setWindow(startPs, endPs) {
        this.apply(V.clampWindow(startPs, endPs, this.span, this.vp.widthPx));
    }

    // Zooms by factor around the middle of the time area (toolbar buttons).
    zoomCentre(factor) {
        this.apply(V.zoomAt(this.vp, factor, this.vp.widthPx / 2, this.span));
    }

    showAll() {
        this.apply(V.fullViewport(this.span, this.vp.widthPx));
    }

    // Brings [t, t + durPs] into view (see viewport.js revealRange).
    reveal(t, durPs) {
        this.apply(V.revealRange(this.vp, t, durPs, this.span));
        this.scrollToTrack(this.selection && this.selection.track);
    }

    // Zooms so [t, t + durPs] fills most of the window.
    frame(t, durPs) {
        const pad = Math.max(durPs * 0.1, V.MIN_WINDOW_PS / 2);
        this.apply(V.zoomToRange(this.vp, t - pad, t + durPs + pad, this.span));
    }

    // Colours and fonts for the canvas (see trace_viewer.js readTheme).
    setTheme(theme) {
        this.theme = theme;
        this.redraw();
    }

    // ev: {id, track, depth, start, dur} or null.
    setSelection(ev) {
        this.selection = ev;
        this.redraw();
    }

    // flows: [{from, to}] (overlay.js).
    setFlows(flows) {
        this.flows = flows;
        this.redraw();
    }

    // Marks: times (ps) flagged on the time axis.
    setMarks(marks) {
        this.marks = marks;
        this.redraw();
    }

    // The measured span {t0, t1} (ps), or null.
    setMeasure(span) {
        this.measure = span;
        this.redraw();
    }

    // The box selection {t0, t1, tracks}, or null.
    setBox(box) {
        this.box = box;
        this.redraw();
    }

    // The time under the pointer, or the middle of the window when the
    // pointer is not over the time area.
    pointerTime() {
        const x = this.pointerX !== undefined && this.pointerX >= GUTTER_PX ? this.pointerX
            : GUTTER_PX + this.vp.widthPx / 2;
        return V.pxToTime(this.vp, x - GUTTER_PX);
    }

    // Which rows are shown and how (layout.js): collapsed keys, and
    // {hidden, pinned, filter}. Returns the new layout.
    setRows(collapsed, rowOpts) {
        this.rowOpts = rowOpts;
        this.relayout(collapsed);
        return this.layout;
    }

    // Event id as drawn now ({track, depth, start, dur, name}) or null.
    drawnEvent(id) {
        return findDrawn(this.pieces, id);
    }

    // The drawn event next to ev on its level, later (dir +1) or earlier
    // (dir -1), or null.
    neighbour(ev, dir) {
        return nextOnLevel(this.pieces, ev.track, ev.depth, ev.start, dir);
    }

    // Scrolls vertically, as little as it can, so that level depth of the
    // track is in view (the details panel opening below the tracks takes
    // their lower third: a kernel clicked there must not vanish under it).
    keepVisible(track, depth) {
        const row = track === undefined || track === null ? null : this.layout.byTrack.get(track);
        if (!row)
            return;
        const s = this.o.scroll;
        // clientHeight, not this.size: the panel may have opened a moment
        // ago and the resize observer not run yet.
        const viewH = s.clientHeight - RULER_PX;
        const top = depthMidY(row, depth ?? 0) - ROW_PX / 2;
        const pad = ROW_PX;
        if (top < s.scrollTop)
            s.scrollTop = Math.max(0, top - pad);
        else if (top + ROW_PX > s.scrollTop + viewH)
            s.scrollTop = top + ROW_PX + pad - viewH;
    }

    // Scrolls vertically so the track's row is visible.
    scrollToTrack(track) {
        const row = track === undefined || track === null ? null : this.layout.byTrack.get(track);
        if (!row)
            return;
        const s = this.o.scroll;
        // clientHeight, not this.size: the details panel may have just
        // opened and shrunk the area before the resize observer ran.
        const viewH = s.clientHeight - RULER_PX;
        if (row.y < s.scrollTop || row.y + row.h > s.scrollTop + viewH)
            s.scrollTop = Math.max(0, row.y - viewH / 3);
    }

    destroy() {
        this.destroyed = true;
        this.cache.close();
        this.detachInput();
        this.stopDpr();
        this.resizeObserver.disconnect();
        this.o.scroll.removeEventListener('scroll', this.onScroll);
        if (this.raf)
            cancelAnimationFrame(this.raf);
    }

    // ---- state changes -----------------------------------------------------------

    apply(vp) {
        if (V.sameViewport(vp, this.vp))
            return;
        // Remember which way a pan goes (same width, new start) so the
        // prefetch looks ahead on that side.
        if (Math.abs((vp.endPs - vp.startPs) - (this.vp.endPs - this.vp.startPs)) < 1 &&
            vp.startPs !== this.vp.startPs)
            this.panDir = vp.startPs > this.vp.startPs ? 1 : -1;
        this.vp = vp;
        this.redraw();
        if (this.o.onViewChange)
            this.o.onViewChange(vp);
    }

    resize(force = false) {
        const s = this.o.scroll;
        const width = s.clientWidth;
        const height = s.clientHeight;
        if (!force && width === this.size.width && height === this.size.height)
            return;
        this.size = { width, height };
        this.gutterDrawn = null;
        const r = sizeCanvas(this.o.canvas, width, height);
        this.ctx = r.ctx;
        this.vp = V.resize(this.vp, Math.max(1, width - GUTTER_PX));
        this.updateSpacer();
        this.redraw();
    }

    updateSpacer() {
        const h = RULER_PX + this.layout.height + 8;
        this.o.spacer.style.height = `${Math.max(h, this.size.height)}px`;
    }

    relayout(collapsed) {
        this.collapsed = collapsed;
        this.layout = computeLayout(this.meta, collapsed, this.rowOpts);
        this.updateSpacer();
        this.redraw();
    }

    // The thread tracks whose rows lie between content ys y0 and y1 (a
    // collapsed process stands for the threads in its summary row).
    tracksBetween(y0, y1) {
        const lo = Math.min(y0, y1);
        const hi = Math.max(y0, y1);
        const out = [];
        for (const r of this.layout.rows) {
            if (r.y + r.h <= lo || r.y >= hi)
                continue;
            if (r.kind === 'thread')
                out.push(r.track);
            else if (r.kind === 'process' && r.collapsed)
                out.push(...r.tracks);
        }
        return out;
    }

    // Content ys of the rows of a box's tracks: {y0, y1}, or null when none
    // of them is laid out.
    boxRows(tracks) {
        let y0 = Infinity;
        let y1 = -Infinity;
        const want = new Set(tracks);
        for (const r of this.layout.rows) {
            const hit = r.kind === 'thread' ? want.has(r.track)
                : r.kind === 'process' && r.collapsed && r.tracks.some((t) => want.has(t));
            if (hit) {
                y0 = Math.min(y0, r.y);
                y1 = Math.max(y1, r.y + r.h);
            }
        }
        return y0 < y1 ? { y0, y1 } : null;
    }

    // The box to draw: the one being dragged, else the selection's rows.
    sceneBox() {
        if (this.boxDrag)
            return this.boxDrag;
        if (!this.box)
            return null;
        const ys = this.boxRows(this.box.tracks);
        return ys && { t0: this.box.t0, t1: this.box.t1, ...ys };
    }

    redraw() {
        if (this.raf || this.destroyed)
            return;
        this.raf = requestAnimationFrame(() => {
            this.raf = 0;
            this.draw();
        });
    }

    // ---- one frame -----------------------------------------------------------------

    draw() {
        if (!this.ctx || this.size.width === 0)
            return;
        const t0 = performance.now();
        const vp = this.vp;
        const level = V.tileLevel(vp, this.span, this.tilePx, this.maxLevel);
        const { first, last } = V.tileRange(vp.startPs, vp.endPs, this.span, level);
        const bounds = (l, i) => V.tileBounds(this.span, l, i);
        this.pieces = this.cache.cover(level, first, last, bounds);

        const needed = [[0, 0]];
        for (let i = first; i <= last; i++)
            needed.push([level, i]);
        const prefetch = [];
        const n = 2 ** level;
        const right = this.panDir < 0 ? PREFETCH_BEHIND : PREFETCH_AHEAD;
        const left = this.panDir < 0 ? PREFETCH_AHEAD : PREFETCH_BEHIND;
        for (let k = 1; k <= Math.max(left, right); k++) {
            if (k <= left && first - k >= 0)
                prefetch.push([level, first - k]);
            if (k <= right && last + k < n)
                prefetch.push([level, last + k]);
        }
        if (level > 0) {
            // Division, not >> 1: indices pass 2^31 at level 31 and up.
            for (let i = Math.floor(first / 2); i <= Math.floor(last / 2); i++)
                prefetch.push([level - 1, i]);
        }
        this.cache.want(needed, prefetch);

        const complete = this.pieces.length === last - first + 1 &&
            this.pieces.every((p) => p.tile.level === level);
        // A pan changes only the time area: the names column stays as drawn
        // while rows, scroll, size and theme do.
        const scrollY = this.o.scroll.scrollTop;
        const g = this.gutterDrawn;
        const gutterKept = Boolean(g && g.ctx === this.ctx && g.layout === this.layout &&
            g.scrollY === scrollY && g.theme === this.theme);
        this.gutterDrawn = { ctx: this.ctx, layout: this.layout, scrollY, theme: this.theme };
        drawFrame(this.ctx, {
            width: this.size.width,
            height: this.size.height,
            gutterPx: GUTTER_PX,
            rulerPx: RULER_PX,
            scrollY,
            gutterKept,
            vp,
            layout: this.layout,
            pieces: this.pieces,
            ticks: computeTicks(vp.startPs, vp.endPs, vp.widthPx),
            theme: this.theme,
            hover: this.hover && this.hover.kind === 'event' ? this.hover : null,
            selection: this.selection,
            flows: this.flows,
            range: this.range,
            box: this.sceneBox(),
            marks: this.marks,
            measure: this.measure,
            complete,
        });
        this.complete = complete;
        if (this.o.onFrame)
            this.o.onFrame({ complete, level, ms: performance.now() - t0 });
    }

    // ---- input -----------------------------------------------------------------------

    // Where canvas point (x, y) falls: {row, depth, t} or null outside tracks.
    locate(x, y) {
        if (y < RULER_PX)
            return null;
        const cy = y - RULER_PX + this.o.scroll.scrollTop;
        const row = rowAt(this.layout, cy);
        if (!row)
            return null;
        const depth = row.kind === 'thread' ? depthAt(row, cy) : -1;
        return { row, depth, t: V.pxToTime(this.vp, x - GUTTER_PX), inGutter: x < GUTTER_PX };
    }

    hitAt(x, y) {
        const at = this.locate(x, y);
        if (at && !at.inGutter && at.row.kind === 'counter') {
            const c = counterAt(this.pieces, at.row.counter.id, at.t);
            return c && { kind: 'counter', name: at.row.label, value: c.value, start: c.t,
                          track: null, depth: -1 };
        }
        if (!at || at.inGutter || at.row.kind !== 'thread' || at.depth < 0)
            return null;
        const tol = HOVER_TOL_PX * V.psPerPx(this.vp);
        return hitTest(this.pieces, at.row.track, at.depth, at.t, tol);
    }

    inputHandlers() {
        const timeX = (x) => Math.max(0, Math.min(this.vp.widthPx, x - GUTTER_PX));
        const contentY = (y) => Math.max(0, y - RULER_PX) + this.o.scroll.scrollTop;
        return {
            onPan: (dx, dy) => {
                // What was under the pointer has moved away from it.
                if (this.hover) {
                    this.hover = null;
                    if (this.o.onHover)
                        this.o.onHover(null, 0, 0);
                }
                this.apply(V.panByPx(this.vp, dx, this.span));
                if (dy)
                    this.o.scroll.scrollTop += dy;
            },
            onZoom: (factor, x) => this.apply(V.zoomAt(this.vp, factor, timeX(x), this.span)),
            onScroll: (dy) => {
                this.o.scroll.scrollTop += dy;
            },
            onRangeDrag: (x0, x1) => {
                this.range = x0 === null ? null
                    : { t0: V.pxToTime(this.vp, timeX(x0)), t1: V.pxToTime(this.vp, timeX(x1)) };
                this.redraw();
            },
            onRange: (x0, x1) => {
                this.range = null;
                const t0 = V.pxToTime(this.vp, timeX(x0));
                const t1 = V.pxToTime(this.vp, timeX(x1));
                if (Math.abs(x1 - x0) >= 3)
                    this.apply(V.zoomToRange(this.vp, t0, t1, this.span));
                this.redraw();
            },
            onBoxDrag: (x0, y0, x1, y1) => {
                this.boxDrag = x0 === null ? null : {
                    t0: V.pxToTime(this.vp, timeX(x0)), t1: V.pxToTime(this.vp, timeX(x1)),
                    y0: contentY(y0), y1: contentY(y1) };
                this.redraw();
            },
            onBox: (x0, y0, x1, y1) => {
                this.boxDrag = null;
                const t0 = V.pxToTime(this.vp, timeX(Math.min(x0, x1)));
                const t1 = V.pxToTime(this.vp, timeX(Math.max(x0, x1)));
                const tracks = this.tracksBetween(contentY(y0), contentY(y1));
                this.redraw();
                if (t1 > t0 && tracks.length > 0 && this.o.onBox)
                    this.o.onBox(t0, t1, tracks);
            },
            onMeasureDrag: (x0, x1) => {
                this.measure = x0 === null ? null
                    : { t0: V.pxToTime(this.vp, timeX(x0)), t1: V.pxToTime(this.vp, timeX(x1)) };
                this.redraw();
            },
            onMeasure: (x0, x1) => {
                const t0 = V.pxToTime(this.vp, timeX(Math.min(x0, x1)));
                const t1 = V.pxToTime(this.vp, timeX(Math.max(x0, x1)));
                this.measure = t1 > t0 ? { t0, t1 } : null;
                this.redraw();
                if (this.o.onMeasure)
                    this.o.onMeasure(this.measure);
            },
            onRulerClick: (x) => {
                if (this.o.onRulerClick)
                    this.o.onRulerClick(V.pxToTime(this.vp, timeX(x)), V.psPerPx(this.vp));
            },
            onClick: (x, y) => {
                const at = this.locate(x, y);
                if (at && at.inGutter) {
                    const r = at.row;
                    if (r.kind === 'process' || (r.kind === 'thread' && r.depths > 1)) {
                        this.relayout(toggle(this.collapsed, at.row.key));
                        if (this.o.onRows)
                            this.o.onRows(this.collapsed);
                    }
                    return;
                }
                if (this.o.onClick)
                    this.o.onClick(this.hitAt(x, y));
            },
            onHover: (x, y) => {
                this.pointerX = x;
                const at = this.locate(x, y);
                this.o.canvas.classList.toggle('tv-gutter-hover', Boolean(at && at.inGutter &&
                    (at.row.kind === 'process' || at.row.depths > 1)));
                this.o.canvas.classList.toggle('tv-ruler-hover', y < RULER_PX && x >= GUTTER_PX);
                const hit = this.hitAt(x, y);
                const same = (a, b) => a === b || (a && b && a.kind === b.kind &&
                    a.start === b.start && a.track === b.track && a.depth === b.depth);
                if (!same(hit, this.hover)) {
                    this.hover = hit;
                    this.redraw();
                }
                if (this.o.onHover)
                    this.o.onHover(hit, x, y);
            },
            onLeave: () => {
                this.pointerX = undefined;
                if (this.hover) {
                    this.hover = null;
                    this.redraw();
                }
                if (this.o.onHover)
                    this.o.onHover(null, 0, 0);
            },
            onKey: (k, e) => (this.o.onKey ? this.o.onKey(k, e) : false),
        };
    }
}
