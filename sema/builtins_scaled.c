/* tl.dot_scaled: the product of two tiles in microscaling formats (OCP MX:
 * mxfp8, mxfp4; nvfp4 with e4m3 scales), computed as Triton computes it on
 * GPUs without a scaled MMA (sm_80 to sm_90a): each operand decoded to
 * f32 (e2m1 by integer arithmetic; fp8 by conversion, which codegen does
 * with cvt where the target has it and by bit arithmetic before sm_89),
 * multiplied by its block's scale, rounded to bf16 (f16 where both
 * operands are f16), and the two multiplied by tl.dot into an f32
 * accumulator.
 *
 * Needs: the builtins it is made of (cast, where, shapes, dot: builtin_call)
 * and arith. Guarantees: the result of tl.dot over the decoded, scaled
 * operands; a NaN scale (e8m0 0xFF) or element makes NaN. */
#include "builtin.h"

#include <math.h>
#include <string.h>

typedef struct scaled {
    checker *c;
    tk_loc loc;
} scaled;

static int id_of(scaled *s, const char *name) { return builtin_lookup(s->c, name, true); }

static value invoke(scaled *s, const char *name, value *args, uint32_t n) {
    return builtin_call(s->c, id_of(s, name), NULL, args, n, NULL, NULL, NULL, 0, s->loc);
}

static value int_v(scaled *s, int64_t i) { return v_int(s->loc, i); }

static value dtype_v(scaled *s, tk_dtype d) {
    value v = {.kind = V_DTYPE, .loc = s->loc};
    v.u.dtype = d;
    return v;
}

/* x.to(d), or with bitcast its bits as d */
static value cast_to(scaled *s, value x, tk_dtype d, bool bitcast) {
    value args[2] = {x, dtype_v(s, d)};
    if (!bitcast) return invoke(s, "cast", args, 2);
    const char *kw = tk_intern_cstr(s->c->names, "bitcast");
    value yes = v_bool(s->loc, true);
    tk_loc at = s->loc;
    return builtin_call(s->c, id_of(s, "cast"), NULL, args, 2, &kw, &yes, &at, 1, s->loc);
}

static value op(scaled *s, tk_binop o, value a, value b) { return arith(s->c, o, a, b, s->loc); }

static value where(scaled *s, value cond, value a, value b) {
    value args[3] = {cond, a, b};
    return invoke(s, "where", args, 3);
}

static value reshape2(scaled *s, value x, int64_t d0, int64_t d1) {
    value args[3] = {x, int_v(s, d0), int_v(s, d1)};
    return invoke(s, "reshape", args, 3);
}

/* A float format's layout: exponent and mantissa bits, exponent bias; fn:
 * no infinities, the all-ones pattern is NaN (e4m3); ieee: the top exponent
 * holds infinities and NaNs (e5m2) */
typedef struct fp_format {
    int ebits, mbits, bias;
    bool fn, ieee;
} fp_format;

static const fp_format E2M1 = {2, 1, 1, false, false};

/* the f32 values of the codes in x (an integer tile, one code in its low
 * 1 + ebits + mbits bits) */
static value decode(scaled *s, value x, fp_format f) {
    value bits = cast_to(s, x, TK_I32, false);
    int width = 1 + f.ebits + f.mbits;
    value sign = op(s, TK_BINOP_AND, op(s, TK_BINOP_SHR, bits, int_v(s, width - 1)), int_v(s, 1));
    value ex = op(s, TK_BINOP_AND, op(s, TK_BINOP_SHR, bits, int_v(s, f.mbits)), int_v(s, (1 << f.ebits) - 1));
    value man = op(s, TK_BINOP_AND, bits, int_v(s, (1 << f.mbits) - 1));
    /* a normal code: exponent rebiased into f32's, mantissa at its top */
    value normal_bits = op(s, TK_BINOP_OR,
                           op(s, TK_BINOP_SHL, op(s, TK_BINOP_ADD, ex, int_v(s, 127 - f.bias)), int_v(s, 23)),
                           op(s, TK_BINOP_SHL, man, int_v(s, 23 - f.mbits)));
    value normal = cast_to(s, normal_bits, TK_F32, true);
    /* a subnormal one: mantissa x 2^(1 - bias - mbits), exact in f32 */
    value sub = op(s, TK_BINOP_MUL, cast_to(s, man, TK_F32, false),
                   v_float(s->loc, ldexp(1.0, 1 - f.bias - f.mbits)));
    value mag = where(s, op(s, TK_BINOP_EQ, ex, int_v(s, 0)), sub, normal);
    if (f.fn) {
        value all_ones = op(s, TK_BINOP_EQ, op(s, TK_BINOP_AND, bits, int_v(s, (1 << (width - 1)) - 1)),
                            int_v(s, (1 << (width - 1)) - 1));
        mag = where(s, all_ones, v_float(s->loc, NAN), mag);
    }
    if (f.ieee) {
        value special = where(s, op(s, TK_BINOP_EQ, man, int_v(s, 0)), v_float(s->loc, INFINITY),
                              v_float(s->loc, NAN));
        mag = where(s, op(s, TK_BINOP_EQ, ex, int_v(s, (1 << f.ebits) - 1)), special, mag);
    }
    return where(s, op(s, TK_BINOP_NE, sign, int_v(s, 0)), op(s, TK_BINOP_SUB, v_float(s->loc, 0.0), mag), mag);
}

