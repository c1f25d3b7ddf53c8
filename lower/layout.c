/* Linear layouts over GF(2) (see lower.h). Needs: power-of-two shapes.
 * Every layout in tkc is built here: blocked, reduced (slice), reshaped,
 * permuted, joined and shared (swizzled) layouts are all the same type,
 * with inversion and composition; conversions through shared memory pick
 * their swizzle by counting bank wavefronts. Codegen asks questions of it
 * (which element a register holds, which registers can be reused after a
 * broadcast) instead of handling layouts case by case. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static uint32_t log2u(uint64_t v) {
    uint32_t n = 0;
    while ((1ull << n) < v) n++;
    return n;
}

/* row-major strides of a power-of-two shape */
static uint64_t stride_of(uint32_t rank, const int64_t *shape, uint32_t dim) {
    uint64_t s = 1;
    for (uint32_t i = dim + 1; i < rank; i++) s *= (uint64_t)shape[i];
    return s;
}

int64_t tk_ll_coord(const tk_ll *l, uint64_t flat, uint32_t dim) {
    return (int64_t)((flat / stride_of(l->rank, l->shape, dim)) % (uint64_t)l->shape[dim]);
}

static uint64_t flat_of(uint32_t rank, const int64_t *shape, const int64_t *coords) {
    uint64_t f = 0;
    for (uint32_t d = 0; d < rank; d++) f += (uint64_t)coords[d] * stride_of(rank, shape, d);
    return f;
}

static void coords_of(const tk_ll *l, uint64_t flat, int64_t *coords) {
    for (uint32_t d = 0; d < l->rank; d++) coords[d] = tk_ll_coord(l, flat, d);
}

/* basis for coordinate c along dim: 0 when c falls outside the tile */
static uint64_t basis(uint32_t rank, const int64_t *shape, uint32_t dim, uint64_t c) {
    if (c >= (uint64_t)shape[dim]) return 0;
    return c * stride_of(rank, shape, dim);
}

void tk_ll_blocked(tk_ll *out, uint32_t rank, const int64_t *shape,
                   const uint32_t *size_per_thread, const uint32_t *threads_per_warp,
                   const uint32_t *warps_per_cta, const uint32_t *order) {
    memset(out, 0, sizeof *out);
    out->rank = rank;
    memcpy(out->shape, shape, sizeof(int64_t) * rank);
    if (rank == 0) {
        /* a scalar: every thread holds it */
        out->warp_bits = log2u(warps_per_cta ? warps_per_cta[0] : 1);
        return;
    }
    uint32_t lane_bits = 0, warp_bits = 0;
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        for (uint32_t i = 0; (1u << i) < size_per_thread[d]; i++)
            out->reg[out->reg_bits++] = basis(rank, shape, d, 1ull << i);
    }
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        for (uint32_t i = 0; (1u << i) < threads_per_warp[d]; i++)
            out->lane[lane_bits++] = basis(rank, shape, d, (uint64_t)size_per_thread[d] << i);
    }
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        for (uint32_t i = 0; (1u << i) < warps_per_cta[d]; i++)
            out->warp[warp_bits++] = basis(rank, shape, d,
                                           (uint64_t)size_per_thread[d] * threads_per_warp[d] << i);
    }
    out->warp_bits = warp_bits;
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        uint64_t covered = (uint64_t)size_per_thread[d] * threads_per_warp[d] * warps_per_cta[d];
        for (; covered < (uint64_t)shape[d] && out->reg_bits < TK_LL_MAX_REG_BITS; covered *= 2)
            out->reg[out->reg_bits++] = basis(rank, shape, d, covered);
    }
}

void tk_ll_default(tk_ll *out, uint32_t rank, const int64_t *shape, uint32_t num_warps,
                   uint32_t vec) {
    uint32_t spt[TK_MAX_RANK], tpw[TK_MAX_RANK], wpc[TK_MAX_RANK], order[TK_MAX_RANK];
    if (rank == 0) {
        uint32_t w = num_warps;
        tk_ll_blocked(out, 0, shape, NULL, NULL, &w, NULL);
        return;
    }
    for (uint32_t d = 0; d < rank; d++) {
        spt[d] = 1;
        tpw[d] = 1;
        wpc[d] = 1;
        order[d] = rank - 1 - d;
    }
    uint32_t last = rank - 1;
    spt[last] = (uint32_t)((int64_t)vec < shape[last] ? (int64_t)vec : shape[last]);
    uint32_t lanes = 32;
    for (int d = (int)last; d >= 0 && lanes > 1; d--) {
        uint64_t room = (uint64_t)shape[d] / spt[d];
        while (lanes > 1 && tpw[d] * 2 <= room) {
            tpw[d] *= 2;
            lanes /= 2;
        }
    }
    tpw[rank > 1 ? 0 : last] *= lanes; /* leftover lanes replicate */
    uint32_t warps = num_warps;
    for (uint32_t d = 0; d < rank && warps > 1; d++) {
        uint64_t room = (uint64_t)shape[d] / ((uint64_t)spt[d] * tpw[d]);
        while (warps > 1 && wpc[d] * 2 <= room) {
            wpc[d] *= 2;
            warps /= 2;
        }
    }
    wpc[0] *= warps; /* leftover warps replicate */
    tk_ll_blocked(out, rank, shape, spt, tpw, wpc, order);
}

