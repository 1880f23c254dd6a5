// cards.js: the page's summary cards — a number with its label and an
// optional note under it (style.css .cards, .card).

import { h } from '../../dom.js';

export function card(label, value, note) {
    return h('div', { class: 'card' },
        h('div', { class: 'card-label', text: label }),
        h('div', { class: 'card-value', text: value }),
        note ? h('div', { class: 'card-note', text: note }) : null);
}

// A row of cards (nulls are left out).
export function cardRow(cards) {
    return h('div', { class: 'cards' }, cards);
}
