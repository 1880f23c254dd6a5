/* launch: who launched what, made at finish from the stats the decoder
 * named as keys (builder.h, pv_builder_link_stats) and the roles of the
 * events' metadata, and looked up by the tools.
 *
 * The keys are read from the finished model, in model order, so "the
 * first event of a key" does not depend on the order the decoder added
 * events in, and the decode keeps nothing more per event than the stats
 * it keeps anyway. The targets of each kind (launching host events,
 * runtime calls) are sorted once by (key, event); every other event finds
 * its own by binary search, in event order, so the rows come sorted. The
 * table keeps the events that found a target only: on a PyTorch trace its
 * runtime calls and device activities, twelve bytes each. */
#include "model/model_priv.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* ---- the keys ------------------------------------------------------------ */

/* An event's key of one kind, and the event. */
typedef struct keyed {
    int64_t key;
    uint32_t ev;
} keyed;

#define KEY_BEFORE(a, b) ((a)->key < (b)->key || ((a)->key == (b)->key && (a)->ev < (b)->ev))
PV_MERGE_SORT(sort_keyed, keyed, KEY_BEFORE)

/* What a stat of a key's name says: absent, a whole number (in v), or
 * another value, which hides an earlier number of the name. */
enum { ABSENT, WHOLE, OTHER };

/* What the stats of each name of pv__link_stats say of an event. */
typedef struct key_read {
    uint8_t state[2 * PV_LINK_STATS];
    int64_t v[2 * PV_LINK_STATS];
} key_read;

/* Notes stats st[0..n) in *k, later ones over earlier ones. */
static void note_all(const pv_stat *st, size_t n, const pv__link_stats *links, key_read *k)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < links->n; j++)
            if (st[i].name == links->names[j])
                k->state[j] = pv__stat_int(&st[i], &k->v[j]) ? WHOLE : OTHER;
}

#define OWN_STATS_MAX 64   /* as pv_model_event_stat reads: more is a hostile event */

/* Event ev's keys: the last stat of each name among its own stats, else
 * among its metadata's (pv_model_event_stat's order). */
static void read_keys(const pv_model *m, uint64_t ev, const pv__link_stats *links,
                      key_read *k)
{
    memset(k, 0, sizeof *k);
    pv_stat buf[OWN_STATS_MAX];
    const pv_stat *own = buf;
    size_t n;
    if (m->ev_wire == NULL && m->ev_stat_off != NULL) {
        /* all in the array (a trace JSON's): read in place */
        own = m->stats + m->ev_stat_off[ev];
        n = (size_t)(m->ev_stat_off[ev + 1] - m->ev_stat_off[ev]);
    } else if (m->ev_wire != NULL || m->ev_stat_off != NULL) {
        const pv_track *t = &m->tracks[pv_model_event_track(m, ev)];
        n = pv__event_own_stats(m, t->plane, ev, buf, OWN_STATS_MAX, NULL);
    } else {
        n = 0;
    }
    note_all(own, n < OWN_STATS_MAX ? n : OWN_STATS_MAX, links, k);
    const pv_event_meta *md = &m->metas[m->ev_meta[ev]];
    if (md->n_stats == 0)
        return;
    key_read meta;
    memset(&meta, 0, sizeof meta);
    note_all(m->stats + md->first_stat, md->n_stats, links, &meta);
    for (unsigned j = 0; j < links->n; j++) {
        if (k->state[j] == ABSENT) {
            k->state[j] = meta.state[j];
            k->v[j] = meta.v[j];
        }
    }
}

/* The key of the first of names [from, to) that gives a whole number;
 * false when none does, or (zero_is_none) it is 0. */
static bool key_of(const key_read *k, unsigned from, unsigned to, bool zero_is_none,
                   int64_t *out)
{
    for (unsigned j = from; j < to; j++) {
        if (k->state[j] != WHOLE)
            continue;
        *out = k->v[j];
        return !zero_is_none || *out != 0;
    }
    return false;
}

static bool launch_key(const key_read *k, const pv__link_stats *links, int64_t *out)
{
    return key_of(k, 0, links->n_launch, true, out);
}

static bool call_key(const key_read *k, const pv__link_stats *links, int64_t *out)
{
    return key_of(k, links->n_launch, links->n, false, out);
}