static uint64_t project(const tk_ll *in, uint64_t flat, uint32_t drop_axis, uint32_t out_rank,
                        const int64_t *out_shape) {
    int64_t c[TK_MAX_RANK], oc[TK_MAX_RANK];
    coords_of(in, flat, c);
    uint32_t k = 0;
    for (uint32_t d = 0; d < in->rank; d++)
        if (d != drop_axis) oc[k++] = c[d];
    return flat_of(out_rank, out_shape, oc);
}

void tk_ll_reduce(tk_ll *out, const tk_ll *in, uint32_t axis) {
    memset(out, 0, sizeof *out);
    out->rank = in->rank - 1;
    for (uint32_t d = 0, k = 0; d < in->rank; d++)
        if (d != axis) out->shape[k++] = in->shape[d];
    for (uint32_t i = 0; i < in->reg_bits; i++) {
        uint64_t b = project(in, in->reg[i], axis, out->rank, out->shape);
        if (b) out->reg[out->reg_bits++] = b;
    }
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        out->lane[i] = project(in, in->lane[i], axis, out->rank, out->shape);
    out->warp_bits = in->warp_bits;
    for (uint32_t i = 0; i < in->warp_bits; i++)
        out->warp[i] = project(in, in->warp[i], axis, out->rank, out->shape);
}

void tk_ll_reshape(tk_ll *out, const tk_ll *in, uint32_t rank, const int64_t *shape) {
    *out = *in;
    out->rank = rank;
    memset(out->shape, 0, sizeof out->shape);
    memcpy(out->shape, shape, sizeof(int64_t) * rank);
}

void tk_ll_permute(tk_ll *out, const tk_ll *in, const uint32_t *perm) {
    *out = *in;
    for (uint32_t d = 0; d < in->rank; d++) out->shape[d] = in->shape[perm[d]];
    uint64_t *sets[3] = {out->reg, out->lane, out->warp};
    uint32_t counts[3] = {in->reg_bits, TK_LL_LANE_BITS, in->warp_bits};
    for (int s = 0; s < 3; s++) {
        for (uint32_t i = 0; i < counts[s]; i++) {
            int64_t c[TK_MAX_RANK], pc[TK_MAX_RANK];
            coords_of(in, sets[s][i], c);
            for (uint32_t d = 0; d < in->rank; d++) pc[d] = c[perm[d]];
            sets[s][i] = flat_of(out->rank, out->shape, pc);
        }
    }
}

void tk_ll_join(tk_ll *out, const tk_ll *in) {
    *out = *in;
    out->shape[in->rank] = 2;
    out->rank = in->rank + 1;
    /* a new trailing dimension doubles every flat index */
    out->reg[0] = 1;
    for (uint32_t i = 0; i < in->reg_bits && i + 1 < TK_LL_MAX_REG_BITS; i++) out->reg[i + 1] = in->reg[i] << 1;
    out->reg_bits = in->reg_bits + 1 < TK_LL_MAX_REG_BITS ? in->reg_bits + 1 : TK_LL_MAX_REG_BITS;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) out->lane[i] = in->lane[i] << 1;
    for (uint32_t i = 0; i < in->warp_bits; i++) out->warp[i] = in->warp[i] << 1;
}

bool tk_ll_split(tk_ll *out, const tk_ll *in, uint32_t *pair_bit) {
    if (in->rank == 0 || in->shape[in->rank - 1] != 2) return false;
    uint32_t found = TK_LL_MAX_REG_BITS;
    for (uint32_t i = 0; i < in->reg_bits; i++) {
        if (in->reg[i] == 1 && found == TK_LL_MAX_REG_BITS) found = i;
        else if (in->reg[i] & 1) return false;
    }
    if (found == TK_LL_MAX_REG_BITS) return false;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (in->lane[i] & 1) return false;
    for (uint32_t i = 0; i < in->warp_bits; i++)
        if (in->warp[i] & 1) return false;
    *out = *in;
    out->rank = in->rank - 1;
    out->shape[out->rank] = 0;
    out->reg_bits = 0;
    for (uint32_t i = 0; i < in->reg_bits; i++)
        if (i != found) out->reg[out->reg_bits++] = in->reg[i] >> 1;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) out->lane[i] = in->lane[i] >> 1;
    for (uint32_t i = 0; i < in->warp_bits; i++) out->warp[i] = in->warp[i] >> 1;
    *pair_bit = found;
    return true;
}

