/* The launch header: the cubin and PTX embedded as byte arrays (strict C99
 * has no long string literals), a tkrt_kernel per variant, and for each
 * kernel one static inline C function taking exactly the runtime
 * parameters. It checks the signature's promises, picks the variant whose
 * @heuristics conditions hold, computes the grid in 64-bit arithmetic and
 * launches through runtime_stub. Compiles as C99 and C++ without CUDA
 * headers. Needs: the program after codegen (entry names known). */
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *c_type(const tk_type *t) {
    if (t->kind == TK_TYPE_POINTER) return "tk_ptr";
    switch (t->dtype) {
    case TK_I1: return "bool";
    case TK_I8: return "int8_t";
    case TK_I16: return "int16_t";
    case TK_I32: return "int32_t";
    case TK_I64: return "int64_t";
    case TK_U8: case TK_F8E4M3: case TK_F8E5M2: return "uint8_t";
    case TK_U16: case TK_F16: case TK_BF16: return "uint16_t";
    case TK_U32: return "uint32_t";
    case TK_U64: return "uint64_t";
    case TK_F32: return "float";
    case TK_F64: return "double";
    default: return "int32_t";
    }
}

/* A C string literal of text */
static void print_c_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const char *t = text; *t; t++) {
        if (*t == '"' || *t == '\\') fprintf(out, "\\%c", *t);
        else if (*t == '\n') fputs("\\n", out);
        else if ((unsigned char)*t < 0x20) fputc(' ', out);
        else fputc(*t, out);
    }
    fputc('"', out);
}

/* What a parameter's name in C code needs before it: "tk_p_" where the
 * name is a C or C++ keyword, a name the header's code uses itself
 * (stream, args, grid_x, a C type or macro) or reserved (tk_..., _X...);
 * "" for every other. Injective: a prefixed name starts with tk_, so no
 * name left as it is can equal one. Messages keep the name as written. */
static const char *c_prefix(const char *name) {
    static const char *const reserved[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
        "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t",
        "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await",
        "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
        "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
        "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
        "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
        "stream", "args", "grid_x", "grid_y", "grid_z", "NULL", "INT32_MIN", "INT32_MAX", "INT64_MIN", "INT64_MAX",
        "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
        "uintptr_t", "size_t", "ptrdiff_t", "memcpy", "memset", "strcmp", "strlen", "offsetof", "assert",
    };
    if (!strncmp(name, "tk", 2) || (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))))
        return "tk_p_";
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(name, reserved[i])) return "tk_p_";
    return "";
}

/* A pointer parameter's element type in the launcher's signature: C's
 * own, or the header's tk_f16/tk_bf16/tk_f8e4m3/tk_f8e5m2 (CUDA's __half,
 * __nv_bfloat16, __nv_fp8_* where their headers came first). */
const char *cg_element_c_type(const tk_type *pointer) {
    const tk_type *e = pointer->elem;
    if (!e || e->kind != TK_TYPE_SCALAR) return "void";
    switch (e->dtype) {
    case TK_F16: return "tk_f16";
    case TK_BF16: return "tk_bf16";
    case TK_F8E4M3: return "tk_f8e4m3";
    case TK_F8E5M2: return "tk_f8e5m2";
    default: return c_type(e);
    }
}

/* f16 and bf16 scalars are taken as float and rounded by the header */
static bool is_half_scalar(const tk_type *t) {
    return t->kind == TK_TYPE_SCALAR && (t->dtype == TK_F16 || t->dtype == TK_BF16);
}

/* Does some variant of the kernel at `from` write through runtime
 * parameter number `arg`? (stores and atomics; conservative) */
static bool writes_param(const tk_tir_program *program, uint32_t from, uint32_t arg) {
    const char *name = program->kernels.data[from]->sema->name;
    for (uint32_t j = from; j < program->kernels.len; j++)
        if (!strcmp(program->kernels.data[j]->sema->name, name) && tk_tir_writes_arg(program->kernels.data[j], arg))
            return true;
    return false;
}

const char *cg_launcher_scalar_type(const tk_sema_param *p) {
    return is_half_scalar(p->type) ? "float" : p->python_int ? "int64_t" : c_type(p->type);
}

bool cg_first_of_name(const tk_tir_program *program, uint32_t i) {
    for (uint32_t j = 0; j < i; j++)
        if (!strcmp(program->kernels.data[j]->sema->name, program->kernels.data[i]->sema->name)) return false;
    return true;
}

uint32_t cg_launch_params(const tk_tir_program *program, uint32_t i, cg_launch_param *out) {
    const tk_sema_kernel *sk = program->kernels.data[i]->sema;
    uint32_t n = 0, arg = 0;
    for (uint32_t p = 0; p < sk->params.len; p++) {
        const tk_sema_param *sp = &sk->params.data[p];
        if (sp->is_constexpr) continue;
        if (!sp->computed && !sp->num_sms)
            out[n++] = (cg_launch_param){sp, arg, (sp->type->kind == TK_TYPE_POINTER || sp->type->kind == TK_TYPE_BLOCK_PTR) &&
                                                      writes_param(program, i, arg)};
        arg++;
    }
    return n;
}

static bool is_float_sx(const tk_sx *x) {
    return x->type->kind == TK_TYPE_SCALAR && tk_dtype_is_float(x->type->dtype);
}

static bool print_args(FILE *out, const tk_sx *x, const char *open, const char *sep, const char *close);

/* A host expression (grid, heuristic condition) in C: integers in int64_t
 * (arithmetic that wraps, never undefined), floats in double. Division,
 * remainder and shifts go through helpers that set tk_bad instead of
 * trapping; the launcher then refuses the launch. Sema's host_printable
 * admits exactly what this prints; anything else returns false. */
