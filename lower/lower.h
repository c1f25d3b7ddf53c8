/* lower: typed, specialized kernels (sema.h) -> tile IR, and the tile-IR
 * passes (prefix tk_tir_, tk_ll_ for linear layouts).
 *
 * The tile IR is SSA: every value is a scalar, pointer or tile of a known
 * type; ops live in blocks; `for`, `if` and `while` own regions whose block
 * arguments carry loop and branch values (scf-style). @func calls are
 * inlined and constexpr control flow is already gone (sema did it).
 * tk_tir_run_passes is the whole pipeline, one pass per file, in order. */
#ifndef TK_LOWER_H
#define TK_LOWER_H

#include "../sema/sema.h"

/* ---- linear layouts ----------------------------------------------------- */

/* Which thread holds which element of a tile: a linear map over GF(2) from
 * the bits of (register, lane, warp) to the bits of the element's row-major
 * flat index (all dimensions are powers of two, so that index is the
 * concatenation of the coordinates' bits). A basis of 0 means that input
 * bit selects a copy of the same elements (replication). */
enum { TK_LL_MAX_REG_BITS = 24, TK_LL_LANE_BITS = 5, TK_LL_MAX_WARP_BITS = 5 };

typedef struct tk_ll {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    uint32_t reg_bits, warp_bits;      /* lane bits are always 5 */
    uint64_t reg[TK_LL_MAX_REG_BITS];  /* flat index of each input bit */
    uint64_t lane[TK_LL_LANE_BITS];
    uint64_t warp[TK_LL_MAX_WARP_BITS];
    /* a shared-memory layout: the register bits are the bits of an
     * element's offset there (no lanes, no warps) */
    bool shared;
} tk_ll;

/* Triton's blocked layout: size_per_thread, threads_per_warp and
 * warps_per_cta per dimension, order[0] the fastest dimension. Elements
 * beyond one covering of the tile go to more registers; a covering larger
 * than the tile replicates. */
void tk_ll_blocked(tk_ll *out, uint32_t rank, const int64_t *shape,
                   const uint32_t *size_per_thread, const uint32_t *threads_per_warp,
                   const uint32_t *warps_per_cta, const uint32_t *order);
/* The default layout of a shape for num_warps warps, with `vec` contiguous
 * elements per thread along the last dimension. */
void tk_ll_default(tk_ll *out, uint32_t rank, const int64_t *shape, uint32_t num_warps,
                   uint32_t vec);
/* The layout of a reduction's result: dimension `axis` removed, and the
 * register bits that only selected along it dropped. */
void tk_ll_reduce(tk_ll *out, const tk_ll *in, uint32_t axis);
/* The same elements under another shape of the same size (reshape), or
 * with dimensions permuted (out dim i = in dim perm[i]). */
void tk_ll_reshape(tk_ll *out, const tk_ll *in, uint32_t rank, const int64_t *shape);
void tk_ll_permute(tk_ll *out, const tk_ll *in, const uint32_t *perm);
/* The layout of a tile of `shape` (the dims of `in` or 1) from which `in`
 * is a broadcast with registers only: bases along the size-1 dims dropped
 * (registers) or made replicating (lanes, warps). */
void tk_ll_unbroadcast(tk_ll *out, const tk_ll *in, const int64_t *shape);
/* join, split and cat without data moving between threads. join: the
 * operands' layout with a trailing dimension of 2 in register bit 0
 * (register 2i holds a's register i, 2i+1 b's). split: when the trailing
 * dimension of 2 is register bit *pair_bit alone, the halves' layout
 * (half k's register r is the operand's register r with bit *pair_bit set
 * to k inserted); false otherwise. cat (rank 1): a's registers, then b's. */
void tk_ll_join(tk_ll *out, const tk_ll *in);
bool tk_ll_split(tk_ll *out, const tk_ll *in, uint32_t *pair_bit);
void tk_ll_cat(tk_ll *out, const tk_ll *in);
/* A distributed layout seen from a tile of `shape` it was broadcast from
 * (equal dims or 1): each basis's element there, registers kept in place
 * (so some become 0). */
void tk_ll_project(tk_ll *out, const tk_ll *in, const int64_t *shape);
/* Triton's swizzled shared layout, the last dimension fastest: offset bits
 * to flat index, row r's columns XORed with vec * ((r / per_phase) %
 * max_phase) (1, 1, 1: no swizzle). */