void tk_ll_cat(tk_ll *out, const tk_ll *in) {
    *out = *in;
    out->shape[0] = in->shape[0] * 2;
    if (in->reg_bits < TK_LL_MAX_REG_BITS) out->reg[out->reg_bits++] = (uint64_t)in->shape[0];
}

/* dst flat index -> src flat index, dims of size 1 in src read as 0 */
static uint64_t to_src(const tk_ll *src, const tk_ll *dst, uint64_t flat);

void tk_ll_project(tk_ll *out, const tk_ll *in, const int64_t *shape) {
    tk_ll p = *in;
    memcpy(p.shape, shape, sizeof(int64_t) * in->rank);
    for (uint32_t i = 0; i < in->reg_bits; i++) p.reg[i] = to_src(&p, in, in->reg[i]);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) p.lane[i] = to_src(&p, in, in->lane[i]);
    for (uint32_t i = 0; i < in->warp_bits; i++) p.warp[i] = to_src(&p, in, in->warp[i]);
    *out = p;
}

void tk_ll_unbroadcast(tk_ll *out, const tk_ll *in, const int64_t *shape) {
    tk_ll p;
    tk_ll_project(&p, in, shape);
    /* registers that only selected along the dropped dims are gone */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < p.reg_bits; i++)
        if (p.reg[i]) p.reg[kept++] = p.reg[i];
    memset(p.reg + kept, 0, sizeof(uint64_t) * (TK_LL_MAX_REG_BITS - kept));
    p.reg_bits = kept;
    *out = p;
}

uint64_t tk_ll_num_regs(const tk_ll *l) { return 1ull << l->reg_bits; }

uint64_t tk_ll_reg_index(const tk_ll *l, uint64_t r) {
    uint64_t f = 0;
    for (uint32_t i = 0; i < l->reg_bits; i++)
        if (r >> i & 1) f ^= l->reg[i];
    return f;
}

/* Adds v to an XOR basis kept by leading bit; false when v is already a
 * sum of its vectors (zero included). */
static bool add_to_basis(uint64_t basis[64], uint64_t v) {
    for (int b = 63; b >= 0; b--) {
        if (!(v >> b & 1)) continue;
        if (!basis[b]) {
            basis[b] = v;
            return true;
        }
        v ^= basis[b];
    }
    return false;
}

tk_ll_copies tk_ll_copy_bits(const tk_ll *l) {
    tk_ll_copies c = {0, 0, 0};
    uint64_t basis[64] = {0};
    for (uint32_t i = 0; i < l->reg_bits; i++)
        if (!add_to_basis(basis, l->reg[i])) c.reg |= (uint64_t)1 << i;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (!add_to_basis(basis, l->lane[i])) c.lane |= 1u << i;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (!add_to_basis(basis, l->warp[i])) c.warp |= 1u << i;
    return c;
}

bool tk_ll_equal(const tk_ll *a, const tk_ll *b) {
    if (a->rank != b->rank || a->reg_bits != b->reg_bits || a->warp_bits != b->warp_bits || a->shared != b->shared)
        return false;
    if (memcmp(a->shape, b->shape, sizeof(int64_t) * a->rank) != 0) return false;
    return memcmp(a->reg, b->reg, sizeof(uint64_t) * a->reg_bits) == 0 &&
           memcmp(a->lane, b->lane, sizeof a->lane) == 0 &&
           memcmp(a->warp, b->warp, sizeof(uint64_t) * a->warp_bits) == 0;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* dst flat index -> src flat index, dims of size 1 in src read as 0 */
static uint64_t to_src(const tk_ll *src, const tk_ll *dst, uint64_t flat) {
    int64_t c[TK_MAX_RANK];
    coords_of(dst, flat, c);
    for (uint32_t d = 0; d < dst->rank; d++)
        if (src->shape[d] == 1) c[d] = 0;
    return flat_of(src->rank, src->shape, c);
}

bool tk_ll_register_map(const tk_ll *src, const tk_ll *dst, uint32_t *map) {
    if (src->rank != dst->rank || src->warp_bits != dst->warp_bits) return false;
    for (uint32_t d = 0; d < src->rank; d++)
        if (src->shape[d] != dst->shape[d] && src->shape[d] != 1) return false;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (to_src(src, dst, dst->lane[i]) != src->lane[i]) return false;
    for (uint32_t i = 0; i < dst->warp_bits; i++)
        if (to_src(src, dst, dst->warp[i]) != src->warp[i]) return false;
    uint64_t nsrc = tk_ll_num_regs(src), ndst = tk_ll_num_regs(dst);
    /* src register of each flat index, by sorting (index, register) pairs */
    uint64_t *keys = malloc(sizeof(uint64_t) * nsrc);
    if (!keys) return false;
    for (uint64_t r = 0; r < nsrc; r++) keys[r] = tk_ll_reg_index(src, r) << 24 | r;
    qsort(keys, nsrc, sizeof *keys, compare_u64);
    bool ok = true;
    for (uint64_t r = 0; r < ndst && ok; r++) {
        uint64_t want = to_src(src, dst, tk_ll_reg_index(dst, r));
        uint64_t lo = 0, hi = nsrc;
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if ((keys[mid] >> 24) < want) lo = mid + 1; else hi = mid;
        }
        if (lo == nsrc || (keys[lo] >> 24) != want) ok = false;
        else map[r] = (uint32_t)(keys[lo] & 0xffffff);
    }
    free(keys);
    return ok;
}

