/* Private to codegen/: the state of the tile IR -> LLVM IR translation and
 * the helpers more than one op family uses (prefix cg_), by the file that
 * defines them. One file an op family: types.c, ptx.c (the one place inline
 * PTX is built), convert.c, elementwise.c, cast.c, memory.c, reduce.c, gather.c, sort.c,
 * random.c, shape.c, debug.c, atomic.c, dot.c, async.c, descriptor.c, tma.c, control.c (the op dispatch and
 * control flow) and module.c; target.c takes the built module to PTX and a
 * cubin, header.c writes the launch header and python.c the Python binding. */
#ifndef TK_CODEGEN_INTERNAL_H
#define TK_CODEGEN_INTERNAL_H

#include "codegen.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

/* A value's registers in this thread: a tile's in the order of its
 * layout's register bits, a scalar's one. */
typedef struct cgval {
    uint32_t n;
    LLVMValueRef *r;
} cgval;

/* One module's translation (module.c); emit_kernel sets the per-kernel part. */
typedef struct cg {
    tk_arena *arena;
    tk_diag *diag;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    const tk_tir_kernel *k;
    cgval *vals;
    LLVMBasicBlockRef entry;   /* thread indices and per-layout offsets live here */
    LLVMValueRef entry_br;
    LLVMValueRef tid, lane, warp;
    LLVMValueRef smem;
    unsigned smem_align;       /* tk_smem's, the same in every module of a program */
    const tk_tir_op *scratch_op;   /* the op being emitted: its scratch range (smem.c) */
    uint32_t barriers;  /* cg_barrier calls so far: an op with scratch passes one (lower/barriers.c) */
    struct { const tk_ll *l; LLVMValueRef flat; } flats[64];
    uint32_t nflats;
    bool failed;
    bool wgmma;   /* the kernel has a wgmma dot */
    bool thread_divergent; /* the kernel branches per thread somewhere (module.c): its barriers are not aligned */
    /* in a warp-specialized kernel's partitions (control.c): the thread
     * that issues for all (tma.c), and the threads a barrier waits for
     * (0: the whole block; else named barrier 1 of that many) */
    uint32_t leader_tid, barrier_threads;
    /* -g / -lineinfo: line tables pointing into the .tk file */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_sp;
    bool debug;   /* device_assert checks */
    bool fp_contract_allowed; /* tk_cg_options' fp_contract */
    bool fp_contract;  /* this kernel's float add, sub and mul may fuse into fmas */
    const tk_path_maps *path_maps; /* paths as line tables and assertions write them */
    const tk_target *target;
    tk_loc user_asm; /* first inline_asm_elementwise, for ptxas errors */
    const tk_tir_block *combine_fn; /* the reduce or scan being emitted, when it has one */
    LLVMTypeRef t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_bf16, t_f32, t_f64, t_ptr1, t_ptr3, t_void;
} cg;

/* ---- module.c: the module and its kernels ---- */

/* Builds the LLVM module of every kernel (of those `only` marks, by index,
 * unless it is NULL); NULL (errors reported) when one fails. Kernel infos
 * go to out->kernels in program order. */
LLVMModuleRef cg_build_module(tk_arena *arena, tk_diag *diag, LLVMContextRef ctx,
                              const tk_tir_program *program, const bool *only, const tk_cg_options *options,
                              tk_cg_output *out);
/* The PTX entry name of a kernel variant. */
const char *cg_entry_name(tk_arena *arena, const tk_tir_kernel *k, const tk_tir_program *program);

/* ---- types.c: types and small helpers ---- */

