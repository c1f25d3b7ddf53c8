/* Unit tests of the tables the back end reads (sema/builtins.def,
 * lower/ops.def, support/target.c, lower/passes.c): every row named,
 * properties that must go together do, what tk_tir_props derives for ops
 * made from builtins, and the targets' capabilities. Prints "ok" last. */
#include "../../lower/lower.h"
#include "unit.h"

#include <string.h>

static unsigned props_of(tk_tir_opcode code, int sub) {
    tk_tir_op op = {0};
    op.code = code;
    op.sub = sub;
    return tk_tir_props(&op);
}

static tk_tir_layout_rule rule_of(tk_tir_opcode code, int sub) {
    tk_tir_op op = {0};
    op.code = code;
    op.sub = sub;
    return tk_tir_layout_rule_of(&op);
}

static tk_scratch_kind scratch_of(tk_tir_opcode code, int sub) {
    tk_tir_op op = {0};
    op.code = code;
    op.sub = sub;
    return tk_tir_scratch_kind(&op);
}

static void test_builtins(void) {
    for (int id = 0; id < TK_BUILTIN_COUNT; id++) {
        const char *name = tk_sema_builtin_name(id);
        unsigned p = tk_builtin_lowering(id);
        tk_scratch_kind s = tk_builtin_scratch(id);
        CHECK(name && *name && strcmp(name, "?") != 0);
        /* an atomic writes memory, and only atomics share old values */
        if (p & TK_BP_ATOMIC) CHECK((p & TK_BP_EFFECT) && s == TK_SCRATCH_ATOMIC);
        if (s == TK_SCRATCH_ATOMIC) CHECK(p & TK_BP_ATOMIC);
        if (p & TK_BP_BARRIER) CHECK(p & TK_BP_EFFECT);
        /* a math op, a reduction and a hint are pure, and one kind at most */
        unsigned kinds = !!(p & TK_BP_MATH) + !!(p & TK_BP_REDUCTION) + !!(p & TK_BP_HINT);
        CHECK(kinds <= 1);
        if (kinds) CHECK(!(p & TK_BP_EFFECT));
        /* scans keep their operand's layout and need scratch across warps */
        if (s == TK_SCRATCH_SCAN) CHECK(p & TK_BP_KEEPS_LAYOUT);
    }
    CHECK(tk_sema_builtin_id("load") == TK_B_LOAD);
    CHECK(tk_sema_builtin_id("atomic_cas") == TK_B_ATOMIC_CAS);
    CHECK(tk_sema_builtin_id("no_such_builtin") == -1);
    CHECK(!strcmp(tk_sema_builtin_name(TK_B_LD_clz), "clz"));
    CHECK(!strcmp(tk_sema_builtin_name(TK_B_PY_MAX), "max") && TK_B_PY_MAX != TK_B_MAX);
}

static void test_opcodes(void) {
    for (int code = 0; code < TIR_OPCODE_COUNT; code++) {
        const char *name = tk_tir_opcode_name((tk_tir_opcode)code);
        CHECK(name && *name && strcmp(name, "?") != 0);
        unsigned p = props_of((tk_tir_opcode)code, TK_B_EXP);
        CHECK(!((p & TIR_P_PURE) && (p & (TIR_P_EFFECT | TIR_P_READS))));
    }
    CHECK(!strcmp(tk_tir_opcode_name(TIR_CONVERT_LAYOUT), "convert_layout"));
    /* the layout column: element-wise ops share one, reductions relabel,
     * loops and ifs place what their regions carry */
    CHECK(rule_of(TIR_BINARY, 0) == TIR_L_SAME && rule_of(TIR_STORE, 0) == TIR_L_SAME);
    CHECK(rule_of(TIR_REDUCE, TK_B_SUM) == TIR_L_RELABEL && rule_of(TIR_PERMUTE, 0) == TIR_L_RELABEL);
    CHECK(rule_of(TIR_FOR, 0) == TIR_L_REGIONS && rule_of(TIR_IF, 0) == TIR_L_REGIONS);
    CHECK(rule_of(TIR_SPLAT, 0) == TIR_L_FREE && rule_of(TIR_LOCAL_VIEW, 0) == TIR_L_VIEW);
    CHECK(rule_of(TIR_LOCAL_STORE, 0) == TIR_L_NONE && (props_of(TIR_LOCAL_STORE, 0) & TIR_P_EFFECT));
    /* control flow and stores are never removed; loads are not pure */
    const tk_tir_opcode kept[] = {TIR_STORE, TIR_FOR, TIR_IF, TIR_WHILE, TIR_YIELD, TIR_CONDITION, TIR_RETURN,
                                  TIR_BARRIER};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) CHECK(props_of(kept[i], 0) & TIR_P_EFFECT);
    CHECK(!(props_of(TIR_LOAD, 0) & (TIR_P_PURE | TIR_P_EFFECT)) && (props_of(TIR_LOAD, 0) & TIR_P_READS));
    CHECK(props_of(TIR_BARRIER, 0) & TIR_P_SYNC);
    CHECK(props_of(TIR_MATH, TK_B_EXP) & TIR_P_PURE);
    CHECK(scratch_of(TIR_REDUCE, TK_B_SUM) == TK_SCRATCH_REDUCE);
    CHECK(scratch_of(TIR_CONVERT_LAYOUT, 0) == TK_SCRATCH_CONVERT);
    CHECK(scratch_of(TIR_BROADCAST, 0) == TK_SCRATCH_CONVERT);
    CHECK(scratch_of(TIR_BINARY, 0) == TK_SCRATCH_NONE);
}