void tk_ll_shared(tk_ll *out, uint32_t rank, const int64_t *shape, uint32_t vec, uint32_t per_phase,
                  uint32_t max_phase);
/* Tensor-core layouts (layout_mma.c), rank 2, after Triton's definitions.
 * The accumulator of mma.sync (instr_n = 8: an m16n8 tile a warp) or of
 * wgmma (instr_n = N of m64nNk16: a warp holds 16 rows, instr_n columns):
 * register: col 1; lanes: col 2, 4, row 1, 2, 4; register: row 8; then
 * columns 8, 16 .. instr_n; warps[0] x warps[1] over rows and columns, the
 * rows' first when warps_rows_first (wgmma: warp w of a warpgroup holds
 * rows 16w..) else the columns' (mma.sync, Triton's warp order [1, 0]);
 * the tile repeated along columns, then rows. */
void tk_ll_mma_acc(tk_ll *out, const int64_t *shape, uint32_t instr_n, const uint32_t *warps, bool warps_rows_first);
/* An mma.sync operand in registers (op_idx 0: A [M, K]; 1: B [K, N]) for
 * an accumulator with those warps; k_width = 32 / element bits: k_width
 * registers along K, 4 lanes along K, 8 along M (N); the warps of the
 * accumulator, copies along K; repeated along K, then M (N). */
void tk_ll_mma_operand(tk_ll *out, const int64_t *shape, uint32_t op_idx, uint32_t k_width, const uint32_t *warps,
                       bool warps_rows_first);
/* l, an mma.sync accumulator or operand layout of one [M, N] slice built
 * with warps (1, 1), made the layout of [batch, M, N] (a batched dot,
 * Triton's warpsPerTile for rank 3): the num_warps warps along the batch
 * (copies past it), then registers over the rest of it. */
void tk_ll_mma_batched(tk_ll *l, int64_t batch, uint32_t num_warps);
/* How mma.sync splits num_warps over a [M, N] result (dot.c): warps[0]
 * along M, warps[1] along N. A batched [B, M, N] result puts them all
 * along the batch: (1, 1) here. */
void tk_tir_dot_warps(const int64_t *shape, uint32_t num_warps, uint32_t *warps);
/* The swizzled shared layout wgmma descriptors and ldmatrix read (Triton's
 * NVMMA shared layout), the last dimension contiguous: atoms of 8 rows x
 * swizzle_bytes (32, 64, 128), each row's 16-byte vectors XORed with
 * (row / per_phase) % max_phase ((4, 2), (2, 4), (1, 8)); atoms stacked
 * down the rows, then across the columns. `transposed` (Triton's flag):
 * the first dimension contiguous instead, laid out as the transposed
 * tile would be. False for another swizzle or a shape smaller than one
 * atom. */
bool tk_ll_nvmma_shared(tk_ll *out, const int64_t *shape, uint32_t elem_bits, uint32_t swizzle_bytes,
                        bool transposed);
/* A shared layout of 4-byte elements for mma fragments read by ld.shared
 * along the contiguous dimension (the last, or with `transposed` the
 * first): a warp's 8 consecutive elements there times 4 along the other
 * in one wavefront, where the NVMMA swizzle takes two; 16-byte vectors
 * stay whole. Triton's swizzled layout with vec 8, per_phase 1, max_phase 4. */
void tk_ll_fragment_shared(tk_ll *out, const int64_t *shape, bool transposed);
/* The inverse of a bijective layout of registers only (a shared layout):
 * flat index bit i -> offset, a shared layout of shape [numel]. False when
 * `in` is not one. */
bool tk_ll_invert(tk_ll *out, const tk_ll *in);
/* outer after inner: inner's registers, lanes and warps mapped through
 * outer, whose register bits are inner's flat-index bits (an inverted
 * shared layout gives each thread's offsets in shared memory). */
void tk_ll_compose(tk_ll *out, const tk_ll *outer, const tk_ll *inner);
/* For `offsets` (thread bits -> shared-memory offsets): how many
 * consecutive registers sit at consecutive, aligned offsets (one access
 * of at most 16 bytes), and how many shared-memory wavefronts one warp's
 * access of `vec` of them takes (1 per 128 bytes without bank conflicts). */
