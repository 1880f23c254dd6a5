// search.js: the search box of the trace viewer. It searches the whole
// trace on the server (api/trace/search, by pages) rather than the tiles
// in view, and steps through the matches in time order: Enter or "Next"
// goes to the next match, Shift+Enter or "Previous" to the one before,
// wrapping at the ends. The view is told about each match through
// onResult(result) and moves there; this module never touches the
// timeline.

const PAGE = 100;

export class TraceSearch {
    // search(q, offset, limit) -> Promise<{total, results}>;
    // onResult(result) when a match becomes current;
    // onInfo(text) with a line for the status next to the box;
    // onError(err) when the server fails.
    constructor({ search, onResult, onInfo, onError }) {
        this.search = search;
        this.onResult = onResult;
        this.onInfo = onInfo;
        this.onError = onError || (() => {});
        this.query = '';
        this.total = 0;
        this.pages = new Map();  // page number -> results
        this.pos = -1;
        this.seq = 0;
    }

    async page(n) {
        if (!this.pages.has(n)) {
            const body = await this.search(this.query, n * PAGE, PAGE);
            this.total = Number(body.total) || 0;
            this.pages.set(n, body.results || []);
        }
        return this.pages.get(n);
    }

    // Goes to match pos (wrapped), fetching its page if needed.
    async go(pos, my) {
        if (this.total === 0)
            return;
        const p = ((pos % this.total) + this.total) % this.total;
        const results = await this.page(Math.floor(p / PAGE));
        if (my !== this.seq)
            return;
        const r = results[p % PAGE];
        if (!r)
            return;
        this.pos = p;
        this.onInfo(`${(p + 1).toLocaleString('en-US')} of ${this.total.toLocaleString('en-US')}`);
        this.onResult(r);
    }

    // Runs q (a new query starts at its first match; the same query moves by
    // step, +1 or -1).
    async run(q, step = 1) {
        const my = ++this.seq;
        const query = q.trim();
        try {
            if (query === '') {
                this.query = '';
                this.total = 0;
                this.pages.clear();
                this.onInfo('');
                return;
            }
            if (query !== this.query) {
                this.query = query;
                this.pages.clear();
                this.total = 0;
                this.pos = -1;
                this.onInfo('Searching…');
                await this.page(0);
                if (my !== this.seq)
                    return;
                if (this.total === 0) {
                    this.onInfo(`No event name contains “${query}”.`);
                    return;
                }
                await this.go(step > 0 ? 0 : this.total - 1, my);
                return;
            }
            await this.go(this.pos + step, my);
        } catch (e) {
            if (my !== this.seq || (e && e.name === 'AbortError'))
                return;
            this.onInfo('Search failed.');
            this.onError(e);
        }
    }
}
