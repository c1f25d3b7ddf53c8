/* Unit tests of the linear-layout algebra (lower/layout.c): known Triton
 * blocked layouts basis by basis, bijectivity where nothing replicates,
 * reduced and replicated layouts, permute round trips, and the register
 * maps codegen relies on for broadcasts, join/split/cat, shared layouts
 * and their choice for conversions. Prints "ok" last on success. */
#include "../../lower/lower.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static uint64_t flat2(int64_t cols, int64_t r, int64_t c) { return (uint64_t)(r * cols + c); }

/* the flat index that register r of lane `lane` in warp w holds */
static uint64_t holder_index(const tk_ll *l, uint64_t r, uint32_t lane, uint32_t w) {
    uint64_t f = tk_ll_reg_index(l, r);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (lane >> i & 1) f ^= l->lane[i];
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (w >> i & 1) f ^= l->warp[i];
    return f;
}

/* every (register, lane, warp) gives a different element, covering all */
static bool bijective(const tk_ll *l, uint32_t warps) {
    uint64_t numel = 1;
    for (uint32_t d = 0; d < l->rank; d++) numel *= (uint64_t)l->shape[d];
    char *seen = calloc(numel, 1);
    bool ok = true;
    for (uint64_t r = 0; r < tk_ll_num_regs(l); r++)
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t w = 0; w < warps; w++) {
                uint64_t f = holder_index(l, r, lane, w);
                if (f >= numel || seen[f]) ok = false;
                else seen[f] = 1;
            }
    for (uint64_t i = 0; i < numel; i++) ok &= seen[i] == 1;
    free(seen);
    return ok;
}

static void blocked_1d(void) {
    int64_t shape[1] = {1024};
    tk_ll l;
    tk_ll_default(&l, 1, shape, 4, 4);
    CHECK(l.reg_bits == 3 && l.reg[0] == 1 && l.reg[1] == 2 && l.reg[2] == 512);
    for (uint32_t i = 0; i < 5; i++) CHECK(l.lane[i] == 4u << i);
    CHECK(l.warp_bits == 2 && l.warp[0] == 128 && l.warp[1] == 256);
    CHECK(bijective(&l, 4));
    CHECK(tk_ll_contiguous_regs(&l) == 4);
}

/* Triton's #blocked<{sizePerThread=[1,4], threadsPerWarp=[2,16],
 * warpsPerCTA=[4,1], order=[1,0]}> on a 128x64 tile */
static void blocked_2d(void) {
    int64_t shape[2] = {128, 64};
    uint32_t spt[2] = {1, 4}, tpw[2] = {2, 16}, wpc[2] = {4, 1}, order[2] = {1, 0};
    tk_ll l;
    tk_ll_blocked(&l, 2, shape, spt, tpw, wpc, order);
    uint64_t want_reg[] = {flat2(64, 0, 1), flat2(64, 0, 2), flat2(64, 8, 0), flat2(64, 16, 0),
                           flat2(64, 32, 0), flat2(64, 64, 0)};
    CHECK(l.reg_bits == 6);
    for (uint32_t i = 0; i < 6 && i < l.reg_bits; i++) CHECK(l.reg[i] == want_reg[i]);
    uint64_t want_lane[] = {flat2(64, 0, 4), flat2(64, 0, 8), flat2(64, 0, 16), flat2(64, 0, 32), flat2(64, 1, 0)};
    for (uint32_t i = 0; i < 5; i++) CHECK(l.lane[i] == want_lane[i]);
    CHECK(l.warp_bits == 2 && l.warp[0] == flat2(64, 2, 0) && l.warp[1] == flat2(64, 4, 0));
    CHECK(bijective(&l, 4));
    /* tk_ll_default picks this same layout for 4 warps and 4-wide vectors */
    tk_ll d;
    tk_ll_default(&d, 2, shape, 4, 4);
    CHECK(tk_ll_equal(&l, &d));

    /* reduce along the columns: rows keep their lanes and warps, the column
     * bits go (register bits dropped, lane bases 0: replicated) */
    tk_ll r;
    tk_ll_reduce(&r, &l, 1);
    CHECK(r.rank == 1 && r.shape[0] == 128);
    CHECK(r.reg_bits == 4 && r.reg[0] == 8 && r.reg[1] == 16 && r.reg[2] == 32 && r.reg[3] == 64);
    for (uint32_t i = 0; i < 4; i++) CHECK(r.lane[i] == 0);
    CHECK(r.lane[4] == 1 && r.warp[0] == 2 && r.warp[1] == 4);

    /* [128] -> [128, 1] -> broadcast to [128, 64]: registers only */
    tk_ll col;
    int64_t col_shape[2] = {128, 1};
    tk_ll_reshape(&col, &r, 2, col_shape);
    uint32_t *map = malloc(sizeof(uint32_t) * tk_ll_num_regs(&l));
    CHECK(tk_ll_register_map(&col, &l, map));
    for (uint64_t reg = 0; reg < tk_ll_num_regs(&l); reg++) {
        /* the row of destination register reg is the row its source holds */
        int64_t row = tk_ll_coord(&l, tk_ll_reg_index(&l, reg), 0);
        CHECK(tk_ll_coord(&col, tk_ll_reg_index(&col, map[reg]), 0) == row);
    }
    free(map);

    /* the identity map, and a transpose twice is the identity */
    map = malloc(sizeof(uint32_t) * tk_ll_num_regs(&l));
    CHECK(tk_ll_register_map(&l, &l, map));
    for (uint64_t reg = 0; reg < tk_ll_num_regs(&l); reg++) CHECK(map[reg] == reg);
    free(map);
    uint32_t swap[2] = {1, 0};
    tk_ll t, tt;
    tk_ll_permute(&t, &l, swap);
    CHECK(t.shape[0] == 64 && t.shape[1] == 128);
    CHECK(t.reg[0] == flat2(128, 1, 0)); /* column 1 of the original is row 1 now */
    tk_ll_permute(&tt, &t, swap);
    CHECK(tk_ll_equal(&tt, &l));
    CHECK(bijective(&t, 4));
    /* a transposed layout does not map onto the default one by registers */
    tk_ll dt;
    int64_t tshape[2] = {64, 128};
    tk_ll_default(&dt, 2, tshape, 4, 4);
    map = malloc(sizeof(uint32_t) * tk_ll_num_regs(&dt));
    CHECK(!tk_ll_register_map(&t, &dt, map));
    free(map);
}