uint32_t tk_ll_smem_vector(const tk_ll *offsets, uint32_t elem_bytes);
uint32_t tk_ll_smem_wavefronts(const tk_ll *offsets, uint32_t elem_bytes, uint32_t vec);
/* Can ldmatrix.x4 (.trans) read registers of l (rank 2, 16-bit elements)
 * from shared layout s, in groups of 8 registers? s must keep aligned runs
 * of 8 elements along one dimension (16-byte rows); register bit 0 and
 * lane bits 0-4 must be one 8 x 8 matrix as ldmatrix hands it out (a
 * thread holds row lane/4, elements 2 (lane % 4) + 0, 1 of it, or with
 * .trans rows 2 (lane % 4) + 0, 1 of element lane / 4, a row being 8
 * elements along that dimension); register bits 1 and 2 pick the four
 * matrices, each on whole 8 x 8 blocks. On success *trans says which, and
 * addr is the layout of the rows each lane names: lane bits 0-2 the row in
 * a matrix, 3-4 the matrix, the warps as l's, one register per group of 8. */
bool tk_ll_ldmatrix(const tk_ll *s, const tk_ll *l, bool *trans, tk_ll *addr);
/* The wavefronts converting src to dst through shared layout s takes:
 * every store and load, each as wide as the offsets allow. */
uint64_t tk_ll_conversion_wavefronts(const tk_ll *s, const tk_ll *src, const tk_ll *dst, uint32_t elem_bytes);
/* The shared layout for converting src to dst (dst's shape equal to src's
 * or broadcast from it) through shared memory with the fewest wavefronts
 * for the writes and reads together: plain, or a swizzle. */
void tk_ll_conversion_scratch(tk_ll *out, const tk_ll *src, const tk_ll *dst, uint32_t elem_bytes);
/* Flat index of register r as seen by lane 0 of warp 0 (XOR the lane and
 * warp parts for other threads). */
uint64_t tk_ll_reg_index(const tk_ll *l, uint64_t r);
uint64_t tk_ll_num_regs(const tk_ll *l);
/* The bits of a layout's holders (register, lane, warp) that only make
 * copies: each one whose basis is a sum of the bases before it, registers
 * first. The remaining bases are independent and reach every element, so
 * each element has exactly one holder with all these bits 0: the owner,
 * which alone acts for the element in a store or an atomic. All zero
 * when no element is held twice. */
typedef struct tk_ll_copies {
    uint64_t reg;
    uint32_t lane, warp;
} tk_ll_copies;
tk_ll_copies tk_ll_copy_bits(const tk_ll *l);
bool tk_ll_equal(const tk_ll *a, const tk_ll *b);
/* Coordinate `dim` of a flat index in `shape`. */
int64_t tk_ll_coord(const tk_ll *l, uint64_t flat, uint32_t dim);
/* Can a value in layout `src` (shape S) become `dst` (shape D, D broadcast
 * from S: equal dims or S's dim is 1) with registers only, no data moving
 * between threads? On success map[r] is the src register for dst register r. */
bool tk_ll_register_map(const tk_ll *src, const tk_ll *dst, uint32_t *map);
/* Can a value in layout `src` become `dst` (same shape) by one warp
 * shuffle per destination register? That takes the same warp bases, and
 * each destination lane's element in a source lane under the same source
 * register in every thread. On success destination register r reads
 * source register src_reg[r] from lane lane_const[r] ^ (XOR of lane_xor[i]
 * over the bits i of its own lane). */
bool tk_ll_shuffle_map(const tk_ll *src, const tk_ll *dst, uint32_t *src_reg, uint32_t *lane_const,
                       uint32_t lane_xor[TK_LL_LANE_BITS]);
/* How many consecutive registers hold consecutive elements along the last
 * dimension (the widest vector a thread can access). */
uint32_t tk_ll_contiguous_regs(const tk_ll *l);
/* The same along dimension d. */
uint32_t tk_ll_contiguous_regs_along(const tk_ll *l, uint32_t d);
/* The dimension a thread's consecutive registers run along: the last, or
 * the first of a 2-D layout that goes down the columns. */