/* The register type of a dtype: i1 a bit, fp8 its byte. */
LLVMTypeRef cg_dtype_type(cg *c, tk_dtype d);
/* A tile's element type; any other type itself. */
const tk_type *cg_elem_of(const tk_type *t);
/* The register type of t's element (a pointer: global, address space 1). */
LLVMTypeRef cg_elem_type(cg *c, const tk_type *t);
/* Whether t's element is a float. */
bool cg_is_float(const tk_type *t);
/* Whether t's element is a signed integer (i1 is not). */
bool cg_is_signed(const tk_type *t);
/* How many registers v takes in a thread: its layout's, or 1. */
uint32_t cg_nregs(const tk_tir_value *v);
/* Reports op as not supported yet (the kernel's first such error only) and fails the kernel. */
void cg_not_yet(cg *c, const tk_tir_op *op, const char *what);
/* n registers, unset, in the arena. */
cgval cg_newval(cg *c, uint32_t n);
/* v's registers, as the op that defines v (or binds it, for arguments) set them. */
cgval *cg_get(cg *c, const tk_tir_value *v);
/* Register r of operand i of an element-wise op (a scalar operand's one register for any r). */
LLVMValueRef cg_operand(cg *c, const tk_tir_op *op, uint32_t i, uint32_t r);
/* The i32 constant v. */
LLVMValueRef cg_i32(cg *c, int64_t v);

/* ---- ptx.c: intrinsics, special registers, the barrier, inline PTX ---- */

/* The function name in the module, declared with this type if it is not there yet. */
LLVMValueRef cg_declare(cg *c, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n);
/* A call of intrinsic or external function name, typed by its arguments (at most 12). */
LLVMValueRef cg_call(cg *c, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n);
/* Inline PTX with LLVM constraints (at most 260 arguments): every inline-PTX builder goes through it. */
LLVMValueRef cg_asm_call(cg *c, LLVMTypeRef ret, const char *text, const char *constraints,
                         LLVMValueRef *args, unsigned n, bool side_effects);
/* The PTX special register name ("tid.x", "ctaid.y", ...), as i32. */
LLVMValueRef cg_sreg(cg *c, const char *name);
/* The CTA barrier: aligned (bar.sync, every warp whole), or barrier.sync
 * in a kernel with thread-divergent code. */
void cg_barrier(cg *c);
void cg_warp_sync(cg *c);

/* ---- convert.c: registers in layouts, scratch, shuffles, conversions ---- */

/* Flat index of register r of layout l in this thread (the thread's part computed once, in the entry). */
LLVMValueRef cg_reg_flat(cg *c, const tk_ll *l, uint64_t r);
/* i1: this is the program's first thread (lane 0 of warp 0). */
LLVMValueRef cg_is_first_thread(cg *c);
/* i1: this thread's copy of register r of l acts (one copy of a replicated element; l NULL: all). */
LLVMValueRef cg_owner(cg *c, const tk_ll *l, uint32_t r);
/* Address byte_offset into the emitted op's scratch; an op given none: an internal error, once. */
LLVMValueRef cg_smem_addr(cg *c, LLVMValueRef byte_offset);
/* The type t travels through scratch as: at least 32 bits. */
LLVMTypeRef cg_scratch_type(cg *c, LLVMTypeRef t);
/* v widened to its scratch type. */
LLVMValueRef cg_to_scratch(cg *c, LLVMValueRef v);
/* v narrowed from its scratch type back to t. */
LLVMValueRef cg_from_scratch(cg *c, LLVMValueRef v, LLVMTypeRef t);
/* The bytes of one slot of the emitted op's scratch (lower/scratch.c). */
unsigned cg_scratch_slot(cg *c);
/* A t in layout l (NULL: a scalar) read from scratch slots flat * mul + add, written and passed a barrier before. */
cgval cg_scratch_read(cg *c, const tk_type *t, const tk_ll *l, int64_t mul, int64_t add, unsigned slot);
/* Every register of v to scratch slot flat (row-major, copies too); a barrier must follow before reads. */
void cg_scratch_write(cg *c, const tk_tir_value *v, unsigned slot);
/* The same for n registers `regs` in `layout` (NULL: a scalar). */
void cg_scratch_write_regs(cg *c, const tk_ll *layout, LLVMValueRef *regs, uint32_t n, unsigned slot);
/* A warp shuffle of any register type, all 32 lanes: mode "bfly" (lane = XOR mask) or "idx" (source lane). */
LLVMValueRef cg_shuffle(cg *c, LLVMValueRef v, const char *mode, LLVMValueRef lane);
/* src's registers in layout dst: reused, shuffled, or through the op's scratch (reads left pending). */
cgval cg_relayout(cg *c, const tk_tir_value *src, const tk_ll *dst);
/* Registers of layout l (16-bit elements of type et) read from shared
 * memory at base, laid out as `shared`, by ldmatrix.x4 (async.c); false,
 * and nothing emitted, where tk_ll_ldmatrix says it cannot. */
