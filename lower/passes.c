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
    tk_tir_warned warned_ws; /* loops warp_specialize.c left, warned about */
} pass_env;

static bool run_descriptors(pass_env *e, tk_tir_kernel *k) {
    return tir_pass_descriptors(e->arena, k, e->opts->gpu ? e->opts->target : NULL), true;
}
static bool run_fold(pass_env *e, tk_tir_kernel *k) { return tir_pass_fold(e->arena, k), true; }
static bool run_int32_offsets(pass_env *e, tk_tir_kernel *k) {
    if (tk_warning_enabled(e->diag, TK_W_INT32_OFFSET)) tir_check_offsets(e->arena, e->diag, k, &e->warned);
    return true;
}
static bool run_cse(pass_env *e, tk_tir_kernel *k) { return tir_pass_cse(e->arena, k), true; }
static bool run_dce(pass_env *e, tk_tir_kernel *k) { return tir_pass_dce(e->arena, k), true; }
static bool run_licm(pass_env *e, tk_tir_kernel *k) { return tir_pass_licm(e->arena, k), true; }
static bool run_reassociate_addresses(pass_env *e, tk_tir_kernel *k) {
    return tir_pass_reassociate_addresses(e->arena, k), true;
}
static bool run_pipeline(pass_env *e, tk_tir_kernel *k) { return tir_pass_pipeline(e->arena, k), true; }
static bool run_dot(pass_env *e, tk_tir_kernel *k) { return tir_pass_dot(e->arena, k, e->opts->target), true; }
static bool run_warp_specialize(pass_env *e, tk_tir_kernel *k) {
    return tir_pass_warp_specialize(e->arena, e->diag, k, e->opts->target, &e->warned_ws), true;
}
static bool run_pipeline_dots(pass_env *e, tk_tir_kernel *k) {
    return tir_pass_pipeline_dots(e->arena, e->diag, k, e->opts->target), true;
}
static bool run_dot_operands(pass_env *e, tk_tir_kernel *k) { return tir_pass_dot_operands(e->arena, k), true; }
static bool run_tma_stores(pass_env *e, tk_tir_kernel *k) { return tir_pass_tma_stores(e->arena, k), true; }
static bool run_proxy_fences(pass_env *e, tk_tir_kernel *k) { return tir_pass_proxy_fences(e->arena, k), true; }
static bool run_axis_info(pass_env *e, tk_tir_kernel *k) { return tir_pass_axis_info(e->arena, k), true; }
static bool run_propagate_layouts(pass_env *e, tk_tir_kernel *k) { return tir_pass_propagate_layouts(e->arena, k), true; }
static bool run_layouts(pass_env *e, tk_tir_kernel *k) { return tir_pass_layouts(e->arena, e->diag, k); }
static bool run_licm_conversions(pass_env *e, tk_tir_kernel *k) { return tir_pass_licm_conversions(e->arena, k), true; }
static bool run_sink_loads(pass_env *e, tk_tir_kernel *k) { return tir_pass_sink_loads(e->arena, k), true; }
/* An autotune config too big for the target's shared memory passes the
 * pipeline: tk_tir_leave_out_unfit_configs leaves it out of the build
 * afterwards, as Triton prunes a config "out of resource" at run time.
 * Only a kernel none of whose configs fit is an error (configs_fit, after
 * every variant). */