/* A basis of span(vectors) kept reduced by pivot bit, each element with
 * the set of input vectors (bit k: vector k) that XOR to it. */
typedef struct xor_basis {
    uint32_t n;
    uint64_t value[64], combo[64];
} xor_basis;

static void basis_add(xor_basis *b, uint64_t v, uint64_t combo) {
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t pivot = b->value[i] & -b->value[i];
        if (v & pivot) {
            v ^= b->value[i];
            combo ^= b->combo[i];
        }
    }
    if (!v) return;
    uint64_t pivot = v & -v;
    /* keep every other element free of the new pivot */
    for (uint32_t i = 0; i < b->n; i++)
        if (b->value[i] & pivot) {
            b->value[i] ^= v;
            b->combo[i] ^= combo;
        }
    b->value[b->n] = v;
    b->combo[b->n++] = combo;
}

/* the input vectors XORing to v, or false where v is outside the span */
static bool basis_express(const xor_basis *b, uint64_t v, uint64_t *combo) {
    *combo = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t pivot = b->value[i] & -b->value[i];
        if (v & pivot) {
            v ^= b->value[i];
            *combo ^= b->combo[i];
        }
    }
    return v == 0;
}

bool tk_ll_shuffle_map(const tk_ll *src, const tk_ll *dst, uint32_t *src_reg, uint32_t *lane_const,
                       uint32_t lane_xor[TK_LL_LANE_BITS]) {
    if (src->rank != dst->rank || src->warp_bits != dst->warp_bits) return false;
    for (uint32_t d = 0; d < src->rank; d++)
        if (src->shape[d] != dst->shape[d]) return false;
    for (uint32_t i = 0; i < src->warp_bits; i++)
        if (src->warp[i] != dst->warp[i]) return false;
    /* input vectors: src's register bases (bits 0..), then its lanes (bits 32..) */
    xor_basis b = {0};
    for (uint32_t i = 0; i < src->reg_bits; i++) basis_add(&b, src->reg[i], 1ull << i);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) basis_add(&b, src->lane[i], 1ull << (32 + i));
    uint64_t lane_combo[TK_LL_LANE_BITS], reg_combo[TK_LL_MAX_REG_BITS];
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        /* a destination lane's element must come from a source lane with
         * the same register in every thread, or one shuffle per register
         * would not do */
        if (!basis_express(&b, dst->lane[i], &lane_combo[i]) || (lane_combo[i] & 0xffffffffu)) return false;
        lane_xor[i] = (uint32_t)(lane_combo[i] >> 32);
    }
    for (uint32_t i = 0; i < dst->reg_bits; i++)
        if (!basis_express(&b, dst->reg[i], &reg_combo[i])) return false;
    for (uint64_t r = 0; r < tk_ll_num_regs(dst); r++) {
        uint64_t combo = 0;
        for (uint32_t i = 0; i < dst->reg_bits; i++)
            if (r >> i & 1) combo ^= reg_combo[i];
        src_reg[r] = (uint32_t)(combo & 0xffffffffu);
        lane_const[r] = (uint32_t)(combo >> 32);
    }
    return true;
}

void tk_ll_shared(tk_ll *out, uint32_t rank, const int64_t *shape, uint32_t vec, uint32_t per_phase,
                  uint32_t max_phase) {
    memset(out, 0, sizeof *out);
    out->rank = rank;
    memcpy(out->shape, shape, sizeof(int64_t) * rank);
    out->shared = true;
    if (rank == 0) return;
    uint64_t cols = (uint64_t)shape[rank - 1], rows = rank > 1 ? (uint64_t)shape[rank - 2] : 1;
    for (uint64_t c = 1; c < cols && out->reg_bits < TK_LL_MAX_REG_BITS; c *= 2) out->reg[out->reg_bits++] = c;
    /* row r starts its columns XORed with vec * phase(r) */
    for (uint64_t r = 1; r < rows && out->reg_bits < TK_LL_MAX_REG_BITS; r *= 2)
        out->reg[out->reg_bits++] = r * cols + (vec * ((r / per_phase) % max_phase)) % cols;
    uint64_t numel = 1;
    for (uint32_t d = 0; d < rank; d++) numel *= (uint64_t)shape[d];
    for (uint64_t hi = rows * cols; hi < numel && out->reg_bits < TK_LL_MAX_REG_BITS; hi *= 2)
        out->reg[out->reg_bits++] = hi;
}