static bool print_c(FILE *out, const tk_sx *x) {
    bool flt = is_float_sx(x);
    switch (x->kind) {
    case TK_SX_CONST:
        if (flt) {
            char text[64];
            snprintf(text, sizeof text, "%.17g", x->value.f);
            fprintf(out, "%s%s", text, strpbrk(text, ".en") ? "" : ".0");
        } else if (x->value.i == INT64_MIN) {
            fputs("(-(int64_t)9223372036854775807 - 1)", out);
        } else {
            fprintf(out, "(int64_t)%" PRId64, x->value.i);
        }
        return true;
    case TK_SX_VAR:
        if (x->var->type->kind == TK_TYPE_POINTER) /* an optional pointer */
            fprintf(out, "(%s%s != 0)", c_prefix(x->var->name), x->var->name);
        else fprintf(out, flt ? "(double)%s%s" : "(int64_t)%s%s", c_prefix(x->var->name), x->var->name);
        return true;
    case TK_SX_UNARY: {
        const char *op = x->op == TK_UNOP_NEG ? (flt ? "(-" : "(int64_t)(0u - (uint64_t)")
                         : x->op == TK_UNOP_NOT ? "(int64_t)(!" : x->op == TK_UNOP_INVERT ? "(~" : NULL;
        if (!op) return false;
        return print_args(out, x, op, "", ")");
    }
    case TK_SX_CAST: {
        const tk_sx *a = x->args.data[0];
        if (x->type->kind != TK_TYPE_SCALAR) return false;
        tk_dtype d = x->type->dtype;
        static const char *const to[TK_DTYPE_COUNT] = {
            [TK_I8] = "int8_t", [TK_I16] = "int16_t", [TK_I32] = "int32_t", [TK_I64] = "int64_t",
            [TK_U8] = "uint8_t", [TK_U16] = "uint16_t", [TK_U32] = "uint32_t", [TK_U64] = "uint64_t",
            [TK_F32] = "float", [TK_F64] = "double",
        };
        if (d == TK_I1) return print_args(out, x, "(int64_t)(", "", " != 0)");
        if (!to[d]) return false;
        fprintf(out, flt ? "(double)(%s)" : "(int64_t)(%s)", to[d]);
        (void)a;
        return print_args(out, x, "(", "", ")");
    }
    case TK_SX_BINARY: {
        if (x->args.len != 2) return false;
        bool operands_flt = is_float_sx(x->args.data[0]);
        bool uns = !operands_flt && !tk_dtype_is_signed(x->args.data[0]->type->dtype);
        const char *helper = NULL, *infix = NULL;
        switch (x->op) {
        case TK_BINOP_ADD: infix = "+"; break;
        case TK_BINOP_SUB: infix = "-"; break;
        case TK_BINOP_MUL: infix = "*"; break;
        case TK_BINOP_DIV: infix = operands_flt ? "/" : NULL; break;
        case TK_BINOP_FLOORDIV: helper = operands_flt ? NULL : "tk__div"; break;
        case TK_BINOP_MOD: helper = operands_flt ? NULL : "tk__rem"; break;
        case TK_BINOP_SHL: helper = "tk__shl"; break;
        case TK_BINOP_SHR: helper = uns ? "tk__lshr" : "tk__ashr"; break;
        /* on booleans as && and ||: Python's `n > 0 and m // n > 2`
         * must not divide when n is 0 */
        case TK_BINOP_AND: infix = x->type->dtype == TK_I1 ? "&&" : "&"; break;
        case TK_BINOP_OR: infix = x->type->dtype == TK_I1 ? "||" : "|"; break;
        case TK_BINOP_XOR: infix = "^"; break;
        case TK_BINOP_LT: infix = "<"; break;
        case TK_BINOP_GT: infix = ">"; break;
        case TK_BINOP_LE: infix = "<="; break;
        case TK_BINOP_GE: infix = ">="; break;
        case TK_BINOP_EQ: infix = "=="; break;
        case TK_BINOP_NE: infix = "!="; break;
        default: break;
        }
        const tk_sx *d = x->args.data[1];
        if ((x->op == TK_BINOP_FLOORDIV || x->op == TK_BINOP_MOD) && d->kind == TK_SX_CONST && d->value.i != 0 &&
            d->value.i != -1) {
            /* a divisor that cannot trap: plain C */
            helper = NULL;
            infix = x->op == TK_BINOP_FLOORDIV ? "/" : "%";
        }
        if (helper) {
            fprintf(out, "%s(", helper);
            if (!print_c(out, x->args.data[0])) return false;
            fputs(", ", out);
            if (!print_c(out, x->args.data[1])) return false;
            fputs(", &tk_bad)", out);
            return true;
        }
        if (!infix) return false;
        bool wraps = !operands_flt && (x->op == TK_BINOP_ADD || x->op == TK_BINOP_SUB || x->op == TK_BINOP_MUL);
        bool compare = (x->op >= TK_BINOP_LT && x->op <= TK_BINOP_NE) || infix[1] == '&' || infix[1] == '|';
        if (wraps) {
            /* two's complement, as the kernel's own integers */
            fputs("(int64_t)((uint64_t)", out);
            if (!print_c(out, x->args.data[0])) return false;
            fprintf(out, " %s (uint64_t)", infix);
            if (!print_c(out, x->args.data[1])) return false;
            fputc(')', out);
            return true;
        }
        /* f32 arithmetic rounds each result to float, as on the device */
        bool f32 = flt && x->type->dtype == TK_F32;
        fputs(compare ? "(int64_t)(" : f32 ? "(double)(float)(" : "(", out);
        if (!print_c(out, x->args.data[0])) return false;
        fprintf(out, " %s ", infix);
        if (!print_c(out, x->args.data[1])) return false;
        fputc(')', out);
        return true;
    }
    case TK_SX_SELECT:
        if (x->args.len != 3) return false;
        fputs("(", out);
        if (!print_c(out, x->args.data[0])) return false;
        fputs(" ? ", out);
        if (!print_c(out, x->args.data[1])) return false;
        fputs(" : ", out);
        if (!print_c(out, x->args.data[2])) return false;
        fputc(')', out);
        return true;
    case TK_SX_BUILTIN: {
        if (x->builtin == TK_B_NEXT_POWER_OF_2) return print_args(out, x, "tk__next_pow2(", "", ")");
        bool is_max = x->builtin == TK_B_MAXIMUM;
        if (!is_max && x->builtin != TK_B_MINIMUM) return false;
        const char *fn = flt ? (is_max ? "tk__fmax(" : "tk__fmin(") : (is_max ? "tk__max(" : "tk__min(");
        return print_args(out, x, fn, ", ", ")");
    }
    default:
        return false;
    }
}

static bool print_args(FILE *out, const tk_sx *x, const char *open, const char *sep, const char *close) {
    fputs(open, out);
    for (uint32_t i = 0; i < x->args.len; i++) {
        if (i) fputs(sep, out);
        if (!print_c(out, x->args.data[i])) return false;
    }
    fputs(close, out);
    return true;
}

static void emit_bytes(FILE *out, const char *name, const unsigned char *data, size_t len, bool nul) {
    fprintf(out, "static const unsigned char %s[%zu] = {", name, len + (nul ? 1 : 0));
    for (size_t i = 0; i < len; i++) fprintf(out, "%s%u,", i % 24 ? "" : "\n  ", data[i]);
    if (nul) fputs("0", out);
    fputs("\n};\n", out);
}

static const tk_cg_kernel_info *info_of(const tk_cg_output *c, const tk_tir_kernel *k) {
    for (uint32_t i = 0; i < c->kernels.len; i++)
        if (c->kernels.data[i].kernel == k) return &c->kernels.data[i];
    return NULL;
}

/* the parameters x reads, once each, in the order first read */
static void collect_vars(const tk_sx *x, const tk_sema_var **vars, uint32_t *n, uint32_t cap) {
    if (x->kind == TK_SX_VAR) {
        for (uint32_t i = 0; i < *n; i++)
            if (vars[i] == x->var) return;
        if (*n < cap) vars[(*n)++] = x->var;
        return;
    }
    for (uint32_t i = 0; i < x->args.len; i++) collect_vars(x->args.data[i], vars, n, cap);
}

/* does `name` appear in text as a whole identifier? */
static bool mentions(const char *text, const char *name) {
    size_t len = strlen(name);
    for (const char *t = strstr(text, name); t; t = strstr(t + 1, name)) {
        bool before = t > text && (t[-1] == '_' || (t[-1] >= '0' && t[-1] <= '9') || ((t[-1] | 32) >= 'a' && (t[-1] | 32) <= 'z'));
        char c = t[len];
        bool after = c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
        if (!before && !after) return true;
    }
    return false;
}

/* requires=: each condition checked before the launch; the message
 * quotes it with the values of the arguments and constexprs it names */
static bool emit_requirements(FILE *out, const tk_sema_kernel *sk, const char *indent) {
    bool ok = true;
    for (uint32_t r = 0; r < sk->requires.len; r++) {
        const struct tk_sema_requirement *req = &sk->requires.data[r];
        fprintf(out, "%s    if (!(", indent);
        ok &= print_c(out, req->cond);
        fprintf(out, ") || tk_bad)\n%s        return tkrt_requirement_failed(\"%s\", ", indent, sk->name);
        print_c_string(out, req->text);
        const tk_sema_var *vars[16];
        uint32_t nvars = 0;
        collect_vars(req->cond, vars, &nvars, 16);
        fputs(", \"", out);
        bool first = true;
        for (uint32_t v = 0; v < nvars; v++, first = false) {
            bool flt = tk_dtype_is_float(vars[v]->type->dtype);
            fprintf(out, "%s%s = %s", first ? "" : ", ", vars[v]->name, flt ? "%g" : "%lld");
        }
        for (uint32_t c = 0; c < sk->constexprs.len; c++) {
            const tk_sema_const_binding *b = &sk->constexprs.data[c];
            if (!mentions(req->text, b->name)) continue;
            fprintf(out, "%s%s = ", first ? "" : ", ", b->name);
            for (const char *t = b->value_text; *t; t++)
                fprintf(out, *t == '"' || *t == '\\' ? "\\%c" : *t == '%' ? "%%%c" : "%c", *t);
            first = false;
        }
        fputc('"', out);
        for (uint32_t v = 0; v < nvars; v++)
            fprintf(out, ", (%s)%s%s", tk_dtype_is_float(vars[v]->type->dtype) ? "double" : "long long",
                    c_prefix(vars[v]->name), vars[v]->name);
        fputs(");\n", out);
    }
    return ok;
}

