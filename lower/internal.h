/* Private to lower/: helpers shared by the passes. */
#ifndef TK_LOWER_INTERNAL_H
#define TK_LOWER_INTERNAL_H

#include "lower.h"

tk_tir_op *tir_new_op(tk_arena *arena, tk_tir_opcode code, int sub, tk_loc loc);
/* op's opcode, attributes and constant in a new op in `parent`, without
 * operands or results (passes that recompute a value fill those in) */
tk_tir_op *tir_clone_op(tk_arena *arena, const tk_tir_op *op, tk_tir_block *parent);
/* A region's terminator: its last live op where that is a yield or a
 * condition, else NULL. */
const tk_tir_op *tir_terminator(const tk_tir_block *blk);
tk_tir_value *tir_new_value(tk_arena *arena, tk_tir_kernel *k, const tk_type *type, tk_tir_op *def);
/* v's type, layout and axis facts under a new id, defined by def */
tk_tir_value *tir_copy_value(tk_arena *arena, tk_tir_kernel *k, const tk_tir_value *v, tk_tir_op *def);

static inline bool ty_elem_is_pointer_type(const tk_type *t) {
    const tk_type *e = t->kind == TK_TYPE_TILE ? t->elem : t;
    return e->kind == TK_TYPE_POINTER;
}

static inline const tk_type *tir_elem(const tk_type *t) {
    return t->kind == TK_TYPE_TILE ? t->elem : t;
}

static inline uint32_t tir_rank(const tk_type *t) { return t->kind == TK_TYPE_TILE ? t->rank : 0; }

/* Ops inserted into a block at a position, in order (descriptors.c):
 * build.c's appending and a pass's inserting before an op alike. */
typedef struct tir_emitter {
    tk_arena *arena;
    tk_tir_kernel *k;
    tk_tir_block *block;
    uint32_t at;
} tir_emitter;
tk_tir_op *tir_emit_op(tir_emitter *e, tk_tir_opcode code, int sub, tk_loc loc);
/* Ops a pass builds in a list and puts in place afterwards
 * (pipeline_dot.c, warp_specialize.c): a new op of block `at` appended to
 * `out`, with operands a and b where given and one result of type t where
 * given. */
typedef TK_VEC(tk_tir_op *) tir_op_list;
tk_tir_op *tir_append_op(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                         tk_tir_opcode code, int sub, const tk_type *t, tk_tir_value *a, tk_tir_value *b);
/* a 2-D permute swapping its dimensions (tl.trans, .T), dead or not */
bool tir_is_transpose(const tk_tir_op *op);
/* v's transpose, a new permute appended to out in block `at`, its result
 * `into` where given (a value of the transposed type), else a new one */
tk_tir_value *tir_append_transpose(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                                   tk_tir_value *v, tk_tir_value *into);
/* the integer constant v of type t, so appended */
tk_tir_value *tir_append_const(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                               const tk_type *t, int64_t v);
tk_tir_value *tir_emit_result(tir_emitter *e, tk_tir_op *op, const tk_type *t);
tk_tir_value *tir_emit_const(tir_emitter *e, const tk_type *t, int64_t i, double f, tk_loc loc);
/* The pointer tile and mask (NULL: none) of a block access through the
 * block pointer of type bt whose fields are [base, shape..., strides...,
 * offsets...]; `checked`: bit d, dimension d is bounds-checked (a
 * descriptor's: all). rows (an i32 tile of bt's first size, or NULL): the
 * indices along dimension 0 in place of its offset + 0, 1, ... (a
 * descriptor's gather and scatter). */
void tir_emit_block_pointers(tir_emitter *e, const tk_type *bt, tk_tir_value *const *fields, uint32_t checked,
                             tk_tir_value *rows, tk_loc loc, tk_tir_value **ptrs, tk_tir_value **mask);
/* The load (stored NULL; its result) or store of that access; out-of-
 * bounds elements of a load read zero or (pad_nan) NaN; attrs (cache
 * modifiers) go on the op. */
tk_tir_value *tir_emit_block_load_store(tir_emitter *e, const tk_type *bt, tk_tir_value *ptrs, tk_tir_value *mask,
                                        tk_tir_value *stored, bool pad_nan, const struct tk_sema_attr *attrs,
                                        uint32_t nattrs, tk_loc loc);
/* A desc_load or desc_store replaced by its pointer-tile form. */
void tir_expand_descriptor_access(tk_arena *arena, tk_tir_kernel *k, tk_tir_op *op);

