/* codegen: tile IR -> LLVM IR -> PTX and cubin, and the launch header
 * (prefix tk_cg_). Not built yet: `tkc --emit=ptx` says so. */
#ifndef TK_CODEGEN_H
#define TK_CODEGEN_H
#endif
