/* memo: what a tool computes once from a finished model alone and keeps
 * with it. Tools are pure functions of the model, so such a result never
 * changes while the model lives: the trace viewer's zoom levels, say,
 * which every trace_viewer@ window reads and which cost seconds to make.
 *
 * A memo is a run of bytes without pointers, named by a constant string
 * that also names its layout (a new layout is a new name). So the cache
 * can save a model's memos beside the saved model and hand them to the
 * model of the same source after a restart (pv_model_memo_give), and they
 * count in the memory budget like the rest of the model
 * (pv_model_added_bytes).
 *
 * Threads: any number at once on a shared model. The first asker of a
 * name makes it; others asking for that name meanwhile wait for it, other
 * names are not held up. A memo that fails to be made is not kept: the
 * next asker tries again. */
#ifndef PV_MODEL_MEMO_H
#define PV_MODEL_MEMO_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A model holds at most this many memos; pv_model_memo makes one past
 * that without keeping it (the caller frees it). */
#define PV_MODEL_MEMOS_MAX 8

/* Makes a memo of m: 0 with *data (malloc'd, handed over) and *len, or an
 * error code with err filled. arg is the caller's. */
typedef int (*pv_model_memo_fn)(const pv_model *m, void *arg, uint8_t **data, size_t *len,
                                pv_error *err);

/* The memo name of m, made by make(m, arg) the first time. Returns 0 with
 * *data and *len, valid as long as the model, and *owned false; or, when
 * the model holds PV_MODEL_MEMOS_MAX memos already, one made for this
 * caller alone with *owned true (free() it). Returns make's error (err
 * filled) when it fails. */
int pv_model_memo(const pv_model *m, const char *name, pv_model_memo_fn make, void *arg,
                  const uint8_t **data, size_t *len, bool *owned, pv_error *err);

/* Hands m the memo name made before (a saved copy of it): data is
 * malloc'd and taken over, name copied. Replaces a memo of that name.
 * Only before m is shared. Cannot fail (data is freed when m is full). */
void pv_model_memo_give(pv_model *m, const char *name, uint8_t *data, size_t len);

/* How many memos m holds, and the i-th of them (i below that count): its
 * name and bytes, valid as long as the model. Memos are only added, so a
 * count once read stays valid. */
size_t pv_model_memo_count(const pv_model *m);
void pv_model_memo_at(const pv_model *m, size_t i, const char **name, const uint8_t **data,
                      size_t *len);

/* Bytes m took on after it was made and that mem_bytes does not count:
 * its memos and its HLO table once decoded. Cannot fail. */
size_t pv_model_added_bytes(const pv_model *m);

/* ---- packing a memo's bytes ---------------------------------------------- */

/* A memo of records that name strings: the records appended to one
 * packer, the strings to another (each NUL-terminated, named by its
 * offset), joined by pv_memo_pack_finish. Fields are copied with memcpy,
 * so the bytes need no alignment. Aborts when memory runs out. */
typedef struct pv_memo_packer {
    uint8_t *p;
    size_t n, cap;
} pv_memo_packer;

/* Appends len bytes of v; returns their offset. */
size_t pv_memo_put(pv_memo_packer *k, const void *v, size_t len);
/* Appends s with its NUL; returns its offset. */
uint64_t pv_memo_put_str(pv_memo_packer *pool, const char *s);
/* The records followed by the pool, handed over as *data (malloc'd) and
 * *len; both packers are emptied. */
void pv_memo_pack_finish(pv_memo_packer *recs, pv_memo_packer *pool, uint8_t **data,
                         size_t *len);

/* A packed memo read back: a head the caller knows the size of, n records
 * of rec_size bytes, then the pool of strings. Every read checks bounds:
 * a saved memo cut short makes a read fail, never read past its bytes. */
typedef struct pv_memo_reader {
    const uint8_t *recs;
    size_t rec_size;
    uint64_t n;
    const uint8_t *pool;
    size_t pool_len;
} pv_memo_reader;

/* Copies the first head_size bytes of the memo into head; false when the
 * memo is shorter. */
bool pv_memo_read_head(const uint8_t *d, size_t len, void *head, size_t head_size);
/* Finds n records of rec_size bytes after a head of head_size, and the pool
 * after them (n comes from the head); false when they do not fit. */
bool pv_memo_read_recs(const uint8_t *d, size_t len, size_t head_size, uint64_t n,
                       size_t rec_size, pv_memo_reader *r);
/* Copies record i (< r->n) into rec, r->rec_size bytes. */
void pv_memo_read_rec(const pv_memo_reader *r, uint64_t i, void *rec);
/* The string at offset off of the pool, copied into a; NULL when it does
 * not end inside the pool. */
const char *pv_memo_read_str(const pv_memo_reader *r, uint64_t off, pv_arena *a);

#endif