/* sk's grid as the locals grid_x, grid_y and grid_z (int64_t) */
static bool emit_grid(FILE *out, const tk_sema_kernel *sk, const char *indent) {
    bool ok = true;
    for (uint32_t d = 0; d < 3; d++) {
        fprintf(out, "%s    int64_t grid_%c = ", indent, "xyz"[d]);
        if (d < sk->grid_rank) ok &= print_c(out, sk->grid[d]);
        else fputs("1", out);
        fputs(";\n", out);
    }
    return ok;
}

/* A launch of one variant: its requirements, its grid (a negative or too
 * large dimension is an error; an empty one goes to tkrt_launch, which
 * launches nothing), the launch. */
/* cuda.h's CUtensorMapDataType of an element type (its bits are what a
 * copy moves: fp8 and booleans as bytes) */
static int tensor_map_dtype(tk_dtype d) {
    switch (d) {
    case TK_F16: return 6;
    case TK_BF16: return 9;
    case TK_F32: return 7;
    case TK_F64: return 8;
    case TK_I32: return 3;
    case TK_U32: return 2;
    case TK_I64: return 5;
    case TK_U64: return 4;
    case TK_I16: case TK_U16: return 1;
    default: return 0; /* bytes */
    }
}

/* The tensor maps of the descriptors variant k copies by TMA, built into
 * their arguments before it launches (not for an empty grid, which
 * launches nothing) */
static void emit_tensor_maps(FILE *out, const tk_tir_kernel *k, const char *indent) {
    const tk_sema_kernel *sk = k->sema;
    for (uint32_t m = 0; m < k->tma_maps.len; m++) {
        const tk_tir_tma_map *map = &k->tma_maps.data[m];
        const tk_sema_param *sp = NULL;
        uint32_t arg = 0;
        for (uint32_t p = 0; p < sk->params.len && !sp; p++) {
            if (sk->params.data[p].is_constexpr) continue;
            if (arg++ == map->arg) sp = &sk->params.data[p];
        }
        if (!sp || sp->type->kind != TK_TYPE_BLOCK_PTR) continue;
        fprintf(out, "%s    if (grid_x && grid_y && grid_z) {\n"
                     "%s        static const unsigned tk_box[] = {%uu, %uu};\n"
                     "%s        tk_status tk_s = tkrt_tensor_map_encode((tkrt_tensor_arg *)args[%u], %uu, %d, %uu, tk_box, %uu, %d, "
                     "\"%s\", \"%s\");\n"
                     "%s        if (tk_s != TK_SUCCESS)\n%s            return tk_s;\n%s    }\n",
                indent, indent, map->box[0], map->box[1], indent, map->arg, sp->type->rank,
                tensor_map_dtype(sp->type->elem->dtype), tk_dtype_bits(sp->type->elem->dtype) / 8, map->swizzle_bytes,
                sp->type->descriptor == TK_DESC_PAD_NAN, sk->name, sp->name, indent, indent, indent);
    }
}

static bool emit_launch(FILE *out, const char *mod, const tk_tir_kernel *k, const char *entry,
                        const char *indent) {
    const tk_sema_kernel *sk = k->sema;
    bool ok = true;
    fprintf(out, "%s{\n", indent);
    /* this variant's heuristics computed from run-time arguments, into the
     * argument array (a tuner's candidate holds copies: both are set) */
    uint32_t arg = 0;
    for (uint32_t p = 0; p < sk->params.len; p++) {
        const tk_sema_param *sp = &sk->params.data[p];
        if (sp->is_constexpr) continue;
        if (sp->computed) {
            fprintf(out, "%s    %s%s = (%s)", indent, c_prefix(sp->name), sp->name, c_type(sp->type));
            ok &= print_c(out, sp->computed);
            fprintf(out, ";\n%s    *(%s *)args[%u] = %s%s;\n%s    if (tk_bad)\n%s        return tkrt_grid_invalid(\"%s\", 0, 0, 0, tk_bad);\n",
                    indent, c_type(sp->type), arg, c_prefix(sp->name), sp->name, indent, indent, sk->name);
        }
        arg++;
    }
    ok &= emit_requirements(out, sk, indent);
    ok &= emit_grid(out, sk, indent);
    fprintf(out, "%s    if (tk_bad || grid_x < 0 || grid_x > 2147483647 || grid_y < 0 || grid_y > 65535 || grid_z < 0 || grid_z > 65535)\n"
                 "%s        return tkrt_grid_invalid(\"%s\", grid_x, grid_y, grid_z, tk_bad);\n",
            indent, indent, sk->name);
    emit_tensor_maps(out, k, indent);
    fprintf(out, "%s    return tkrt_launch(&tk_%s__%s, stream, (unsigned)grid_x, (unsigned)grid_y, (unsigned)grid_z, args);\n",
            indent, mod, entry);
    fprintf(out, "%s}\n", indent);
    return ok;
}

/* The launches of kernel `name`'s variants from index `from` on (those
 * of autotune config `config`, or every one with -1): the first whose
 * @heuristics conditions and divisibility hold. */
static bool emit_choice(FILE *out, const char *mod, const tk_tir_program *program, const tk_cg_output *compiled,
                        uint32_t from, const char *name, int config) {
    bool ok = true;
    for (uint32_t j = from; j < program->kernels.len; j++) {
        const tk_tir_kernel *v = program->kernels.data[j];
        if (strcmp(v->sema->name, name) != 0 || (config >= 0 && v->sema->config != config)) continue;
        const tk_cg_kernel_info *info = info_of(compiled, v);
        if (!info) continue;
        const tk_sema_kernel *vs = v->sema;
        if (!vs->conditions.len && !v->assume_div16 && !v->assume_one) {
            ok &= emit_launch(out, mod, v, info->entry, "    ");
            break;
        }
        fputs("    if (", out);
        const char *and_ = ""; /* " && " after the first condition */
        for (uint32_t c = 0; c < vs->conditions.len; c++, and_ = " && ") {
            fprintf(out, "%s%s(", and_, vs->conditions.data[c].value ? "" : "!");
            ok &= print_c(out, vs->conditions.data[c].cond);
            fputc(')', out);
        }
        uint32_t arg = 0;
        for (uint32_t p = 0; p < vs->params.len; p++) {
            const tk_sema_param *sp = &vs->params.data[p];
            if (sp->is_constexpr) continue;
            if (arg < 64 && (v->assume_one >> arg & 1)) {
                fprintf(out, "%s(int64_t)%s%s == 1", and_, c_prefix(sp->name), sp->name);
                and_ = " && ";
            }
            if (arg < 64 && (v->assume_div16 >> arg & 1)) {
                fprintf(out, sp->type->kind == TK_TYPE_POINTER ? "%s(uintptr_t)%s%s %% 16 == 0" : "%s(int64_t)%s%s %% 16 == 0",
                        and_, c_prefix(sp->name), sp->name);
                and_ = " && ";
            }
            arg++;
        }
        fputs(")\n", out);
        ok &= emit_launch(out, mod, v, info->entry, "    ");
    }
    return ok;
}

