// follower.js: a chart that follows what a page shows (a table's filtered
// rows, a picked step): the first draw creates it (Chart.js loads on first
// use, so that takes a moment), later draws update it, and draws that
// arrive while it is being created are applied once it exists.

// create(input) resolves to a Chart; update(chart, input) redraws it.
// Returns {draw(input) (a promise), destroy()}.
export function chartFollower(create, update) {
    let chart = null;
    let creating = false;
    let latest = null;
    let dead = false;
    return {
        async draw(input) {
            latest = input;
            if (chart) {
                update(chart, input);
                return;
            }
            if (creating)
                return;
            creating = true;
            const made = await create(input);
            if (dead) {
                if (made)
                    made.destroy();
                return;
            }
            chart = made;
            if (chart && latest !== input)
                update(chart, latest);
        },
        destroy() {
            dead = true;
            if (chart)
                chart.destroy();
            chart = null;
        },
    };
}