uint32_t tk_ll_run_dim(const tk_ll *l);
/* Rows of n along the last dimension: the register bit (*reg_bit) or lane
 * bit (*lane_bit) holding column bit j alone; false where a warp bit
 * does, or none. */
bool tk_ll_row_bit(const tk_ll *l, int64_t j, int *reg_bit, int *lane_bit);
/* Does each row of n (the last dimension) lie in one warp: every basis
 * one column bit or none of them, each column bit a register or lane bit
 * (what tl.sort's network in registers and shuffles needs)? */
bool tk_ll_rows_in_warps(const tk_ll *l, int64_t n);
void tk_ll_print(FILE *out, const tk_ll *l);

/* ---- the tile IR ---------------------------------------------------------- */

typedef struct tk_tir_value tk_tir_value;
typedef struct tk_tir_op tk_tir_op;
typedef struct tk_tir_block tk_tir_block;

typedef enum tk_tir_opcode {
#define TIR_OP(id, name, properties, scratch, layout) TIR_##id,
#include "ops.def"
#undef TIR_OP
    TIR_OPCODE_COUNT
} tk_tir_opcode;

/* What passes and codegen need to know of an op (ops.def, and for ops
 * made from a builtin its row of sema/builtins.def): tk_tir_props. */
enum {
    TIR_P_PURE = 1,        /* no effect, reads no memory: equal ones merge (CSE), invariant ones hoist (LICM) */
    TIR_P_EFFECT = 2,      /* writes memory, is seen outside, or is control flow: dead-code elimination keeps it */
    TIR_P_READS = 4,       /* reads global memory */
    TIR_P_BUILTIN = 16,    /* `sub` is a builtin id (tk_builtin) */
    TIR_P_SYNC = 32,       /* synchronises the whole program (barriers.c) */
    TIR_P_ATOMIC = 64,     /* a read-modify-write of global memory: one copy of each element acts */
    TIR_P_ACQUIRES = 128,  /* other grids' writes become visible here: as a write of every pointer to loads */
};

/* How an op places its tiles (ops.def's layout column; an op made from a
 * builtin takes TIR_L_SAME, TIR_L_PAIR or TIR_L_INDEXED where its row of
 * sema/builtins.def says so): tk_tir_layout_rule_of. Layout propagation
 * (propagate.c) and assignment (layouts.c) follow it, with what each rule
 * gives in layout_rules.c. */
typedef enum tk_tir_layout_rule {
    TIR_L_NONE,      /* no tile of its own (control flow, barriers, scalars) */
    TIR_L_SAME,      /* its tile operands and results take one layout (element-wise, memory, scans) */
    TIR_L_RELABEL,   /* the result's layout is its operand's relabelled (reduce, reshape, permute) */
    TIR_L_BROADCAST, /* the operand a register-only slice of the result */
    TIR_L_PAIR,      /* join, cat, split: a register bit added or dropped */
    TIR_L_DOT,       /* a tensor-core accumulator layout, or for fma the default one */
    TIR_L_VIEW,      /* its buffer's shared layout */
    TIR_L_READ,      /* local_load: the operand layout of the dot it feeds, else the default one */
    TIR_L_COPY,      /* async_copy: its pointers, mask and other coalesced as a load's */
    TIR_L_REGIONS,   /* for, while, if: what their regions carry and yield */
    TIR_L_FREE,      /* recomputed in whatever layout it is wanted in (const, splat, make_range) */
    TIR_L_DEFAULT,   /* the default layout of its shape */
    TIR_L_INDEXED,   /* gather: the result in its index's layout (operand 1), the source in any */
} tk_tir_layout_rule;

enum { TIR_NEG, TIR_NOT };
/* desc_field's sub: what of a descriptor parameter it reads */
enum { TIR_DESC_DATA, TIR_DESC_SHAPE, TIR_DESC_STRIDE };

struct tk_tir_value {
    const tk_type *type;
    uint32_t id;
    tk_tir_op *def;       /* NULL for block arguments */
    const tk_ll *layout;  /* set by the layout pass, for tiles */
    const tk_ll *preferred; /* the layout propagation chose (propagate.c); NULL: none */
    /* axis info, per dimension (scalars use [0]); set by axis.c */
    int64_t contiguity[TK_MAX_RANK], divisibility[TK_MAX_RANK], constancy[TK_MAX_RANK];
    bool has_axis;
};