/* For an autotuned kernel: where the grid of every config is empty (an
 * empty input), the launch that launches nothing, before any trial is
 * timed or any choice made for the key. */
static bool emit_empty_grid(FILE *out, const char *mod, const tk_tir_program *program,
                            const tk_cg_output *compiled, uint32_t from, const char *name) {
    bool ok = true;
    const char *entry = NULL;
    fputs("    {\n        int tk_empty = 1;\n", out);
    for (uint32_t j = from; j < program->kernels.len; j++) {
        const tk_tir_kernel *v = program->kernels.data[j];
        const tk_cg_kernel_info *info = info_of(compiled, v);
        if (strcmp(v->sema->name, name) != 0 || !info) continue;
        bool config_seen = false;
        for (uint32_t e = from; e < j && !config_seen; e++) {
            const tk_tir_kernel *u = program->kernels.data[e];
            config_seen = strcmp(u->sema->name, name) == 0 && info_of(compiled, u) && u->sema->config == v->sema->config;
        }
        if (config_seen) continue;
        if (!entry) entry = info->entry;
        fputs("        {\n", out);
        ok &= emit_grid(out, v->sema, "        ");
        fputs("            tk_empty &= !tk_bad && grid_x >= 0 && grid_y >= 0 && grid_z >= 0 &&\n"
              "                        (grid_x == 0 || grid_y == 0 || grid_z == 0);\n        }\n", out);
    }
    if (entry)
        fprintf(out, "        if (tk_empty)\n            return tkrt_launch(&tk_%s__%s, stream, 0, 0, 0, args);\n", mod,
                entry);
    fputs("        tk_bad = 0;\n    }\n", out);
    return ok;
}

/* The runtime parameters of sk as locals read from args (the candidate
 * functions' and size functions' first lines) */
static void emit_unpack(FILE *out, const tk_sema_kernel *sk) {
    uint32_t arg = 0;
    for (uint32_t p = 0; p < sk->params.len; p++) {
        const tk_sema_param *sp = &sk->params.data[p];
        if (sp->is_constexpr) continue;
        if (sp->type->kind == TK_TYPE_BLOCK_PTR) /* no host expression reads a descriptor */
            ;
        else if (is_half_scalar(sp->type))
            fprintf(out, "    float %s%s = tk__%s_to_f32(*(uint16_t *)args[%u]);\n    (void)%s%s;\n",
                    c_prefix(sp->name), sp->name, sp->type->dtype == TK_F16 ? "f16" : "bf16", arg, c_prefix(sp->name),
                    sp->name);
        else
            fprintf(out, "    %s %s%s = *(%s *)args[%u];\n    (void)%s%s;\n", c_type(sp->type), c_prefix(sp->name),
                    sp->name, c_type(sp->type), arg, c_prefix(sp->name), sp->name);
        arg++;
    }
}

/* 64-bit FNV-1a of the PTX: names the code a saved choice was made for */
static uint64_t code_hash(const tk_cg_output *compiled) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < compiled->ptx_len; i++) h = (h ^ (unsigned char)compiled->ptx[i]) * 1099511628211ull;
    return h;
}

/* For a kernel with more than one autotune config: a candidate function per
 * config, the sizes of the buffers the trials restore or zero, and the
 * tuner tkrt_tuned_launch reads. The trials write through every pointer the
 * kernel writes: each must be named in restore_value, reset_to_zero or
 * may_clobber, else (a warning) the launcher takes the first config. */
/* The --tune-table lines for kernel sk (kernel, source hash, device, keys,
 * config, tab-separated; # comments): a C initializer of its
 * tkrt_tune_choice entries. A line made for other code, with another
 * number of keys or a config past the last gets a warning and is left out. */
static uint32_t emit_choices(FILE *out, tk_diag *diag, const tk_sema_kernel *sk, const char *mod, const char *hash,
                             uint32_t nconfigs, const tk_cg_header_options *options) {
    uint32_t n = 0, line_no = 0;
    const char *p = options && options->tune_table ? options->tune_table : NULL;
    const char *path = options && options->tune_table_path ? options->tune_table_path : "the tune table";
    while (p && *p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[1024], *field[6] = {0};
        uint32_t nf = 0;
        line_no++;
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p = end ? end + 1 : p + len;
        for (char *q = line; nf < 6 && q; nf++) {
            field[nf] = q;
            q = strchr(q, '\t');
            if (q) *q++ = '\0';
        }
        if (line[0] == '#' || nf < 5 || strcmp(field[0], sk->name) != 0) continue;
        long long key[8];
        uint32_t nkeys = 0;
        for (char *k = field[3], *e; *k && nkeys < 8; nkeys++) {
            key[nkeys] = strtoll(k, &e, 10);
            if (e == k) break;
            k = *e == ',' ? e + 1 : e;
        }
        char *e;
        long config = strtol(field[4], &e, 10);
        if (strcmp(field[1], hash) != 0) {
            tk_warning(diag, TK_W_TUNE_TABLE, sk->loc, "%s:%u: the choice for '%s' was made for other code (source hash %s): "
                       "left out", path, line_no, sk->name, field[1]);
        } else if (nkeys != sk->autotune_key.len) {
            tk_warning(diag, TK_W_TUNE_TABLE, sk->loc, "%s:%u: the choice for '%s' has %u key values, not %u: left out", path,
                       line_no, sk->name, nkeys, sk->autotune_key.len);
        } else if (e == field[4] || config < 0 || config >= (long)nconfigs) {
            tk_warning(diag, TK_W_TUNE_TABLE, sk->loc, "%s:%u: the choice for '%s' names config %s of its %u: left out", path,
                       line_no, sk->name, field[4], nconfigs);
        } else {
            if (!n) fprintf(out, "static const tkrt_tune_choice tk_%s__%s__choices[] = {\n", mod, sk->name);
            fputs("    {", out);
            print_c_string(out, field[2]);
            fputs(", {", out);
            for (uint32_t k = 0; k < nkeys; k++) fprintf(out, "%s%lldLL", k ? ", " : "", key[k]);
            fprintf(out, "%s}, %ld},\n", nkeys ? "" : "0", config);
            n++;
        }
    }
    if (n) fputs("};\n", out);
    return n;
}

