// input.js: mouse, wheel and keyboard on the timeline, turned into a few
// intentions the view acts on. It knows nothing about time or tiles: it
// reports pixels (relative to the canvas's top-left corner, CSS px).
//
//   drag                 -> onPan(dxPx, dyPx) as the pointer moves
//   Shift+drag (or drag in range mode) -> onRangeDrag(x0, x1), then
//                           onRange(x0, x1) on release
//   Alt+drag (or drag in select mode) -> onBoxDrag(x0, y0, x1, y1), then
//                           onBox(x0, y0, x1, y1) on release
//   drag on the time ruler -> onMeasureDrag(x0, x1), then onMeasure(x0, x1)
//   click on the time ruler -> onRulerClick(x)
//   click (no drag)      -> onClick(x, y)
//   move without button  -> onHover(x, y); leaving -> onLeave()
//   wheel                -> onZoom(factor, x) (factor > 1 zooms in);
//                           Shift+wheel, or any wheel where scrollsAt(x, y)
//                           (the names column) -> onScroll(dyPx);
//                           sideways -> onPan
//   W/S, A/D             -> one step at once (a tap zooms by TAP_ZOOM or
//                           pans TAP_PAN_FRACTION of the window), then, held past
//                           HOLD_MS, onZoom / onPan every animation frame
//                           at a speed that does not depend on key repeat
//   other keys           -> onKey(key) (F, Escape, /, ...)
// Keys are ignored while focus is in a text field or a control, so typing
// in the search box never moves the view.

const DRAG_THRESHOLD_PX = 4;
const WHEEL_ZOOM_PER_PX = 0.0025;   // zoom factor exp(-dy * this) per wheel pixel
const KEY_ZOOM_PER_S = 4;           // W/S: the window shrinks 4x per second held
const KEY_PAN_FRACTION_PER_S = 1.2; // A/D: 1.2 window widths per second held
const LINE_PX = 16;                 // a wheel "line" in pixels
// A tap must do something a person sees: the hold speed alone moves a
// 60 ms tap by 2-5 %.
const TAP_ZOOM = 1.25;              // W/S tap: the window shrinks (grows) by a fifth
const TAP_PAN_FRACTION = 0.1;       // A/D tap: a tenth of the window
const HOLD_MS = 200;                // held this long, a key moves the view smoothly

function isTyping(target) {
    if (!target || !target.tagName)
        return false;
    const tag = target.tagName.toLowerCase();
    return tag === 'input' || tag === 'textarea' || tag === 'select' || target.isContentEditable;
}

function wheelPx(e, delta) {
    if (e.deltaMode === 1)
        return delta * LINE_PX;
    if (e.deltaMode === 2)
        return delta * 400;
    return delta;
}