typedef TK_VEC(tk_tir_value *) tk_tir_values;

struct tk_tir_op {
    tk_tir_opcode code;
    int sub;
    tk_loc loc;
    tk_tir_values operands, results;
    TK_VEC(tk_tir_block *) regions;
    union { int64_t i; double f; } value;     /* TIR_CONST */
    TK_VEC(struct tk_sema_attr) attrs;         /* from sema: axis, cache, ... */
    tk_tir_block *parent;
    /* Shared-memory scratch the op uses while it runs (set by smem.c; bytes
     * 0 when it needs none): it writes there first, passes a barrier of its
     * own, then reads; barriers.c orders it against the ops around it. */
    uint32_t scratch_offset, scratch_bytes;
    uint32_t scratch_slot;         /* the bytes of one slot there (tk_tir_scratch) */
    /* a conversion's elements there (tk_ll_conversion_scratch) */
    const tk_ll *scratch_layout;
    bool dead;
};

struct tk_tir_block {
    tk_tir_values args;
    TK_VEC(tk_tir_op *) ops;
    tk_tir_op *parent;    /* the op owning this region; NULL for a kernel body */
};

/* A tile kept in shared memory `stages` times over (pipeline_dot.c): the
 * copies a pipelined loop's loads fill ahead of the dot that reads them;
 * or once, a wgmma's B stored there from registers (dot_operands.c).
 * One stage is laid out by `layout` (a shared layout: tk_ll_nvmma_shared
 * when swizzle_bytes is 32, 64 or 128, else plain rows); smem.c places the
 * stages stage_bytes apart from `offset`, before any scratch. */
typedef struct tk_tir_buffer {
    const tk_type *tile;      /* one stage's tile */
    uint32_t stages;
    uint32_t swizzle_bytes;   /* 0: plain rows */
    bool transposed;          /* dimension 0 contiguous (a column-major tile) */
    const tk_tir_op *loop;    /* the pipelined loop it serves; NULL: several, one after another
                               * (a loop-invariant operand they share), live all kernel long */
    const tk_ll *layout;
    uint32_t stage_bytes, offset;
    bool from_registers;      /* filled by local_store (a wgmma's B, dot_operands.c), not by copies */
    tk_loc loc;               /* the load it replaced, or the dot it feeds */
} tk_tir_buffer;

typedef struct tk_tir_tma_map {
    uint32_t arg;
    uint32_t box[2];
    uint32_t swizzle_bytes;
} tk_tir_tma_map;

typedef struct tk_tir_kernel {
    const tk_sema_kernel *sema;   /* name, params, grid, constexprs */
    /* Triton's specialization, ahead of time (specialize.c): integer
     * parameters (bit i = the i-th runtime parameter) this variant assumes
     * equal to 1 (the constant 1 in its body) or divisible by 16 (a
     * pointer: 16-byte aligned); the
     * header launches it only when they are. */
    uint64_t assume_one, assume_div16;
    const char *suffix;           /* "", "_u", "_a", "_d16", "_u_d16", ...: tells the entry names apart */
    tk_tir_block *body;           /* args: the runtime parameters, in order */
    uint32_t num_warps;
    /* the kernel's num_stages (@kernel, autotune config; default 3): the
     * depth of loops that do not say tl.range(..., num_stages=) */
    uint32_t num_stages;
    /* 0, or the deepest any loop is pipelined: set where the depth asked
     * left no room for the shared memory the kernel's other ops need
     * beside the loop's tiles (passes.c builds the kernel again) */
    uint32_t max_stages;
    uint32_t value_count;
    TK_VEC(tk_tir_buffer) buffers; /* local_view's attribute `buffer` indexes them */
    /* descriptor parameters (body argument `arg`) some load copies by TMA
     * (pipeline_dot.c): the launcher builds each one's tensor map, of
     * boxes box[0] x box[1] (rows x columns) swizzled by swizzle_bytes */
    TK_VEC(tk_tir_tma_map) tma_maps;
    uint32_t shared_bytes;        /* set by the shared-memory pass */
    /* warps beyond num_warps (warp_specialize.c's producer warpgroup): the
     * kernel runs on num_warps + producer_warps warps */
    uint32_t producer_warps;
} tk_tir_kernel;

