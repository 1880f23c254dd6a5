// status.js: what the content area shows when it is not showing a tool —
// an error in words, a progress bar, a short message. The page must never be
// blank: every failure ends here, with what went wrong and where.

import { h, clear } from './dom.js';
import { formatBytes } from './format.js';

// Returns {title, detail, where} for any thrown value: an ApiError keeps the
// server's words; anything else (a bug in a view) says so plainly.
export function describeError(err) {
    if (err && err.name === 'ApiError') {
        const where = err.status
            ? `HTTP ${err.status} from ${err.url}`
            : `request ${err.url}`;
        return { title: err.error, detail: err.detail || '', where };
    }
    const message = err && err.message ? err.message : String(err);
    return { title: 'This view failed', detail: message, where: '' };
}

// True when asking again may help: the server was not reached or failed
// for a moment. A 4xx (bad name, bad file) or 501 (not built) stays as is.
export function isRetryable(err) {
    if (!err || err.name !== 'ApiError')
        return true;
    return err.status === 0 || err.status === 429 || (err.status >= 500 && err.status !== 501);
}

// Replaces el's content with an error panel. retry, when given and the
// error is one that may pass, is called by a "Try again" button.
export function showError(el, err, { retry } = {}) {
    const d = describeError(err);
    const again = retry && isRetryable(err);
    clear(el);
    el.append(h('section', { class: 'error', role: 'alert', 'aria-live': 'assertive' },
        h('h2', { class: 'error-title', text: d.title }),
        d.detail ? h('p', { class: 'error-detail', text: d.detail }) : null,
        d.where ? h('p', { class: 'error-where', text: d.where }) : null,
        again ? h('button', { type: 'button', text: 'Try again', on: { click: retry } }) : null));
}

// Replaces el's content with a short message (an empty logdir, a run with
// no tools). hint is an optional second line.
export function showMessage(el, text, hint) {
    clear(el);
    el.append(h('section', { class: 'message', role: 'status' },
        h('p', { text }),
        hint ? h('p', { class: 'hint', text: hint }) : null));
}

// Replaces el's content with a labelled progress bar. Returns
// update(doneBytes, totalBytes, phase) to move it; until the first update
// the bar is indeterminate. Once every byte is read the server still
// finishes the model, and with phase 'index' it builds the trace index:
// neither has a byte count, so the bar is indeterminate again and the note
// says which it is, rather than a full bar that does not move.
const PHASES = {
    reading: 'Reading…',
    finishing: 'Finishing the model…',
    indexing: 'Building the trace index…',
};

// The bar of a load (api.js, loadProfile's onProgress): one bar for the
// whole load, which only moves forward, with the phase named under it.
export function showProgress(el, label) {
    const bar = h('progress', { 'aria-label': label, max: 1000 });
    const note = h('p', { class: 'progress-note', 'aria-live': 'polite' });
    clear(el);
    el.append(h('section', { class: 'progress', role: 'status' },
        h('p', { text: label }), bar, note));
    let shown = 0;
    return ({ phase, done, total, fraction, queued }) => {
        // a poll answered late must not move the bar back
        shown = Math.max(shown, Math.min(1000, Math.round(1000 * fraction)));
        bar.value = shown;
        const pct = Math.floor(shown / 10);
        if (queued) {
            note.textContent = 'Waiting for memory to load it…';
            return;
        }
        const bytes = phase === 'reading' && total > 0
            ? ` ${formatBytes(done, 3)} of ${formatBytes(total, 3)}` : '';
        note.textContent = `${PHASES[phase] || 'Loading…'}${bytes} (${pct}%)`;
    };
}
