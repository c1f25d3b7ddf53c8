/* Types: dtypes, type construction, printing and Triton's promotion rules
 * (docs/LANGUAGE.md has the table). Needs: nothing but the arena. Types are
 * compared structurally (tk_type_equal); construction never fails. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned bits;
    bool is_float, is_signed;
} dtype_info[TK_DTYPE_COUNT] = {
    [TK_I1] = {"i1", 1, false, false},       [TK_I8] = {"i8", 8, false, true},
    [TK_I16] = {"i16", 16, false, true},     [TK_I32] = {"i32", 32, false, true},
    [TK_I64] = {"i64", 64, false, true},     [TK_U8] = {"u8", 8, false, false},
    [TK_U16] = {"u16", 16, false, false},    [TK_U32] = {"u32", 32, false, false},
    [TK_U64] = {"u64", 64, false, false},    [TK_F8E4M3] = {"f8e4m3", 8, true, true},
    [TK_F8E5M2] = {"f8e5m2", 8, true, true}, [TK_F16] = {"f16", 16, true, true},
    [TK_BF16] = {"bf16", 16, true, true},    [TK_F32] = {"f32", 32, true, true},
    [TK_F64] = {"f64", 64, true, true},
};

const char *tk_dtype_name(tk_dtype d) { return d < TK_DTYPE_COUNT ? dtype_info[d].name : "?"; }
unsigned tk_dtype_bits(tk_dtype d) { return dtype_info[d].bits; }
bool tk_dtype_is_float(tk_dtype d) { return dtype_info[d].is_float; }
bool tk_dtype_is_int(tk_dtype d) { return !dtype_info[d].is_float; }
bool tk_dtype_is_signed(tk_dtype d) { return dtype_info[d].is_signed; }

/* Our spellings, then Triton's (tl.float16, fp16, ...). */
static const struct { const char *name; tk_dtype dtype; } dtype_names[] = {
    {"i1", TK_I1}, {"i8", TK_I8}, {"i16", TK_I16}, {"i32", TK_I32}, {"i64", TK_I64},
    {"u8", TK_U8}, {"u16", TK_U16}, {"u32", TK_U32}, {"u64", TK_U64},
    {"f8e4m3", TK_F8E4M3}, {"f8e5m2", TK_F8E5M2}, {"f16", TK_F16}, {"bf16", TK_BF16},
    {"f32", TK_F32}, {"f64", TK_F64},
    {"int1", TK_I1}, {"bool", TK_I1}, {"int8", TK_I8}, {"int16", TK_I16}, {"int32", TK_I32},
    {"int64", TK_I64}, {"uint8", TK_U8}, {"uint16", TK_U16}, {"uint32", TK_U32},
    {"uint64", TK_U64}, {"float8e4nv", TK_F8E4M3}, {"float8_e4m3fn", TK_F8E4M3},
    {"float8e5", TK_F8E5M2}, {"float8_e5m2", TK_F8E5M2}, {"fp8e4nv", TK_F8E4M3},
    {"fp8e5", TK_F8E5M2}, {"float16", TK_F16}, {"fp16", TK_F16}, {"half", TK_F16},
    {"bfloat16", TK_BF16}, {"float32", TK_F32}, {"fp32", TK_F32}, {"float64", TK_F64},
    {"fp64", TK_F64},
};

const char *dtype_triton_name(tk_dtype d) {
    static const char *const names[TK_DTYPE_COUNT] = {
        [TK_I1] = "int1", [TK_I8] = "int8", [TK_I16] = "int16", [TK_I32] = "int32",
        [TK_I64] = "int64", [TK_U8] = "uint8", [TK_U16] = "uint16", [TK_U32] = "uint32",
        [TK_U64] = "uint64", [TK_F8E4M3] = "float8e4nv", [TK_F8E5M2] = "float8e5",
        [TK_F16] = "float16", [TK_BF16] = "bfloat16", [TK_F32] = "float32", [TK_F64] = "float64",
    };
    return d < TK_DTYPE_COUNT ? names[d] : "?";
}

bool dtype_from_name(const char *name, tk_dtype *out) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++) {
        if (strcmp(dtype_names[i].name, name) == 0) {
            *out = dtype_names[i].dtype;
            return true;
        }
    }
    return false;
}