/* The threads a block of kernel k runs on (what the launcher asks for). */
static inline uint32_t tk_tir_kernel_threads(const tk_tir_kernel *k) { return (k->num_warps + k->producer_warps) * 32; }

typedef struct tk_tir_program {
    TK_VEC(tk_tir_kernel *) kernels;
} tk_tir_program;

/* Lowers every kernel variant, each in up to `specializations` versions
 * (1: the general one only; see specialize.c); reports what cannot be
 * lowered yet. */
enum { TK_TIR_DEFAULT_SPECIALIZATIONS = 4 };
tk_tir_program *tk_tir_lower(tk_arena *arena, tk_diag *diag, const tk_sema_program *program,
                             uint32_t specializations);
/* Lists each kernel variant's versions, as --emit=sema ends. */
void tk_tir_print_versions(FILE *out, const tk_tir_program *program);
typedef struct tk_tir_options {
    bool gpu;                /* the target passes too (pipelining, axis info, layouts, ...) */
    const tk_target *target;
    const char *stop_after;  /* --emit=tir-after=PASS: the pipeline stops after this pass */
} tk_tir_options;

/* The pipeline (passes.c). Returns false after reporting errors. */
bool tk_tir_run_passes(tk_arena *arena, tk_diag *diag, tk_tir_program *program, const tk_tir_options *opts);
/* After the pipeline, for the builds of one program (programs[t] lowered
 * for targets[t]): the autotune configs too big for the shared memory of
 * every target are left out of every build, each named in a warning
 * (-Wconfig-fit), as Triton prunes a config "out of resource" at run
 * time. A config that fits some of the targets stays in all (a module
 * holds the same kernels for each): its launch fails where it does not
 * fit, and the tuner skips it. A kernel none of whose configs fit was
 * already an error (tk_tir_run_passes). */
void tk_tir_leave_out_unfit_configs(tk_arena *arena, tk_diag *diag, tk_tir_program *const *programs,
                                    const tk_target *const *targets, uint32_t n);
/* Then: a dtype instance using fp8 where a target lacks it is left out of
 * every build with a warning (-Winstance-target), as long as another
 * instance of its kernel stays; else codegen's error stands. */
void tk_tir_leave_out_unsupported_instances(tk_arena *arena, tk_diag *diag, tk_tir_program *const *programs,
                                            const tk_target *const *targets, uint32_t n);
/* Is `name` a pass of the pipeline, and one of the target passes (after
 * which the dump shows layouts)? */
bool tk_tir_pass_known(const char *name, bool *target);
/* "fold, int32-offsets, cse, ...", for messages. */
const char *tk_tir_pass_names(tk_arena *arena);
/* May the kernel write through its runtime parameter `arg` (a pointer):
 * a store or atomic whose address derives from it, or one whose address
 * has no known origin? */
bool tk_tir_writes_arg(const tk_tir_kernel *k, uint32_t arg);
/* `--emit=tir` (and tir-gpu: the same with layouts and axis facts). */
void tk_tir_print(FILE *out, const tk_tir_program *program, bool gpu);
/* The checks between passes: SSA defs before uses, types of operands. */
bool tk_tir_verify(tk_diag *diag, const tk_tir_program *program);


/* ---- layout conversions (conversion.c) ------------------------------------ */

/* How a tile moves between two layouts; decided by conversion.c alone. */
typedef enum tk_tir_conversion_kind {
    TK_CONVERT_REGISTERS, /* no data moves between threads: registers renumbered */
    TK_CONVERT_SHUFFLES,  /* one warp shuffle per destination register */
    TK_CONVERT_SHARED,    /* through shared memory: the last resort */
    TK_CONVERT_KINDS
} tk_tir_conversion_kind;
typedef struct tk_tir_conversion {
    tk_tir_conversion_kind kind;
    uint32_t registers;     /* the destination's registers a thread */
    /* registers and shuffles: destination register r comes from source
     * register src_reg[r]; shuffles: of lane lane_const[r] ^ (XOR of
     * lane_xor[i] over the bits i of the reading lane) */
    uint32_t *src_reg, *lane_const;
    uint32_t lane_xor[TK_LL_LANE_BITS];
} tk_tir_conversion;
/* The plan for `from` -> `to` (same shape, or `to` broadcast from
 * `from`'s), its maps in the arena. */