bool tk_ll_invert(tk_ll *out, const tk_ll *in) {
    uint64_t numel = 1;
    for (uint32_t d = 0; d < in->rank; d++) numel *= (uint64_t)in->shape[d];
    if (in->warp_bits || (1ull << in->reg_bits) != numel) return false;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (in->lane[i]) return false;
    xor_basis b = {0};
    for (uint32_t i = 0; i < in->reg_bits; i++) basis_add(&b, in->reg[i], 1ull << i);
    if (b.n != in->reg_bits) return false;
    memset(out, 0, sizeof *out);
    out->rank = 1;
    out->shape[0] = (int64_t)numel;
    out->shared = true;
    out->reg_bits = in->reg_bits;
    for (uint32_t i = 0; i < in->reg_bits; i++)
        if (!basis_express(&b, 1ull << i, &out->reg[i])) return false;
    return true;
}

/* outer's image of a flat index of inner */
static uint64_t apply(const tk_ll *outer, uint64_t flat) {
    uint64_t f = 0;
    for (uint32_t i = 0; i < outer->reg_bits; i++)
        if (flat >> i & 1) f ^= outer->reg[i];
    return f;
}

void tk_ll_compose(tk_ll *out, const tk_ll *outer, const tk_ll *inner) {
    tk_ll c = *inner;
    c.rank = outer->rank;
    memset(c.shape, 0, sizeof c.shape);
    memcpy(c.shape, outer->shape, sizeof(int64_t) * outer->rank);
    for (uint32_t i = 0; i < inner->reg_bits; i++) c.reg[i] = apply(outer, inner->reg[i]);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) c.lane[i] = apply(outer, inner->lane[i]);
    for (uint32_t i = 0; i < inner->warp_bits; i++) c.warp[i] = apply(outer, inner->warp[i]);
    *out = c;
}

uint32_t tk_ll_smem_vector(const tk_ll *offsets, uint32_t elem_bytes) {
    uint32_t k = 0;
    while (k < offsets->reg_bits && offsets->reg[k] == (1ull << k) && (elem_bytes << (k + 1)) <= 16) k++;
    /* the vector must start aligned: nothing else may touch its low bits */
    uint64_t low = (1ull << k) - 1, other = 0;
    for (uint32_t i = k; i < offsets->reg_bits; i++) other |= offsets->reg[i];
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) other |= offsets->lane[i];
    for (uint32_t i = 0; i < offsets->warp_bits; i++) other |= offsets->warp[i];
    while (k && (other & low)) low >>= 1, k--;
    return 1u << k;
}

/* the dimension of the span of n vectors */
static uint32_t span_rank(const uint64_t *v, uint32_t n) {
    xor_basis b = {0};
    for (uint32_t i = 0; i < n; i++) basis_add(&b, v[i], 0);
    return b.n;
}

uint32_t tk_ll_smem_wavefronts(const tk_ll *offsets, uint32_t elem_bytes, uint32_t vec) {
    /* A warp's access is served 128 bytes at a time: each phase takes the
     * next 128/B lanes (B bytes a lane), and within one, lanes reading
     * distinct B-byte slots that share banks wait for each other. Offsets
     * are linear in the lane bits, so the slots a phase touches form a
     * space and each bank group is hit by the same number of them. */
    uint32_t bytes = elem_bytes * vec, group_bits = 0, vec_bits = 0;
    while ((bytes << (group_bits + 1)) <= 128) group_bits++;
    while ((1u << vec_bits) < vec) vec_bits++;
    uint64_t slot[TK_LL_LANE_BITS], group[TK_LL_LANE_BITS];
    for (uint32_t i = 0; i < group_bits && i < TK_LL_LANE_BITS; i++) {
        slot[i] = offsets->lane[i] >> vec_bits;
        group[i] = slot[i] & ((1ull << group_bits) - 1);
    }
    uint32_t lanes = group_bits < TK_LL_LANE_BITS ? group_bits : TK_LL_LANE_BITS;
    uint32_t phases = 32u >> lanes;
    return phases << (span_rank(slot, lanes) - span_rank(group, lanes));
}

