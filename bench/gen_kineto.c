/* bench/gen_kineto: writes a synthetic PyTorch (Kineto) trace JSON for the
 * decoder and trace viewer benchmarks.
 *
 *   bench/gen_kineto OUT.pt.trace.json EVENTS [GPUS]
 *
 * EVENTS timeline events (about 170 bytes of JSON each, so 5 M events are
 * about 0.8 GB), in the shape torch.profiler writes: per GPU a host thread
 * of operators (aten::addmm over aten::mm, with External id and Input
 * Dims), each launching one kernel through cudaLaunchKernel (correlation,
 * the ac2g flow pair, the kernel's launch args), a [memory] instant per
 * operator, a ProfilerStep#N annotation every 1000 operators, and the
 * process and thread names at the end, as Kineto puts them. Times are
 * epoch microseconds with three decimals. The output is deterministic.
 * Prints the events and bytes written as `name value unit` lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_PID 4242
#define BASE_US 1712195495000000ull

typedef struct out {
    FILE *f;
    uint64_t events;
    int first;
} out;

/* One event line; a comma before every event but the first. */
static void line(out *o, const char *text)
{
    fputs(o->first ? "\n  " : ",\n  ", o->f);
    fputs(text, o->f);
    o->first = 0;
    o->events++;
}

/* Microseconds with three decimals from nanoseconds since BASE. */
static void ts(char *buf, size_t cap, uint64_t ns)
{
    snprintf(buf, cap, "%llu.%03llu", (unsigned long long)(BASE_US + ns / 1000),
             (unsigned long long)(ns % 1000));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT EVENTS [GPUS]\n", argv[0]);
        return 2;
    }
    uint64_t want = strtoull(argv[2], NULL, 10);
    int gpus = argc > 3 ? atoi(argv[3]) : 1;
    if (gpus < 1)
        gpus = 1;
    out o = {fopen(argv[1], "w"), 0, 1};
    if (o.f == NULL) {
        perror(argv[1]);
        return 1;
    }
    fputs("{\n\"schemaVersion\": 1,\n\"traceEvents\": [", o.f);
    char e[1024], t0[40], t1[40], t2[40], t3[40];
    uint64_t corr = 1, ext = 1;
    uint64_t now[64] = {0};
    uint64_t op = 0;
    /* events per operator: addmm, mm, launch, kernel, s, f, memory = 7 */
    while (o.events + 7 <= want) {
        int g = (int)(op % (uint64_t)gpus);
        uint64_t at = now[g];
        if (op / (uint64_t)gpus % 1000 == 0) {
            ts(t0, sizeof t0, at);
            snprintf(e, sizeof e,
                     "{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                     "\"name\": \"ProfilerStep#%llu\", \"pid\": %d, \"tid\": %d, \"ts\": %s, "
                     "\"dur\": 19000.000, \"args\": {\"External id\": %llu}}",
                     (unsigned long long)(op / (uint64_t)gpus / 1000), HOST_PID, 100 + g, t0,
                     (unsigned long long)ext++);
            line(&o, e);
        }
        ts(t0, sizeof t0, at + 250);
        ts(t1, sizeof t1, at + 500);
        ts(t2, sizeof t2, at + 2000);
        ts(t3, sizeof t3, at + 6000 + op % 997);
        uint64_t x = ext++;
        snprintf(e, sizeof e,
                 "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": %d, "
                 "\"tid\": %d, \"ts\": %s, \"dur\": 17.500, \"args\": {\"External id\": %llu, "
                 "\"Input Dims\": [[256], [64, 512], [512, 256]]}}",
                 HOST_PID, 100 + g, t0, (unsigned long long)x);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": %d, "
                 "\"tid\": %d, \"ts\": %s, \"dur\": 12.000, \"args\": {\"External id\": %llu}}",
                 HOST_PID, 100 + g, t1, (unsigned long long)ext++);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
                 "\"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d, \"ts\": %s, "
                 "\"dur\": 4.125, \"args\": {\"External id\": %llu, \"correlation\": %llu}}",
                 HOST_PID, 100 + g, t2, (unsigned long long)(ext - 1), (unsigned long long)corr);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"s\", \"id\": %llu, \"pid\": %d, \"tid\": %d, \"ts\": %s, "
                 "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                 (unsigned long long)corr, HOST_PID, 100 + g, t2);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_64x64_nn\", "
                 "\"pid\": %d, \"tid\": 7, \"ts\": %s, \"dur\": 9.216, \"args\": {\"External id\": "
                 "%llu, \"correlation\": %llu, \"grid\": [16, 4, 1], \"block\": [128, 1, 1], "
                 "\"registers per thread\": 72, \"shared memory\": 8192}}",
                 g, t3, (unsigned long long)(ext - 1), (unsigned long long)corr);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"f\", \"id\": %llu, \"pid\": %d, \"tid\": 7, \"ts\": %s, "
                 "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                 (unsigned long long)corr, g, t3);
        line(&o, e);
        ts(t0, sizeof t0, at + 1000);
        snprintf(e, sizeof e,
                 "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
                 "\"[memory]\", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"args\": {\"Bytes\": %d, "
                 "\"Total Allocated\": %llu, \"Addr\": %llu, \"Device Id\": %d, "
                 "\"Device Type\": 1}}",
                 HOST_PID, 100 + g, t0, op % 2 ? -131072 : 131072,
                 (unsigned long long)(1048576 + (op % 2 ? 0 : 131072)),
                 (unsigned long long)(140000000000ull + op % 4096 * 131072), g);
        line(&o, e);
        corr++;
        op++;
        now[g] += 19000;
    }
    snprintf(e, sizeof e,
             "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, "
             "\"args\": {\"name\": \"python\"}}",
             HOST_PID);
    line(&o, e);
    snprintf(e, sizeof e,
             "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": %d, \"tid\": 0, "
             "\"args\": {\"labels\": \"CPU\"}}",
             HOST_PID);
    line(&o, e);
    for (int g = 0; g < gpus; g++) {
        snprintf(e, sizeof e,
                 "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": %d, \"tid\": 0, "
                 "\"args\": {\"labels\": \"GPU %d\"}}",
                 g, g);
        line(&o, e);
        snprintf(e, sizeof e,
                 "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, "
                 "\"args\": {\"name\": \"thread %d (python)\"}}",
                 HOST_PID, 100 + g, 100 + g);
        line(&o, e);
    }
    fputs("\n],\n\"traceName\": \"gen_kineto\"\n}\n", o.f);
    long bytes = ftell(o.f);
    fclose(o.f);
    printf("gen_kineto_events %llu events\n", (unsigned long long)o.events);
    printf("gen_kineto_bytes %ld B\n", bytes);
    return 0;
}
