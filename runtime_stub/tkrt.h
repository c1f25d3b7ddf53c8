/* runtime_stub: the C runtime generated launch headers call; loads the CUDA
 * driver with dlopen (prefix tkrt_). Not built yet. */
#ifndef TKRT_H
#define TKRT_H
#endif