static bool emit_tuner(FILE *out, tk_diag *diag, const char *mod, const tk_tir_program *program,
                       const tk_cg_output *compiled, uint32_t from, const tk_cg_header_options *options,
                       const char *hash) {
    const tk_sema_kernel *sk = program->kernels.data[from]->sema;
    bool ok = true, tune = !(options && options->tune_off);
    int configs[64];
    const tk_sema_kernel *config_sema[64];
    const char *texts[64];
    uint32_t nconfigs = 0;
    bool any_keep = false, any_estimate = false;
    for (uint32_t j = from; j < program->kernels.len; j++) {
        const tk_tir_kernel *v = program->kernels.data[j];
        if (strcmp(v->sema->name, sk->name) != 0 || !info_of(compiled, v)) continue;
        bool seen = false;
        for (uint32_t c = 0; c < nconfigs; c++) seen |= configs[c] == v->sema->config;
        if (!seen && nconfigs < 64) {
            texts[nconfigs] = v->sema->config_text ? v->sema->config_text : "";
            config_sema[nconfigs] = v->sema;
            any_keep |= v->sema->prune_keep != NULL;
            any_estimate |= v->sema->prune_estimate != NULL;
            configs[nconfigs++] = v->sema->config;
        }
    }
    /* pointers the trials would clobber: said once for a kernel of
     * several dtype instances (one def, at one place) */
    bool said = false;
    for (uint32_t j = 0; j < from && !said; j++) {
        const tk_sema_kernel *o = program->kernels.data[j]->sema;
        said = o->loc.src == sk->loc.src && o->loc.line == sk->loc.line && o->loc.col == sk->loc.col;
    }
    uint32_t arg = 0;
    for (uint32_t p = 0; p < sk->params.len; p++) {
        const tk_sema_param *sp = &sk->params.data[p];
        if (sp->is_constexpr) continue;
        bool written = false, named = false;
        bool memory = sp->type->kind == TK_TYPE_POINTER || sp->type->kind == TK_TYPE_BLOCK_PTR; /* a descriptor */
        for (uint32_t j = from; j < program->kernels.len && memory; j++)
            if (!strcmp(program->kernels.data[j]->sema->name, sk->name))
                written |= tk_tir_writes_arg(program->kernels.data[j], arg);
        for (uint32_t t = 0; t < sk->tuned.len; t++) named |= !strcmp(sk->tuned.data[t].name, sp->name);
        if (written && !named) {
            if (!said)
                tk_warning(diag, TK_W_AUTOTUNE, sk->loc, "'%s' writes through '%s', which the autotune trials would clobber: "
                       "the launcher takes the first config without timing any; name '%s' in restore_value "
                       "or reset_to_zero (with its size), or in may_clobber if a trial may leave it "
                       "overwritten", sk->name, sp->name, sp->name);
            tune = false;
        }
        arg++;
    }
    for (uint32_t c = 0; c < nconfigs; c++) {
        fprintf(out, "static tk_status tk_%s__%s__c%u(tk_stream stream, void **args) {\n", mod, sk->name, c);
        emit_unpack(out, sk);
        fputs("    int tk_bad = 0;\n", out);
        ok &= emit_choice(out, mod, program, compiled, from, sk->name, configs[c]);
        fputs("    (void)tk_bad;\n    return TK_ERROR_INVALID_VALUE;\n}\n", out);
    }
    /* prune_configs_by: which configs are timed for these arguments */
    for (int estimate = 0; estimate < 2; estimate++) {
        if (!(estimate ? any_estimate : any_keep)) continue;
        fprintf(out, "static %s tk_%s__%s__%s(void **args, unsigned tk_config) {\n", estimate ? "double" : "int", mod,
                sk->name, estimate ? "estimate" : "keep");
        emit_unpack(out, sk);
        fprintf(out, "    int tk_bad = 0;\n    %s tk_value = %s;\n    switch (tk_config) {\n", estimate ? "double" : "int64_t",
                estimate ? "0" : "1");
        for (uint32_t c = 0; c < nconfigs; c++) {
            const tk_sx *x = estimate ? config_sema[c]->prune_estimate : config_sema[c]->prune_keep;
            if (!x) continue;
            fprintf(out, "    case %u: tk_value = %s", c, estimate ? "(double)(" : "(");
            ok &= print_c(out, x);
            fputs("); break;\n", out);
        }
        /* a division by zero or a shift out of range: not kept, or ranked last */
        fprintf(out, "    }\n    return tk_bad ? %s : tk_value%s;\n}\n", estimate ? "1e308" : "0",
                estimate ? "" : " != 0");
    }
    uint32_t nbuffers = 0;
    for (uint32_t t = 0; t < sk->tuned.len; t++) {
        const struct tk_sema_tuned *tb = &sk->tuned.data[t];
        if (tb->kind == TK_TUNED_CLOBBER) continue;
        const tk_sema_param *sp = NULL;
        for (uint32_t p = 0; p < sk->params.len; p++)
            if (!strcmp(sk->params.data[p].name, tb->name)) sp = &sk->params.data[p];
        unsigned bytes = sp && sp->type->elem ? (tk_dtype_bits(sp->type->elem->dtype) + 7) / 8 : 1;
        fprintf(out, "static unsigned long long tk_%s__%s__bytes%u(void **args) {\n", mod, sk->name, nbuffers++);
        emit_unpack(out, sk);
        fputs("    int tk_bad = 0;\n    int64_t tk_elements = ", out);
        ok &= print_c(out, tb->elements);
        fprintf(out, ";\n    return tk_bad || tk_elements < 0 ? 0 : (unsigned long long)tk_elements * %uu;\n}\n", bytes ? bytes : 1);
    }
    fprintf(out, "static const tkrt_config_fn tk_%s__%s__configs[] = {", mod, sk->name);
    for (uint32_t c = 0; c < nconfigs; c++) fprintf(out, "%stk_%s__%s__c%u", c ? ", " : "", mod, sk->name, c);
    fprintf(out, "};\nstatic const char *const tk_%s__%s__config_text[] = {", mod, sk->name);
    for (uint32_t c = 0; c < nconfigs; c++) {
        if (c) fputs(", ", out);
        print_c_string(out, texts[c]);
    }
    fputs("};\n", out);
    if (sk->autotune_key.len) {
        fprintf(out, "static const char *const tk_%s__%s__key_names[] = {", mod, sk->name);
        for (uint32_t key = 0; key < sk->autotune_key.len; key++)
            fprintf(out, "%s\"%s\"", key ? ", " : "", sk->autotune_key.data[key]);
        fputs("};\n", out);
    }
    if (nbuffers) {
        fprintf(out, "static const tkrt_tuned_buffer tk_%s__%s__buffers[] = {", mod, sk->name);
        uint32_t b = 0;
        for (uint32_t t = 0; t < sk->tuned.len; t++) {
            const struct tk_sema_tuned *tb = &sk->tuned.data[t];
            if (tb->kind == TK_TUNED_CLOBBER) continue;
            uint32_t index = 0;
            for (uint32_t p = 0; p < sk->params.len && strcmp(sk->params.data[p].name, tb->name); p++)
                index += !sk->params.data[p].is_constexpr;
            fprintf(out, "%s{%uu, %d, tk_%s__%s__bytes%u}", b ? ", " : "", index, tb->kind == TK_TUNED_RESET, mod,
                    sk->name, b);
            b++;
        }
        fputs("};\n", out);
    }
    uint32_t nchoices = emit_choices(out, diag, sk, mod, hash, nconfigs, options);
    fprintf(out, "tkrt_tuner tk_%s__%s__tuner =\n    TKRT_TUNER_INIT(\"%s\", \"%s\", %uu, tk_%s__%s__configs, "
                 "tk_%s__%s__config_text, %uu, ",
            mod, sk->name, sk->name, hash, nconfigs, mod, sk->name, mod, sk->name, sk->autotune_key.len);
    if (sk->autotune_key.len) fprintf(out, "tk_%s__%s__key_names, ", mod, sk->name);
    else fputs("NULL, ", out);
    if (nbuffers) fprintf(out, "%uu, tk_%s__%s__buffers, ", nbuffers, mod, sk->name);
    else fputs("0u, NULL, ", out);
    if (nchoices) fprintf(out, "%uu, tk_%s__%s__choices, ", nchoices, mod, sk->name);
    else fputs("0u, NULL, ", out);
    if (any_keep) fprintf(out, "tk_%s__%s__keep, ", mod, sk->name);
    else fputs("NULL, ", out);
    if (any_estimate) fprintf(out, "tk_%s__%s__estimate, %uu, ", mod, sk->name, sk->prune_top_k);
    else fputs("NULL, 0u, ", out);
    fprintf(out, "%.17g, %.17g, ", sk->tune_warmup_ms, sk->tune_rep_ms);
    fprintf(out, "%d);\n\n", tune);
    return ok;
}

/* Does kernel `name` (its variants from `from` on) have more than one
 * autotune config to choose from? */
static bool has_configs(const tk_tir_program *program, const tk_cg_output *compiled, uint32_t from, const char *name) {
    int first = -2;
    for (uint32_t j = from; j < program->kernels.len; j++) {
        const tk_tir_kernel *v = program->kernels.data[j];
        if (strcmp(v->sema->name, name) != 0 || !info_of(compiled, v) || v->sema->config < 0) continue;
        if (first == -2) first = v->sema->config;
        else if (v->sema->config != first) return true;
    }
    return false;
}

