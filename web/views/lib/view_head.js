// view_head.js: the head of a tool's page: its title, a link to the raw
// answer and, for a table tool, to the server's CSV of the whole answer.

import { toolCsvUrl, toolDataUrl } from '../../api.js';
import { h } from '../../dom.js';

// The head for state's tool; params: the request parameters of the answer
// shown (the raw link opens that answer); csv adds the "Full CSV" link.
export function viewHead(state, title, { csv = false, params = {} } = {}) {
    return h('div', { class: 'view-head' }, h('h2', { text: title }),
        h('a', { href: toolDataUrl(state.run, state.tool, state.host, params), target: '_blank',
                 rel: 'noopener', text: 'Raw data' }),
        csv ? h('a', { href: toolCsvUrl(state.run, state.tool, state.host), text: 'Full CSV' })
            : null);
}