static bool over_shared_memory(const tk_tir_kernel *k, const tk_target *target) {
    return target && k->shared_bytes > target->smem_per_block;
}
static bool too_big(const tk_tir_kernel *k, const tk_target *target) {
    return k->sema->config >= 0 && over_shared_memory(k, target);
}
static bool too_big_config(const pass_env *e, const tk_tir_kernel *k) { return too_big(k, e->opts->target); }
static void pipeline_shallower(pass_env *e, tk_tir_kernel *k);
static bool run_shared_memory(pass_env *e, tk_tir_kernel *k) {
    tir_pass_shared_memory(e->arena, k);
    if (k->sema->config < 0 && over_shared_memory(k, e->opts->target)) pipeline_shallower(e, k);
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
    {"descriptors", false, true, run_descriptors},
    {"fold", false, false, run_fold},
    {"int32-offsets", false, false, run_int32_offsets}, /* a check: warns, changes nothing */
    {"cse", false, true, run_cse},
    {"reassociate-addresses", false, true, run_reassociate_addresses},
    {"dce", false, false, run_dce},
    {"licm", false, true, run_licm},
    {"dot", true, true, run_dot},
    {"warp-specialize", true, true, run_warp_specialize},
    {"pipeline-dots", true, false, run_pipeline_dots},
    {"pipeline", true, true, run_pipeline},
    {"dot-operands", true, true, run_dot_operands},
    {"tma-stores", true, true, run_tma_stores},
    {"proxy-fences", true, false, run_proxy_fences},
    {"axis-info", true, false, run_axis_info},
    {"layout-propagation", true, false, run_propagate_layouts},
    {"layouts", true, true, run_layouts},
    {"dce-after-layouts", true, false, run_dce},
    {"licm-conversions", true, true, run_licm_conversions},
    {"sink-loads", true, true, run_sink_loads},
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

/* A kernel whose pipelined loops' tiles fit the target's shared memory
 * alone (pipeline_dot.c chose their depth so) but not beside the scratch
 * its other ops need while the loops run (a reduction inside the loop):
 * built again with its loops pipelined less deep, down to 2, and replaced
 * by the first depth that fits, with a warning. An autotune config is left
 * as it is: the build leaves it out instead (tk_tir_leave_out_unfit_configs). */
static void pipeline_shallower(pass_env *e, tk_tir_kernel *k) {
    uint32_t deepest = 0;
    for (uint32_t b = 0; b < k->buffers.len; b++)
        if (k->buffers.data[b].stages > deepest) deepest = k->buffers.data[b].stages;
    uint32_t buffers = tir_place_buffers(k, k->buffers.len, NULL, NULL);
    int shared_memory = find_pass("shared-memory");
    for (uint32_t depth = deepest - 1; deepest && depth >= 2; depth--) {
        /* the passes again, quietly: their warnings were given once */
        tk_diag quiet;
        tk_diag_init(&quiet, stderr, false);
        quiet.suppress_warnings = true;
        pass_env again_env = {e->arena, &quiet, e->opts, {0}, {0}};
        tk_tir_kernel *again = tir_lower_again(e->arena, &quiet, k);
        again->max_stages = depth;
        bool ok = !quiet.error_count;
        for (int p = 0; p < shared_memory && ok; p++)
            ok = passes[p].run(&again_env, again) && !quiet.error_count &&
                 (!passes[p].verify || checked(&quiet, e->arena, again));
        if (ok) tir_pass_shared_memory(e->arena, again);
        tk_diag_discard(&quiet);
        if (!ok || over_shared_memory(again, e->opts->target)) continue;
        tk_warning(e->diag, TK_W_NUM_STAGES, k->buffers.data[0].loc,
                   "kernel '%s' would need %u bytes of shared memory, more than the %u a block has on %s: its "
                   "pipelined tiles take %u and its other ops need %u more while they are in use; pipelined %u deep "
                   "instead",
                   k->sema->name, k->shared_bytes, e->opts->target->smem_per_block, e->opts->target->name, buffers,
                   k->shared_bytes - buffers, depth);
        *k = *again;
        return;
    }
}

bool tk_tir_run_passes(tk_arena *arena, tk_diag *diag, tk_tir_program *program, const tk_tir_options *opts) {
    pass_env env = {arena, diag, opts, {0}, {0}};
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

/* Of the n builds (one a target, lowered from one sema program, so a
 * variant has the same sema kernel in each): is the variant `k` of
 * build b too big for every target? */
static bool fits_no_target(tk_tir_program *const *programs, const tk_target *const *targets, uint32_t n,
                           const tk_tir_kernel *k) {
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t i = 0; i < programs[b]->kernels.len; i++) {
            const tk_tir_kernel *o = programs[b]->kernels.data[i];
            if (o->sema == k->sema && !too_big(o, targets[b])) return false;
        }
    return true;
}

void tk_tir_leave_out_unfit_configs(tk_arena *arena, tk_diag *diag, tk_tir_program *const *programs,
                                    const tk_target *const *targets, uint32_t n) {
    if (!n) return;
    /* the target with the most shared memory, for the message */
    uint32_t widest = 0;
    for (uint32_t b = 1; b < n; b++)
        if (targets[b]->smem_per_block > targets[widest]->smem_per_block) widest = b;
    /* decided once, on the first build's variants, then applied to every
     * build alike: a module holds the same kernels for each of its targets */
    const tk_tir_program *first = programs[0];
    const tk_sema_kernel **out = TK_NEW_ARRAY(arena, const tk_sema_kernel *, first->kernels.len + 1);
    uint32_t nout = 0;
    for (uint32_t i = 0; i < first->kernels.len; i++) {
        const tk_tir_kernel *k = first->kernels.data[i];
        if (!fits_no_target(programs, targets, n, k)) continue;
        bool warned = false;
        for (uint32_t j = 0; j < nout && !warned; j++)
            warned = out[j]->name == k->sema->name && out[j]->config == k->sema->config;
        out[nout++] = k->sema;
        if (warned) continue;
        const tk_tir_kernel *wk = k;
        for (uint32_t j = 0; j < programs[widest]->kernels.len; j++)
            if (programs[widest]->kernels.data[j]->sema == k->sema) wk = programs[widest]->kernels.data[j];
        tk_warning(diag, TK_W_CONFIG_FIT, k->sema->config_loc,
                   "autotune config '%s' of '%s' left out: it needs %u bytes of shared memory, more than the %u "
                   "a block may have on %s%s",
                   k->sema->config_text ? k->sema->config_text : "?", k->sema->name, wk->shared_bytes,
                   targets[widest]->smem_per_block, targets[widest]->name, n > 1 ? ", the largest of its targets" : "");
    }
    for (uint32_t b = 0; b < n && nout; b++) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < programs[b]->kernels.len; i++) {
            tk_tir_kernel *k = programs[b]->kernels.data[i];
            bool leave = false;
            for (uint32_t j = 0; j < nout && !leave; j++) leave = out[j] == k->sema;
            if (!leave) programs[b]->kernels.data[kept++] = k;
        }
        programs[b]->kernels.len = kept;
    }
}

