/* codegen/target.c: a program compiled as several LLVM modules at once
 * (tk_cg_options.llvm_modules) gives one PTX module: one header, each
 * .extern declared once (vprintf, tk_smem), every kernel's entry, the
 * modules' private strings and libdevice functions kept apart by name;
 * and ptxas assembles it where the toolkit is (else that part is
 * skipped with a note). */
#include "../../lexer/lexer.h"
#include "../../parser/parser.h"
#include "../../sema/sema.h"
#include "../../lower/lower.h"
#include "../../codegen/codegen.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *source =
    "@kernel(grid=(1,), num_warps=4)\n"
    "def first(x: *f32 % 16, y: *f32 % 16):\n"
    "    offs = tl.arange(0, 256)\n"
    "    v = tl.load(x + offs)\n"
    "    w = tl.exp(v) * tl.sin(v)\n"
    "    tl.device_print(\"first\", tl.sum(w, axis=0))\n"
    "    tl.store(y + offs, w)\n"
    "\n"
    "@kernel(grid=(1,), num_warps=4)\n"
    "def second(x: *f32 % 16, y: *f32 % 16):\n"
    "    offs = tl.arange(0, 256)\n"
    "    v = tl.load(x + offs)\n"
    "    w = tl.cos(v) * tl.sin(v)\n"
    "    tl.device_print(\"second\", tl.max(w, axis=0))\n"
    "    tl.store(y + offs, w)\n"
    "\n"
    "@kernel(grid=(1,), num_warps=4)\n"
    "def third(x: *f32 % 16, y: *f32 % 16):\n"
    "    offs = tl.arange(0, 256)\n"
    "    tl.store(y + offs, tl.flip(tl.load(x + offs), 0))\n";

static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static const char *compile(tk_arena *arena, unsigned modules) {
    tk_diag diag;
    tk_diag_init(&diag, stderr, false);
    tk_interner names;
    tk_interner_init(&names, arena);
    tk_source *src = tk_source_from_string(arena, "modules.tk", source, (uint32_t)strlen(source));
    tk_token_list tokens = tk_lex_source(arena, &names, &diag, src);
    tk_module *module = tk_parse_tokens(arena, &names, &diag, src, &tokens);
    tk_sema_options sema_opts = {0};
    tk_sema_program *program = module ? tk_sema_check(arena, &names, &diag, module, &sema_opts) : NULL;
    CHECK(program && !diag.error_count);
    if (!program || diag.error_count) return NULL;
    tk_tir_program *tir = tk_tir_lower(arena, &diag, program);
    tk_tir_options tir_opts = {true, tk_target_default(), NULL};
    CHECK(tk_tir_run_passes(arena, &diag, tir, &tir_opts));
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char ptxas[512];
    snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", home);
    bool toolkit = access(ptxas, X_OK) == 0;
    tk_cg_options cg = {tk_target_default(), 3, false, false, home, NULL, NULL, toolkit, false, false, modules};
    tk_cg_output out = {0};
    bool ok = tk_cg_compile(arena, &diag, tir, &cg, &out);
    CHECK(ok);
    CHECK(!toolkit || out.cubin);
    if (!toolkit && modules == 3) printf("note: no CUDA toolkit at %s: the joined PTX is not assembled\n", home);
    CHECK(out.kernels.len == 3);
    for (uint32_t i = 0; i < out.kernels.len; i++) CHECK(out.kernels.data[i].kernel == tir->kernels.data[i]);
    tk_diag_flush(&diag);
    return ok ? out.ptx : NULL;
}

int main(void) {
    tk_cg_init_process();
    tk_arena arena = {0};
    const char *one = compile(&arena, 1), *three = compile(&arena, 3);
    CHECK(one && three);
    if (one && three) {
        CHECK(count(three, ".version") == 1);
        CHECK(count(three, ".address_size") == 1);
        CHECK(count(three, ".extern .func") == count(one, ".extern .func"));
        CHECK(count(three, "tk_smem[]") == 1);
        CHECK(count(three, ".visible .entry first(") == 1);
        CHECK(count(three, ".visible .entry second(") == 1);
        CHECK(count(three, ".visible .entry third(") == 1);
        /* every .global string once by name: the modules' are renamed apart */
        CHECK(count(three, ".global .align 1 .b8 tk_str[") <= 1);
    }
    tk_arena_free(&arena);
    if (!failures) printf("ok\n");
    return failures != 0;
}