/* The flat index of the element k along dimension d (rank 2). */
static uint64_t unit(const tk_ll *l, uint32_t d, int64_t k) {
    int64_t coords[2] = {d ? 0 : k, d ? k : 0};
    return flat_of(2, l->shape, coords);
}

/* The dimension along which shared layout s keeps aligned runs of 8
 * elements (16 bytes of 16-bit ones) at 8 consecutive offsets starting at
 * a multiple of 8, or -1: its first three offset bits step along the
 * dimension and no other offset bit moves within a run. */
static int ldmatrix_rows_dim(const tk_ll *s) {
    if (s->rank != 2 || s->reg_bits < 3) return -1;
    for (int d = 1; d >= 0; d--) {
        if (s->reg[0] != unit(s, (uint32_t)d, 1) || s->reg[1] != unit(s, (uint32_t)d, 2) ||
            s->reg[2] != unit(s, (uint32_t)d, 4))
            continue;
        bool aligned = true;
        for (uint32_t i = 3; i < s->reg_bits && aligned; i++) aligned = tk_ll_coord(s, s->reg[i], (uint32_t)d) % 8 == 0;
        if (aligned) return d;
    }
    return -1;
}

bool tk_ll_ldmatrix(const tk_ll *s, const tk_ll *l, bool *trans, tk_ll *addr) {
    int cd_found = ldmatrix_rows_dim(s);
    if (cd_found < 0 || l->rank != 2 || l->reg_bits < 3 || l->shape[0] < 8 || l->shape[1] < 8) return false;
    uint32_t cd = (uint32_t)cd_found, rd = 1 - cd;
    const uint64_t plain[6] = {unit(l, cd, 1), unit(l, cd, 2), unit(l, cd, 4), unit(l, rd, 1), unit(l, rd, 2),
                               unit(l, rd, 4)};
    const uint64_t transposed[6] = {unit(l, rd, 1), unit(l, rd, 2), unit(l, rd, 4), unit(l, cd, 1), unit(l, cd, 2),
                                    unit(l, cd, 4)};
    const uint64_t got[6] = {l->reg[0], l->lane[0], l->lane[1], l->lane[2], l->lane[3], l->lane[4]};
    if (!memcmp(got, plain, sizeof got)) *trans = false;
    else if (!memcmp(got, transposed, sizeof got)) *trans = true;
    else return false;
    for (uint32_t b = 1; b < 3; b++)
        if (!l->reg[b] || tk_ll_coord(l, l->reg[b], 0) % 8 || tk_ll_coord(l, l->reg[b], 1) % 8) return false;
    *addr = *l;
    addr->shared = false;
    addr->reg_bits = l->reg_bits - 3;
    for (uint32_t b = 0; b < addr->reg_bits; b++) addr->reg[b] = l->reg[b + 3];
    addr->lane[0] = unit(l, rd, 1), addr->lane[1] = unit(l, rd, 2), addr->lane[2] = unit(l, rd, 4);
    addr->lane[3] = l->reg[1], addr->lane[4] = l->reg[2];
    return true;
}

/* The wavefronts one ldmatrix.x4 takes whose row addresses are `rows`
 * (thread bits -> element offsets, 16-bit elements): each of its four
 * matrices is read as one phase of 8 rows of 16 bytes, rows sharing a
 * bank group waiting for each other. */
static uint64_t ldmatrix_wavefronts(const tk_ll *rows) {
    uint64_t slot[3], group[3];
    for (uint32_t i = 0; i < 3; i++) {
        slot[i] = rows->lane[i] >> 3;
        group[i] = slot[i] & 7;
    }
    return 4ull << (span_rank(slot, 3) - span_rank(group, 3));
}

/* the wavefronts and the accesses (instructions) of a conversion through s */
static uint64_t conversion_cost(const tk_ll *s, const tk_ll *src, const tk_ll *dst, uint32_t elem_bytes,
                                uint64_t *accesses) {
    tk_ll inverse, w, r, dst_here;
    *accesses = UINT64_MAX;
    if (!tk_ll_invert(&inverse, s)) return UINT64_MAX;
    tk_ll_project(&dst_here, dst, src->shape);
    tk_ll_compose(&w, &inverse, src);
    tk_ll_compose(&r, &inverse, &dst_here);
    uint32_t wv = tk_ll_smem_vector(&w, elem_bytes), rv = tk_ll_smem_vector(&r, elem_bytes);
    uint64_t writes = tk_ll_num_regs(&w) / wv, write_cost = writes * tk_ll_smem_wavefronts(&w, elem_bytes, wv);
    /* reads by ldmatrix where the destination is made of its matrices
     * (codegen reads so wherever tk_ll_ldmatrix says it can) */
    bool trans;
    tk_ll rows, rows_at;
    if (elem_bytes == 2 && tk_ll_ldmatrix(s, &dst_here, &trans, &rows)) {
        tk_ll_compose(&rows_at, &inverse, &rows);
        *accesses = writes + tk_ll_num_regs(&rows);
        return write_cost + tk_ll_num_regs(&rows) * ldmatrix_wavefronts(&rows_at);
    }
    *accesses = writes + tk_ll_num_regs(&r) / rv;
    return write_cost + (tk_ll_num_regs(&r) / rv) * tk_ll_smem_wavefronts(&r, elem_bytes, rv);
}

