// dom.js: the small set of DOM helpers every module shares, and the one
// place that knows about devicePixelRatio and canvas sizing (so drawing code
// in draw/ never touches `document` or the window).
//
// Nothing here sets a style attribute from a string: the server's
// Content-Security-Policy may forbid inline styles, and CSSOM writes
// (el.style.width = ...) are always allowed.

// Creates an element. props: {class, text, value, on: {event: fn}, and any
// attribute (aria-*, role, type, ...)}; true sets a boolean attribute,
// false/null/undefined leaves it out. children: nodes, strings, arrays, or
// null (skipped).
export function h(tag, props = {}, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false)
            continue;
        if (k === 'class')
            el.className = v;
        else if (k === 'text')
            el.textContent = v;
        else if (k === 'value')
            el.value = v;
        else if (k === 'on')
            for (const [ev, fn] of Object.entries(v))
                el.addEventListener(ev, fn);
        else
            el.setAttribute(k, v === true ? '' : String(v));
    }
    append(el, children);
    return el;
}

function append(el, children) {
    for (const c of children) {
        if (c === null || c === undefined || c === false)
            continue;
        if (Array.isArray(c))
            append(el, c);
        else
            el.append(c instanceof Node ? c : String(c));
    }
}

// Removes every child of el.
export function clear(el) {
    el.replaceChildren();
}

// Sets el's text, skipping the DOM write when it would change nothing.
export function setText(el, text) {
    if (el.textContent !== text)
        el.textContent = text;
}

// Fills a <select> with options [{value, label}] and selects value. A value
// missing from the list (a link to a run that has gone) gets its own option
// so the picker still says what the page shows. Skips the rebuild when the
// options are unchanged, which keeps keyboard focus where it is.
export function fillSelect(select, options, value) {
    const list = options.slice();
    if (value !== undefined && !list.some((o) => o.value === value))
        list.push({ value, label: `${value} (not found)` });
    const key = JSON.stringify(list);
    if (select.dataset.options !== key) {
        select.replaceChildren(...list.map((o) => h('option', { value: o.value, text: o.label })));
        select.dataset.options = key;
    }
    if (value !== undefined && select.value !== value)
        select.value = value;
    select.disabled = list.length === 0;
}

// ---- canvas sizing ------------------------------------------------------------

// Sizes canvas to cssWidth x cssHeight CSS pixels with a backing store of
// device pixels, and scales its 2D context so drawing code works in CSS
// pixels. Returns {ctx, dpr, width, height} (width/height in CSS pixels).
export function sizeCanvas(canvas, cssWidth, cssHeight) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(cssWidth * dpr));
    const hPx = Math.max(1, Math.round(cssHeight * dpr));
    if (canvas.width !== w)
        canvas.width = w;
    if (canvas.height !== hPx)
        canvas.height = hPx;
    canvas.style.width = `${cssWidth}px`;
    canvas.style.height = `${cssHeight}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, dpr, width: cssWidth, height: cssHeight };
}

// Calls fn() whenever devicePixelRatio changes (browser zoom, moving the
// window to another screen). Returns a function that stops watching.
export function watchDpr(fn) {
    let mq = null;
    let stopped = false;
    const arm = () => {
        mq = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
        mq.addEventListener('change', onChange, { once: true });
    };
    function onChange() {
        if (stopped)
            return;
        arm();
        fn();
    }
    arm();
    return () => {
        stopped = true;
        mq.removeEventListener('change', onChange);
    };
}

// ---- files ------------------------------------------------------------------

// Offers text to the user as a file download. The blob: URL never leaves
// the browser.
export function downloadText(filename, text, mime = 'text/plain') {
    const url = URL.createObjectURL(new Blob([text], { type: `${mime};charset=utf-8` }));
    const a = h('a', { href: url, download: filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
}

// Adds the stylesheet of a view (web/views/<view>.css) to the page once.
// Returns its link element, so a view can wait for it to load.
export function ensureStylesheet(view) {
    const old = document.querySelector(`link[data-view="${view}"]`);
    if (old)
        return old;
    const link = h('link', { rel: 'stylesheet', href: `views/${view}.css`, 'data-view': view });
    document.head.append(link);
    return link;
}