/* The build's record: a comment for people, macros for programs. */
static void emit_build_comment(FILE *out, const char *mod, const char *archs,
                               const tk_cg_header_options *options, const char *source_hash) {
    const char *defines = options->defines ? options->defines : "";
    fprintf(out, "/* Generated by tkc %s from %s.tk (source hash %s) for %s%s%s. Do not edit.\n"
                 " * Include after <cuda.h>/<cuda_runtime.h> (and <cuda_fp16.h>, <cuda_bf16.h> to pass\n"
                 " * __half and __nv_bfloat16 pointers) or on its own; link runtime_stub/tkrt.c.\n"
                 " * In exactly one C or C++ file of the program, #define TKC_IMPLEMENTATION before\n"
                 " * including it: that file holds the module (cubins, PTX) and the kernels' state. */\n",
            options->tkc_version ? options->tkc_version : "?", mod, source_hash, archs,
            *defines ? ", -D " : "", defines);
}

static void emit_build_macros(FILE *out, const char *sym, const char *archs,
                              const tk_cg_header_options *options, const char *source_hash) {
    const char *version = options->tkc_version ? options->tkc_version : "?";
    const char *defines = options->defines ? options->defines : "";
    fprintf(out, "#define TK_%s_TKC_VERSION \"%s\"\n#define TK_%s_SOURCE_HASH \"%s\"\n"
                 "#define TK_%s_ARCHS \"%s\"\n#define TK_%s_DEFINES ",
            sym, version, sym, source_hash, sym, archs, sym);
    print_c_string(out, defines);
    fputs("\n\n", out);
}

/* Element types of pointer parameters (overridable with TK_F16_TYPE, ...),
 * and the host's float <-> f16/bf16 conversions, rounding to nearest even
 * as Triton does for a Python float passed to an f16 parameter. */
static const char header_types[] =
    "#ifndef TK_F16_TYPE\n#ifdef __CUDA_FP16_TYPES_EXIST__\n#define TK_F16_TYPE __half\n#else\n"
    "#define TK_F16_TYPE uint16_t\n#endif\n#endif\n"
    "#ifndef TK_BF16_TYPE\n#ifdef __CUDA_BF16_TYPES_EXIST__\n#define TK_BF16_TYPE __nv_bfloat16\n#else\n"
    "#define TK_BF16_TYPE uint16_t\n#endif\n#endif\n"
    "#ifndef TK_F8E4M3_TYPE\n#ifdef __CUDA_FP8_TYPES_EXIST__\n#define TK_F8E4M3_TYPE __nv_fp8_e4m3\n"
    "#define TK_F8E5M2_TYPE __nv_fp8_e5m2\n#else\n#define TK_F8E4M3_TYPE uint8_t\n"
    "#define TK_F8E5M2_TYPE uint8_t\n#endif\n#endif\n"
    "#ifndef TK_ELEMENT_TYPES_DEFINED\n#define TK_ELEMENT_TYPES_DEFINED\n"
    "typedef TK_F16_TYPE tk_f16;\ntypedef TK_BF16_TYPE tk_bf16;\n"
    "typedef TK_F8E4M3_TYPE tk_f8e4m3;\ntypedef TK_F8E5M2_TYPE tk_f8e5m2;\n"
    "/* a CUdeviceptr (or any integer address) as the pointer a launcher takes */\n"
    "#define TK_DEVICE_PTR(T, dptr) ((T *)(uintptr_t)(dptr))\n"
    "static inline uint16_t tk__f32_to_f16(float f) {\n"
    "    uint32_t x, mag, sign, m, shift, r, rest, halfway;\n"
    "    memcpy(&x, &f, sizeof x);\n"
    "    sign = (x >> 16) & 0x8000u;\n"
    "    mag = x & 0x7fffffffu;\n"
    "    if (mag > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));\n"
    "    if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);\n"
    "    if (mag >= 0x38800000u) {\n"
    "        r = (mag >> 13) - (112u << 10);\n"
    "        rest = mag & 0x1fffu;\n"
    "        return (uint16_t)(sign | (r + (rest > 0x1000u || (rest == 0x1000u && (r & 1u)))));\n"
    "    }\n"
    "    shift = 126u - (mag >> 23);\n"
    "    if (shift > 24u) return (uint16_t)sign;\n"
    "    m = (mag & 0x7fffffu) | 0x800000u;\n"
    "    r = m >> shift;\n"
    "    rest = m & ((1u << shift) - 1u);\n"
    "    halfway = 1u << (shift - 1u);\n"
    "    return (uint16_t)(sign | (r + (rest > halfway || (rest == halfway && (r & 1u)))));\n"
    "}\n"
    "static inline uint16_t tk__f32_to_bf16(float f) {\n"
    "    uint32_t x;\n"
    "    memcpy(&x, &f, sizeof x);\n"
    "    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);\n"
    "    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);\n"
    "}\n"
    "static inline float tk__f16_to_f32(uint16_t h) {\n"
    "    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;\n"
    "    float f;\n"
    "    if (e == 31u) x = sign | 0x7f800000u | (m << 13);\n"
    "    else if (e) x = sign | ((e + 112u) << 23) | (m << 13);\n"
    "    else { f = (float)m * (1.0f / 16777216.0f); return sign ? -f : f; }\n"
    "    memcpy(&f, &x, sizeof f);\n"
    "    return f;\n"
    "}\n"
    "static inline float tk__bf16_to_f32(uint16_t h) {\n"
    "    uint32_t x = (uint32_t)h << 16;\n"
    "    float f;\n"
    "    memcpy(&f, &x, sizeof f);\n"
    "    return f;\n"
    "}\n"
    "#endif\n";

/* The entry `entry`'s info in a build, or NULL */
static const tk_cg_kernel_info *entry_in(const tk_cg_output *c, const char *entry) {
    for (uint32_t i = 0; i < c->kernels.len; i++)
        if (!strcmp(c->kernels.data[i].entry, entry)) return &c->kernels.data[i];
    return NULL;
}

/* The module and the kernels' state, defined once a program: cubins, the
 * newest target's PTX, and each entry's shared memory per image. */
