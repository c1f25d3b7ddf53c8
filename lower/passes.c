/* The tile-IR pipeline: every pass, in the order it runs, one row each.
 * The passes are one file each (the file says what it needs and keeps);
 * the verifier runs after the rows marked for it (not in NDEBUG builds)
 * and over the whole program at the end. The target passes run for
 * --emit=tir-gpu and code generation; --emit=tir-after=NAME stops after
 * the pass NAME. */
#include "internal.h"

#include <string.h>

typedef struct pass_env {
    tk_arena *arena;
    tk_diag *diag;
    const tk_tir_options *opts;
    tk_tir_warned warned;   /* int32 offsets already warned about, across variants */
} pass_env;

static bool run_fold(pass_env *e, tk_tir_kernel *k) { return tir_pass_fold(e->arena, k), true; }
static bool run_int32_offsets(pass_env *e, tk_tir_kernel *k) {
    if (tk_warning_enabled(e->diag, TK_W_INT32_OFFSET)) tir_check_offsets(e->arena, e->diag, k, &e->warned);
    return true;
}
static bool run_cse(pass_env *e, tk_tir_kernel *k) { return tir_pass_cse(e->arena, k), true; }
static bool run_dce(pass_env *e, tk_tir_kernel *k) { return tir_pass_dce(e->arena, k), true; }
static bool run_licm(pass_env *e, tk_tir_kernel *k) { return tir_pass_licm(e->arena, k), true; }
static bool run_pipeline(pass_env *e, tk_tir_kernel *k) { return tir_pass_pipeline(e->arena, k), true; }
static bool run_dot(pass_env *e, tk_tir_kernel *k) { return tir_pass_dot(e->arena, k, e->opts->target), true; }
static bool run_pipeline_dots(pass_env *e, tk_tir_kernel *k) {
    return tir_pass_pipeline_dots(e->arena, e->diag, k, e->opts->target), true;
}
static bool run_dot_operands(pass_env *e, tk_tir_kernel *k) { return tir_pass_dot_operands(e->arena, k), true; }
static bool run_axis_info(pass_env *e, tk_tir_kernel *k) { return tir_pass_axis_info(e->arena, k), true; }
static bool run_propagate_layouts(pass_env *e, tk_tir_kernel *k) { return tir_pass_propagate_layouts(e->arena, k), true; }
static bool run_layouts(pass_env *e, tk_tir_kernel *k) { return tir_pass_layouts(e->arena, e->diag, k); }
/* An autotune config too big for the target's shared memory is kept: its
 * launch fails and the tuner skips it, as Triton's skips a config "out of
 * resource". Only a kernel none of whose configs fit is an error
 * (configs_fit, after every variant). */
static bool too_big_config(const pass_env *e, const tk_tir_kernel *k) {
    return k->sema->config >= 0 && e->opts->target && k->shared_bytes > e->opts->target->smem_per_block;
}
static bool run_shared_memory(pass_env *e, tk_tir_kernel *k) {
    tir_pass_shared_memory(e->arena, k);
    return too_big_config(e, k) || tir_check_shared_memory(e->arena, e->diag, e->opts->target, k);
}

/* Every autotuned kernel has a config that fits shared memory; else the
 * first one's error. */
static bool configs_fit(pass_env *e, tk_tir_program *program) {
    bool ok = true;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        tk_tir_kernel *k = program->kernels.data[i];
        if (!too_big_config(e, k)) continue;
        bool first = true, fits = false;
        for (uint32_t j = 0; j < program->kernels.len; j++) {
            const tk_tir_kernel *o = program->kernels.data[j];
            if (o->sema->name != k->sema->name) continue;
            if (j < i && too_big_config(e, o)) first = false;
            fits |= !too_big_config(e, o);
        }
        if (!fits && first) ok &= tir_check_shared_memory(e->arena, e->diag, e->opts->target, k);
    }
    return ok;
}
static bool run_barriers(pass_env *e, tk_tir_kernel *k) { return tir_pass_barriers(e->arena, k), true; }

static const struct tir_pass {
    const char *name;
    bool target;    /* one of the target passes (layouts, shared memory, ...) */
    bool verify;    /* the verifier after it */
    bool (*run)(pass_env *e, tk_tir_kernel *k);
} passes[] = {
    {"fold", false, false, run_fold},
    {"int32-offsets", false, false, run_int32_offsets}, /* a check: warns, changes nothing */
    {"cse", false, true, run_cse},
    {"dce", false, false, run_dce},
    {"licm", false, true, run_licm},
    {"dot", true, true, run_dot},
    {"pipeline-dots", true, false, run_pipeline_dots},
    {"pipeline", true, true, run_pipeline},
    {"dot-operands", true, true, run_dot_operands},
    {"axis-info", true, false, run_axis_info},
    {"layout-propagation", true, false, run_propagate_layouts},
    {"layouts", true, true, run_layouts},
    {"dce-after-layouts", true, false, run_dce},
    {"shared-memory", true, false, run_shared_memory},
    {"barriers", true, false, run_barriers},
};
enum { PASS_COUNT = sizeof passes / sizeof passes[0] };

static int find_pass(const char *name) {
    for (int i = 0; i < PASS_COUNT; i++)
        if (name && strcmp(passes[i].name, name) == 0) return i;
    return -1;
}

bool tk_tir_pass_known(const char *name, bool *target) {
    int i = find_pass(name);
    if (i >= 0 && target) *target = passes[i].target;
    return i >= 0;
}

const char *tk_tir_pass_names(tk_arena *arena) {
    const char *names = "";
    for (int i = 0; i < PASS_COUNT; i++) names = tk_arena_printf(arena, "%s%s%s", names, i ? ", " : "", passes[i].name);
    return names;
}

/* The verifier after a pass; compiled out with NDEBUG (release builds). */
static bool checked(tk_diag *diag, tk_arena *arena, const tk_tir_kernel *k) {
#ifdef NDEBUG
    (void)diag, (void)arena, (void)k;
    return true;
#else
    return tk_tir_verify_kernel(diag, arena, k);
#endif
}

bool tk_tir_run_passes(tk_arena *arena, tk_diag *diag, tk_tir_program *program, const tk_tir_options *opts) {
    pass_env env = {arena, diag, opts, {0}};
    int last = opts->stop_after ? find_pass(opts->stop_after) : PASS_COUNT - 1;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        tk_tir_kernel *k = program->kernels.data[i];
        if (!checked(diag, arena, k)) return false;
        for (int p = 0; p <= last; p++) {
            if (passes[p].target && !opts->gpu && !opts->stop_after) break;
            if (!passes[p].run(&env, k)) return false;
            if (passes[p].verify && !checked(diag, arena, k)) return false;
        }
    }
    if (last >= find_pass("shared-memory") && (opts->gpu || opts->stop_after) && !configs_fit(&env, program))
        return false;
    return tk_tir_verify(diag, program);
}
