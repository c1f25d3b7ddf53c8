/* The modules of the example's kernels (their cubins and PTX), defined
 * once in the program. */
#define TKC_IMPLEMENTATION
#include "add.h"
#include "row_softmax.h"