/* Launch-time specialization ahead of time (specialize.c): the variants
 * of a kernel to compile, most specialized first, the general one last
 * (suffix ""); at most `budget` (at least 1); out[] holds TIR_MAX_SPECIALIZATIONS. */
typedef struct tir_specialization {
    uint64_t assume_one, assume_div16; /* bit i: the i-th runtime parameter */
    const char *suffix;                /* "", "_u", "_a", "_d16", "_u_d16", "_d16_2", ... */
} tir_specialization;
enum { TIR_MAX_SPECIALIZATIONS = 7 };
uint32_t tir_specializations(tk_arena *arena, const tk_tir_kernel *general, uint32_t budget,
                             tir_specialization *out);

/* k's sema kernel lowered again, with k's assumptions and suffix: a fresh
 * kernel for the passes to run over once more (passes.c) */
tk_tir_kernel *tir_lower_again(tk_arena *arena, tk_diag *diag, const tk_tir_kernel *k);

/* Visits every op of a block and its regions, parents before children. */
typedef void (*tir_visit_fn)(tk_tir_op *op, void *ctx);
void tir_walk(tk_tir_block *blk, tir_visit_fn fn, void *ctx);
/* Every use of `from` in blk and its regions, but `except`'s (NULL:
 * none), becomes a use of `to`. */
void tir_replace_uses(tk_tir_block *blk, const tk_tir_value *from, tk_tir_value *to, const tk_tir_op *except);

/* Ops that compute addresses and masks (pure, cheap, one result, no
 * regions): what the pipeliners may recompute for a later trip. */
bool tir_is_address_op(const tk_tir_op *op);
/* v with addptr, splat, broadcast, reshape, permute and hints stripped:
 * the pointer it is derived from. */
const tk_tir_value *tir_strip_address(const tk_tir_value *v);
/* The pointer parameter a pointer value is derived from (through those),
 * or NULL. */
const tk_tir_value *tir_root_pointer(const tk_tir_kernel *k, const tk_tir_value *v);
/* May a store or atomic in blk write through pointer parameter root (NULL:
 * unknown, so yes)? Distinct pointer parameters are taken not to alias, as
 * Triton's pipeliner does. */
bool tir_block_may_write(const tk_tir_kernel *k, tk_tir_block *blk, const tk_tir_value *root);

/* The bytes an element takes in a layout conversion's scratch: 16-bit
 * values as they are (an f16 epilogue tile takes half the memory), others
 * as tk_tir_scratch_word_bytes. */
uint32_t tir_convert_word_bytes(const tk_type *t);

/* ---- layout rules (layout_rules.c): the layout each op gives or needs,
 * read by layout propagation (propagate.c) and assignment (layouts.c) ---- */
typedef struct tir_shape_width {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    uint32_t vec;          /* the widest access a load or store of the shape allows */
    const tk_ll *layout;   /* its default layout, once made */
} tir_shape_width;
typedef struct tir_layout_rules {
    tk_arena *arena;
    tk_tir_kernel *kernel;
    TK_VEC(tir_shape_width) shapes;
    TK_VEC(const tk_tir_op *) dots; /* the kernel's tensor-core dots */
} tir_layout_rules;
void tir_layout_rules_init(tir_layout_rules *r, tk_arena *arena, tk_tir_kernel *k);
/* the widest access along dimension d a load or store of ptr allows */
uint32_t tir_access_width_along(const tk_tir_value *ptr, uint32_t d);
/* the coalesced blocked layout of a shape: as many contiguous elements a
 * thread as the widest access to a tile of that shape allows */
const tk_ll *tir_default_layout(tir_layout_rules *r, const tk_type *t);
/* the layout a load, store or atomic through pointer tile ptr reads or
 * writes memory best in: the default layout of its shape, or, where its
 * first dimension is contiguous and its second not (a transposed view, a
 * K-major operand), the same down the columns (Triton's Coalesce: each
 * access coalesced by its own pointers) */
const tk_ll *tir_coalesced_layout(tir_layout_rules *r, const tk_tir_value *ptr);
/* a tensor-core dot (impl mma_sync or wgmma): its result in an accumulator layout */
bool tir_is_mma(const tk_tir_op *op);
const tk_ll *tir_mma_acc_layout(tir_layout_rules *r, const tk_tir_op *dot);
/* a dot's result: the accumulator layout, or for fma the default one */
const tk_ll *tir_dot_result_layout(tir_layout_rules *r, const tk_tir_op *dot);
/* the layout mma.sync takes operand i (0: A, 1: B) in, or wgmma its A from registers */
const tk_ll *tir_mma_operand_layout(tir_layout_rules *r, const tk_tir_op *dot, uint32_t i);
/* the layout dot needs operand i in (the accumulator's for i == 2); NULL
 * where any will do (an fma dot's a and b, wgmma's shared-memory views) */