const tk_type *tk_type_scalar(tk_arena *arena, tk_dtype d) {
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_SCALAR;
    t->dtype = d;
    return t;
}

const tk_type *tk_type_void(tk_arena *arena) {
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_VOID;
    return t;
}

const tk_type *tk_type_pointer(tk_arena *arena, const tk_type *pointee) {
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_POINTER;
    t->elem = pointee;
    return t;
}

const tk_type *tk_type_tile(tk_arena *arena, const tk_type *elem, uint32_t rank, const int64_t *shape) {
    if (rank == 0) return elem;
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_TILE;
    t->elem = elem;
    t->rank = rank;
    memcpy(t->shape, shape, sizeof(int64_t) * rank);
    return t;
}

const tk_type *tk_type_block_ptr(tk_arena *arena, tk_dtype elem, uint32_t rank, const int64_t *shape) {
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_BLOCK_PTR;
    t->elem = tk_type_scalar(arena, elem);
    t->rank = rank;
    memcpy(t->shape, shape, sizeof(int64_t) * rank);
    return t;
}

const tk_type *tk_type_tensor_desc(tk_arena *arena, tk_dtype elem, uint32_t rank, const int64_t *shape, bool pad_nan) {
    tk_type *t = (tk_type *)tk_type_block_ptr(arena, elem, rank, shape);
    t->descriptor = pad_nan ? TK_DESC_PAD_NAN : TK_DESC_PAD_ZERO;
    return t;
}

const tk_type *tk_type_tuple(tk_arena *arena, uint32_t count, const tk_type **items) {
    tk_type *t = TK_NEW(arena, tk_type);
    t->kind = TK_TYPE_TUPLE;
    t->count = count;
    t->items = TK_NEW_ARRAY(arena, const tk_type *, count ? count : 1);
    memcpy(t->items, items, sizeof *items * count);
    return t;
}

const tk_type *ty_elem(const tk_type *t) { return t->kind == TK_TYPE_TILE ? t->elem : t; }
uint32_t ty_rank(const tk_type *t) { return t->kind == TK_TYPE_TILE ? t->rank : 0; }
const int64_t *ty_shape(const tk_type *t) { return t->shape; }
bool ty_is_tile(const tk_type *t) { return t->kind == TK_TYPE_TILE; }
bool ty_elem_is_pointer(const tk_type *t) { return ty_elem(t)->kind == TK_TYPE_POINTER; }

const tk_type *ty_with_elem(checker *c, const tk_type *like, const tk_type *elem) {
    return tk_type_tile(c->arena, elem, ty_rank(like), like->shape);
}

bool tk_type_equal(const tk_type *a, const tk_type *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
    case TK_TYPE_VOID: return true;
    case TK_TYPE_SCALAR: return a->dtype == b->dtype;
    case TK_TYPE_POINTER: return tk_type_equal(a->elem, b->elem);
    case TK_TYPE_TILE:
    case TK_TYPE_BLOCK_PTR:
        return a->rank == b->rank && a->descriptor == b->descriptor && memcmp(a->shape, b->shape, sizeof(int64_t) * a->rank) == 0 &&
               tk_type_equal(a->elem, b->elem);
    case TK_TYPE_TUPLE:
        if (a->count != b->count) return false;
        for (uint32_t i = 0; i < a->count; i++)
            if (!tk_type_equal(a->items[i], b->items[i])) return false;
        return true;
    }
    return false;
}

static void print_shape(FILE *out, uint32_t rank, const int64_t *shape) {
    fputc('[', out);
    for (uint32_t i = 0; i < rank; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)shape[i]);
    fputc(']', out);
}

void tk_type_print(FILE *out, const tk_type *t) {
    switch (t->kind) {
    case TK_TYPE_VOID: fputs("void", out); break;
    case TK_TYPE_SCALAR: fputs(tk_dtype_name(t->dtype), out); break;
    case TK_TYPE_POINTER: fputc('*', out); tk_type_print(out, t->elem); break;
    case TK_TYPE_TILE:
        tk_type_print(out, t->elem);
        print_shape(out, t->rank, t->shape);
        break;
    case TK_TYPE_BLOCK_PTR:
        fputs(t->descriptor ? "tensor_descriptor<" : "blockptr<", out);
        tk_type_print(out, t->elem);
        if (t->rank) print_shape(out, t->rank, t->shape); /* rank 0: a parameter's, its block not known yet */
        if (t->descriptor == TK_DESC_PAD_NAN) fputs(", padding nan", out);
        fputc('>', out);
        break;
    case TK_TYPE_TUPLE:
        fputc('(', out);
        for (uint32_t i = 0; i < t->count; i++) {
            if (i) fputs(", ", out);
            tk_type_print(out, t->items[i]);
        }
        if (t->count == 1) fputc(',', out);
        fputc(')', out);
        break;
    }
}

