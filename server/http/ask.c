/* ask: a request turned into an ask of the answer layer, and its answer
 * (or refusal) into a response. Nothing here decides what an answer is,
 * how it is kept or how it is sent: answer/answer.h does, and this only
 * copies it across. */
#include "http/conn.h"
#include "http/http.h"
#include "http/metrics.h"
#include "util/mem.h"


pv_answer_ctx pv_http_answer_ctx(const pv_request *rq)
{
    return (pv_answer_ctx){rq->app->models, rq->app->disk, rq->app->heavy};
}

pv_ask pv_http_ask(pv_request *rq, const pv_tool *tool, const pv_tool_part *part,
                   pv_answer_form form, const char *run, const char *root,
                   const pv_host *const *hosts, size_t n_hosts, bool all_hosts)
{
    pv_params *p = pv_arena_zalloc(&rq->arena, sizeof *p);
    *p = pv_http_params(rq);
    return (pv_ask){.tool = tool,
                    .part = part,
                    .form = form,
                    .run = run,
                    .root = root,
                    .hosts = hosts,
                    .n_hosts = n_hosts,
                    .all_hosts = all_hosts,
                    .params = p,
                    .if_none_match = pv_http_header(rq, "If-None-Match"),
                    .accepts_gzip = pv__http_accepts_gzip(rq)};
}

void pv_http_answer(pv_request *rq, pv_response *rs, const pv_ask *ask)
{
    pv_answer_ctx ctx = pv_http_answer_ctx(rq);
    pv_answer ans;
    const char *title = NULL;
    pv_error err = {0};
    int rc = pv_answer_get(&ctx, ask, &rq->arena, &ans, &title, &err);
    if (rc == 0 && ans.looked_up)
        pv__metrics_cache(rq->app->metrics, ans.was_kept);
    if (rc == 0 && ans.kept_bytes > 0)
        pv__metrics_kept(rq->app->metrics, ans.kept_bytes);
    if (rc != 0) {
        pv_respond_titled_error(rs, &err, title);
        return;
    }
    rs->status = 200;
    rs->content_type = ans.content_type != NULL ? ans.content_type : "application/json";
    if (ans.tag[0] != '\0')
        rs->etag = pv_arena_strdup(&rq->arena, ans.tag);
    if (ans.immutable)
        rs->cache_control = "public, max-age=31536000, immutable";
    if (ans.filename != NULL)
        rs->disposition = pv_arena_printf(&rq->arena, "attachment; filename=\"%s\"", ans.filename);
    if (ans.not_modified) {
        rs->status = 304;
        rs->etag = pv_arena_printf(&rq->arena, "%s%s", ans.tag, ans.tag_gz ? "-gz" : "");
        rs->body = pv_xstrdup("");
        return;
    }
    rs->body_is_gzip = ans.gzip;
    rs->plain_bytes = ans.plain_bytes;
    rs->len = ans.len;
    if (ans.from_fd) {
        rs->body_from_fd = true;
        rs->body_fd = ans.fd;
        rs->body_offset = ans.offset;
        return;
    }
    rs->body = ans.body;
}