/* ---- dtype instances a target cannot build ------------------------------ */

static bool is_fp8(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    while (e->kind == TK_TYPE_POINTER) e = e->elem;
    return e->kind == TK_TYPE_SCALAR && (e->dtype == TK_F8E4M3 || e->dtype == TK_F8E5M2);
}

static bool values_fp8(const tk_tir_values *vs) {
    for (uint32_t i = 0; i < vs->len; i++)
        if (is_fp8(vs->data[i]->type)) return true;
    return false;
}

static bool block_uses_fp8(const tk_tir_block *blk) {
    if (values_fp8(&blk->args)) return true;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (values_fp8(&op->results) || values_fp8(&op->operands)) return true;
        for (uint32_t r = 0; r < op->regions.len; r++)
            if (block_uses_fp8(op->regions.data[r])) return true;
    }
    return false;
}

void tk_tir_leave_out_unsupported_instances(tk_arena *arena, tk_diag *diag, tk_tir_program *const *programs,
                                            const tk_target *const *targets, uint32_t n) {
    const tk_target *lacking = NULL;
    for (uint32_t b = 0; b < n && !lacking; b++)
        if (!targets[b]->has_fp8) lacking = targets[b];
    if (!lacking) return;
    /* decided on the first build (every build holds the same kernels) */
    const tk_tir_program *first = programs[0];
    const char **out = TK_NEW_ARRAY(arena, const char *, first->kernels.len + 1);
    uint32_t nout = 0;
    for (uint32_t i = 0; i < first->kernels.len; i++) {
        const tk_tir_kernel *k = first->kernels.data[i];
        if (!k->sema->instance_of || !block_uses_fp8(k->body)) continue;
        bool seen = false;
        for (uint32_t j = 0; j < nout && !seen; j++) seen = out[j] == k->sema->name;
        if (!seen) out[nout++] = k->sema->name;
    }
    /* an instance is left out only where another of its kernel stays */
    uint32_t kept_names = 0;
    for (uint32_t j = 0; j < nout; j++) {
        const char *family = NULL;
        bool other_stays = false;
        for (uint32_t i = 0; i < first->kernels.len; i++)
            if (first->kernels.data[i]->sema->name == out[j]) family = first->kernels.data[i]->sema->instance_of;
        for (uint32_t i = 0; i < first->kernels.len && !other_stays; i++) {
            const tk_sema_kernel *o = first->kernels.data[i]->sema;
            if (o->instance_of != family) continue;
            bool leaving = false;
            for (uint32_t m = 0; m < nout && !leaving; m++) leaving = out[m] == o->name;
            other_stays = !leaving;
        }
        if (!other_stays) continue;
        const tk_tir_kernel *k = NULL;
        for (uint32_t i = 0; i < first->kernels.len && !k; i++)
            if (first->kernels.data[i]->sema->name == out[j]) k = first->kernels.data[i];
        tk_warning(diag, TK_W_INSTANCE_TARGET, k->sema->loc,
                   "dtype instance '%s' of '%s' left out: it uses fp8, which needs sm_89 or newer, and this build is "
                   "for %s%s", out[j], family, lacking->name, n > 1 ? " among its targets" : "");
        out[kept_names++] = out[j];
    }
    for (uint32_t b = 0; b < n && kept_names; b++) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < programs[b]->kernels.len; i++) {
            tk_tir_kernel *k = programs[b]->kernels.data[i];
            bool leave = false;
            for (uint32_t j = 0; j < kept_names && !leave; j++) leave = out[j] == k->sema->name;
            if (!leave) programs[b]->kernels.data[kept++] = k;
        }
        programs[b]->kernels.len = kept;
    }
}