/* a tile smaller than the threads: the extra lanes and warps replicate */
static void replicated(void) {
    int64_t shape[1] = {16};
    tk_ll l;
    tk_ll_default(&l, 1, shape, 4, 4);
    CHECK(l.reg_bits == 2 && l.reg[0] == 1 && l.reg[1] == 2);
    CHECK(l.lane[0] == 4 && l.lane[1] == 8 && l.lane[2] == 0 && l.lane[3] == 0 && l.lane[4] == 0);
    CHECK(l.warp[0] == 0 && l.warp[1] == 0);
    /* every element still appears: the layout covers the tile */
    char seen[16] = {0};
    for (uint64_t r = 0; r < tk_ll_num_regs(&l); r++)
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint64_t f = tk_ll_reg_index(&l, r);
            for (uint32_t i = 0; i < 5; i++)
                if (lane >> i & 1) f ^= l.lane[i];
            CHECK(f < 16);
            if (f < 16) seen[f] = 1;
        }
    for (int i = 0; i < 16; i++) CHECK(seen[i]);
}

/* Every element of l has exactly one owner: the holder (register, lane,
 * warp) whose copy bits (tk_ll_copy_bits) are all 0; stores and atomics
 * act there alone. */
static bool one_owner_each(const tk_ll *l, uint32_t warps) {
    uint64_t numel = 1;
    for (uint32_t d = 0; d < l->rank; d++) numel *= (uint64_t)l->shape[d];
    tk_ll_copies copies = tk_ll_copy_bits(l);
    char *owners = calloc(numel, 1), *held = calloc(numel, 1);
    bool ok = true;
    for (uint64_t r = 0; r < tk_ll_num_regs(l); r++)
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t w = 0; w < warps; w++) {
                uint64_t f = holder_index(l, r, lane, w);
                if (f >= numel) {
                    ok = false;
                    continue;
                }
                held[f] = 1;
                if (!(r & copies.reg) && !(lane & copies.lane) && !(w & copies.warp)) owners[f]++;
            }
    for (uint64_t i = 0; i < numel; i++) ok &= owners[i] == held[i];
    free(owners);
    free(held);
    return ok;
}

/* Copies: zero bases (a small tile under many warps, a broadcast, a
 * reduction's result) and bases that are sums of others (two registers
 * or a register and a lane holding one element) leave one owner an
 * element; a layout without copies has no copy bits. */
