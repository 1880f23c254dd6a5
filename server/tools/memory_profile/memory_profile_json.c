/* memory_profile_json: the reference's MemoryProfile message as protobuf's
 * JSON mapping prints it with always_print_primitive_fields: lowerCamelCase
 * keys, 64-bit integers as strings, enums by name, zero values present.
 * memoryProfileSnapshots is reduced to the snapshots the active rows
 * point at, in row order, and the rows are re-indexed to match. */
#include "tools/memory_profile/memory_profile.h"

#include <inttypes.h>
#include <stdio.h>

static json_t *i64(int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return json_string(buf);
}

static json_t *u64(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return json_string(buf);
}

static const char *activity_name(uint32_t activity)
{
    switch (activity) {
    case PV_MEMORY_ALLOCATION: return "ALLOCATION";
    case PV_MEMORY_DEALLOCATION: return "DEALLOCATION";
    default: return "UNKNOWN_ACTIVITY";
    }
}

static json_t *stats_json(const pv_memory_stats *st)
{
    return json_pack("{s:o,s:o,s:o,s:f,s:o}",
                     "stackReservedBytes", i64(st->stack_reserved_bytes),
                     "heapAllocatedBytes", i64(st->heap_allocated_bytes),
                     "freeMemoryBytes", i64(st->free_memory_bytes),
                     "fragmentation", st->fragmentation,
                     "peakBytesInUse", i64(st->peak_bytes_in_use));
}

static json_t *meta_json(const pv_memory_meta *mt)
{
    return json_pack("{s:s,s:o,s:o,s:o,s:s,s:o,s:s,s:s,s:s}",
                     "memoryActivity", activity_name(mt->activity),
                     "requestedBytes", i64(mt->requested_bytes),
                     "allocationBytes", i64(mt->allocation_bytes),
                     "address", u64(mt->address),
                     "tfOpName", mt->tf_op_name,
                     "stepId", i64(mt->step_id),
                     "regionType", mt->region_type,
                     "dataType", mt->data_type,
                     "tensorShape", mt->tensor_shape);
}

static json_t *snapshot_json(const pv_model *m, const pv_memory_snapshot *s, pv_arena *a)
{
    pv_memory_stats st = pv_memory_snapshot_stats(m, s);
    pv_memory_meta mt = pv_memory_snapshot_meta(m, s, a);
    return json_pack("{s:o,s:o,s:o}", "timeOffsetPs", i64(s->time_offset_ps),
                     "aggregationStats", stats_json(&st), "activityMetadata", meta_json(&mt));
}

static json_t *summary_json(const pv_memory_summary *sum)
{
    return json_pack("{s:o,s:o,s:o,s:o}",
                     "peakBytesUsageLifetime", i64(sum->peak_bytes_usage_lifetime),
                     "peakStats", stats_json(&sum->peak_stats),
                     "peakStatsTimePs", i64(sum->peak_stats_time_ps),
                     "memoryCapacity", i64(sum->memory_capacity));
}

/* profview's additions for its own page: when each active row's
 * allocation was made and freed, relative to the model start (what the
 * trace viewer's start/end parameters use). */
static json_t *times_json(const pv_memory_profile_result *r, const pv_memory_allocator *al)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < al->n_active; i++) {
        const pv_memory_active *row = &al->active[i];
        if (row->snapshot < 0) {
            json_array_append_new(arr, json_null());
            continue;
        }
        const pv_memory_snapshot *s = pv_memory_snapshot_at(al, (size_t)row->snapshot);
        json_t *free_ps = row->free_start_ps == INT64_MIN
                              ? json_string("")
                              : i64(row->free_start_ps - r->model_min_ps);
        json_array_append_new(arr, json_pack("{s:o,s:o}", "allocPs",
                                             i64(s->start_ps - r->model_min_ps), "freePs",
                                             free_ps));
    }
    return arr;
}

/* profview's timeline for its chart: parallel arrays of plain numbers
 * (byte counts stay below 2^53, so JavaScript reads them exactly). */