/* An e8m0 scale's value, 2^(code - 127), in f32 (0 is 2^-127, a subnormal;
 * 0xFF is NaN) */
static value decode_e8m0(scaled *s, value x) {
    value code = cast_to(s, x, TK_I32, false);
    value bits = where(s, op(s, TK_BINOP_EQ, code, int_v(s, 0)), int_v(s, 0x00400000),
                       op(s, TK_BINOP_SHL, code, int_v(s, 23)));
    return where(s, op(s, TK_BINOP_EQ, code, int_v(s, 255)), v_float(s->loc, NAN), cast_to(s, bits, TK_F32, true));
}

typedef enum { F_E2M1, F_E4M3, F_E5M2, F_BF16, F_FP16 } format;
static const char *const format_names[] = {"e2m1", "e4m3", "e5m2", "bf16", "fp16"};

/* One operand: its tile `x` as stored (lhs [M, K] or, rhs, [K, N]; e2m1
 * packs two codes a byte along K, the first in the low bits), checked
 * against its format, decoded to f32 [M, K] / [K, N]. */
static bool operand_values(scaled *s, call *k, uint32_t arg, format f, bool rhs, value *out, int64_t *k_out) {
    checker *c = s->c;
    tk_sx *x = rt_arg(c, k, arg);
    if (!x) return false;
    if (ty_rank(x->type) != 2) {
        sema_error(c, k->args[arg].loc, "tl.dot_scaled takes 2-D tiles here (batched 3-D ones are not supported "
                   "yet), not %s", tk_type_str(c->arena, x->type));
        return false;
    }
    tk_dtype d = elem_dtype(x);
    static const tk_dtype stored[] = {TK_U8, TK_F8E4M3, TK_F8E5M2, TK_BF16, TK_F16};
    static const tk_dtype raw[] = {TK_U8, TK_U8, TK_U8, TK_U16, TK_U16};
    if (d != stored[f] && d != raw[f]) {
        sema_error(c, k->args[arg].loc, "tl.dot_scaled's %s in format '%s' is %s%s%s, not %s", rhs ? "rhs" : "lhs",
                   format_names[f],
                   tk_dtype_name(stored[f]), stored[f] != raw[f] ? " or its bits as " : "",
                   stored[f] != raw[f] ? tk_dtype_name(raw[f]) : "", tk_dtype_name(d));
        return false;
    }
    value v = v_rt(x);
    int64_t rows = x->type->shape[0], cols = x->type->shape[1];
    if (f == F_BF16 || f == F_FP16) {
        if (d != stored[f]) v = cast_to(s, v, stored[f], true);
        *out = cast_to(s, v, TK_F32, false);
        *k_out = rhs ? rows : cols;
        return true;
    }
    if (f != F_E2M1) {
        /* fp8 by conversion (cvt on sm_89 and newer, bit arithmetic before) */
        *out = cast_to(s, d == TK_U8 ? cast_to(s, v, stored[f], true) : v, TK_F32, false);
        *k_out = rhs ? rows : cols;
        return true;
    }
    /* e2m1: the low code is element 2j along K, the high one 2j + 1 */
    value lo = decode(s, op(s, TK_BINOP_AND, v, int_v(s, 15)), E2M1);
    value hi = decode(s, op(s, TK_BINOP_SHR, v, int_v(s, 4)), E2M1);
    value pair[2] = {lo, hi};
    value joined = invoke(s, "join", pair, 2); /* [rows, cols, 2] */
    if (!rhs) {
        *out = reshape2(s, joined, rows, cols * 2);
        *k_out = cols * 2;
    } else {
        value order[4] = {joined, int_v(s, 0), int_v(s, 2), int_v(s, 1)};
        *out = reshape2(s, invoke(s, "permute", order, 4), rows * 2, cols);
        *k_out = rows * 2;
    }
    return true;
}

/* values times their blocks' scales: scale [rows, K / group] (lhs: rows
 * M; rhs: rows N, the scales of B's columns) */