uint64_t tk_ll_conversion_wavefronts(const tk_ll *s, const tk_ll *src, const tk_ll *dst, uint32_t elem_bytes) {
    uint64_t accesses;
    return conversion_cost(s, src, dst, elem_bytes, &accesses);
}

/* searches for a conversion's swizzle beyond Triton's family */
enum { SWIZZLE_STARTS = 8 };

/* the cheapest scratch layout seen so far */
typedef struct scratch_choice {
    tk_ll layout;
    uint64_t cost, accesses;
} scratch_choice;

static bool consider(scratch_choice *best, const tk_ll *cand, const tk_ll *src, const tk_ll *dst,
                     uint32_t elem_bytes) {
    uint64_t accesses, cost = conversion_cost(cand, src, dst, elem_bytes, &accesses);
    if (cost > best->cost || (cost == best->cost && accesses >= best->accesses)) return false;
    best->layout = *cand;
    best->cost = cost;
    best->accesses = accesses;
    return true;
}

/* Offsets in rows of one bank row each (128 bytes), row bit i XORing
 * column_xor[i] into the columns: every bank-relevant swizzle is one. */
static void bank_row_swizzle(tk_ll *out, const tk_ll *src, uint32_t col_bits, uint32_t row_bits,
                             const uint64_t *column_xor) {
    memset(out, 0, sizeof *out);
    out->rank = src->rank;
    memcpy(out->shape, src->shape, sizeof(int64_t) * src->rank);
    out->shared = true;
    for (uint32_t i = 0; i < col_bits; i++) out->reg[out->reg_bits++] = 1ull << i;
    for (uint32_t i = 0; i < row_bits; i++) out->reg[out->reg_bits++] = (1ull << (col_bits + i)) ^ column_xor[i];
}

void tk_ll_conversion_scratch(tk_ll *out, const tk_ll *src, const tk_ll *dst, uint32_t elem_bytes) {
    uint64_t numel = 1;
    for (uint32_t d = 0; d < src->rank; d++) numel *= (uint64_t)src->shape[d];
    scratch_choice best = {.cost = UINT64_MAX, .accesses = UINT64_MAX};
    tk_ll cand;
    tk_ll_shared(&cand, src->rank, src->shape, 1, 1, 1);
    consider(&best, &cand, src, dst, elem_bytes);
    /* Triton's swizzles of the flat index seen as rows of `cols` elements:
     * the row bits XOR the column bits above `vec`. The fewest wavefronts
     * win, then the fewest instructions, then the first found (the plain
     * layout first). */
    for (uint64_t cols = 2; cols < numel; cols *= 2) {
        int64_t view[2] = {(int64_t)(numel / cols), (int64_t)cols};
        for (uint32_t vec = 1; vec < cols && vec <= 8; vec *= 2)
            for (uint32_t per_phase = 1; per_phase < (uint64_t)view[0] && per_phase <= 8; per_phase *= 2)
                for (uint32_t max_phase = 2; (uint64_t)vec * max_phase <= cols &&
                                             (uint64_t)per_phase * max_phase <= (uint64_t)view[0] && max_phase <= 32;
                     max_phase *= 2) {
                    tk_ll_shared(&cand, 2, view, vec, per_phase, max_phase);
                    tk_ll_reshape(&cand, &cand, src->rank, src->shape);
                    consider(&best, &cand, src, dst, elem_bytes);
                }
    }
    /* Their phases are tied to consecutive rows; freer XORs can serve the
     * writes and the reads at once. Each row bit of the bank-row view in
     * turn takes the column bit (or none) that helps most, until nothing
     * does: from no swizzle, then from a few pseudo-random starts, as one
     * change at a time can stop short of the best. */
    uint32_t col_bits = 0, row_bits = 0;
    while ((uint64_t)elem_bytes << (col_bits + 1) <= 128 && (1ull << (col_bits + 1)) <= numel) col_bits++;
    while ((1ull << (col_bits + row_bits)) < numel) row_bits++;
    uint64_t column_xor[64] = {0}, seed = 0x9e3779b97f4a7c15ull;
    for (uint32_t start = 0; start < SWIZZLE_STARTS && row_bits; start++) {
        for (uint32_t i = 0; i < row_bits; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t b = (uint32_t)(seed >> 33) % (col_bits + 1);
            column_xor[i] = start && b < col_bits ? 1ull << b : 0;
        }
        scratch_choice walk = {.cost = UINT64_MAX, .accesses = UINT64_MAX};
        bank_row_swizzle(&cand, src, col_bits, row_bits, column_xor);
        consider(&walk, &cand, src, dst, elem_bytes);
        for (bool improved = true; improved;) {
            improved = false;
            for (uint32_t i = 0; i < row_bits; i++) {
                uint64_t kept = column_xor[i];
                for (uint32_t b = 0; b <= col_bits; b++) {
                    column_xor[i] = b < col_bits ? 1ull << b : 0;
                    if (column_xor[i] == kept) continue;
                    bank_row_swizzle(&cand, src, col_bits, row_bits, column_xor);
                    if (consider(&walk, &cand, src, dst, elem_bytes)) {
                        kept = column_xor[i];
                        improved = true;
                    }
                }
                column_xor[i] = kept;
            }
        }
        consider(&best, &walk.layout, src, dst, elem_bytes);
    }
    *out = best.layout;
}