static void copy_bits(void) {
    int64_t s16[1] = {16}, s8[1] = {8}, s1024[1] = {1024}, s2d[2] = {64, 8}, s3d[3] = {8, 1, 8}, row[2] = {1, 256};
    tk_ll l, r;
    tk_ll_default(&l, 1, s1024, 4, 4);
    tk_ll_copies c = tk_ll_copy_bits(&l);
    CHECK(c.reg == 0 && c.lane == 0 && c.warp == 0);
    CHECK(one_owner_each(&l, 4));
    tk_ll_default(&l, 1, s16, 8, 4); /* 16 elements, 256 threads */
    c = tk_ll_copy_bits(&l);
    CHECK(c.lane == 0x1c && c.warp == 0x7);
    CHECK(one_owner_each(&l, 8));
    tk_ll_default(&l, 1, s8, 4, 1);
    CHECK(one_owner_each(&l, 4));
    tk_ll_default(&l, 2, s2d, 8, 1);
    tk_ll_reduce(&r, &l, 1); /* the [64] slice of a row reduction */
    CHECK(one_owner_each(&r, 8));
    tk_ll_reduce(&r, &l, 0);
    CHECK(one_owner_each(&r, 8));
    tk_ll_default(&l, 3, s3d, 4, 1);
    CHECK(one_owner_each(&l, 4));
    tk_ll_default(&l, 2, row, 4, 4);
    CHECK(one_owner_each(&l, 4));
    /* bases that are sums of others: register 3 holds register 4's
     * element (1 ^ 2 == 3), lane 1 holds register 1's */
    memset(&l, 0, sizeof l);
    l.rank = 1;
    l.shape[0] = 16;
    l.reg_bits = 3;
    l.reg[0] = 1, l.reg[1] = 2, l.reg[2] = 3;
    l.lane[0] = 4, l.lane[1] = 2, l.lane[2] = 8;
    c = tk_ll_copy_bits(&l);
    CHECK(c.reg == 4 && c.lane == (2 | 8 | 16) && c.warp == 0);
    CHECK(one_owner_each(&l, 1));
}

/* The operand layout of a broadcast, from its result's: [64, 32] in the
 * default layout broadcast from [64, 1] and from [1, 32], each a
 * register-only slice of it (lanes and warps along the dropped dim
 * replicate), and a round trip of [64] -> [64, 1] by reshape. */
static void unbroadcast(void) {
    int64_t shape[2] = {64, 32}, col[2] = {64, 1}, row[2] = {1, 32};
    tk_ll l, c, r;
    tk_ll_default(&l, 2, shape, 4, 4);
    tk_ll_unbroadcast(&c, &l, col);
    tk_ll_unbroadcast(&r, &l, row);
    CHECK(c.rank == 2 && c.shape[0] == 64 && c.shape[1] == 1);
    CHECK(r.rank == 2 && r.shape[0] == 1 && r.shape[1] == 32);
    /* registers 0..1 ran along the columns: gone from the column slice */
    CHECK(c.reg_bits == l.reg_bits - 2 && r.reg_bits == l.reg_bits - (l.reg_bits - 2));
    uint32_t map[64];
    CHECK(tk_ll_register_map(&c, &l, map));
    for (uint64_t reg = 0; reg < tk_ll_num_regs(&l); reg++)
        CHECK(tk_ll_coord(&c, tk_ll_reg_index(&c, map[reg]), 0) == tk_ll_coord(&l, tk_ll_reg_index(&l, reg), 0));
    CHECK(tk_ll_register_map(&r, &l, map));
    for (uint64_t reg = 0; reg < tk_ll_num_regs(&l); reg++)
        CHECK(tk_ll_coord(&r, tk_ll_reg_index(&r, map[reg]), 1) == tk_ll_coord(&l, tk_ll_reg_index(&l, reg), 1));
    /* the reduced layout over the columns is the column slice, relabelled */
    tk_ll reduced, reshaped;
    tk_ll_reduce(&reduced, &l, 1);
    tk_ll_reshape(&reshaped, &reduced, 2, col);
    CHECK(tk_ll_equal(&reshaped, &c));
    /* unbroadcasting to the full shape changes nothing */
    tk_ll same;
    tk_ll_unbroadcast(&same, &l, shape);
    CHECK(tk_ll_equal(&same, &l));
}

/* Conversions by warp shuffles: an [8, 4] tile in its default layout on
 * one warp (a lane per element) to the transpose of a [4, 8] one is a lane
 * permutation; every destination element must come from the lane the map
 * names. A conversion moving elements between registers and lanes, or
 * across warps, is refused. */
