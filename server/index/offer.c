/* offer: which model or file answers a tool on a host (index.h), and the
 * tool lists run_tools and the page show. Names are looked at, what a
 * profile holds as the scan's probe read it (HLO protos, a GPU) and what
 * its format reports (roles, XLA ops); what else a file holds is known
 * once it is read. */
#include "index/index.h"
#include "tools/registry.h"

#include <string.h>

const pv_host_file *pv_host_profile(const pv_host *h)
{
    for (size_t i = 0; i < h->n_files; i++)
        if (h->files[i].format->role == PV_FORMAT_PROFILE)
            return &h->files[i];
    return NULL;
}

/* The first per-tool file of h made for the tool called tool, or NULL. */
static const pv_host_file *tool_file(const pv_host *h, const char *tool)
{
    for (size_t i = 0; tool != NULL && i < h->n_files; i++) {
        const char *made_for = h->files[i].format->tool;
        if (made_for != NULL && strcmp(made_for, tool) == 0)
            return &h->files[i];
    }
    return NULL;
}

/* What profile f holds, PV_PROFILE_*: what its format's probe read and
 * what its format reports every file of it can hold. */
static unsigned holds(const pv_host_file *f)
{
    return f->holds | f->format->caps;
}

/* What lists t on h: the profile (one holding what t needs, as its
 * format's probe and capabilities say), or a file made for t itself
 * (first when the profile's format yields to one). */
static const pv_host_file *listing(const pv_host *h, const pv_tool *t, bool *from_model)
{
    const pv_host_file *f = pv_tool_from_models(t) ? pv_host_profile(h) : NULL;
    if (f != NULL && (holds(f) & t->needs) != t->needs)
        f = NULL;
    if (f != NULL && f->format->yields_to_tool_files && tool_file(h, t->name) != NULL)
        f = NULL;
    *from_model = f != NULL;
    return f != NULL ? f : tool_file(h, t->name);
}

const pv_host_file *pv_host_answer(const pv_host *h, const pv_tool *t, bool *from_model)
{
    const pv_host_file *f = listing(h, t, from_model);
    return f != NULL ? f : tool_file(h, t->files_of);
}

bool pv_host_has_tool(const pv_host *h, const pv_tool *t)
{
    bool from_model;
    return pv_host_answer(h, t, &from_model) != NULL;
}

static bool any_lists(const pv_host *hosts, size_t n_hosts, const pv_tool *t)
{
    bool from_model;
    for (size_t i = 0; i < n_hosts; i++) {
        const pv_host_file *f = listing(&hosts[i], t, &from_model);
        /* a format that cannot probe (trace JSON) lists what it may hold */
        bool listed = f != NULL && (f->format->probe == NULL ||
                                    (holds(f) & t->listed_when) == t->listed_when);
        if (f != NULL && (!from_model || listed))
            return true;
    }
    return false;
}

static size_t tools_of(const pv_host *hosts, size_t n_hosts, const pv_tool **out, size_t cap)
{
    size_t n_tools, n = 0;
    const pv_tool *const *tools = pv_tools(&n_tools);
    for (size_t i = 0; i < n_tools && n < cap; i++) {
        const pv_tool *t = tools[i];
        if (!any_lists(hosts, n_hosts, t))
            continue;
        if (t->hidden_by != NULL && any_lists(hosts, n_hosts, pv_tool_find(t->hidden_by)))
            continue;
        out[n++] = t;
    }
    return n;
}

size_t pv_host_tools(const pv_host *h, const pv_tool **out, size_t cap)
{
    return tools_of(h, 1, out, cap);
}

size_t pv_run_tools(const pv_run *run, const pv_tool **out, size_t cap)
{
    return tools_of(run->hosts, run->n_hosts, out, cap);
}

size_t pv_run_profiles(const pv_run *run)
{
    size_t n = 0;
    for (size_t i = 0; i < run->n_hosts; i++)
        n += pv_host_profile(&run->hosts[i]) != NULL;
    return n;
}