static bool apply_scale(scaled *s, call *k, uint32_t arg, bool rhs, int64_t kdim, int64_t rows, value *v) {
    checker *c = s->c;
    if (!given(k, arg) || k->args[arg].kind == V_NONE) return true;
    tk_sx *x = rt_arg(c, k, arg);
    if (!x) return false;
    tk_dtype d = elem_dtype(x);
    int64_t group = d == TK_U8 ? 32 : 16;
    bool shaped = ty_rank(x->type) == 2 && x->type->shape[0] == rows && x->type->shape[1] * group == kdim;
    if ((d != TK_U8 && d != TK_F8E4M3) || !shaped) {
        sema_error(c, k->args[arg].loc, "the %s scales of tl.dot_scaled are a [%lld, %lld] tile of e8m0 codes "
                   "(u8, a scale per 32 elements of K) or [%lld, %lld] of f8e4m3 (nvfp4: per 16), not %s",
                   rhs ? "rhs" : "lhs", (long long)rows, (long long)(kdim / 32), (long long)rows,
                   (long long)(kdim / 16), tk_type_str(c->arena, x->type));
        return false;
    }
    value scale = d == TK_U8 ? decode_e8m0(s, v_rt(x)) : cast_to(s, v_rt(x), TK_F32, false);
    value expand[2] = {scale, int_v(s, 2)};
    value bc[4] = {invoke(s, "expand_dims", expand, 2), int_v(s, rows), int_v(s, kdim / group), int_v(s, group)};
    value per_element = reshape2(s, invoke(s, "broadcast_to", bc, 4), rows, kdim); /* [rows, K] */
    if (rhs) {
        value t[1] = {per_element};
        per_element = invoke(s, "trans", t, 1);
    }
    *v = op(s, TK_BINOP_MUL, *v, per_element);
    return true;
}

value b_dot_scaled(checker *c, call *k) {
    scaled s = {c, k->loc};
    const char *fl, *fr;
    if (!const_str(c, k, 2, format_names, 5, &fl) || !const_str(c, k, 5, format_names, 5, &fr)) return v_error();
    if (!*fl || !*fr) {
        sema_error(c, k->loc, "tl.dot_scaled needs lhs_format and rhs_format ('e2m1', 'e4m3', 'e5m2', 'bf16' "
                   "or 'fp16')");
        return v_error();
    }
    format lf = F_E2M1, rf = F_E2M1;
    while (strcmp(format_names[lf], fl)) lf++;
    while (strcmp(format_names[rf], fr)) rf++;
    bool lhs_k_pack = true, rhs_k_pack = true, fast_math = false;
    if (!const_bool(c, k, 7, false, &fast_math) || !const_bool(c, k, 8, true, &lhs_k_pack) ||
        !const_bool(c, k, 9, true, &rhs_k_pack))
        return v_error();
    (void)fast_math; /* NaN scales and elements propagate either way */
    if (!lhs_k_pack || !rhs_k_pack) {
        sema_error(c, k->args[lhs_k_pack ? 9 : 8].loc, "tl.dot_scaled with e2m1 packed along M or N "
                   "(k_pack=False) is not supported yet");
        return v_error();
    }
    if (given(k, 10) && k->args[10].kind != V_NONE) {
        tk_dtype out;
        if (!dtype_arg(c, k, 10, &out)) return v_error();
        if (out != TK_F32) {
            sema_error(c, k->args[10].loc, "out_dtype of tl.dot_scaled is f32 here (%s is not supported yet)",
                       tk_dtype_name(out));
            return v_error();
        }
    }
    value lhs, rhs;
    int64_t kl, kr;
    if (!operand_values(&s, k, 0, lf, false, &lhs, &kl) || !operand_values(&s, k, 3, rf, true, &rhs, &kr))
        return v_error();
    if (lhs.kind == V_ERROR || rhs.kind == V_ERROR) return v_error();
    if (kl != kr) {
        sema_error(c, k->loc, "tl.dot_scaled's operands hold K = %lld and K = %lld elements (an e2m1 byte holds "
                   "two)", (long long)kl, (long long)kr);
        return v_error();
    }
    int64_t m = lhs.u.rt->type->shape[0], n = rhs.u.rt->type->shape[1];
    if (!apply_scale(&s, k, 1, false, kl, m, &lhs) || !apply_scale(&s, k, 4, true, kl, n, &rhs)) return v_error();
    if (given(k, 6) && k->args[6].kind != V_NONE) {
        tk_sx *acc = rt_arg(c, k, 6);
        if (!acc) return v_error();
        bool fits = ty_rank(acc->type) == 2 && elem_dtype(acc) == TK_F32 && acc->type->shape[0] == m &&
                    acc->type->shape[1] == n;
        if (!fits) {
            sema_error(c, k->args[6].loc, "the accumulator of tl.dot_scaled is f32[%lld, %lld], not %s", (long long)m,
                       (long long)n, tk_type_str(c->arena, acc->type));
            return v_error();
        }
    }
    tk_dtype compute = lf == F_FP16 && rf == F_FP16 ? TK_F16 : TK_BF16;
    value args[3] = {cast_to(&s, lhs, compute, false), cast_to(&s, rhs, compute, false),
                     given(k, 6) ? k->args[6] : (value){.kind = V_NONE}};
    if (args[0].kind == V_ERROR || args[1].kind == V_ERROR) return v_error();
    return invoke(&s, "dot", args, args[2].kind == V_NONE ? 2 : 3);
}
