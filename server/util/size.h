/* size: byte counts as people write them on a command line ("4G", "512M",
 * "2GiB"), and the default memory budget, shared by the server's flags
 * and its subcommands'. Pure apart from reading the machine's RAM size;
 * any thread. */
#ifndef PV_UTIL_SIZE_H
#define PV_UTIL_SIZE_H

#include <stddef.h>

/* Reads a whole number of bytes with an optional K, M or G (powers of
 * 1024, either case) followed by nothing, "B" or "iB". Returns 0 with
 * *out set, or -1 (out untouched) for anything else or a value past
 * SIZE_MAX. */
int pv_size_parse(const char *s, size_t *out);

/* A quarter of the machine's RAM (1 GiB when it cannot be read): what all
 * loaded profiles may hold by default. Cannot fail. */
size_t pv_size_default_budget(void);

#endif