// Attaches the handlers to canvas (and keys to its document). options:
// {rangeMode() -> bool, selectMode() -> bool, widthPx() -> time-area width
// for key panning, anchorX() -> x to zoom around with W/S, scrollsAt(x, y)
// -> bool, inRuler(x, y) -> bool (the time ruler's area)}.
// Returns a detach function.
export function attachInput(canvas, handlers, options = {}) {
    const h = { onPan() {}, onZoom() {}, onRange() {}, onRangeDrag() {}, onClick() {},
                onHover() {}, onLeave() {}, onScroll() {}, onKey() {}, onDragEnd() {},
                onBoxDrag() {}, onBox() {}, onMeasureDrag() {}, onMeasure() {},
                onRulerClick() {}, ...handlers };
    const doc = canvas.ownerDocument;
    const win = doc.defaultView;
    let drag = null;   // {x0, y0, x, y, moved, mode: 'pan'|'range'|'box'|'measure', id}
    const held = new Map();   // key -> when it went down (performance.now())
    let raf = 0;
    let lastT = 0;

    const pos = (e) => {
        const r = canvas.getBoundingClientRect();
        return [e.clientX - r.left, e.clientY - r.top];
    };

    function onDown(e) {
        if (e.button !== 0)
            return;
        const [x, y] = pos(e);
        let mode = 'pan';
        if (options.inRuler && options.inRuler(x, y))
            mode = 'measure';
        else if (e.altKey || (options.selectMode && options.selectMode()))
            mode = 'box';
        else if (e.shiftKey || (options.rangeMode && options.rangeMode()))
            mode = 'range';
        drag = { x0: x, y0: y, x, y, moved: false, mode, id: e.pointerId };
        canvas.setPointerCapture(e.pointerId);
        e.preventDefault();
    }

    function onMove(e) {
        const [x, y] = pos(e);
        if (!drag) {
            h.onHover(x, y);
            return;
        }
        if (!drag.moved && Math.hypot(x - drag.x0, y - drag.y0) < DRAG_THRESHOLD_PX)
            return;
        if (!drag.moved) {
            drag.moved = true;
            canvas.classList.add(drag.mode === 'pan' ? 'tv-panning' : 'tv-ranging');
        }
        if (drag.mode === 'range')
            h.onRangeDrag(drag.x0, x);
        else if (drag.mode === 'box')
            h.onBoxDrag(drag.x0, drag.y0, x, y);
        else if (drag.mode === 'measure')
            h.onMeasureDrag(drag.x0, x);
        else
            h.onPan(drag.x - x, drag.y - y);
        drag.x = x;
        drag.y = y;
    }

    function onUp(e) {
        if (!drag)
            return;
        const d = drag;
        drag = null;
        canvas.classList.remove('tv-ranging', 'tv-panning');
        if (canvas.hasPointerCapture(d.id))
            canvas.releasePointerCapture(d.id);
        const [x, y] = pos(e);
        if (!d.moved && d.mode === 'measure')
            h.onRulerClick(x);
        else if (!d.moved)
            h.onClick(x, y, e);
        else if (d.mode === 'range')
            h.onRange(d.x0, x);
        else if (d.mode === 'box')
            h.onBox(d.x0, d.y0, x, y);
        else if (d.mode === 'measure')
            h.onMeasure(d.x0, x);
        else
            h.onDragEnd();
    }

    function onCancel() {
        if (drag && drag.mode === 'range')
            h.onRangeDrag(null, null);
        else if (drag && drag.mode === 'box')
            h.onBoxDrag(null);
        else if (drag && drag.mode === 'measure')
            h.onMeasureDrag(null);
        drag = null;
        canvas.classList.remove('tv-ranging', 'tv-panning');
    }

    function onWheel(e) {
        e.preventDefault();
        const [x, y] = pos(e);
        const dx = wheelPx(e, e.deltaX);
        const dy = wheelPx(e, e.deltaY);
        const scrolls = options.scrollsAt && options.scrollsAt(x, y);
        if ((e.shiftKey && !e.ctrlKey) || scrolls) {
            h.onScroll(dy || dx);
        } else if (Math.abs(dx) > Math.abs(dy)) {
            h.onPan(dx, 0);
        } else if (dy !== 0) {
            h.onZoom(Math.exp(-dy * WHEEL_ZOOM_PER_PX), x);
        }
    }

    function step(now) {
        raf = 0;
        if (held.size === 0)
            return;
        const dt = lastT ? Math.min(0.1, (now - lastT) / 1000) : 1 / 60;
        lastT = now;
        // A key moves smoothly only once it is held: its tap step is done.
        const on = (k) => (held.has(k) && now - held.get(k) >= HOLD_MS ? 1 : 0);
        const zoomDir = on('w') - on('s');
        const panDir = on('d') - on('a');
        if (zoomDir !== 0) {
            const x = options.anchorX ? options.anchorX() : 0;
            h.onZoom(KEY_ZOOM_PER_S ** (zoomDir * dt), x);
        }
        if (panDir !== 0) {
            const w = options.widthPx ? options.widthPx() : 1000;
            h.onPan(panDir * KEY_PAN_FRACTION_PER_S * w * dt, 0);
        }
        raf = win.requestAnimationFrame(step);
    }

    function tap(k) {
        if (k === 'w' || k === 's') {
            const x = options.anchorX ? options.anchorX() : 0;
            h.onZoom(k === 'w' ? TAP_ZOOM : 1 / TAP_ZOOM, x);
        } else {
            const w = options.widthPx ? options.widthPx() : 1000;
            h.onPan((k === 'd' ? 1 : -1) * TAP_PAN_FRACTION * w, 0);
        }
    }

    function onKeyDown(e) {
        if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey)
            return;
        const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
        if (k === 'w' || k === 's' || k === 'a' || k === 'd') {
            e.preventDefault();
            if (!held.has(k)) {
                held.set(k, win.performance.now());
                tap(k);
                if (!raf) {
                    lastT = 0;
                    raf = win.requestAnimationFrame(step);
                }
            }
            return;
        }
        if (h.onKey(k, e))
            e.preventDefault();
    }

    function onKeyUp(e) {
        const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
        if (held.delete(k) && held.size === 0)
            h.onDragEnd();
    }

    function onBlur() {
        held.clear();
    }

    const onLeave = () => {
        if (!drag)
            h.onLeave();
    };
    canvas.addEventListener('pointerdown', onDown);
    canvas.addEventListener('pointermove', onMove);
    canvas.addEventListener('pointerup', onUp);
    canvas.addEventListener('pointercancel', onCancel);
    canvas.addEventListener('pointerleave', onLeave);
    canvas.addEventListener('wheel', onWheel, { passive: false });
    doc.addEventListener('keydown', onKeyDown);
    doc.addEventListener('keyup', onKeyUp);
    win.addEventListener('blur', onBlur);
    return () => {
        canvas.removeEventListener('pointerdown', onDown);
        canvas.removeEventListener('pointermove', onMove);
        canvas.removeEventListener('pointerup', onUp);
        canvas.removeEventListener('pointercancel', onCancel);
        canvas.removeEventListener('pointerleave', onLeave);
        canvas.removeEventListener('wheel', onWheel);
        doc.removeEventListener('keydown', onKeyDown);
        doc.removeEventListener('keyup', onKeyUp);
        win.removeEventListener('blur', onBlur);
        if (raf)
            win.cancelAnimationFrame(raf);
    };
}