tk_tir_conversion tk_tir_plan_conversion(tk_arena *arena, const tk_ll *from, const tk_ll *to);
/* Only the plan's kind (no arena). */
tk_tir_conversion_kind tk_tir_conversion_kind_of(const tk_ll *from, const tk_ll *to);
/* "registers", "shuffles", "shared" */
const char *tk_tir_conversion_name(tk_tir_conversion_kind kind);
/* A kernel's convert_layout ops by kind, and those inside loops (--stats). */
typedef struct tk_tir_conversion_counts {
    uint32_t total[TK_CONVERT_KINDS], in_loops[TK_CONVERT_KINDS];
} tk_tir_conversion_counts;
tk_tir_conversion_counts tk_tir_count_conversions(const tk_tir_kernel *k);

/* ---- scratch (scratch.c) --------------------------------------------------- */

/* The shared memory an op uses while it runs, one function per family
 * (tk_scratch_kind): the shared-memory pass sizes and places scratch with
 * it, and codegen addresses it with the same slot size. */
typedef struct tk_tir_scratch {
    uint64_t bytes;        /* 0: the op needs none */
    uint32_t slot_bytes;   /* one element's word, or one reduction or scan state */
    const tk_ll *layout;   /* a conversion's elements there (NULL: plain) */
} tk_tir_scratch;
/* a reduction's or scan's state keeps each value in a slot this wide */
enum { TK_TIR_SCRATCH_VALUE_BYTES = 8 };
/* result_used: an atomic whose old value nobody reads shares none. */
tk_tir_scratch tk_tir_scratch_need(tk_arena *arena, const tk_tir_op *op, bool result_used);
/* The bytes a value of t's element type takes in scratch (32-bit words at least). */
uint32_t tk_tir_scratch_word_bytes(const tk_type *t);

/* Does this join, split or cat leave every element in its thread (the
 * layouts of tk_ll_join, tk_ll_split, tk_ll_cat)? Then it needs no scratch
 * and codegen only renumbers registers. */
bool tk_tir_join_split_cat_in_registers(const tk_tir_op *op);
/* Is this tl.sort done in registers and shuffles with its result where
 * its input was (codegen/sort.c): no scratch, no barrier of its own? */
bool tk_tir_sorted_in_place(const tk_tir_op *op);

/* attribute helpers for passes and codegen */
int64_t tk_tir_attr_int(const tk_tir_op *op, const char *name, int64_t dflt);
const char *tk_tir_attr_text(const tk_tir_op *op, const char *name);

/* How a tl.dot is computed: its attribute impl (dot.c chooses FMA or
 * mma.sync; pipeline_dot.c makes a pipelined mma.sync dot wgmma where it
 * fits), named once here for the passes and codegen that follow it. */
typedef enum {
    TK_DOT_UNCHOSEN, /* not a dot, or before dot.c */
    TK_DOT_FMA,      /* operands through shared memory, FMAs over K */
    TK_DOT_MMA_SYNC, /* operands in registers, mma.sync */
    TK_DOT_WGMMA,    /* B (and maybe A) a swizzled shared-memory view, wgmma */
} tk_dot_impl;
tk_dot_impl tk_tir_dot_impl(const tk_tir_op *op);
/* the attribute's text: "fma", "mma_sync", "wgmma" */
const char *tk_tir_dot_impl_name(tk_dot_impl impl);
/* A permute's order (result dimension d is operand dimension order[d]):
 * how many it lists, at most TK_MAX_RANK. */
uint32_t tk_tir_permute_order(const tk_tir_op *op, uint32_t *order);
const char *tk_tir_opcode_name(tk_tir_opcode code);
/* The op's TIR_P_ bits: its opcode's row, its builtin's row, its attributes
 * (a volatile load has an effect). */
unsigned tk_tir_props(const tk_tir_op *op);
tk_tir_layout_rule tk_tir_layout_rule_of(const tk_tir_op *op);
/* The family of shared memory the op needs while it runs (lower/scratch.c). */
tk_scratch_kind tk_tir_scratch_kind(const tk_tir_op *op);

#endif