static bool emit_implementation(FILE *out, tk_diag *diag, const char *sym, const tk_cg_build *builds,
                                uint32_t nbuilds, const char *build_id) {
    const tk_cg_output *compiled = builds[0].compiled, *newest = builds[nbuilds - 1].compiled;
    fprintf(out, "#if defined(TKC_IMPLEMENTATION) && !defined(TK_%s_%s_IMPLEMENTED)\n#define TK_%s_%s_IMPLEMENTED\n",
            sym, build_id, sym, build_id);
    fputs("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", out);
    char name[256];
    uint32_t nimages = 0;
    for (uint32_t b = 0; b < nbuilds; b++) {
        if (!builds[b].compiled->cubin) continue;
        snprintf(name, sizeof name, "tk_%s__cubin_%s", sym, builds[b].target->name);
        emit_bytes(out, name, builds[b].compiled->cubin, builds[b].compiled->cubin_len, false);
        nimages++;
    }
    snprintf(name, sizeof name, "tk_%s__ptx", sym);
    emit_bytes(out, name, (const unsigned char *)newest->ptx, newest->ptx_len, true);
    if (nimages) {
        fprintf(out, "static const tkrt_image tk_%s__images[] = {", sym);
        bool first = true;
        for (uint32_t b = 0; b < nbuilds; b++) {
            const tk_target *t = builds[b].target;
            if (!builds[b].compiled->cubin) continue;
            fprintf(out, "%s\n    {\"%s\", %uu, %uu, %d, tk_%s__cubin_%s, sizeof tk_%s__cubin_%s}", first ? "" : ",",
                    t->name, (unsigned)t->sm / 10, (unsigned)t->sm % 10, t->arch_specific, sym, t->name, sym, t->name);
            first = false;
        }
        fputs("};\n", out);
    }
    fprintf(out, "tkrt_module tk_%s__module =\n    TKRT_MODULE_INIT(", sym);
    if (nimages) fprintf(out, "tk_%s__images, %uu, ", sym, nimages);
    else fputs("NULL, 0u, ", out);
    fprintf(out, "(const char *)tk_%s__ptx, \"%s\");\n\n", sym, builds[nbuilds - 1].target->name);
    for (uint32_t i = 0; i < compiled->kernels.len; i++) {
        const tk_cg_kernel_info *info = &compiled->kernels.data[i];
        fprintf(out, "static const unsigned tk_%s__%s__shared[] = {", sym, info->entry);
        bool first = true;
        /* the images' order, then the PTX's (the newest build) */
        for (uint32_t b = 0; b <= nbuilds; b++) {
            uint32_t at = b < nbuilds ? b : nbuilds - 1;
            if (b < nbuilds && !builds[b].compiled->cubin) continue;
            const tk_cg_kernel_info *mine = entry_in(builds[at].compiled, info->entry);
            if (!mine) {
                tk_internal_error(diag, info->kernel->sema->loc, "kernel entry '%s' is missing from the %s build",
                                  info->entry, builds[at].target->name);
                return false;
            }
            fprintf(out, "%s%uu", first ? "" : ", ", mine->kernel->shared_bytes);
            first = false;
        }
        if (info->kernel->sema->launch_pdl)
            fprintf(out, "};\ntkrt_kernel tk_%s__%s =\n    TKRT_KERNEL_INIT_FLAGS(\"%s\", &tk_%s__module, %uu, tk_%s__%s__shared, "
                    "TKRT_KERNEL_PDL);\n", sym, info->entry, info->entry, sym, tk_tir_kernel_threads(info->kernel), sym, info->entry);
        else
            fprintf(out, "};\ntkrt_kernel tk_%s__%s =\n    TKRT_KERNEL_INIT(\"%s\", &tk_%s__module, %uu, tk_%s__%s__shared);\n",
                    sym, info->entry, info->entry, sym, tk_tir_kernel_threads(info->kernel), sym, info->entry);
    }
    fputc('\n', out);
    return true;
}

