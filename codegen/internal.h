/* Private to codegen/. */
#ifndef TK_CODEGEN_INTERNAL_H
#define TK_CODEGEN_INTERNAL_H

#include "codegen.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

/* Builds the LLVM module of every kernel (llvm.c). */
LLVMModuleRef cg_build_module(tk_arena *arena, tk_diag *diag, LLVMContextRef ctx,
                              const tk_tir_program *program, const tk_cg_options *options,
                              tk_cg_output *out);
/* The PTX entry name of a kernel variant. */
const char *cg_entry_name(tk_arena *arena, const tk_tir_kernel *k, const tk_tir_program *program);

#endif
