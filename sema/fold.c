/* Constant evaluation: binary operators on constexprs with Python's rules
 * (floor division and modulo toward negative infinity, int/float/bool
 * mixing, comparisons, `in`, tuple concatenation). Needs: value.c.
 * Guarantees: an integer result past 64 bits is an error, not a wrapped
 * value. */
#include "internal.h"

#include <math.h>
#include <string.h>

value fold_error(checker *c, tk_loc loc, const char *msg) {
    sema_error(c, loc, "%s", msg);
    return v_error();
}

static int64_t py_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t py_mod(int64_t a, int64_t b) {
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

bool const_equal(const value *a, const value *b) {
    if (v_is_number(a) && v_is_number(b)) {
        if (a->kind == V_FLOAT || b->kind == V_FLOAT) return v_as_double(a) == v_as_double(b);
        return v_as_int(a) == v_as_int(b);
    }
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case V_NONE: return true;
    case V_STR: return a->u.str.len == b->u.str.len && memcmp(a->u.str.text, b->u.str.text, a->u.str.len) == 0;
    case V_DTYPE:
        return a->u.dtype == b->u.dtype && a->count == b->count && !a->block == !b->block &&
               (!a->block || tk_type_equal(a->block, b->block));
    case V_TUPLE:
        if (a->count != b->count) return false;
        for (uint32_t i = 0; i < a->count; i++)
            if (!const_equal(&a->items[i], &b->items[i])) return false;
        return true;
    case V_FUNC: case V_PYFUNC: return a->u.def == b->u.def;
    case V_BUILTIN: return a->u.builtin == b->u.builtin;
    default: return false;
    }
}