bool cg_load_by_ldmatrix(cg *c, LLVMValueRef base, const tk_ll *shared, const tk_ll *l, LLVMTypeRef et, cgval *out);

/* ---- elementwise.c: element-wise ops and math ---- */

/* v (a float add, sub or mul the program wrote) with the contract flag when
 * the kernel allows fusing it into an fma (elementwise.c) */
LLVMValueRef cg_contractible(cg *c, LLVMValueRef v);
/* a op b on one register of t's element type; NULL for an operator it does not emit. */
LLVMValueRef cg_binary(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b, bool arith_shift);
/* a op b as i1, by t's element type (floats ordered, != unordered). */
LLVMValueRef cg_compare(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b);
/* The larger (smaller) of a and b; on floats the number when one is NaN (maxnum). */
LLVMValueRef cg_minmax(cg *c, bool is_max, const tk_type *t, LLVMValueRef a, LLVMValueRef b);
/* A math op on one register of each operand (x[0..3)); what it cannot emit is reported. */
LLVMValueRef cg_math(cg *c, const tk_tir_op *op, const tk_type *t, LLVMValueRef *x);
/* inline_asm_elementwise: the user's PTX once per pack registers (operands checked by sema). */
void cg_emit_inline_asm(cg *c, const tk_tir_op *op);

/* ---- cast.c: conversions between element types ---- */

/* v from from's element type to to's, neither fp8; a narrowing float conversion rounds to nearest even. */
LLVMValueRef cg_cast(cg *c, const tk_type *from, const tk_type *to, LLVMValueRef v);
/* A conversion from or to fp8 (to fp8: saturating to finite); the target must have fp8 (caller checks). */
LLVMValueRef cg_cast_f8(cg *c, tk_dtype from, bool f8_from, tk_dtype to, bool f8_to, const tk_type *ft,
                        const tk_type *tt, LLVMValueRef x);
/* A float narrowing rounded toward zero (f32 -> f16, bf16; f64 -> f32); other pairs reported. */
LLVMValueRef cg_cast_rtz(cg *c, const tk_tir_op *op, tk_dtype from, tk_dtype to, LLVMValueRef x);

/* ---- memory.c: loads and stores ---- */

/* The memory type of an element: i1 is a byte in memory. */
LLVMTypeRef cg_mem_type(cg *c, const tk_type *pointee);
/* A load or store through a pointer or pointer tile (block pointers reported). */
void cg_emit_memory(cg *c, const tk_tir_op *op);
/* The dimension along which a thread's consecutive registers of pointer
 * tile ptr run: the last, or the first where the layout goes down the
 * columns (a column-major tile coalesced as it lies, lower/layout_rules.c). */
uint32_t cg_access_dim(const tk_tir_value *ptr);
/* How many registers of pointer tile ptr one access covers along
 * dimension d (consecutive elements its layout and axis facts allow, at
 * most 16 bytes). */
uint32_t cg_access_width(const tk_tir_value *ptr, uint32_t d, unsigned bytes);
/* One element loaded where pred holds, `other` where not (op's cache
 * modifiers). */
LLVMValueRef cg_masked_load_scalar(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                   LLVMValueRef other, LLVMTypeRef et, unsigned bytes);

/* ---- descriptor.c: descriptor parameters ---- */

/* Parameter `index` of kernel fn is a descriptor: byval, 64-byte aligned, a grid constant. */
void cg_descriptor_param_attributes(cg *c, LLVMValueRef fn, unsigned index);
void cg_emit_desc_field(cg *c, const tk_tir_op *op);