static json_t *extremes_json(const pv_model *m, const pv_memory_allocator *al)
{
    json_t *t = json_array(), *heap = json_array(), *stack = json_array();
    json_t *avail = json_array(), *frag = json_array(), *step = json_array();
    for (size_t k = 0; k < al->n_extremes; k++) {
        const pv_memory_snapshot *s = pv_memory_snapshot_at(al, al->extremes[k]);
        pv_memory_stats st = pv_memory_snapshot_stats(m, s);
        json_array_append_new(t, json_integer(s->time_offset_ps));
        json_array_append_new(heap, json_integer(st.heap_allocated_bytes));
        json_array_append_new(stack, json_integer(st.stack_reserved_bytes));
        json_array_append_new(avail, json_integer(st.free_memory_bytes));
        json_array_append_new(frag, json_real(st.fragmentation));
        json_array_append_new(step, json_integer(s->step_id));
    }
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "timeOffsetPs", t, "heapBytes", heap,
                     "stackBytes", stack, "freeBytes", avail, "fragmentation", frag, "stepId",
                     step);
}

static json_t *allocator_json(const pv_model *m, const pv_memory_profile_result *r,
                              const pv_memory_allocator *al, bool extras, pv_arena *a)
{
    json_t *snaps = json_array();
    json_t *rows = json_array();
    int64_t next = 0;
    for (size_t i = 0; i < al->n_active; i++) {
        const pv_memory_active *row = &al->active[i];
        int64_t index = row->snapshot;
        int64_t special = -1;
        if (row->snapshot >= 0) {
            json_array_append_new(snaps, snapshot_json(m, pv_memory_snapshot_at(al, (size_t)row->snapshot), a));
            index = next++;
        } else {
            special = -row->snapshot - 1;
        }
        json_array_append_new(rows, json_pack("{s:o,s:o,s:o}", "snapshotIndex", i64(index),
                                              "specialIndex", i64(special), "numOccurrences",
                                              i64(row->num_occurrences)));
    }
    json_t *specials = json_array();
    for (size_t k = 0; k < al->n_special; k++)
        json_array_append_new(specials, meta_json(&al->special[k]));
    json_t *timeline = json_array();
    for (size_t k = 0; k < al->n_timeline; k++)
        json_array_append_new(timeline, snapshot_json(m, pv_memory_snapshot_at(al, al->timeline[k]), a));
    json_t *j = json_pack("{s:o,s:o,s:o,s:o,s:o}", "memoryProfileSnapshots", snaps,
                          "profileSummary", summary_json(&al->summary), "activeAllocations",
                          rows, "specialAllocations", specials, "sampledTimelineSnapshots",
                          timeline);
    if (j != NULL && extras) {
        json_object_set_new(j, "pvActiveAllocationTimes", times_json(r, al));
        json_object_set_new(j, "pvCounts",
                            json_pack("{s:o,s:o,s:o,s:o}", "allocations", u64(al->n_allocations),
                                      "deallocations", u64(al->n_deallocations),
                                      "unmatchedDeallocations", u64(al->n_unmatched_frees),
                                      "snapshots", u64(al->n_snapshots)));
        json_object_set_new(j, "pvTimeline", extremes_json(m, al));
    }
    return j;
}

json_t *pv_memory_profile_to_json(const pv_model *m, const pv_memory_profile_result *r,
                                  bool extras)
{
    if (!r->has_host_plane)
        return json_object();
    pv_arena a;
    pv_arena_init(&a, 4096);
    json_t *per = json_object();
    json_t *ids = json_array();
    for (size_t i = 0; i < r->n_allocators; i++) {
        const pv_memory_allocator *al = &r->allocators[i];
        json_object_set_new(per, al->memory_id, allocator_json(m, r, al, extras, &a));
        json_array_append_new(ids, json_string(al->memory_id));
    }
    pv_arena_fini(&a);
    json_t *mods = json_array();
    for (size_t i = 0; i < r->n_hlo_modules; i++) {
        const pv_memory_hlo_module *hm = &r->hlo_modules[i];
        json_array_append_new(mods, json_pack("{s:s,s:o,s:o,s:o,s:s}", "name", hm->name,
                                              "startTimePs", i64(hm->start_time_ps),
                                              "endTimePs", i64(hm->end_time_ps), "id",
                                              i64(hm->id), "planeName", hm->plane_name));
    }
    return json_pack("{s:o,s:i,s:o,s:i,s:o}", "memoryProfilePerAllocator", per, "numHosts", 1,
                     "memoryIds", ids, "version", 1, "hloModules", mods);
}
