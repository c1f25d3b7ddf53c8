/* Loads and stores through a pointer or a pointer tile, w registers an
 * access: the widest vector (up to 16 bytes) the layout's contiguous
 * registers and the pointer's axis facts (contiguity, divisibility) allow.
 * Plain LLVM loads and stores where nothing predicates them; masked
 * accesses, stores that one thread or one copy makes, and accesses with a
 * cache modifier or eviction hint are predicated inline PTX. A store acts
 * once per element: a scalar from the first thread, a replicated layout
 * from one copy.
 * Needs: layouts and axis info from lower/. Block pointers are reported
 * as not supported yet. */
#include "internal.h"

#include <string.h>

static unsigned elem_bytes(const tk_type *e) {
    if (e->kind == TK_TYPE_POINTER) return 8;
    unsigned b = (tk_dtype_bits(e->dtype) + 7) / 8;
    return b ? b : 1;
}

/* The memory type of an element: i1 is a byte in memory. */
LLVMTypeRef cg_mem_type(cg *c, const tk_type *pointee) {
    if (pointee->kind == TK_TYPE_POINTER) return c->t_ptr1;
    return pointee->dtype == TK_I1 ? c->t_i8 : cg_dtype_type(c, pointee->dtype);
}

/* tl.load(..., volatile=True): ld.volatile, which PTX gives no cache
 * modifier or eviction hint */
static bool is_volatile(const tk_tir_op *op) { return op->code == TIR_LOAD && tk_tir_attr_int(op, "volatile", 0); }

static const char *volatile_prefix(const tk_tir_op *op) { return is_volatile(op) ? ".volatile" : ""; }

/* the cache modifier and eviction hint of a load or store, as PTX
 * qualifiers: ".cg", ".L1::evict_first", ... */
static const char *cache_suffix(const tk_tir_op *op) {
    if (is_volatile(op)) return "";
    const char *cache = tk_tir_attr_text(op, "cache");
    const char *evict = tk_tir_attr_text(op, "eviction");
    if (evict && !strcmp(evict, "evict_first")) return cache && !strcmp(cache, ".cg") ? ".cg" : ".L1::evict_first";
    if (evict && !strcmp(evict, "evict_last")) return cache && !strcmp(cache, ".cg") ? ".cg" : ".L1::evict_last";
    if (!cache) return "";
    if (!strcmp(cache, ".ca")) return ".ca";
    if (!strcmp(cache, ".cg")) return ".cg";
    if (!strcmp(cache, ".cv")) return ".cv";
    if (!strcmp(cache, ".cs")) return ".cs";
    if (!strcmp(cache, ".wt")) return ".wt";
    if (!strcmp(cache, ".wb")) return ".wb";
    return "";
}

/* How many registers one access covers: consecutive registers holding
 * consecutive elements, limited by the pointer's contiguity and alignment
 * and by 16 bytes. */
uint32_t cg_access_dim(const tk_tir_value *ptr) {
    return ptr->type->kind == TK_TYPE_TILE && ptr->layout ? tk_ll_run_dim(ptr->layout) : 0;
}

uint32_t cg_access_width(const tk_tir_value *ptr, uint32_t d, unsigned bytes) {
    const tk_ll *l = ptr->layout;
    if (ptr->type->kind != TK_TYPE_TILE || !l || !ptr->has_axis) return 1;
    uint32_t w = tk_ll_contiguous_regs_along(l, d);
    if (w > 16 / bytes) w = 16 / bytes;
    while (w > 1 && ptr->contiguity[d] < (int64_t)w) w /= 2;
    while (w > 1 && ptr->divisibility[d] < (int64_t)(w * bytes)) w /= 2;
    return w;
}

/* elements <-> 32-bit words (w * bytes must be a multiple of 4) */
static void pack_words(cg *c, LLVMValueRef *elems, uint32_t w, LLVMTypeRef et, LLVMValueRef *words, uint32_t nw) {
    LLVMTypeRef vt = LLVMVectorType(et, w);
    LLVMValueRef v = LLVMGetPoison(vt);
    for (uint32_t i = 0; i < w; i++) v = LLVMBuildInsertElement(c->b, v, elems[i], cg_i32(c, i), "");
    LLVMValueRef wv = LLVMBuildBitCast(c->b, v, LLVMVectorType(c->t_i32, nw), "");
    for (uint32_t i = 0; i < nw; i++) words[i] = LLVMBuildExtractElement(c->b, wv, cg_i32(c, i), "");
}

