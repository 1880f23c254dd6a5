/* compare_trace: the trace_viewer summary (see compare_trace.h). */
#include "compare_trace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CAP 1024
#define KEY_CAP (2 * NAME_CAP + 64)

static const char OFFLOAD_ROW[] = "Host Offload Ops row ";

typedef struct event {
    char key[KEY_CAP];   /* base key, then the numbered one */
    char *canon;         /* the fields as sorted compact JSON, for ties */
    json_t *fields;
    char flow[32];       /* flow id without the direction bits; "" when none */
} event;

/* "pid" -> process name and "pid/tid" -> thread name, from the metadata
 * events. */
static void collect_names(const json_t *events, json_t *procs, json_t *threads)
{
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        const json_t *label = json_object_get(json_object_get(e, "args"), "name");
        if (ph == NULL || strcmp(ph, "M") != 0 || name == NULL || !json_is_string(label))
            continue;
        char key[64];
        long long pid = json_integer_value(json_object_get(e, "pid"));
        if (strcmp(name, "process_name") == 0) {
            snprintf(key, sizeof key, "%lld", pid);
            json_object_set(procs, key, (json_t *)label);
        } else if (strcmp(name, "thread_name") == 0) {
            snprintf(key, sizeof key, "%lld/%lld", pid,
                     (long long)json_integer_value(json_object_get(e, "tid")));
            json_object_set(threads, key, (json_t *)label);
        }
    }
}

/* The process and thread names of event e ("?" when unnamed). */
static void names_of(const json_t *e, const json_t *procs, const json_t *threads,
                     const char **proc, const char **thread)
{
    char key[64];
    long long pid = json_integer_value(json_object_get(e, "pid"));
    snprintf(key, sizeof key, "%lld", pid);
    *proc = json_string_value(json_object_get(procs, key));
    snprintf(key, sizeof key, "%lld/%lld", pid,
             (long long)json_integer_value(json_object_get(e, "tid")));
    *thread = json_string_value(json_object_get(threads, key));
    /* An empty thread_name (profview) names nothing, like none (XProf). */
    if (*thread != NULL && **thread == '\0')
        *thread = NULL;
    if (*proc == NULL)
        *proc = "?";
    if (*thread == NULL)
        *thread = "?";
}

static json_t *event_fields(const json_t *e)
{
    json_t *args = json_deep_copy(json_object_get(e, "args"));
    if (args == NULL)
        args = json_object();
    json_object_del(args, "flow");
    json_t *dur = json_object_get(e, "dur");
    json_t *ts = json_object_get(e, "ts");
    json_t *f = json_object();
    json_object_set(f, "ph", json_object_get(e, "ph"));
    json_object_set_new(f, "ts", json_real(json_is_number(ts) ? json_number_value(ts) : 0.0));
    json_object_set_new(f, "dur", json_real(json_is_number(dur) ? json_number_value(dur) : 0.0));
    json_object_set_new(f, "args", args);
    return f;
}

/* The flow an event belongs to: its "args.flow" without the two direction
 * bits (FORMATS.md §3.4); false when it has none. */
static bool flow_key(const json_t *e, char *buf, size_t cap)
{
    const json_t *f = json_object_get(json_object_get(e, "args"), "flow");
    unsigned long long v;
    if (json_is_string(f))
        v = strtoull(json_string_value(f), NULL, 10);
    else if (json_is_integer(f))
        v = (unsigned long long)json_integer_value(f);
    else
        return false;
    snprintf(buf, cap, "%llu", v >> 2);
    return true;
}

static void count(json_t *obj, const char *key)
{
    json_t *n = json_object_get(obj, key);
    json_object_set_new(obj, key, json_integer(n ? json_integer_value(n) + 1 : 1));
}

/* One more event on row `row` of proc's host-offload rows. */
static void count_row(json_t *rows, const char *proc, size_t row)
{
    json_t *a = json_object_get(rows, proc);
    if (a == NULL) {
        a = json_array();
        json_object_set_new(rows, proc, a);
    }
    while (json_array_size(a) <= row)
        json_array_append_new(a, json_integer(0));
    json_array_set_new(a, row, json_integer(json_integer_value(json_array_get(a, row)) + 1));
}