uint32_t tk_ll_contiguous_regs_along(const tk_ll *l, uint32_t d) {
    if (l->rank == 0) return 1;
    uint64_t step = 1; /* one element along d, as a flat offset */
    for (uint32_t i = d + 1; i < l->rank; i++) step *= (uint64_t)l->shape[i];
    uint32_t k = 0;
    while (k < l->reg_bits && l->reg[k] == step << k && (1ll << k) < l->shape[d]) k++;
    return 1u << k;
}

uint32_t tk_ll_contiguous_regs(const tk_ll *l) { return l->rank ? tk_ll_contiguous_regs_along(l, l->rank - 1) : 1; }

uint32_t tk_ll_run_dim(const tk_ll *l) {
    if (l->rank == 0) return 0;
    return l->rank == 2 && l->reg_bits && l->reg[0] == (uint64_t)l->shape[1] && l->shape[1] > 1 ? 0 : l->rank - 1;
}

static void print_basis(FILE *out, const tk_ll *l, uint64_t b) {
    if (l->rank <= 1) {
        fprintf(out, "%llu", (unsigned long long)b);
        return;
    }
    fputc('(', out);
    for (uint32_t d = 0; d < l->rank; d++)
        fprintf(out, "%s%lld", d ? "," : "", (long long)tk_ll_coord(l, b, d));
    fputc(')', out);
}

void tk_ll_print(FILE *out, const tk_ll *l) {
    if (l->shared) {
        fputs("#shared<offset=[", out);
        for (uint32_t i = 0; i < l->reg_bits; i++) {
            if (i) fputc(',', out);
            print_basis(out, l, l->reg[i]);
        }
        fputs("]>", out);
        return;
    }
    const uint64_t *sets[3] = {l->reg, l->lane, l->warp};
    uint32_t counts[3] = {l->reg_bits, TK_LL_LANE_BITS, l->warp_bits};
    const char *names[3] = {"reg", "lane", "warp"};
    fputs("#ll<", out);
    for (int s = 0; s < 3; s++) {
        fprintf(out, "%s%s=[", s ? " " : "", names[s]);
        for (uint32_t i = 0; i < counts[s]; i++) {
            if (i) fputc(',', out);
            print_basis(out, l, sets[s][i]);
        }
        fputc(']', out);
    }
    fputc('>', out);
}

bool tk_ll_row_bit(const tk_ll *l, int64_t j, int *reg_bit, int *lane_bit) {
    *reg_bit = *lane_bit = -1;
    for (uint32_t b = 0; b < l->reg_bits; b++)
        if (l->reg[b] == (uint64_t)j) *reg_bit = (int)b;
    for (uint32_t b = 0; b < TK_LL_LANE_BITS; b++)
        if (l->lane[b] == (uint64_t)j) *lane_bit = (int)b;
    return (*reg_bit >= 0) != (*lane_bit >= 0);
}

bool tk_ll_rows_in_warps(const tk_ll *l, int64_t n) {
    const uint64_t cols = (uint64_t)n - 1;
    for (uint32_t b = 0; b < l->reg_bits; b++)
        if ((l->reg[b] & cols) && (l->reg[b] & cols) != l->reg[b]) return false;
    for (uint32_t b = 0; b < TK_LL_LANE_BITS; b++)
        if ((l->lane[b] & cols) && (l->lane[b] & cols) != l->lane[b]) return false;
    for (uint32_t b = 0; b < l->warp_bits; b++)
        if (l->warp[b] & cols) return false;
    for (int64_t j = 1; j < n; j *= 2) {
        int rb, lb;
        if (!tk_ll_row_bit(l, j, &rb, &lb)) return false;
    }
    return true;
}
