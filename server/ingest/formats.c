/* formats: the table of formats.h, one line per format. A host name may
 * itself contain dots (10.240.1.50.overview_page.json), so a name is
 * matched by the known endings rather than split at its first dot. */
#include "ingest/formats.h"
#include "ingest/chrome_json/chrome_json.h"
#include "ingest/tf_legacy/tf_legacy.h"
#include "ingest/xspace/xspace.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Within a tool, the file listed first answers (overview_page.json before
 * overview_page.pb), and of a host's profiles the first listed is its
 * model. A name is the first format whose ending it has: an ending that
 * ends a later one ("pt.trace.json" ends like "trace.json") comes first. */
static const pv_format *const formats[] = {
    &pv_format_xspace,
    &pv_format_pt_trace_json_gz,
    &pv_format_pt_trace_json,
    &pv_format_trace_json_gz,
    &pv_format_trace_json,
    &pv_format_tf_trace_pb,
    &pv_format_tf_overview_json,
    &pv_format_tf_overview_pb,
    &pv_format_tf_input_pipeline_json,
    &pv_format_tf_input_pipeline_pb,
    &pv_format_tf_stats_pb,
    &pv_format_tf_kernel_stats_pb,
    &pv_format_tf_memory_profile_json_gz,
    &pv_format_tf_op_profile_json,
    &pv_format_tf_memory_viewer_json,
    &pv_format_tf_pod_viewer_json,
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

const pv_format *pv_format_classify(const char *name, size_t *host_len)
{
    size_t n = strlen(name);
    *host_len = 0;
    if (n == 0 || name[0] == '.')
        return NULL;
    for (size_t i = 0; i < N_FORMATS; i++) {
        const pv_format *f = formats[i];
        size_t s = strlen(f->suffix);
        /* A bare per-tool file has no host; a profile needs one. */
        if (n == s && strcmp(name, f->suffix) == 0)
            return f->role == PV_FORMAT_PROFILE ? NULL : f;
        if (n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, f->suffix) == 0) {
            *host_len = n - s - 1;
            return f;
        }
    }
    return NULL;
}

const pv_format *pv_format_sniff(const uint8_t *data, size_t len)
{
    if (len > PV_INGEST_SNIFF_BYTES)
        len = PV_INGEST_SNIFF_BYTES;
    for (int text = 1; text >= 0; text--)
        for (size_t i = 0; i < N_FORMATS && len > 0; i++)
            if (formats[i]->role == PV_FORMAT_PROFILE && formats[i]->text == text &&
                formats[i]->sniff(data, len))
                return formats[i];
    return NULL;
}

size_t pv_format_rank(const pv_format *f)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (formats[i] == f)
            return i;
    return N_FORMATS;
}

unsigned pv_format_file_probe(const pv_format *f, const char *path, uint64_t size_bytes)
{
    if (f->probe == NULL)
        return 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned holds = f->probe(fd, size_bytes);
    close(fd);
    return holds;
}
