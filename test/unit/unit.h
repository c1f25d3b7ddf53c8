/* What every unit test shares: CHECK counts a failed condition and prints
 * where it is; main returns failures != 0 and prints "ok" last otherwise. */
#ifndef TK_UNIT_H
#define TK_UNIT_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
            failures++;                                                             \
        }                                                                           \
    } while (0)

#endif
