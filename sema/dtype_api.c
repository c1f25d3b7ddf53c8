/* Triton's dtype introspection, on compile-time dtypes: the predicates
 * (x.dtype.is_floating(), tl.float16.is_fp16(), ...) and the attributes
 * (.primitive_bitwidth, .int_bitwidth, .fp_mantissa_width, .name), with
 * Triton 3.6's meanings. Kernels generic over their element types branch
 * on them at compile time.
 *
 * Needs: value.c. Guarantees: a constant, or V_ERROR reported. */
#include "builtin.h"

#include <string.h>

typedef struct predicate {
    const char *name;
    bool (*holds)(tk_dtype d);
} predicate;

static bool is_fp8(tk_dtype d) { return d == TK_F8E4M3 || d == TK_F8E5M2; }
static bool is_fp8e4nv(tk_dtype d) { return d == TK_F8E4M3; }
static bool is_fp8e5(tk_dtype d) { return d == TK_F8E5M2; }
static bool is_fp16(tk_dtype d) { return d == TK_F16; }
static bool is_bf16(tk_dtype d) { return d == TK_BF16; }
static bool is_fp32(tk_dtype d) { return d == TK_F32; }
static bool is_fp64(tk_dtype d) { return d == TK_F64; }
static bool is_int1(tk_dtype d) { return d == TK_I1; }
static bool is_int8(tk_dtype d) { return d == TK_I8; }
static bool is_int16(tk_dtype d) { return d == TK_I16; }
static bool is_int32(tk_dtype d) { return d == TK_I32; }
static bool is_int64(tk_dtype d) { return d == TK_I64; }
static bool is_uint8(tk_dtype d) { return d == TK_U8; }
static bool is_uint16(tk_dtype d) { return d == TK_U16; }
static bool is_uint32(tk_dtype d) { return d == TK_U32; }
static bool is_uint64(tk_dtype d) { return d == TK_U64; }
static bool is_floating(tk_dtype d) { return tk_dtype_is_float(d); }
static bool is_standard_floating(tk_dtype d) { return d == TK_F16 || d == TK_F32 || d == TK_F64; }
static bool is_int(tk_dtype d) { return tk_dtype_is_int(d); }
/* Triton counts int1 among the signed integers */
static bool is_int_signed(tk_dtype d) { return tk_dtype_is_int(d) && (tk_dtype_is_signed(d) || d == TK_I1); }
static bool is_int_unsigned(tk_dtype d) { return tk_dtype_is_int(d) && !is_int_signed(d); }
static bool is_bool(tk_dtype d) { return d == TK_I1; }
static bool never(tk_dtype d) { return (void)d, false; }

static const predicate predicates[] = {
    {"is_fp8", is_fp8}, {"is_fp8e4nv", is_fp8e4nv}, {"is_fp8e5", is_fp8e5}, {"is_fp16", is_fp16},
    {"is_bf16", is_bf16}, {"is_fp32", is_fp32}, {"is_fp64", is_fp64}, {"is_int1", is_int1},
    {"is_int8", is_int8}, {"is_int16", is_int16}, {"is_int32", is_int32}, {"is_int64", is_int64},
    {"is_uint8", is_uint8}, {"is_uint16", is_uint16}, {"is_uint32", is_uint32}, {"is_uint64", is_uint64},
    {"is_floating", is_floating}, {"is_standard_floating", is_standard_floating}, {"is_int", is_int},
    {"is_int_signed", is_int_signed}, {"is_int_unsigned", is_int_unsigned}, {"is_bool", is_bool},
    {"is_void", never}, {"is_block", never}, {"is_fp8e4b15", never}, {"is_fp8e4b8", never},
    {"is_fp8e5b16", never},
};

int dtype_predicate_index(const char *name) {
    for (size_t i = 0; i < sizeof predicates / sizeof predicates[0]; i++)
        if (strcmp(predicates[i].name, name) == 0) return (int)i;
    /* is_ptr on a pointer dtype is answered by the caller */
    return strcmp(name, "is_ptr") == 0 ? -2 : -1;
}