value fold_binary(checker *c, tk_binop op, const value *a, const value *b, tk_loc loc) {
    value r = v_error();
    r.loc = loc;
    r.origin = a->origin.src ? a->origin : b->origin;
    r.origin_name = a->origin.src ? a->origin_name : b->origin_name;
    if (op == TK_BINOP_EQ || op == TK_BINOP_NE || op == TK_BINOP_IS || op == TK_BINOP_IS_NOT) {
        bool eq = const_equal(a, b);
        bool want_eq = op == TK_BINOP_EQ || op == TK_BINOP_IS;
        value out = v_bool(loc, eq == want_eq);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    if (op == TK_BINOP_IN || op == TK_BINOP_NOT_IN) {
        if (b->kind != V_TUPLE) return fold_error(c, loc, "'in' needs a tuple or list on its right");
        bool found = false;
        for (uint32_t i = 0; i < b->count; i++) found |= const_equal(a, &b->items[i]);
        return v_bool(loc, found == (op == TK_BINOP_IN));
    }
    if (a->kind == V_STR && b->kind == V_STR && op == TK_BINOP_ADD) {
        char *s = tk_arena_alloc(c->arena, a->u.str.len + b->u.str.len + 1);
        memcpy(s, a->u.str.text, a->u.str.len);
        memcpy(s + a->u.str.len, b->u.str.text, b->u.str.len);
        r.kind = V_STR;
        r.u.str.text = s;
        r.u.str.len = a->u.str.len + b->u.str.len;
        return r;
    }
    if (a->kind == V_TUPLE && b->kind == V_TUPLE && op == TK_BINOP_ADD) {
        value t = v_tuple(c, loc, a->count + b->count);
        for (uint32_t i = 0; i < a->count; i++) t.items[i] = a->items[i];
        for (uint32_t i = 0; i < b->count; i++) t.items[a->count + i] = b->items[i];
        return t;
    }
    if (!v_is_number(a) || !v_is_number(b)) {
        sema_error(c, loc, "'%s' does not apply to %s and %s", tk_ast_binop_spelling(op),
                   v_describe(c, a), v_describe(c, b));
        return v_error();
    }
    bool is_float = a->kind == V_FLOAT || b->kind == V_FLOAT;
    bool is_cmp = op >= TK_BINOP_LT && op <= TK_BINOP_GE;
    if (is_cmp) {
        bool res;
        if (is_float) {
            double x = v_as_double(a), y = v_as_double(b);
            res = op == TK_BINOP_LT ? x < y : op == TK_BINOP_GT ? x > y : op == TK_BINOP_LE ? x <= y : x >= y;
        } else {
            int64_t x = v_as_int(a), y = v_as_int(b);
            res = op == TK_BINOP_LT ? x < y : op == TK_BINOP_GT ? x > y : op == TK_BINOP_LE ? x <= y : x >= y;
        }
        value out = v_bool(loc, res);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    if (op == TK_BINOP_DIV || (is_float && op != TK_BINOP_AND && op != TK_BINOP_OR &&
                               op != TK_BINOP_XOR && op != TK_BINOP_SHL && op != TK_BINOP_SHR)) {
        double x = v_as_double(a), y = v_as_double(b), z;
        switch (op) {
        case TK_BINOP_ADD: z = x + y; break;
        case TK_BINOP_SUB: z = x - y; break;
        case TK_BINOP_MUL: z = x * y; break;
        case TK_BINOP_DIV:
            if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
            z = x / y;
            break;
        case TK_BINOP_FLOORDIV:
            if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
            z = floor(x / y);
            break;
        case TK_BINOP_MOD:
            if (y == 0) return fold_error(c, loc, "modulo by zero in a constant expression");
            z = fmod(x, y);
            if (z != 0 && ((z < 0) != (y < 0))) z += y;
            break;
        case TK_BINOP_POW: z = pow(x, y); break;
        default:
            sema_error(c, loc, "'%s' does not apply to floating-point constants", tk_ast_binop_spelling(op));
            return v_error();
        }
        value out = v_float(loc, z);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    int64_t x = v_as_int(a), y = v_as_int(b), z = 0;
    bool overflow = false;
    switch (op) {
    case TK_BINOP_ADD: overflow = __builtin_add_overflow(x, y, &z); break;
    case TK_BINOP_SUB: overflow = __builtin_sub_overflow(x, y, &z); break;
    case TK_BINOP_MUL: overflow = __builtin_mul_overflow(x, y, &z); break;
    case TK_BINOP_FLOORDIV:
        if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
        if (x == INT64_MIN && y == -1) overflow = true; else z = py_floordiv(x, y);
        break;
    case TK_BINOP_MOD:
        if (y == 0) return fold_error(c, loc, "modulo by zero in a constant expression");
        z = y == -1 ? 0 : py_mod(x, y);
        break;
    case TK_BINOP_POW:
        if (y < 0) {
            value out = v_float(loc, pow((double)x, (double)y));
            return out;
        }
        z = 1;
        for (int64_t k = 0; k < y && !overflow; k++) overflow = __builtin_mul_overflow(z, x, &z);
        break;
    case TK_BINOP_SHL:
        if (y < 0 || y >= 63) overflow = true; else overflow = __builtin_mul_overflow(x, (int64_t)1 << y, &z);
        break;
    case TK_BINOP_SHR:
        if (y < 0) return fold_error(c, loc, "negative shift count in a constant expression");
        z = y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
        break;
    case TK_BINOP_AND: z = x & y; break;
    case TK_BINOP_OR: z = x | y; break;
    case TK_BINOP_XOR: z = x ^ y; break;
    default:
        sema_error(c, loc, "'%s' does not apply to constants", tk_ast_binop_spelling(op));
        return v_error();
    }
    if (overflow) return fold_error(c, loc, "constant expression overflows 64 bits");
    bool both_bool = a->kind == V_BOOL && b->kind == V_BOOL &&
                     (op == TK_BINOP_AND || op == TK_BINOP_OR || op == TK_BINOP_XOR);
    value out = both_bool ? v_bool(loc, z != 0) : v_int(loc, z);
    out.origin = r.origin;
    out.origin_name = r.origin_name;
    return out;
}