static int cmp_event(const void *pa, const void *pb)
{
    const event *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c != 0 ? c : strcmp(a->canon, b->canon);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Numbers the keys that tie ("~2", "~3", ...); evs is sorted. */
static void number_ties(event *evs, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(evs[j].key, evs[i].key) == 0)
            j++;
        for (size_t k = i + 1; k < j; k++) {
            size_t len = strlen(evs[k].key);
            snprintf(evs[k].key + len, KEY_CAP - len, "~%zu", k - i + 1);
        }
        i = j;
    }
}

/* "flow_partners" and "flow_with" of every event that has a flow. */
static void add_flow_partners(event *evs, size_t n)
{
    json_t *flows = json_object();   /* flow id -> [index...] */
    for (size_t i = 0; i < n; i++) {
        if (evs[i].flow[0] == '\0')
            continue;
        json_t *members = json_object_get(flows, evs[i].flow);
        if (members == NULL) {
            members = json_array();
            json_object_set_new(flows, evs[i].flow, members);
        }
        json_array_append_new(members, json_integer((json_int_t)i));
    }
    for (size_t i = 0; i < n; i++) {
        if (evs[i].flow[0] == '\0')
            continue;
        const json_t *members = json_object_get(flows, evs[i].flow);
        size_t m = json_array_size(members), k = 0;
        const char **keys = calloc(m + 1, sizeof *keys);
        for (size_t j = 0; j < m; j++) {
            size_t other = (size_t)json_integer_value(json_array_get(members, j));
            if (other != i)
                keys[k++] = evs[other].key;
        }
        qsort(keys, k, sizeof *keys, cmp_str);
        json_t *with = json_array();
        for (size_t j = 0; j < k; j++)
            json_array_append_new(with, json_string(keys[j]));
        json_object_set_new(evs[i].fields, "flow_partners", json_integer((json_int_t)k));
        json_object_set_new(evs[i].fields, "flow_with", with);
        free(keys);
    }
    json_decref(flows);
}

json_t *pv_trace_summary(const json_t *trace)
{
    const json_t *events = json_object_get(trace, "traceEvents");
    if (!json_is_array(events))
        return NULL;
    json_t *procs = json_object(), *threads = json_object();
    collect_names(events, procs, threads);
    event *evs = calloc(json_array_size(events) + 1, sizeof *evs);
    json_t *per_thread = json_object(), *names = json_object(), *rows = json_object();
    size_t n = 0, n_flow = 0, i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "M") == 0)
            continue;
        const char *proc, *thread, *name = json_string_value(json_object_get(e, "name"));
        names_of(e, procs, threads, &proc, &thread);
        char where[NAME_CAP];
        if (strncmp(thread, OFFLOAD_ROW, sizeof OFFLOAD_ROW - 1) == 0) {
            count_row(rows, proc, strtoul(thread + sizeof OFFLOAD_ROW - 1, NULL, 10));
            snprintf(where, sizeof where, "%s/%s*", proc, OFFLOAD_ROW);
        } else {
            snprintf(where, sizeof where, "%s/%s", proc, thread);
            count(per_thread, where);
        }
        count(names, name ? name : "");
        event *ev = &evs[n++];
        ev->fields = event_fields(e);
        if (flow_key(e, ev->flow, sizeof ev->flow))
            n_flow++;
        snprintf(ev->key, sizeof ev->key, "%s@%.6f#%s", where,
                 json_number_value(json_object_get(e, "ts")), name ? name : "");
        ev->canon = json_dumps(ev->fields, JSON_COMPACT | JSON_SORT_KEYS);
    }
    qsort(evs, n, sizeof *evs, cmp_event);
    number_ties(evs, n);
    add_flow_partners(evs, n);
    json_t *all = json_object();
    for (size_t k = 0; k < n; k++) {
        json_object_set_new(all, evs[k].key, evs[k].fields);
        free(evs[k].canon);
    }
    free(evs);
    json_decref(procs);
    json_decref(threads);
    json_t *meta = json_object_get(trace, "metadata");
    json_t *unit = json_object_get(trace, "displayTimeUnit");
    json_t *s = json_object();
    json_object_set_new(s, "displayTimeUnit", unit ? json_incref(unit) : json_null());
    json_object_set_new(s, "metadata", meta ? json_incref(meta) : json_null());
    json_object_set_new(s, "n_events", json_integer((json_int_t)n));
    json_object_set_new(s, "n_with_flow", json_integer((json_int_t)n_flow));
    json_object_set_new(s, "threads", per_thread);
    json_object_set_new(s, "names", names);
    json_object_set_new(s, "offload_rows", rows);
    json_object_set_new(s, "events", all);
    return s;
}