static void shuffles(void) {
    int64_t tall[2] = {8, 4}, wide[2] = {4, 8};
    uint32_t perm[2] = {1, 0};
    tk_ll src, w, dst;
    tk_ll_default(&src, 2, tall, 1, 1);
    tk_ll_default(&w, 2, wide, 1, 1);
    tk_ll_permute(&dst, &w, perm);
    uint32_t src_reg[4], lane_const[4], lane_xor[5];
    CHECK(tk_ll_shuffle_map(&src, &dst, src_reg, lane_const, lane_xor));
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t from = lane_const[0];
        uint64_t want = tk_ll_reg_index(&dst, 0), got = tk_ll_reg_index(&src, src_reg[0]);
        for (uint32_t i = 0; i < 5; i++)
            if (lane >> i & 1) {
                from ^= lane_xor[i];
                want ^= dst.lane[i];
            }
        for (uint32_t i = 0; i < 5; i++)
            if (from >> i & 1) got ^= src.lane[i];
        CHECK(got == want);
    }
    /* registers and lanes trade places: one shuffle a register cannot do it */
    int64_t n64[1] = {64};
    tk_ll a, b;
    tk_ll_default(&a, 1, n64, 1, 2); /* reg=[1] lane=[2,4,8,16,32] */
    tk_ll_default(&b, 1, n64, 1, 1); /* reg=[32] lane=[1,2,4,8,16] */
    CHECK(!tk_ll_shuffle_map(&a, &b, src_reg, lane_const, lane_xor));
    /* registers permuted, lanes the same: shuffles (from each lane itself) do */
    tk_ll c = b;
    CHECK(tk_ll_shuffle_map(&b, &c, src_reg, lane_const, lane_xor));
    CHECK(src_reg[0] == 0 && src_reg[1] == 1 && lane_const[0] == 0 && lane_xor[3] == 8);
    /* different warps: no */
    tk_ll d, e;
    tk_ll_default(&d, 1, n64, 2, 1);
    e = d;
    e.warp[0] = 1;
    CHECK(!tk_ll_shuffle_map(&d, &e, src_reg, lane_const, lane_xor));
}

/* join adds the trailing pair as register bit 0 and split takes it off
 * again (a round trip); split refuses a pair spread over two lanes; cat
 * puts the second operand in a new top register bit. */
static void join_split_cat(void) {
    int64_t shape[2] = {32, 64};
    tk_ll l, joined, halves;
    tk_ll_default(&l, 2, shape, 4, 4);
    tk_ll_join(&joined, &l);
    CHECK(joined.rank == 3 && joined.shape[2] == 2 && joined.reg_bits == l.reg_bits + 1);
    CHECK(bijective(&joined, 4));
    for (uint64_t r = 0; r < tk_ll_num_regs(&joined); r++)
        CHECK(tk_ll_reg_index(&joined, r) == (tk_ll_reg_index(&l, r >> 1) << 1 | (r & 1)));
    uint32_t pair_bit = 99;
    CHECK(tk_ll_split(&halves, &joined, &pair_bit) && pair_bit == 0 && tk_ll_equal(&halves, &l));
    /* the pair in register bit 2: half k's register r is the whole's r with bit 2 = k */
    tk_ll moved = joined;
    moved.reg[0] = joined.reg[2];
    moved.reg[2] = 1;
    CHECK(tk_ll_split(&halves, &moved, &pair_bit) && pair_bit == 2);
    /* the pair across lanes */
    int64_t pairs[2] = {64, 2};
    tk_ll lanes;
    tk_ll_default(&lanes, 2, pairs, 1, 1);
    CHECK(lanes.lane[0] == 1 && !tk_ll_split(&halves, &lanes, &pair_bit));
    int64_t n[1] = {256};
    tk_ll a, cat;
    tk_ll_default(&a, 1, n, 2, 4);
    tk_ll_cat(&cat, &a);
    CHECK(cat.shape[0] == 512 && cat.reg_bits == a.reg_bits + 1 && cat.reg[a.reg_bits] == 256);
    CHECK(bijective(&cat, 2));
}

/* Shared layouts: Triton's swizzle basis by basis (rows XOR columns above
 * vec), inversion and composition round trips, and a transpose through
 * shared memory: plain, every warp access of the transposed side hits few
 * banks many times; the chosen swizzle serves each in the minimum number
 * of wavefronts. */