/* ---- making the links ---------------------------------------------------- */

/* The targets of m's links: the launching host events by launch key and
 * the runtime calls by call key, each sorted by key with the first event
 * of a key only. */
typedef struct targets {
    keyed *hosts, *calls;
    size_t n_hosts, n_calls;
} targets;

static size_t first_of_keys(keyed *v, size_t n)
{
    sort_keyed(v, n);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[i].key != v[u - 1].key)
            v[u++] = v[i];
    return u;
}

static void find_targets(const pv_model *m, const pv__link_stats *links, targets *t)
{
    size_t cap_hosts = 0, cap_calls = 0;
    memset(t, 0, sizeof *t);
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        bool host = pv_role_launches(role), call = role == PV_ROLE_RUNTIME;
        if (!host && !call)
            continue;
        key_read k;
        read_keys(m, e, links, &k);
        int64_t key;
        if (host && launch_key(&k, links, &key))
            PV__PUSH(t->hosts, t->n_hosts, cap_hosts, ((keyed){key, (uint32_t)e}));
        if (call && call_key(&k, links, &key))
            PV__PUSH(t->calls, t->n_calls, cap_calls, ((keyed){key, (uint32_t)e}));
    }
    t->n_hosts = first_of_keys(t->hosts, t->n_hosts);
    t->n_calls = first_of_keys(t->calls, t->n_calls);
}

/* The event of key in v[0..n) (first_of_keys'), or PV_NO_LAUNCH. */
static uint32_t find(const keyed *v, size_t n, int64_t key)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, n, i, v[i].key < key);
    return lo < n && v[lo].key == key ? v[lo].ev : PV_NO_LAUNCH;
}

void pv__launches_build(pv_model *m, const pv__link_stats *links)
{
    pv_launch *rows = NULL;
    size_t n = 0, cap = 0;
    /* event ids are 32 bits here; a model past them (none a decoder
     * makes) has no links */
    if (m->meta_roles != NULL && m->n_events < PV_NO_LAUNCH &&
        links->n > 0) {
        targets t;
        find_targets(m, links, &t);
        for (uint64_t e = 0; e < m->n_events; e++) {
            pv_event_role role = pv_model_event_role(m, e);
            if (pv_role_launches(role))
                continue;
            key_read k;
            read_keys(m, e, links, &k);
            int64_t key;
            pv_launch r = {(uint32_t)e, PV_NO_LAUNCH, PV_NO_LAUNCH};
            if (launch_key(&k, links, &key))
                r.by = find(t.hosts, t.n_hosts, key);
            if (pv_role_on_device(role) && call_key(&k, links, &key))
                r.call = find(t.calls, t.n_calls, key);
            if (r.by != PV_NO_LAUNCH || r.call != PV_NO_LAUNCH)
                PV__PUSH(rows, n, cap, r);
        }
        free(t.hosts);
        free(t.calls);
        rows = pv_xrealloc(rows, (n ? n : 1) * sizeof *rows);
    }
    m->launches = rows;
    m->n_launches = (uint32_t)n;
}

/* ---- lookups ------------------------------------------------------------- */

bool pv_model_has_roles(const pv_model *m)
{
    for (uint32_t i = 0; m->meta_roles != NULL && i < m->n_metas; i++) {
        pv_event_role r = pv_model_meta_role(m, i);
        if (r != PV_ROLE_NONE && r != PV_ROLE_MEMORY)
            return true;
    }
    return false;
}

/* The row of ev, or NULL. */
static const pv_launch *row_of(const pv_model *m, uint64_t ev)
{
    uint32_t lo = 0;
    PV_LOWER_BOUND(uint32_t, lo, m->n_launches, i, m->launches[i].ev < ev);
    return lo < m->n_launches && m->launches[lo].ev == ev ? &m->launches[lo] : NULL;
}

uint64_t pv_model_launcher(const pv_model *m, uint64_t ev)
{
    const pv_launch *r = row_of(m, ev);
    return r != NULL && r->by != PV_NO_LAUNCH ? r->by : PV_NO_EVENT;
}

uint64_t pv_model_launch_call(const pv_model *m, uint64_t ev)
{
    const pv_launch *r = row_of(m, ev);
    return r != NULL && r->call != PV_NO_LAUNCH ? r->call : PV_NO_EVENT;
}