bool tk_cg_write_header(FILE *out, tk_diag *diag, const tk_cg_build *builds, uint32_t nbuilds, const char *mod,
                        const tk_cg_header_options *options) {
    bool ok = true;
    const tk_tir_program *program = builds[0].program;
    const tk_cg_output *compiled = builds[0].compiled;
    /* `sym` namespaces the header's own symbols; launchers are `launcher_prefix` + the kernel's name */
    const char *sym = options->prefix ? options->prefix : mod;
    char launcher_prefix[256] = "";
    if (options->prefix) snprintf(launcher_prefix, sizeof launcher_prefix, "%s_", options->prefix);
    const tk_source *src = program->kernels.len ? program->kernels.data[0]->sema->loc.src : NULL;
    char source_hash[32], code[32], build_id[32], archs[128] = "";
    snprintf(source_hash, sizeof source_hash, "%016llx",
             (unsigned long long)(src ? tk_hash_bytes(src->text, src->len) : 0));
    /* the code of every target: what a saved tuning choice was made for */
    uint64_t code_hashes = 0;
    for (uint32_t b = 0; b < nbuilds; b++) {
        code_hashes = code_hashes * 1099511628211ull ^ code_hash(builds[b].compiled);
        size_t at = strlen(archs);
        snprintf(archs + at, sizeof archs - at, "%s%s", b ? "," : "", builds[b].target->name);
    }
    snprintf(code, sizeof code, "%016llx", (unsigned long long)code_hashes);
    /* one guard per build: two builds of a module (other -D, another
     * target) are two headers, and including both says so in C, not by
     * one silently hiding the other */
    snprintf(build_id, sizeof build_id, "%016llx", (unsigned long long)(code_hashes ^ tk_hash_bytes(sym, strlen(sym))));
    emit_build_comment(out, mod, archs, options, source_hash);
    fprintf(out, "#ifndef TK_%s_%s_H\n#define TK_%s_%s_H\n\n", sym, build_id, sym, build_id);
    emit_build_macros(out, sym, archs, options, source_hash);
    fputs("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n#include \"tkrt.h\"\n\n",
          out);
    fputs("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", out);
    fputs(header_types, out);
    /* host arithmetic for grids and heuristics: a division by zero or a
     * shift out of range sets *bad (the launch is refused), never traps */
    fputs("#ifndef TK_HOST_MATH_DEFINED\n#define TK_HOST_MATH_DEFINED\n"
          "static inline int64_t tk__min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
          "static inline int64_t tk__max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
          "static inline double tk__fmin(double a, double b) { return a < b ? a : b; }\n"
          "static inline double tk__fmax(double a, double b) { return a > b ? a : b; }\n"
          "static inline int64_t tk__div(int64_t a, int64_t b, int *bad) {\n"
          "    if (b == 0 || (b == -1 && a == INT64_MIN)) { *bad = 1; return 0; }\n"
          "    return a / b;\n}\n"
          "static inline int64_t tk__rem(int64_t a, int64_t b, int *bad) {\n"
          "    if (b == 0) { *bad = 1; return 0; }\n"
          "    return b == -1 ? 0 : a % b;\n}\n"
          "static inline int64_t tk__shl(int64_t a, int64_t b, int *bad) {\n"
          "    if (b < 0 || b > 63) { *bad = 1; return 0; }\n"
          "    return (int64_t)((uint64_t)a << b);\n}\n"
          "static inline int64_t tk__ashr(int64_t a, int64_t b, int *bad) {\n"
          "    if (b < 0 || b > 63) { *bad = 1; return 0; }\n"
          "    return a < 0 ? (int64_t)~(~(uint64_t)a >> b) : (int64_t)((uint64_t)a >> b);\n}\n"
          "static inline int64_t tk__lshr(int64_t a, int64_t b, int *bad) {\n"
          "    if (b < 0 || b > 63) { *bad = 1; return 0; }\n"
          "    return (int64_t)((uint64_t)a >> b);\n}\n"
          "#endif\n"
          /* its own guard: a header of an older tkc in the same file has the block above without it */
          "#ifndef TK_HOST_NEXT_POW2_DEFINED\n#define TK_HOST_NEXT_POW2_DEFINED\n"
          "static inline int64_t tk__next_pow2(int64_t a) {\n"
          "    int64_t p = 1;\n    while (p < a && p < ((int64_t)1 << 62)) p <<= 1;\n    return p;\n}\n"
          "#endif\n\n", out);
    /* defined in the file that defines TKC_IMPLEMENTATION (below) */
    fprintf(out, "extern tkrt_module tk_%s__module;\n", sym);
    for (uint32_t i = 0; i < compiled->kernels.len; i++)
        fprintf(out, "extern tkrt_kernel tk_%s__%s;\n", sym, compiled->kernels.data[i].entry);
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const tk_tir_kernel *k = program->kernels.data[i];
        if (cg_first_of_name(program, i) && has_configs(program, compiled, i, k->sema->name))
            fprintf(out, "extern tkrt_tuner tk_%s__%s__tuner;\n", sym, k->sema->name);
    }
    fputc('\n', out);
    /* the tuners' parts go to the implementation */
    char *impl_text = NULL;
    size_t impl_len = 0;
    FILE *impl = open_memstream(&impl_text, &impl_len);
    if (!impl) {
        tk_error(diag, (tk_loc){0}, "out of memory writing the header");
        return false;
    }
    /* one function per kernel name, over its variants */
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const tk_tir_kernel *k = program->kernels.data[i];
        if (!cg_first_of_name(program, i)) continue;
        const tk_sema_kernel *sk = k->sema;
        bool tuned = has_configs(program, compiled, i, sk->name);
        if (tuned) ok &= emit_tuner(impl, diag, sym, program, compiled, i, options, code);
        fprintf(out, "static inline tk_status %s%s(tk_stream stream", launcher_prefix,
                sk->launcher_name ? sk->launcher_name : sk->name);
        cg_launch_param *launch = calloc(sk->params.len + 1, sizeof *launch);
        uint32_t nlaunch = launch ? cg_launch_params(program, i, launch) : 0;
        for (uint32_t p = 0; p < nlaunch; p++) {
            const tk_sema_param *sp = launch[p].param;
            if (sp->type->kind == TK_TYPE_POINTER)
                fprintf(out, ", %s%s *%s%s", launch[p].written ? "" : "const ", cg_element_c_type(sp->type),
                        c_prefix(sp->name), sp->name);
            else if (sp->type->kind == TK_TYPE_BLOCK_PTR)
                fprintf(out, ", tk_tensor %s%s", c_prefix(sp->name), sp->name);
            else
                fprintf(out, ", %s %s%s", cg_launcher_scalar_type(sp), c_prefix(sp->name), sp->name);
        }
        free(launch);
        if (!launch) {
            tk_error(diag, (tk_loc){0}, "out of memory writing the header");
            fclose(impl);
            free(impl_text);
            return false;
        }
        fputs(") {\n    int tk_bad = 0;\n", out);
        /* launch values: read from the device before anything uses them */
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (sp->is_constexpr || !sp->num_sms) continue;
            fprintf(out, "    int32_t %s%s;\n    {\n        int tk_n = 0;\n        tk_status tk_s = tkrt_num_sms(\"%s\", &tk_n);\n"
                         "        if (tk_s != TK_SUCCESS)\n            return tk_s;\n        %s%s = (int32_t)tk_n;\n    }\n",
                    c_prefix(sp->name), sp->name, sk->name, c_prefix(sp->name), sp->name);
        }
        /* the constexprs @heuristics computes from run-time arguments: set
         * by each variant's launch (emit_launch), as they may differ by config */
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (!sp->is_constexpr && sp->computed)
                fprintf(out, "    %s %s%s = 0;\n", c_type(sp->type), c_prefix(sp->name), sp->name);
        }
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (sp->is_constexpr || !sp->python_int) continue;
            /* `int`: taken as int64_t, passed as the kernel's i32 */
            const char *cp = c_prefix(sp->name);
            fprintf(out, "    if (%s%s < INT32_MIN || %s%s > INT32_MAX)\n        return tkrt_requirement_failed(\"%s\", "
                         "\"%s fits in i32 (annotated int)\", \"%s = %%lld\", (long long)%s%s);\n"
                         "    int32_t tk_arg_%s = (int32_t)%s%s;\n",
                    cp, sp->name, cp, sp->name, sk->name, sp->name, sp->name, cp, sp->name, sp->name, cp, sp->name);
        }
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (!sp->is_constexpr && is_half_scalar(sp->type))
                fprintf(out, "    uint16_t tk_arg_%s = tk__f32_to_%s(%s%s);\n", sp->name,
                        sp->type->dtype == TK_F16 ? "f16" : "bf16", c_prefix(sp->name), sp->name);
        }
        /* descriptors: the tensor checked and passed with room for a TMA
         * map, which the variant launched fills where it copies by TMA */
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (sp->is_constexpr || sp->type->kind != TK_TYPE_BLOCK_PTR) continue;
            fprintf(out, "    tkrt_tensor_arg tk_arg_%s;\n    {\n        tk_status tk_s = tkrt_tensor_arg_init(&tk_arg_%s, "
                         "&%s%s, %uu, %uu, \"%s\", \"%s\");\n        if (tk_s != TK_SUCCESS)\n            return tk_s;\n    }\n",
                    sp->name, sp->name, c_prefix(sp->name), sp->name, sp->type->rank, tk_dtype_bits(sp->type->elem->dtype) / 8,
                    sk->name, sp->name);
        }
        fputs("    void *args[] = {", out);
        bool any = false;
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (sp->is_constexpr) continue;
            fprintf(out, "%s(void *)&%s%s", any ? ", " : "",
                    is_half_scalar(sp->type) || sp->python_int || sp->type->kind == TK_TYPE_BLOCK_PTR ? "tk_arg_"
                                                                                               : c_prefix(sp->name),
                    sp->name);
            any = true;
        }
        if (!any) fputs("0", out);
        fputs("};\n", out);
        for (uint32_t p = 0; p < sk->params.len; p++) {
            const tk_sema_param *sp = &sk->params.data[p];
            if (sp->is_constexpr || sp->promise == TK_PROMISE_NONE || sp->promise == TK_PROMISE_OPTIONAL) continue;
            unsigned long long pv = (unsigned long long)sp->promise_value;
            const char *cp = c_prefix(sp->name);
            if (sp->type->kind == TK_TYPE_POINTER)
                fprintf(out, "    if ((uintptr_t)%s%s %% %lluu != 0)\n        return tkrt_promise_failed(TK_ERROR_MISALIGNED, \"%s\", \"%s\", (unsigned long long)(uintptr_t)%s%s, %lluu);\n",
                        cp, sp->name, pv, sk->name, sp->name, cp, sp->name, pv);
            else if (sp->promise == TK_PROMISE_DIVISIBLE)
                fprintf(out, "    if ((int64_t)%s%s %% %lld != 0)\n        return tkrt_promise_failed(TK_ERROR_NOT_DIVISIBLE, \"%s\", \"%s\", (unsigned long long)%s%s, %lluu);\n",
                        cp, sp->name, (long long)pv, sk->name, sp->name, cp, sp->name, pv);
            else
                fprintf(out, "    if (%s%s != 1)\n        return tkrt_promise_failed(TK_ERROR_NOT_ONE, \"%s\", \"%s\", (unsigned long long)%s%s, 1u);\n",
                        cp, sp->name, sk->name, sp->name, cp, sp->name);
        }
        if (tuned) {
            ok &= emit_empty_grid(out, sym, program, compiled, i, sk->name);
            fprintf(out, "    {\n        long long tk_key[] = {");
            for (uint32_t key = 0; key < sk->autotune_key.len; key++)
                fprintf(out, "%s(long long)%s%s", key ? ", " : "", c_prefix(sk->autotune_key.data[key]),
                        sk->autotune_key.data[key]);
            fprintf(out, "%s};\n        (void)tk_bad;\n        return tkrt_tuned_launch(&tk_%s__%s__tuner, stream, %s, args);\n    }\n",
                    sk->autotune_key.len ? "" : "0", sym, sk->name, sk->autotune_key.len ? "tk_key" : "NULL");
        } else {
            /* without configs to choose from: the first variant whose
             * conditions hold */
            ok &= emit_choice(out, sym, program, compiled, i, sk->name, -1);
        }
        fputs("    (void)tk_bad;\n    return TK_ERROR_INVALID_VALUE;\n}\n\n", out);
        if (!ok) {
            tk_internal_error(diag, sk->loc, "the launch header cannot compute the grid "
                     "or a heuristic of '%s' on the host", sk->name);
            fclose(impl);
            free(impl_text);
            return false;
        }
    }
    fputs("#ifdef __cplusplus\n}\n#endif\n\n#endif\n\n", out);
    fclose(impl);
    ok = emit_implementation(out, diag, sym, builds, nbuilds, build_id);
    if (ok) fwrite(impl_text, 1, impl_len, out);
    free(impl_text);
    if (ok) fputs("#ifdef __cplusplus\n}\n#endif\n#endif\n", out);
    return ok;
}