/* ---- tma.c: TMA copies and mbarriers ---- */

void cg_emit_tma(cg *c, const tk_tir_op *op);

/* ---- async.c: shared-memory buffers of pipelined loops ---- */

/* local_view, async_copy, async_commit, async_wait, local_load. */
void cg_emit_async(cg *c, const tk_tir_op *op);
/* dot_wait (dot.c): an accumulator once the wgmma writing it is done. */
void cg_emit_dot_wait(cg *c, const tk_tir_op *op);

/* ---- reduce.c: reductions and scans ---- */

/* A reduction along an axis (or of a 1-D tile); the op's scratch when it spans warps. */
void cg_emit_reduce(cg *c, const tk_tir_op *op);
/* An inclusive scan along an axis (cumsum, cumprod, associative_scan), forward or reverse. */
void cg_emit_scan(cg *c, const tk_tir_op *op);
/* tl.histogram: counts by shared-memory atomics in the op's scratch. */
void cg_emit_histogram(cg *c, const tk_tir_op *op);

/* ---- gather.c ---- */

/* tl.gather: the source through the op's scratch, read at the indices. */
void cg_emit_gather(cg *c, const tk_tir_op *op);

/* ---- sort.c ---- */

/* tl.sort and tl.topk: a bitonic network over the op's scratch, rows along the last dimension. */
void cg_emit_sort(cg *c, const tk_tir_op *op);

/* ---- dot.c: matrix products ---- */

/* tl.dot as lower/dot.c chose (impl "fma": from the op's scratch, FMAs over K). */
void cg_emit_dot(cg *c, const tk_tir_op *op);

/* ---- random.c, shape.c, debug.c, atomic.c ---- */

/* tl.rand, randn, randint and their 4x forms: Triton's Philox 4x32. */
void cg_emit_random(cg *c, const tk_tir_op *op);
/* join, split, cat: in registers where the layouts allow, else through the op's scratch. */
void cg_emit_join_split_cat(cg *c, const tk_tir_op *op);
/* device_print: each element once, from the thread that owns it. */
void cg_emit_print(cg *c, const tk_tir_op *op);
/* device_assert: checks under -g/--debug only, else nothing. */
void cg_emit_assert(cg *c, const tk_tir_op *op);
/* An atomic: once per element, by its owner; the old values to every copy through the op's scratch. */
void cg_emit_atomic(cg *c, const tk_tir_op *op);

/* ---- header.c: what the Python binding (python.c) shares of the launchers ---- */

/* A parameter a launcher takes: not a constexpr, not one @heuristics computes. */
typedef struct cg_launch_param {
    const tk_sema_param *param;
    uint32_t arg;       /* its index among the kernel's run-time arguments */
    bool written;       /* a pointer that some variant stores or atomically updates through */
} cg_launch_param;
/* Whether kernel i is the first variant of its name (the one a launcher is written for). */
bool cg_first_of_name(const tk_tir_program *program, uint32_t i);
/* The parameters of kernel i's launcher, in order, into out (room for every parameter); their count. */
uint32_t cg_launch_params(const tk_tir_program *program, uint32_t i, cg_launch_param *out);
/* The C type a launcher takes a scalar as: float for f16 and bf16, int64_t for `int`. */
const char *cg_launcher_scalar_type(const tk_sema_param *p);
/* A pointer parameter's element type in C: tk_f16, float, ... */
const char *cg_element_c_type(const tk_type *pointer);

/* ---- control.c: the op dispatch and control flow ---- */

/* Emits blk's live ops in order, until one fails; c->scratch_op is as it was after. */
void cg_emit_block(cg *c, const tk_tir_block *blk);

/* The registers a thread of a warp-specialized kernel holds at entry:
 * the kernel's maxnreg (rounded up to the 8 registers are allocated by)
 * where that is below one block's share of the SM's 64K (*capped), else
 * that share (.minnctapersm 1 keeps ptxas to it). */
uint32_t cg_entry_registers(const tk_tir_kernel *k, bool *capped);

#endif