const tk_ll *tir_dot_operand_need(tir_layout_rules *r, const tk_tir_op *dot, uint32_t i);
/* a local_view's shared layout: its buffer's, transposed for trans=1 */
const tk_ll *tir_view_layout(tir_layout_rules *r, const tk_tir_op *view);
/* an async_copy's pointers, mask and other: coalesced as a load's */
const tk_ll *tir_copy_layout(tir_layout_rules *r, const tk_tir_op *copy);
/* the result layout of a reduce, reshape or permute of a tile in `from`; NULL for other ops */
const tk_ll *tir_relabelled_layout(tir_layout_rules *r, const tk_tir_op *op, const tk_ll *from);
/* the layout operand i of a cheap op needs for its result to have `want`
 * (a broadcast's: the slice; reshape's and permute's: relabelled back) */
const tk_ll *tir_operand_layout_for(tir_layout_rules *r, const tk_tir_op *op, uint32_t i, const tk_ll *want);
/* a tensor-core accumulator layout of a broadcast's shape of which
 * `operand` (the broadcast's operand's layout) is the slice, or NULL */
const tk_ll *tir_accumulator_of_slice(tir_layout_rules *r, const tk_tir_op *broadcast, const tk_ll *operand);
/* an op that costs less to recompute in another layout than its result
 * costs to move: splat, range, broadcast, reshape, permute, arithmetic,
 * compare, select, cast, addptr, hint */
bool tir_cheap_op(const tk_tir_op *op);
/* recomputing a value: at most this many ops */
enum { TIR_REMAT_BUDGET = 16 };
/* The ops recomputing tile v takes (scalars are free), or -1 where it
 * cannot be recomputed within `budget` (a load, a reduction, a loop value). */
int tir_remat_cost(const tk_tir_value *v, int budget);
/* The tile an element-wise op (a cast, arithmetic, a select; one result)
 * computes its result from, where that is one operand: the others are
 * splats, broadcasts, constants or ranges (a scalar factor, a row of
 * scales). NULL otherwise. b in (b * 0.5).to(f16): what pipeline_dot.c
 * stages for a dot and layouts.c reads in the dot operand's layout. */
tk_tir_value *tir_elementwise_source(const tk_tir_op *op);
/* The element-wise ops (casts, arithmetic, comparisons, selects) of v's
 * block that compute tile v from one 2-D tile of its shape, the result of
 * an op `source_code` (a load; a local_load where the pipeliner staged
 * one) or of its tl.trans (then the source is that permute): tl.dot_scaled's decoding of fp8 codes, an int4 unpacking. Their
 * other operands come from outside (splats, broadcast rows of scales).
 * values[0] is v. What pipeline_dot.c stages for a dot and layouts.c
 * reads in the dot operand's layout; a chain (tir_elementwise_source) is
 * one. */
enum { TIR_CONE_MAX = 64 };
typedef struct tir_cone {
    tk_tir_value *values[TIR_CONE_MAX];
    uint32_t len;
    tk_tir_value *source;
} tir_cone;
bool tir_elementwise_cone(const tk_tir_value *v, tk_tir_opcode source_code, tir_cone *out);
/* a load, store or atomic: its pointers, mask and values in one layout */
bool tir_memory_op(const tk_tir_op *op);
/* Is value v, in `layout`, stored through pointers ptr as it is, not
 * converted to the coalesced layout first? Where it allows as wide an
 * access, or where converting it would take too much shared memory. */
bool tir_stored_where_it_is(tir_layout_rules *r, const tk_tir_value *ptr, const tk_tir_value *v,
                            const tk_ll *layout);

/* source positions already warned about, across a program's variants */
typedef TK_VEC(tk_loc) tk_tir_warned;
void tir_check_offsets(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, tk_tir_warned *warned);

/* One kernel through the verifier (verify.c). */
bool tk_tir_verify_kernel(tk_diag *diag, tk_arena *arena, const tk_tir_kernel *k);

/* The passes, in pipeline order (passes.c lists them; each file says what
 * it needs and keeps). */