const char *tk_type_str(tk_arena *arena, const tk_type *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return "?";
    tk_type_print(f, t);
    fclose(f);
    const char *s = tk_arena_strndup(arena, buf, len);
    free(buf);
    return s;
}

int64_t dtype_int_min(tk_dtype d) {
    if (!tk_dtype_is_signed(d) || d == TK_I1) return 0;
    return tk_dtype_bits(d) == 64 ? INT64_MIN : -((int64_t)1 << (tk_dtype_bits(d) - 1));
}

uint64_t dtype_int_max(tk_dtype d) {
    unsigned bits = tk_dtype_bits(d);
    if (d == TK_I1) return 1;
    if (tk_dtype_is_signed(d)) return ((uint64_t)1 << (bits - 1)) - 1;
    return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

bool literal_dtype(const value *v, tk_dtype *out) {
    switch (v->kind) {
    case V_BOOL: *out = TK_I1; return true;
    case V_INT:
        /* an i64 holds every literal we keep; [2^31, 2^32) is u32 as in Triton */
        if (v->u.i >= INT32_MIN && v->u.i <= INT32_MAX) *out = TK_I32;
        else if (v->u.i > 0 && v->u.i <= (int64_t)UINT32_MAX) *out = TK_U32;
        else *out = TK_I64;
        return true;
    case V_FLOAT: {
        double a = fabs(v->u.f);
        bool fits_f32 = a == 0 || isinf(a) || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127);
        *out = fits_f32 ? TK_F32 : TK_F64;
        return true;
    }
    default: return false;
    }
}

/* bool < int < float, as Triton ranks a constexpr against a tile's dtype */
static int dtype_kind_rank(tk_dtype d) {
    if (d == TK_I1) return 0;
    return tk_dtype_is_float(d) ? 2 : 1;
}

static bool is_f8(tk_dtype d) { return d == TK_F8E4M3 || d == TK_F8E5M2; }

tk_dtype int_promote(tk_dtype a, tk_dtype b) {
    unsigned wa = tk_dtype_bits(a), wb = tk_dtype_bits(b);
    bool sa = tk_dtype_is_signed(a), sb = tk_dtype_is_signed(b);
    if (sa == sb) return wa > wb ? a : b;
    tk_dtype u = sa ? b : a, s = sa ? a : b;
    return tk_dtype_bits(u) >= tk_dtype_bits(s) ? u : s;
}

tk_dtype promote_dtypes(tk_dtype a, bool lit_a, tk_dtype b, bool lit_b, bool div_or_mod,
                        const char **error) {
    *error = NULL;
    if (lit_a != lit_b) {
        tk_dtype lit = lit_a ? a : b, tile = lit_a ? b : a;
        if (dtype_kind_rank(lit) <= dtype_kind_rank(tile)) {
            if (div_or_mod && (tile == TK_F16 || tile == TK_BF16)) return TK_F32;
            return tile;
        }
    }
    if (a == TK_F64 || b == TK_F64) return TK_F64;
    if (a == TK_F32 || b == TK_F32) return TK_F32;
    if (a == TK_F16 || b == TK_F16) return div_or_mod ? TK_F32 : TK_F16;
    if (a == TK_BF16 && b == TK_BF16) return div_or_mod ? TK_F32 : TK_BF16;
    if (a == TK_BF16 || b == TK_BF16) return TK_F32;
    if (is_f8(a) && is_f8(b)) return a == b ? a : TK_F16;
    if (is_f8(a) || is_f8(b)) {
        *error = "fp8 values take part in arithmetic only with fp8 or wider floats; convert "
                 "with .to(tl.float32) first";
        return TK_F32;
    }
    if (div_or_mod && tk_dtype_is_signed(a) != tk_dtype_is_signed(b)) {
        *error = "'/', '//' and '%' need operands of the same signedness; convert one with .to()";
        return a;
    }
    return int_promote(a, b);
}