static void shared_layouts(void) {
    int64_t shape[2] = {64, 64};
    tk_ll s, inverse, id;
    tk_ll_shared(&s, 2, shape, 4, 2, 8);
    CHECK(s.shared && s.reg_bits == 12);
    for (uint32_t i = 0; i < 6; i++) CHECK(s.reg[i] == flat2(64, 0, 1 << i));
    for (uint32_t i = 0; i < 6; i++) {
        int64_t row = 1 << i;
        CHECK(s.reg[6 + i] == flat2(64, row, 4 * ((row / 2) % 8) % 64));
    }
    CHECK(tk_ll_invert(&inverse, &s));
    tk_ll_compose(&id, &inverse, &s);
    for (uint32_t i = 0; i < 12; i++) CHECK(id.reg[i] == 1ull << i);
    tk_ll_compose(&id, &s, &inverse);
    for (uint32_t i = 0; i < 12; i++) CHECK(id.reg[i] == 1ull << i);
    /* a layout with lanes has no inverse of this kind */
    tk_ll d;
    tk_ll_default(&d, 2, shape, 4, 4);
    CHECK(!tk_ll_invert(&inverse, &d));

    /* Transposes back to the default layout (4 warps, 4 elements a thread
     * along rows): plain, a warp writing a column hits 2 banks (544
     * wavefronts for 64x64); the chosen layout serves every store and load
     * in one wavefront per 128 bytes, the floor. */
    uint32_t perm[2] = {1, 0};
    tk_ll t, plain, chosen;
    tk_ll_permute(&t, &d, perm);
    tk_ll_shared(&plain, 2, shape, 1, 1, 1);
    CHECK(tk_ll_conversion_wavefronts(&plain, &t, &d, 4) == 32 * 16 + 8 * 4);
    int64_t shapes[4][2] = {{64, 64}, {64, 32}, {32, 64}, {128, 128}};
    for (int k = 0; k < 4; k++) {
        int64_t swapped[2] = {shapes[k][1], shapes[k][0]};
        tk_ll wide;
        tk_ll_default(&d, 2, shapes[k], 4, 4);
        tk_ll_default(&wide, 2, swapped, 4, 4);
        tk_ll_permute(&t, &wide, perm);
        tk_ll_conversion_scratch(&chosen, &t, &d, 4);
        CHECK(chosen.shared && tk_ll_invert(&inverse, &chosen));
        uint64_t floor = tk_ll_num_regs(&t) + tk_ll_num_regs(&d);
        CHECK(tk_ll_conversion_wavefronts(&chosen, &t, &d, 4) == floor);
    }
}

/* ---- tensor-core layouts, against the PTX ISA's fragment tables ---- */

/* the flat index register r of (lane, warp) holds */
static uint64_t element_of(const tk_ll *l, uint64_t r, uint32_t lane, uint32_t warp) {
    uint64_t e = tk_ll_reg_index(l, r);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (lane >> i & 1) e ^= l->lane[i];
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (warp >> i & 1) e ^= l->warp[i];
    return e;
}

static void mma_layouts(void) {
    /* mma.sync m16n8 accumulator: c_r at row lane/4 + 8 (r/2), column
     * 2 (lane % 4) + r % 2 */
    int64_t s16x8[2] = {16, 8};
    uint32_t one[2] = {1, 1};
    tk_ll acc;
    tk_ll_mma_acc(&acc, s16x8, 8, one, false);
    CHECK(acc.reg_bits == 2 && acc.warp_bits == 0);
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t r = 0; r < 4; r++)
            CHECK(element_of(&acc, r, lane, 0) == flat2(8, lane / 4 + 8 * (r / 2), 2 * (lane % 4) + r % 2));
    CHECK(bijective(&acc, 1));

    /* repeated over [32, 16]: along the columns first, then the rows */
    int64_t s32x16[2] = {32, 16};
    tk_ll_mma_acc(&acc, s32x16, 8, one, false);
    CHECK(acc.reg_bits == 4 && acc.reg[2] == flat2(16, 0, 8) && acc.reg[3] == flat2(16, 16, 0));
    /* 2 x 2 warps, the columns' first (Triton's warp order [1, 0]) */
    int64_t s32x32[2] = {32, 32};
    uint32_t w22[2] = {2, 2};
    tk_ll_mma_acc(&acc, s32x32, 8, w22, false);
    CHECK(acc.warp_bits == 2 && acc.warp[0] == flat2(32, 0, 8) && acc.warp[1] == flat2(32, 16, 0));
    CHECK(bijective(&acc, 4));
    /* 4 warps over a [16, 8] tile: three of them hold copies */
    uint32_t w41[2] = {4, 1};
    tk_ll_mma_acc(&acc, s16x8, 8, w41, true);
    CHECK(acc.warp[0] == 0 && acc.warp[1] == 0);

    /* wgmma m64nNk16 accumulator, a warpgroup: row 16 w + lane/4 + 8 ((r/2) % 2),
     * column 8 (r/4) + 2 (lane % 4) + r % 2, N/2 registers */
    int64_t s64x32[2] = {64, 32};
    tk_ll_mma_acc(&acc, s64x32, 32, w41, true);
    CHECK(tk_ll_num_regs(&acc) == 16 && acc.warp_bits == 2);
    for (uint32_t w = 0; w < 4; w++)
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t r = 0; r < 16; r++)
                CHECK(element_of(&acc, r, lane, w) ==
                      flat2(32, 16 * w + lane / 4 + 8 * ((r / 2) % 2), 8 * (r / 4) + 2 * (lane % 4) + r % 2));

    /* mma.sync m16n8k16 operands, 16-bit: a_i at row g + 8 ((i/2) % 2),
     * column 2t + i % 2 + 8 (i/4); b_i at row 2t + i % 2 + 8 (i/2), column g
     * (g = lane / 4, t = lane % 4) */
    tk_ll a, b;
    int64_t s16x16[2] = {16, 16};
    tk_ll_mma_operand(&a, s16x16, 0, 2, one, false);
    tk_ll_mma_operand(&b, s16x8, 1, 2, one, false);
    CHECK(tk_ll_num_regs(&a) == 8 && tk_ll_num_regs(&b) == 4);
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t g = lane / 4, t = lane % 4;
        for (uint32_t i = 0; i < 8; i++)
            CHECK(element_of(&a, i, lane, 0) == flat2(16, g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4)));
        for (uint32_t i = 0; i < 4; i++)
            CHECK(element_of(&b, i, lane, 0) == flat2(8, 2 * t + i % 2 + 8 * (i / 2), g));
    }
    /* 8-bit (m16n8k32): a_i at row g + 8 ((i/4) % 2), column 4t + i % 4 + 16 (i/8) */
    int64_t s16x32[2] = {16, 32};
    tk_ll_mma_operand(&a, s16x32, 0, 4, one, false);
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t i = 0; i < 16; i++)
            CHECK(element_of(&a, i, lane, 0) ==
                  flat2(32, lane / 4 + 8 * ((i / 4) % 2), 4 * (lane % 4) + i % 4 + 16 * (i / 8)));
    /* 2 x 2 warps: A copies across the accumulator's column warps, B across its row warps */
    tk_ll_mma_operand(&a, s32x16, 0, 2, w22, false);
    CHECK(a.warp_bits == 2 && a.warp[0] == 0 && a.warp[1] == flat2(16, 16, 0));
    int64_t s16x16b[2] = {16, 16};
    tk_ll_mma_operand(&b, s16x16b, 1, 2, w22, false);
    CHECK(b.warp_bits == 2 && b.warp[0] == flat2(16, 0, 8) && b.warp[1] == 0);
}

