/* xspace: the XSpace format (<host>.xplane.pb), the profile every
 * TensorFlow 2.2+ and JAX run writes: sniffing (xspace_sniff.c) and the
 * hand-written decoder of the hot path (xspace.c: planes, lines, events;
 * xs_meta.c: stats and metadata; xs_dec.h: what they share), and the
 * probe for HLO protos the index runs (xspace_probe.c). */
#ifndef PV_INGEST_XSPACE_XSPACE_H
#define PV_INGEST_XSPACE_XSPACE_H

#include "ingest/formats.h"

extern const pv_format pv_format_xspace;

/* Whether data (at most PV_INGEST_SNIFF_BYTES) starts like an XSpace. Pure. */
bool pv_xspace_sniff(const uint8_t *data, size_t len);

/* What the XSpace in the open file fd (size bytes) holds, PV_PROFILE_* of
 * model/model.h: HLO protos, GPU planes (xspace_probe.c); read by field
 * headers, never loaded. What was found before a part that does not read
 * as an XSpace. */
unsigned pv_xspace_probe(int fd, uint64_t size);

/* Fills b, a new builder given src as its source, from the XSpace in
 * src, or fails with err naming the byte (b may start again empty on the
 * way: pv_builder_clear). On two threads when the file is large and the
 * process may use two cores (xs_walk.h). */
int pv_decode_xspace(const pv_ingest_src *src, pv_model_builder *b, pv_error *err);
/* The same on threads threads whatever the file's size: 1 is the decode
 * on the caller's thread alone, 2 adds a thread that reads the lines
 * ahead. b ends the same, byte for byte, either way. */
int pv_decode_xspace_threads(const pv_ingest_src *src, pv_model_builder *b, pv_error *err,
                             unsigned threads);

#endif