value dtype_predicate(checker *c, const value *dtype, int index, uint32_t nargs, tk_loc loc) {
    if (nargs) {
        sema_error(c, loc, "a dtype's %s() takes no arguments",
                   index >= 0 ? predicates[index].name : "is_ptr");
        return v_error();
    }
    if (dtype->block) return v_bool(loc, index >= 0 && strcmp(predicates[index].name, "is_block") == 0);
    if (index == -2 || dtype->count) return v_bool(loc, index == -2 && dtype->count > 0);
    return v_bool(loc, predicates[index].holds(dtype->u.dtype));
}

/* Triton's names: fp16, bf16, fp32, int32, uint8, int1, fp8e4nv, fp8e5 */
static const char *triton_name(tk_dtype d) {
    switch (d) {
    case TK_I1: return "int1";
    case TK_I8: return "int8";
    case TK_I16: return "int16";
    case TK_I32: return "int32";
    case TK_I64: return "int64";
    case TK_U8: return "uint8";
    case TK_U16: return "uint16";
    case TK_U32: return "uint32";
    case TK_U64: return "uint64";
    case TK_F8E4M3: return "fp8e4nv";
    case TK_F8E5M2: return "fp8e5";
    case TK_F16: return "fp16";
    case TK_BF16: return "bf16";
    case TK_F32: return "fp32";
    case TK_F64: return "fp64";
    default: return "?";
    }
}

static unsigned mantissa_bits(tk_dtype d) {
    switch (d) {
    case TK_F8E4M3: return 3;
    case TK_F8E5M2: return 2;
    case TK_F16: return 10;
    case TK_BF16: return 7;
    case TK_F32: return 23;
    case TK_F64: return 52;
    default: return 0;
    }
}

bool dtype_attribute(checker *c, const value *dtype, const char *name, tk_loc name_loc, tk_loc loc, value *out) {
    tk_dtype d = dtype->u.dtype;
    if (strcmp(name, "primitive_bitwidth") == 0) {
        *out = v_int(loc, tk_dtype_bits(d));
    } else if (strcmp(name, "int_bitwidth") == 0 || strcmp(name, "fp_mantissa_width") == 0) {
        bool want_int = name[0] == 'i';
        if (want_int ? !tk_dtype_is_int(d) : !tk_dtype_is_float(d)) {
            sema_error(c, name_loc, "%s has no %s (it is not %s type)", v_describe(c, dtype), name,
                       want_int ? "an integer" : "a floating-point");
            *out = v_error();
        } else {
            *out = v_int(loc, want_int ? tk_dtype_bits(d) : mantissa_bits(d));
        }
    } else if (strcmp(name, "name") == 0) {
        value s = {.kind = V_STR, .loc = loc};
        s.u.str.text = triton_name(d);
        s.u.str.len = (uint32_t)strlen(s.u.str.text);
        *out = s;
    } else {
        return false;
    }
    return true;
}

/* tl.pointer_type(dtype): the dtype of a global pointer to it, which .to()
 * converts an i64 address (or another pointer) to. */
value b_pointer_type(checker *c, call *k) {
    const value *e = &k->args[0];
    if (e->kind == V_ERROR) return v_error();
    if (e->kind != V_DTYPE) {
        sema_error(c, e->loc, "tl.pointer_type takes a dtype (tl.pointer_type(tl.float16)), not %s",
                   v_describe(c, e));
        return v_error();
    }
    int64_t space = 1;
    if (given(k, 1) && !const_int(c, k, 1, &space)) return v_error();
    if (space != 1) {
        sema_error(c, k->args[1].loc, "only global pointers (address_space=1) are supported");
        return v_error();
    }
    bool is_const;
    if (!const_bool(c, k, 2, false, &is_const)) return v_error();
    value r = *e;
    r.loc = k->loc;
    r.count++;
    return r;
}

/* The table's checker: expr.c answers a predicate's call itself */
value b_dtype_predicate(checker *c, call *k) {
    sema_error(c, k->loc, "a dtype's predicate takes no arguments");
    return v_error();
}