/* batched [B, M, N] (Triton's warpsPerTile for rank 3: every warp along the
 * batch): batch element w of warp w holds its [M, N] slice as a one-warp
 * layout holds it; past the warps, more registers; warps past the batch
 * hold copies */
static void mma_batched(void) {
    int64_t s16x8[2] = {16, 8}, s16x16[2] = {16, 16};
    uint32_t one[2] = {1, 1};
    tk_ll slice, acc, a;
    tk_ll_mma_acc(&slice, s16x8, 8, one, false);
    tk_ll_mma_acc(&acc, s16x8, 8, one, false);
    tk_ll_mma_batched(&acc, 8, 4);
    CHECK(acc.rank == 3 && acc.shape[0] == 8 && acc.shape[1] == 16 && acc.shape[2] == 8);
    CHECK(acc.warp_bits == 2 && tk_ll_num_regs(&acc) == 2 * tk_ll_num_regs(&slice));
    for (uint32_t w = 0; w < 4; w++)
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t r = 0; r < 4; r++)
                for (uint32_t rep = 0; rep < 2; rep++)
                    CHECK(element_of(&acc, r + 4 * rep, lane, w) ==
                          (uint64_t)(w + 4 * rep) * 128 + element_of(&slice, r, lane, 0));
    CHECK(bijective(&acc, 4));
    /* batch 2 over 8 warps: warp bits 1 and 2 are copies */
    tk_ll_mma_operand(&a, s16x16, 0, 2, one, false);
    tk_ll_mma_batched(&a, 2, 8);
    CHECK(a.warp_bits == 3 && a.warp[0] == 256 && a.warp[1] == 0 && a.warp[2] == 0);
    CHECK(tk_ll_num_regs(&a) == 8);
}

/* how mma.sync spreads warps over a result (Triton's warpsPerTile): along
 * whichever of M (16 rows a warp) and N (8 columns) has more tiles left */
static void dot_warps(void) {
    uint32_t w[2];
    int64_t s1[2] = {128, 256}, s2[2] = {64, 64}, s3[2] = {16, 16}, s4[2] = {256, 16};
    tk_tir_dot_warps(s1, 8, w);
    CHECK(w[0] == 2 && w[1] == 4);
    tk_tir_dot_warps(s2, 4, w);
    CHECK(w[0] == 2 && w[1] == 2);
    tk_tir_dot_warps(s3, 4, w); /* one tile along M: the extra warps hold copies along M */
    CHECK(w[0] == 2 && w[1] == 2);
    tk_tir_dot_warps(s4, 8, w);
    CHECK(w[0] == 8 && w[1] == 1);
    tk_tir_dot_warps(s2, 1, w);
    CHECK(w[0] == 1 && w[1] == 1);
}

/* wgmma's swizzled shared layouts: within an atom of 8 rows, row r's
 * 16-byte vector v sits at vector v ^ ((r / per_phase) % max_phase) */
