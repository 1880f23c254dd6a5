/* compare_trace: the trace_viewer summary (see compare_trace.h). */
#include "compare_trace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CAP 1024
#define FLOW_WITH_MAX 8   /* partners listed per sampled event */

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

/* "<process>/<thread>" of event e. */
static void thread_of(const json_t *e, const json_t *procs, const json_t *threads, char *buf,
                      size_t cap)
{
    char key[64];
    long long pid = json_integer_value(json_object_get(e, "pid"));
    snprintf(key, sizeof key, "%lld", pid);
    const char *p = json_string_value(json_object_get(procs, key));
    snprintf(key, sizeof key, "%lld/%lld", pid,
             (long long)json_integer_value(json_object_get(e, "tid")));
    const char *t = json_string_value(json_object_get(threads, key));
    /* An empty thread_name (profview) names nothing, like none (XProf). */
    snprintf(buf, cap, "%s/%s", p ? p : "?", t && *t ? t : "?");
}

static void event_key(const json_t *e, const char *thread, char *buf, size_t cap)
{
    const char *name = json_string_value(json_object_get(e, "name"));
    snprintf(buf, cap, "%s@%.3f#%s", thread, json_number_value(json_object_get(e, "ts")),
             name ? name : "");
}

static json_t *event_fields(const json_t *e)
{
    json_t *args = json_deep_copy(json_object_get(e, "args"));
    if (args == NULL)
        args = json_object();
    json_object_del(args, "flow");
    json_t *dur = json_object_get(e, "dur");
    json_t *f = json_object();
    json_object_set(f, "ph", json_object_get(e, "ph"));
    json_object_set_new(f, "dur", json_real(json_is_number(dur) ? json_number_value(dur) : 0.0));
    json_object_set_new(f, "args", args);
    return f;
}

/* The flow an event belongs to: its "args.flow" without the two direction
 * bits (FORMATS.md §3.4), as a key; false when it has none. */
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

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "flow_partners": how many other events share e's flow, and "flow_with":
 * the first FLOW_WITH_MAX of their keys in sorted order. Flow ids are the
 * producer's choice; which events a flow joins is not. */
static void add_flow_partners(json_t *fields, const json_t *flows, const char *fkey,
                              const char *self)
{
    const json_t *members = json_object_get(flows, fkey);
    size_t n = json_array_size(members);
    const char **keys = calloc(n + 1, sizeof *keys);
    size_t k = 0;
    bool self_seen = false;
    for (size_t i = 0; i < n; i++) {
        const char *m = json_string_value(json_array_get(members, i));
        if (!self_seen && strcmp(m, self) == 0) {
            self_seen = true;
            continue;
        }
        keys[k++] = m;
    }
    qsort(keys, k, sizeof *keys, cmp_str);
    json_t *with = json_array();
    for (size_t i = 0; i < k && i < FLOW_WITH_MAX; i++)
        json_array_append_new(with, json_string(keys[i]));
    json_object_set_new(fields, "flow_partners", json_integer((json_int_t)k));
    json_object_set_new(fields, "flow_with", with);
    free(keys);
}

static void count(json_t *obj, const char *key)
{
    json_t *n = json_object_get(obj, key);
    json_object_set_new(obj, key, json_integer(n ? json_integer_value(n) + 1 : 1));
}

json_t *pv_trace_summary(const json_t *trace, const json_t *pick, size_t max_sample)
{
    const json_t *events = json_object_get(trace, "traceEvents");
    if (!json_is_array(events))
        return NULL;
    json_t *procs = json_object(), *threads = json_object();
    collect_names(events, procs, threads);
    size_t n_events = 0;
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph != NULL && strcmp(ph, "M") != 0)
            n_events++;
    }
    /* flow id -> keys of the events it joins */
    json_t *flows = json_object();
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        char fkey[32], thread[NAME_CAP], key[2 * NAME_CAP];
        if (ph == NULL || strcmp(ph, "M") == 0 || !flow_key(e, fkey, sizeof fkey))
            continue;
        thread_of(e, procs, threads, thread, sizeof thread);
        event_key(e, thread, key, sizeof key);
        json_t *members = json_object_get(flows, fkey);
        if (members == NULL) {
            members = json_array();
            json_object_set_new(flows, fkey, members);
        }
        json_array_append_new(members, json_string(key));
    }
    size_t stride = max_sample > 0 && n_events > max_sample ? n_events / max_sample : 1;
    const json_t *wanted = json_object_get(pick, "sample");
    json_t *per_thread = json_object(), *names = json_object(), *sample = json_object();
    size_t k = 0, n_flow = 0;
    json_array_foreach(events, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "M") == 0)
            continue;
        char thread[NAME_CAP], key[2 * NAME_CAP];
        thread_of(e, procs, threads, thread, sizeof thread);
        const char *name = json_string_value(json_object_get(e, "name"));
        count(per_thread, thread);
        if (json_object_get(json_object_get(e, "args"), "flow") != NULL)
            n_flow++;
        count(names, name ? name : "");
        event_key(e, thread, key, sizeof key);
        bool take = wanted != NULL ? json_object_get(wanted, key) != NULL : k % stride == 0;
        if (take && json_object_get(sample, key) == NULL) {
            json_t *fields = event_fields(e);
            char fkey[32];
            if (flow_key(e, fkey, sizeof fkey))
                add_flow_partners(fields, flows, fkey, key);
            json_object_set_new(sample, key, fields);
        }
        k++;
    }
    json_decref(flows);
    json_decref(procs);
    json_decref(threads);
    json_t *meta = json_object_get(trace, "metadata");
    json_t *unit = json_object_get(trace, "displayTimeUnit");
    json_t *s = json_object();
    json_object_set_new(s, "displayTimeUnit", unit ? json_incref(unit) : json_null());
    json_object_set_new(s, "metadata", meta ? json_incref(meta) : json_null());
    json_object_set_new(s, "n_events", json_integer((json_int_t)n_events));
    json_object_set_new(s, "n_with_flow", json_integer((json_int_t)n_flow));
    json_object_set_new(s, "threads", per_thread);
    json_object_set_new(s, "names", names);
    json_object_set_new(s, "sample", sample);
    return s;
}