static void unpack_words(cg *c, LLVMValueRef *words, uint32_t nw, LLVMTypeRef et, LLVMValueRef *elems, uint32_t w) {
    LLVMValueRef v = LLVMGetPoison(LLVMVectorType(c->t_i32, nw));
    for (uint32_t i = 0; i < nw; i++) v = LLVMBuildInsertElement(c->b, v, words[i], cg_i32(c, i), "");
    LLVMValueRef ev = LLVMBuildBitCast(c->b, v, LLVMVectorType(et, w), "");
    for (uint32_t i = 0; i < w; i++) elems[i] = LLVMBuildExtractElement(c->b, ev, cg_i32(c, i), "");
}

/* One element through inline PTX, predicated: scalar path of masked access. */
static const char *word_ptx(unsigned bytes, const char **constraint, LLVMTypeRef *t, cg *c) {
    switch (bytes) {
    case 8: *constraint = "l"; *t = c->t_i64; return "b64";
    case 4: *constraint = "r"; *t = c->t_i32; return "b32";
    case 2: *constraint = "h"; *t = c->t_i16; return "b16";
    default: *constraint = "h"; *t = c->t_i16; return "b8";
    }
}

static LLVMValueRef elem_to_bits(cg *c, LLVMValueRef v, LLVMTypeRef bits_t) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_ptr1) return LLVMBuildPtrToInt(c->b, v, c->t_i64, "");
    if (t == c->t_i8) return LLVMBuildZExt(c->b, v, bits_t, "");
    if (t == bits_t) return v;
    return LLVMBuildBitCast(c->b, v, bits_t, "");
}

static LLVMValueRef bits_to_elem(cg *c, LLVMValueRef v, LLVMTypeRef et) {
    if (et == c->t_ptr1) return LLVMBuildIntToPtr(c->b, v, et, "");
    if (et == c->t_i8) return LLVMBuildTrunc(c->b, v, et, "");
    if (LLVMTypeOf(v) == et) return v;
    return LLVMBuildBitCast(c->b, v, et, "");
}

LLVMValueRef cg_masked_load_scalar(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                   LLVMValueRef other, LLVMTypeRef et, unsigned bytes) {
    const char *cons;
    LLVMTypeRef wt;
    const char *w = word_ptx(bytes, &cons, &wt, c);
    char text[160], constraints[32];
    snprintf(text, sizeof text, "mov.%s $0, $3;\n\t@$2 ld%s.global%s.%s $0, [ $1 + 0 ];",
             bytes == 1 ? "b16" : w, volatile_prefix(op), cache_suffix(op), w);
    snprintf(constraints, sizeof constraints, "=%s,l,b,%s", cons, cons);
    LLVMValueRef args[3] = {addr, pred, elem_to_bits(c, other, wt)};
    return bits_to_elem(c, cg_asm_call(c, wt, text, constraints, args, 3, true), et);
}

static void masked_store_scalar(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                LLVMValueRef value, unsigned bytes) {
    const char *cons;
    LLVMTypeRef wt;
    const char *w = word_ptx(bytes, &cons, &wt, c);
    char text[128], constraints[32];
    snprintf(text, sizeof text, "@$0 st.global%s.%s [ $1 + 0 ], $2;", cache_suffix(op), w);
    snprintf(constraints, sizeof constraints, "b,l,%s", cons);
    LLVMValueRef args[3] = {pred, addr, elem_to_bits(c, value, wt)};
    cg_asm_call(c, c->t_void, text, constraints, args, 3, true);
}

static LLVMValueRef masked_load_words(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                      LLVMValueRef *other_words, uint32_t nw, LLVMValueRef *out_words) {
    char text[512], constraints[128];
    size_t n = 0, m = 0;
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "mov.b32 $%u, $%u;\n\t", i, nw + 2 + i);
    n += (size_t)snprintf(text + n, sizeof text - n, "@$%u ld%s.global%s%s.b32 ", nw + 1, volatile_prefix(op),
                          cache_suffix(op), nw == 1 ? "" : nw == 2 ? ".v2" : ".v4");
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "{");
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s$%u", i ? ", " : "", i);
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "}");
    snprintf(text + n, sizeof text - n, ", [ $%u + 0 ];", nw);
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, "=r,");
    m += (size_t)snprintf(constraints + m, sizeof constraints - m, "l,b");
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, ",r");
    LLVMValueRef args[8];
    args[0] = addr;
    args[1] = pred;
    for (uint32_t i = 0; i < nw; i++) args[2 + i] = other_words[i];
    LLVMTypeRef rt = c->t_i32;
    if (nw > 1) {
        LLVMTypeRef fields[4] = {c->t_i32, c->t_i32, c->t_i32, c->t_i32};
        rt = LLVMStructTypeInContext(c->ctx, fields, nw, 0);
    }
    LLVMValueRef r = cg_asm_call(c, rt, text, constraints, args, 2 + nw, true);
    for (uint32_t i = 0; i < nw; i++) out_words[i] = nw > 1 ? LLVMBuildExtractValue(c->b, r, i, "") : r;
    return r;
}