/* ops made from builtins: the builtin's row decides */
static void test_builtin_ops(void) {
    unsigned atomic = props_of(TIR_BUILTIN, TK_B_ATOMIC_ADD);
    CHECK((atomic & TIR_P_EFFECT) && (atomic & TIR_P_ATOMIC) && (atomic & TIR_P_READS) && !(atomic & TIR_P_PURE));
    CHECK(scratch_of(TIR_BUILTIN, TK_B_ATOMIC_CAS) == TK_SCRATCH_ATOMIC);
    CHECK(!(props_of(TIR_BUILTIN, TK_B_JOIN) & TIR_P_EFFECT));
    CHECK(scratch_of(TIR_BUILTIN, TK_B_SPLIT) == TK_SCRATCH_SHAPE);
    CHECK(rule_of(TIR_BUILTIN, TK_B_CUMSUM) == TIR_L_SAME && !(props_of(TIR_BUILTIN, TK_B_CUMSUM) & TIR_P_EFFECT));
    CHECK(rule_of(TIR_BUILTIN, TK_B_ATOMIC_ADD) == TIR_L_SAME && rule_of(TIR_BUILTIN, TK_B_RAND) == TIR_L_SAME);
    CHECK(rule_of(TIR_BUILTIN, TK_B_JOIN) == TIR_L_PAIR && rule_of(TIR_BUILTIN, TK_B_SPLIT) == TIR_L_PAIR &&
          rule_of(TIR_BUILTIN, TK_B_CAT) == TIR_L_PAIR);
    CHECK(rule_of(TIR_BUILTIN, TK_B_DEVICE_PRINT) == TIR_L_DEFAULT);
    CHECK(scratch_of(TIR_BUILTIN, TK_B_ASSOCIATIVE_SCAN) == TK_SCRATCH_SCAN);
    CHECK((props_of(TIR_BUILTIN, TK_B_DEBUG_BARRIER) & (TIR_P_SYNC | TIR_P_EFFECT)) == (TIR_P_SYNC | TIR_P_EFFECT));
    CHECK(props_of(TIR_BUILTIN, TK_B_DEVICE_PRINT) & TIR_P_EFFECT);
    CHECK(props_of(TIR_BUILTIN, TK_B_INLINE_ASM_ELEMENTWISE) & TIR_P_EFFECT);
    CHECK(!(props_of(TIR_BUILTIN, TK_B_RAND) & TIR_P_EFFECT));
    /* an attribute changes the answer: a volatile load has an effect */
    tk_arena arena = {0};
    tk_tir_op load = {0};
    load.code = TIR_LOAD;
    struct tk_sema_attr v = {"volatile", NULL, 1};
    tk_vec_push(&arena, &load.attrs, v);
    CHECK(tk_tir_props(&load) & TIR_P_EFFECT);
    tk_arena_free(&arena);
}

static void test_targets(void) {
    const char *names[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const tk_target *t = tk_target_find(names[i]);
        CHECK(t && !strcmp(t->name, names[i]));
        if (!t) continue;
        CHECK(t->ptx_version >= 75);               /* eviction hints, ignore-src */
        CHECK(t->has_fp8 == (t->sm >= 89));
        CHECK(t->has_wgmma == (t->sm == 90 && t->arch_specific));
        CHECK(t->has_tma == (t->sm >= 90));
        CHECK(t->has_cp_async);
        CHECK(t->smem_per_block > t->smem_static && t->smem_static == 48 * 1024);
        CHECK(t->smem_per_sm == t->smem_per_block + 1024); /* the 1 KB a resident block reserves */
    }
    CHECK(tk_target_find("sm_89")->ptx_version >= 81); /* fp8 conversions */
    CHECK(tk_target_find("sm_75") == NULL && tk_target_find("") == NULL);
    CHECK(tk_target_default() == tk_target_find("sm_90a"));
}

static void test_passes(void) {
    bool target = true;
    CHECK(tk_tir_pass_known("fold", &target) && !target);
    CHECK(tk_tir_pass_known("layouts", &target) && target);
    CHECK(tk_tir_pass_known("barriers", &target) && target);
    CHECK(!tk_tir_pass_known("layout", NULL) && !tk_tir_pass_known("", NULL));
}

int main(void) {
    test_builtins();
    test_opcodes();
    test_builtin_ops();
    test_targets();
    test_passes();
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
