/* lower: typed, specialized kernels (sema.h) -> tile IR and its passes
 * (prefix tk_tir_). Not built yet: `tkc --emit=tir` says so. */
#ifndef TK_LOWER_H
#define TK_LOWER_H
#endif