static void masked_store_words(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                               LLVMValueRef *words, uint32_t nw) {
    char text[256], constraints[64];
    size_t n = (size_t)snprintf(text, sizeof text, "@$0 st.global%s%s.b32 [ $1 + 0 ], ", cache_suffix(op),
                                nw == 1 ? "" : nw == 2 ? ".v2" : ".v4");
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "{");
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s$%u", i ? ", " : "", 2 + i);
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "}");
    snprintf(text + n, sizeof text - n, ";");
    size_t m = (size_t)snprintf(constraints, sizeof constraints, "b,l");
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, ",r");
    LLVMValueRef args[8];
    args[0] = pred;
    args[1] = addr;
    for (uint32_t i = 0; i < nw; i++) args[2 + i] = words[i];
    cg_asm_call(c, c->t_void, text, constraints, args, 2 + nw, true);
}

/* One access of w elements under pred: a scalar access, or the elements
 * packed into 32-bit words for one predicated vector access. */
static void predicated_access(cg *c, const tk_tir_op *op, bool is_load, LLVMValueRef addr, LLVMValueRef pred,
                              LLVMValueRef *elems, LLVMValueRef *others, uint32_t w, LLVMTypeRef et,
                              unsigned bytes) {
    if (w == 1) {
        if (is_load) elems[0] = cg_masked_load_scalar(c, op, addr, pred, others[0], et, bytes);
        else masked_store_scalar(c, op, addr, pred, elems[0], bytes);
        return;
    }
    uint32_t nw = w * bytes / 4;
    LLVMValueRef words[4];
    if (is_load) {
        LLVMValueRef other_words[4];
        pack_words(c, others, w, et, other_words, nw);
        masked_load_words(c, op, addr, pred, other_words, nw, words);
        unpack_words(c, words, nw, et, elems, w);
    } else {
        pack_words(c, elems, w, et, words, nw);
        masked_store_words(c, op, addr, pred, words, nw);
    }
}

/* Loads and stores, w registers an access. Without a mask: plain vector
 * accesses LLVM can see through. With a mask uniform over each vector: one
 * predicated vector access. Otherwise the vector access runs when the whole
 * vector is in bounds and element accesses cover the partial vector. */
