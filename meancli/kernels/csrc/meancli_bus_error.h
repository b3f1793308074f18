/* meancli_bus_error.h: The SIGBUS handler for inputs truncated while mapped.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
/* A bus error (SIGBUS) is what a read of a memory-mapped input raises when
 * another process truncated the file meanwhile: there is nothing to read
 * and nothing to return. The command line installs this handler instead of
 * the crash: one error line, the temporary output file being written (if
 * any) removed, exit status 1. Async-signal-safe calls only; the path is
 * published by a flag set after it is written. */
static char bus_error_path[4096];
static volatile sig_atomic_t bus_error_has_path;
static int bus_error_taken;
static void meancli_bus_error(int sig)
{
    static const char line[] = "error: an input file was truncated while it was read (a bus error on its memory map)\n";
    (void)sig;
    /* every kernel thread may fault at once: the first speaks and exits, the others wait for that */
    if (__atomic_exchange_n(&bus_error_taken, 1, __ATOMIC_SEQ_CST))
        for (;;) pause();
    if (bus_error_has_path) (void)unlink(bus_error_path);
    ssize_t n = write(2, line, sizeof line - 1);
    (void)n;
    _exit(1);
}

/* Install the bus error handler for the process; 0, or -1 where it cannot be. */
int meancli_handle_bus_errors(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = meancli_bus_error;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}

/* The file the bus error handler removes: path (at most 4095 bytes), or NULL for none. */
int meancli_bus_error_removes(const char *path)
{
    bus_error_has_path = 0;
    if (!path) return 0;
    size_t n = strlen(path);
    if (n >= sizeof bus_error_path) return -1;
    memcpy(bus_error_path, path, n + 1);
    bus_error_has_path = 1;
    return 0;
}