static void nvmma_shared(void) {
    struct { uint32_t bytes, per_phase; } cases[] = {{128, 1}, {64, 2}, {32, 4}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint32_t cols = cases[k].bytes / 2; /* f16 */
        int64_t shape[2] = {64, 2 * (int64_t)cols};
        tk_ll s, inv;
        CHECK(tk_ll_nvmma_shared(&s, shape, 16, cases[k].bytes, false));
        CHECK(tk_ll_invert(&inv, &s));
        uint32_t max_phase = 8 / cases[k].per_phase;
        for (int64_t r = 0; r < 64; r++)
            for (int64_t c = 0; c < shape[1]; c++) {
                int64_t atom = c / cols, cc = c % cols;
                uint64_t want = (uint64_t)(atom * 64 * cols + r * cols +
                                           (((cc / 8) ^ ((r % 8) / cases[k].per_phase % max_phase)) * 8) + cc % 8);
                CHECK(tk_ll_reg_index(&inv, flat2(shape[1], r, c)) == want);
            }
    }
    /* 128-byte rows of f32 are 32 elements, of 8-bit ones 128 */
    int64_t f32_shape[2] = {8, 32}, small[2] = {8, 16};
    tk_ll s;
    CHECK(tk_ll_nvmma_shared(&s, f32_shape, 32, 128, false) && s.reg[5] == flat2(32, 1, 4));
    CHECK(!tk_ll_nvmma_shared(&s, small, 16, 128, false)); /* narrower than one atom */
    CHECK(!tk_ll_nvmma_shared(&s, f32_shape, 32, 16, false));
    /* transposed (a K-major B, an M-major A): element (r, c) where the
     * plain layout of the transposed tile keeps (c, r); 8-bit elements,
     * every swizzle, more than one atom across */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int64_t plain_shape[2] = {32, 2 * (int64_t)cases[k].bytes}, t_shape[2] = {plain_shape[1], plain_shape[0]};
        tk_ll p, t, p_inv, t_inv;
        CHECK(tk_ll_nvmma_shared(&p, plain_shape, 8, cases[k].bytes, false));
        CHECK(tk_ll_nvmma_shared(&t, t_shape, 8, cases[k].bytes, true));
        CHECK(t.shape[0] == t_shape[0] && t.shape[1] == t_shape[1] && t.shared);
        CHECK(tk_ll_invert(&p_inv, &p) && tk_ll_invert(&t_inv, &t));
        for (int64_t r = 0; r < t_shape[0]; r++)
            for (int64_t c = 0; c < t_shape[1]; c++)
                CHECK(tk_ll_reg_index(&t_inv, flat2(t_shape[1], r, c)) ==
                      tk_ll_reg_index(&p_inv, flat2(plain_shape[1], c, r)));
        /* offsets 0..15 run down the first dimension */
        CHECK(t.reg[0] == flat2(t_shape[1], 1, 0) && t.reg[3] == flat2(t_shape[1], 8, 0));
    }
    CHECK(!tk_ll_nvmma_shared(&s, f32_shape, 32, 128, true)); /* 8 rows of f32: one atom is 32 */
}

/* tf32 fragments read by 4-byte ld.shared down a tile's contiguous
 * dimension (the transposed product's B^T: [256, 32] with its first
 * dimension contiguous, 8 warps down its rows; mma.sync's B from a
 * row-major [32, 128]): one wavefront a read from tk_ll_fragment_shared,
 * two from the NVMMA swizzle (rows k and k ^ 1 share banks); 16-byte runs
 * kept for the copies. */