void tir_pass_descriptors(tk_arena *arena, tk_tir_kernel *k, const tk_target *target);
void tir_pass_tma_stores(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_fold(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_cse(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_dce(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_reassociate_addresses(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_licm(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_licm_conversions(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_pipeline(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_dot(tk_arena *arena, tk_tir_kernel *k, const tk_target *target);
void tir_pass_pipeline_dots(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, const tk_target *target);
void tir_pass_warp_specialize(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, const tk_target *target,
                              tk_tir_warned *warned);
void tir_pass_dot_operands(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_proxy_fences(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_axis_info(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_propagate_layouts(tk_arena *arena, tk_tir_kernel *k);
bool tir_pass_layouts(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k);
void tir_pass_sink_loads(tk_arena *arena, tk_tir_kernel *k);
void tir_pass_shared_memory(tk_arena *arena, tk_tir_kernel *k);
/* ---- shared-memory buffers of dot operands (buffers.c) ---- */
/* The widest swizzle (128, 64 or 32 bytes; 0: plain rows) for tile t laid
 * out rows first, or (transposed) columns first. */
uint32_t tir_swizzle_for(const tk_type *t, bool transposed);
/* Can TMA fill the buffer tir_add_buffer gives a loaded 2-D tile (trans:
 * staged as its tl.trans) with boxes of box[0] rows x box[1] columns,
 * one after another along the columns, swizzled by *swizzle_bytes? */
bool tir_tma_box(const tk_type *tile, bool trans, uint32_t *box, uint32_t *swizzle_bytes);
/* A new buffer of `stages` copies of tile, swizzled as wgmma and ldmatrix
 * read it where tir_swizzle_for allows; live during `loop` (NULL: all
 * kernel long). Its index. */
uint32_t tir_add_buffer(tk_arena *arena, tk_tir_kernel *k, const tk_type *tile, uint32_t stages, bool transposed,
                        const tk_tir_op *loop, tk_loc loc);
/* Lays buffer b (32-bit elements, 2-D) out for reading into mma
 * fragments by 4-byte ld.shared along its contiguous dimension
 * (tk_ll_fragment_shared). No longer a buffer wgmma or TMA may read
 * (swizzle_bytes 0). */
void tir_buffer_for_fragments(tk_arena *arena, tk_tir_buffer *b);
/* Does what `load` reads (trans: its tl.trans) run down its first
 * dimension in memory (axis info)? Then its buffer is laid out so. */
bool tir_loaded_column_major(const tk_tir_op *load, bool trans);
/* The load a dot operand v comes from, directly or through a 2-D
 * tl.trans (*trans then set), or NULL. */
const tk_tir_op *tir_operand_load(const tk_tir_value *v, bool *trans);
/* Can wgmma read operand 0 (A) or 1 (B) of element type `in` from a buffer
 * laid out so? 16-bit operands either way round; tf32, fp8 and i8 only
 * K-contiguous (A rows first, B columns first); never unswizzled. */
bool tir_wgmma_reads(tk_dtype in, uint32_t operand, bool transposed, uint32_t swizzle_bytes);
/* Triton's warps for wgmma: 4 (a warpgroup) along M, doubled along M while
 * M has rows left for them, then along N. */
void tir_wgmma_warps(const int64_t *shape, uint32_t num_warps, uint32_t *warps);

/* A buffer's alignment (a tile's stages on 1024-byte boundaries, for the
 * swizzles; a row's on 16) and one stage's bytes rounded up to it
 * (smem.c). */
uint32_t tir_buffer_align(const tk_tir_buffer *b);
uint32_t tir_buffer_stage_span(const tk_tir_buffer *b);
/* Places buffers [0, n) (smem.c): each stage on its alignment, each
 * buffer after every earlier one live at the same time as it (the same
 * loop, or loops one inside the other; loops one after another share
 * memory). The bytes they take; *base_for, when loop is given, the offset
 * a further buffer of that loop would start at. */
uint32_t tir_place_buffers(tk_tir_kernel *k, uint32_t n, const tk_tir_op *loop, uint32_t *base_for);
/* The kernel's shared memory against the target's limit a block (an error
 * at the op with the most scratch when it is over). */
bool tir_check_shared_memory(tk_arena *arena, tk_diag *diag, const tk_target *target, tk_tir_kernel *k);
void tir_pass_barriers(tk_arena *arena, tk_tir_kernel *k);

#endif
