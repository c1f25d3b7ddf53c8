/* runtime_stub: what generated launch headers call (see tkrt.h).
 *
 * The driver is found with dlopen("libcuda.so.1") (or $TKRT_LIBCUDA) once a
 * process, under pthread_once; no CUDA header is included: the few types and
 * functions used are declared below with the driver's ABI, under the symbol
 * names libcuda.so.1 exports for the CUDA 12/13 API (none of those used has
 * a _v2 name there; cuLaunchKernel is the legacy-default-stream entry, so a
 * NULL stream means the legacy default stream, as for cudaLaunchKernel).
 *
 * A header's kernels share one tkrt_module: it is loaded once per context
 * (under the module's lock, keyed by the context's id as below), from the
 * cubin that suits the device's compute capability (choose_image), else
 * from the PTX, which the driver JIT-compiles.
 *
 * Per kernel, loaded[0..count) caches one (context, id, function) a
 * context, keyed by the context's unique id (cuCtxGetId), not its address:
 * a context destroyed and made again at the same address (cudaDeviceReset,
 * cuDevicePrimaryCtxReset, cuCtxDestroy + cuCtxCreate) gets a new id, so a
 * module that died with the old one is never launched (the driver does not
 * reliably reject such a stale CUfunction: it may crash). Its entry, found
 * by the address, is then reused for the new context.
 *
 * A launch finds its context's entry with an acquire load of count and of
 * each entry's id, and no lock: an entry is filled (or refilled) first and
 * its id and count are stored last, with release stores. Only a miss takes
 * the kernel's `lock` (a spin lock with __atomic builtins that yields, then
 * sleeps, since a PTX JIT can take a while), looks again, and loads. After
 * that first load a launch is cuCtxGetId(NULL) (the current context's id) +
 * cuLaunchKernel: no allocation, no synchronisation, so launches can be
 * captured into CUDA graphs.
 *
 * An autotuned launch (tkrt_tuned_launch) looks its key up in the tuner's
 * table (per context, under the tuner's spin lock); a miss looks in the
 * choices saved by device name (made in this process, tkrt_tune_load,
 * TKC_TUNE_CACHE), then times the configs under one process-wide mutex,
 * with the driver's event and memory calls, which are looked up apart:
 * a driver without them launches the first config.
 *
 * Errors are recorded per thread (status, last CUresult, message) for
 * tkrt_status_string; nothing is printed (but TKC_TUNE_VERBOSE's report)
 * and nothing exits.
 *
 * One translation unit, kept in parts by concern under tkrt/ (each
 * included once, below, in this order): driver.c, modules.c, tune.c,
 * saved.c, launch.c, tensor_map.c, status.c. A program compiles this file
 * alone. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep, dlopen, pthreads under -std=c99/c11 */
#endif
#include "tkrt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tkrt/driver.c"
#include "tkrt/modules.c"
#include "tkrt/tune.c"
#include "tkrt/saved.c"
#include "tkrt/launch.c"
#include "tkrt/tensor_map.c"
#include "tkrt/status.c"