static void fragment_reads(void) {
    int64_t shape[2] = {256, 32};
    uint32_t w81[2] = {8, 1};
    tk_ll a, nvmma, frag, inv, offsets;
    tk_ll_mma_operand(&a, shape, 0, 1, w81, true);
    CHECK(a.lane[0] == flat2(32, 0, 1) && a.lane[2] == flat2(32, 1, 0));
    CHECK(tk_ll_nvmma_shared(&nvmma, shape, 32, 128, true));
    CHECK(tk_ll_invert(&inv, &nvmma));
    tk_ll_compose(&offsets, &inv, &a);
    CHECK(tk_ll_smem_wavefronts(&offsets, 4, 1) == 2);
    tk_ll_fragment_shared(&frag, shape, true);
    CHECK(frag.shape[0] == 256 && frag.shape[1] == 32 && frag.shared);
    CHECK(tk_ll_invert(&inv, &frag));
    tk_ll_compose(&offsets, &inv, &a);
    CHECK(tk_ll_smem_vector(&offsets, 4) == 1 && tk_ll_smem_wavefronts(&offsets, 4, 1) == 1);
    /* offsets 0..7 run down the first dimension: 16-byte copies whole */
    for (uint32_t i = 0; i < 3; i++) CHECK(frag.reg[i] == flat2(32, 1 << i, 0));
    /* mma.sync's tf32 B from a row-major [K, N] stage: the same reads */
    int64_t b_shape[2] = {32, 128};
    uint32_t w22[2] = {2, 2};
    tk_ll b, b_nvmma, b_frag;
    tk_ll_mma_operand(&b, b_shape, 1, 1, w22, false);
    CHECK(tk_ll_nvmma_shared(&b_nvmma, b_shape, 32, 128, false) && tk_ll_invert(&inv, &b_nvmma));
    tk_ll_compose(&offsets, &inv, &b);
    CHECK(tk_ll_smem_wavefronts(&offsets, 4, 1) == 2);
    tk_ll_fragment_shared(&b_frag, b_shape, false);
    CHECK(tk_ll_invert(&inv, &b_frag));
    tk_ll_compose(&offsets, &inv, &b);
    CHECK(tk_ll_smem_wavefronts(&offsets, 4, 1) == 1);
    /* rows first: the same layout transposed */
    int64_t t_shape[2] = {32, 256};
    tk_ll rows_first, rf_inv;
    tk_ll_fragment_shared(&rows_first, t_shape, false);
    CHECK(tk_ll_invert(&inv, &frag) && tk_ll_invert(&rf_inv, &rows_first));
    for (int64_t r = 0; r < 32; r++)
        for (int64_t c = 0; c < 256; c++)
            CHECK(tk_ll_reg_index(&rf_inv, flat2(256, r, c)) == tk_ll_reg_index(&inv, flat2(32, c, r)));
}

/* ldmatrix reads (tk_ll_ldmatrix): mma.sync's 16-bit operands from the
 * swizzled buffers a pipeline keeps (A plain, a row-major B .trans); not
 * from a layout whose swizzle moves elements within a 16-byte row; and a
 * conversion's scratch for a B operand is chosen so that ldmatrix reads it
 * without bank conflicts (4 wavefronts an ldmatrix.x4). */
static void ldmatrix_reads(void) {
    uint32_t w22[2] = {2, 2};
    int64_t a_shape[2] = {128, 64}, b_shape[2] = {64, 128};
    tk_ll a, b, sa, sb, rows;
    bool trans;
    tk_ll_mma_operand(&a, a_shape, 0, 2, w22, false);
    tk_ll_mma_operand(&b, b_shape, 1, 2, w22, false);
    CHECK(tk_ll_nvmma_shared(&sa, a_shape, 16, 128, false) && tk_ll_nvmma_shared(&sb, b_shape, 16, 128, false));
    CHECK(tk_ll_ldmatrix(&sa, &a, &trans, &rows) && !trans);
    CHECK(tk_ll_num_regs(&rows) * 8 == tk_ll_num_regs(&a));
    CHECK(tk_ll_ldmatrix(&sb, &b, &trans, &rows) && trans);
    /* Triton's swizzle with vec 1: row r XORs (r % 8) into the column, so
     * a row's 8 elements are not at 8 aligned offsets */
    tk_ll odd;
    tk_ll_shared(&odd, 2, b_shape, 1, 1, 8);
    CHECK(!tk_ll_ldmatrix(&odd, &b, &trans, &rows));
    /* nor a layout not made of its matrices: B loaded one element a
     * thread along its rows (a row stride that is not a multiple of 8) */
    tk_ll loaded, chosen, inverse, at;
    tk_ll_default(&loaded, 2, b_shape, 4, 1);
    CHECK(!tk_ll_ldmatrix(&sb, &loaded, &trans, &rows));
    /* (the 16-bit accumulator layout is: a thread's pair of a row) */
    tk_ll acc;
    tk_ll_mma_acc(&acc, b_shape, 8, w22, false);
    CHECK(tk_ll_ldmatrix(&sb, &acc, &trans, &rows) && !trans);
    /* that B converted to the operand layout */
    tk_ll_conversion_scratch(&chosen, &loaded, &b, 2);
    CHECK(tk_ll_ldmatrix(&chosen, &b, &trans, &rows) && trans);
    CHECK(tk_ll_invert(&inverse, &chosen));
    tk_ll_compose(&at, &inverse, &rows);
    uint64_t writes = tk_ll_num_regs(&loaded); /* 2-byte stores, one wavefront each at best */
    CHECK(tk_ll_conversion_wavefronts(&chosen, &loaded, &b, 2) == writes + 4 * tk_ll_num_regs(&rows));
}

int main(void) {
    shared_layouts();
    join_split_cat();
    shuffles();
    blocked_1d();
    blocked_2d();
    replicated();
    copy_bits();
    unbroadcast();
    mma_layouts();
    mma_batched();
    dot_warps();
    nvmma_shared();
    ldmatrix_reads();
    fragment_reads();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