void cg_emit_memory(cg *c, const tk_tir_op *op) {
    bool is_load = op->code == TIR_LOAD;
    const tk_tir_value *ptr = op->operands.data[0];
    if (ptr->type->kind == TK_TYPE_BLOCK_PTR || (ptr->type->kind == TK_TYPE_TILE && !ptr->layout)) {
        cg_not_yet(c, op, "a block-pointer load or store");
        return;
    }
    const tk_type *pointee = cg_elem_of(ptr->type)->elem;
    /* a pointer element (a table of pointers) moves as its 64-bit address */
    bool address = pointee->kind == TK_TYPE_POINTER;
    if (address) pointee = tk_type_scalar(c->arena, TK_I64);
    if (pointee->kind != TK_TYPE_SCALAR) {
        cg_not_yet(c, op, "loading or storing this element type");
        return;
    }
    LLVMTypeRef et = cg_mem_type(c, pointee);
    LLVMTypeRef vt = cg_dtype_type(c, pointee->dtype);
    unsigned bytes = elem_bytes(pointee);
    cgval *pv = cg_get(c, ptr);
    const tk_tir_value *mask = NULL, *other = NULL, *value = NULL;
    if (is_load) {
        if (op->operands.len > 1) mask = op->operands.data[1];
        if (op->operands.len > 2) other = op->operands.data[2];
    } else {
        value = op->operands.data[1];
        if (op->operands.len > 2) mask = op->operands.data[2];
    }
    cgval *mv = mask ? cg_get(c, mask) : NULL;
    cgval *ov = other ? cg_get(c, other) : NULL;
    cgval *vv = value ? cg_get(c, value) : NULL;
    uint32_t n = pv->n;
    uint32_t along = cg_access_dim(ptr), w = cg_access_width(ptr, along, bytes);
    if (w * bytes < 4) w = 1;
    bool uniform = !mask || w == 1 ||
                   (mask->has_axis && mask->constancy[mask->type->kind == TK_TYPE_TILE ? along : 0] >= (int64_t)w);
    cgval out = cg_newval(c, n);
    /* a store acts once per element, as Triton: a scalar from the first
     * thread, a replicated layout from one copy (cg_owner); the copies would
     * store the same value, but late, over another program's newer one */
    bool scalar = ptr->type->kind != TK_TYPE_TILE;
    LLVMValueRef first_thread =
        !is_load && scalar ? cg_is_first_thread(c)
                           : NULL;
    for (uint32_t r0 = 0; r0 < n; r0 += w) {
        LLVMValueRef addr = pv->r[r0];
        LLVMValueRef own = is_load ? NULL : scalar ? first_thread : cg_owner(c, ptr->layout, r0);
        if (own && LLVMIsAConstantInt(own) && LLVMConstIntGetZExtValue(own) == 1) own = NULL;
        LLVMValueRef elems[16];
        if (!is_load)
            for (uint32_t i = 0; i < w; i++) {
                LLVMValueRef x = vv->r[r0 + i];
                elems[i] = pointee->dtype == TK_I1 ? LLVMBuildZExt(c->b, x, c->t_i8, "")
                           : address ? LLVMBuildPtrToInt(c->b, x, c->t_i64, "") : x;
            }
        LLVMValueRef others[16];
        if (is_load)
            for (uint32_t i = 0; i < w; i++) {
                LLVMValueRef o = ov ? ov->r[r0 + i] : LLVMConstNull(vt);
                others[i] = pointee->dtype == TK_I1 ? LLVMBuildZExt(c->b, o, c->t_i8, "")
                            : address && ov ? LLVMBuildPtrToInt(c->b, o, c->t_i64, "") : o;
            }
        if (!mask && (*cache_suffix(op) || own)) {
            /* a hint: PTX has the qualifier, LLVM's load does not */
            predicated_access(c, op, is_load, addr, own ? own : LLVMConstInt(c->t_i1, 1, 0), elems, others, w, et,
                              bytes);
        } else if (!mask) {
            if (w == 1) {
                if (is_load) {
                    LLVMValueRef l = LLVMBuildLoad2(c->b, et, addr, "");
                    LLVMSetAlignment(l, bytes);
                    LLVMSetVolatile(l, is_volatile(op));
                    elems[0] = l;
                } else {
                    LLVMSetAlignment(LLVMBuildStore(c->b, elems[0], addr), bytes);
                }
            } else {
                LLVMTypeRef vec = LLVMVectorType(et, w);
                if (is_load) {
                    LLVMValueRef l = LLVMBuildLoad2(c->b, vec, addr, "");
                    LLVMSetAlignment(l, w * bytes);
                    LLVMSetVolatile(l, is_volatile(op));
                    for (uint32_t i = 0; i < w; i++) elems[i] = LLVMBuildExtractElement(c->b, l, cg_i32(c, i), "");
                } else {
                    LLVMValueRef v = LLVMGetPoison(vec);
                    for (uint32_t i = 0; i < w; i++) v = LLVMBuildInsertElement(c->b, v, elems[i], cg_i32(c, i), "");
                    LLVMSetAlignment(LLVMBuildStore(c->b, v, addr), w * bytes);
                }
            }
        } else {
            LLVMValueRef pred = mv->r[r0];
            if (!uniform)
                for (uint32_t i = 1; i < w; i++) pred = LLVMBuildAnd(c->b, pred, mv->r[r0 + i], "");
            predicated_access(c, op, is_load, addr, own ? LLVMBuildAnd(c->b, pred, own, "") : pred, elems, others, w,
                              et, bytes);
            if (!uniform) {
                /* the partial vector, element by element */
                LLVMValueRef not_all = LLVMBuildNot(c->b, pred, "");
                for (uint32_t i = 0; i < w; i++) {
                    LLVMValueRef p = LLVMBuildAnd(c->b, mv->r[r0 + i], not_all, "");
                    if (own) p = LLVMBuildAnd(c->b, p, own, "");
                    LLVMValueRef a = i ? LLVMBuildGEP2(c->b, et, addr, (LLVMValueRef[]){cg_i32(c, i)}, 1, "") : addr;
                    if (is_load) elems[i] = cg_masked_load_scalar(c, op, a, p, elems[i], et, bytes);
                    else masked_store_scalar(c, op, a, p, elems[i], bytes);
                }
            }
        }
        if (is_load)
            for (uint32_t i = 0; i < w; i++)
                out.r[r0 + i] = pointee->dtype == TK_I1 ? LLVMBuildTrunc(c->b, elems[i], c->t_i1, "")
                                : address ? LLVMBuildIntToPtr(c->b, elems[i], c->t_ptr1, "") : elems[i];
    }
    if (is_load) *cg_get(c, op->results.data[0]) = out;
}
