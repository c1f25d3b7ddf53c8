/* codegen/target.c: a program compiled as several LLVM modules at once
 * (tk_cg_options.llvm_modules) gives one PTX module: one header, each
 * .extern declared once (vprintf, tk_smem), every kernel's entry, the
 * modules' private strings and libdevice functions kept apart by name;
 * and ptxas assembles it where the toolkit is (else that part is
 * skipped with a note). A large program (kernels/matmul.tk) gives the
 * same PTX on any number of threads, its kernels in program order: how
 * many modules it is split into depends on its work alone (it was one a
 * processor, so the PTX of one machine differed from another's). */
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

static const char *compile(tk_arena *arena, const char *name, const char *text, unsigned modules, unsigned threads,
                           uint32_t kernels) {
    tk_diag diag;
    tk_diag_init(&diag, stderr, false);
    tk_interner names;
    tk_interner_init(&names, arena);
    tk_source *src = tk_source_from_string(arena, name, text, (uint32_t)strlen(text));
    tk_token_list tokens = tk_lex_source(arena, &names, &diag, src);
    tk_module *module = tk_parse_tokens(arena, &names, &diag, src, &tokens);
    tk_sema_options sema_opts = {0};
    tk_sema_program *program = module ? tk_sema_check(arena, &names, &diag, module, &sema_opts) : NULL;
    CHECK(program && !diag.error_count);
    if (!program || diag.error_count) return NULL;
    tk_tir_program *tir = tk_tir_lower(arena, &diag, program, TK_TIR_DEFAULT_SPECIALIZATIONS);
    tk_tir_options tir_opts = {true, tk_target_default(), NULL};
    CHECK(tk_tir_run_passes(arena, &diag, tir, &tir_opts));
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char ptxas[512];
    snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", home);
    bool toolkit = access(ptxas, X_OK) == 0 && kernels == 3; /* the large program: its PTX only */
    tk_cg_options cg = {tk_target_default(), 3, false, false, home, NULL, NULL, toolkit, false, false, modules};
    cg.threads = threads;
    tk_cg_output out = {0};
    bool ok = tk_cg_compile(arena, &diag, tir, &cg, &out);
    CHECK(ok);
    CHECK(!toolkit || out.cubin);
    if (!toolkit && modules == 3) printf("note: no CUDA toolkit at %s: the joined PTX is not assembled\n", home);
    CHECK(out.kernels.len == kernels);
    for (uint32_t i = 0; i < out.kernels.len; i++) CHECK(out.kernels.data[i].kernel == tir->kernels.data[i]);
    tk_diag_flush(&diag);
    return ok ? out.ptx : NULL;
}

/* kernels/matmul.tk's text (the tests run from the repository's root) */
static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[4096];
    size_t n;
    while (mem && (n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, mem);
    if (mem) fclose(mem);
    fclose(f);
    return text;
}

int main(void) {
    tk_cg_init_process();
    tk_arena arena = {0};
    const char *one = compile(&arena, "modules.tk", source, 1, 0, 3),
               *three = compile(&arena, "modules.tk", source, 3, 0, 3);
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
    /* light kernels first, the heavy one last, in as many modules as
     * kernels: the cuts by work alone would put all four in the first
     * module and leave three empty */
    static const char *skewed =
        "@kernel(grid=(1,), num_warps=4)\n"
        "def a(x: *f32 % 16):\n"
        "    tl.store(x + tl.arange(0, 128), 1.0)\n"
        "\n"
        "@kernel(grid=(1,), num_warps=4)\n"
        "def b(x: *f32 % 16):\n"
        "    tl.store(x + tl.arange(0, 128), 2.0)\n"
        "\n"
        "@kernel(grid=(1,), num_warps=4)\n"
        "def c(x: *f32 % 16):\n"
        "    tl.store(x + tl.arange(0, 128), 3.0)\n"
        "\n"
        "@kernel(grid=(1,), num_warps=8)\n"
        "def heavy(a: *f16 % 16, b: *f16 % 16, c: *f32 % 16, K: i32 % 16):\n"
        "    offs = tl.arange(0, 128)\n"
        "    acc = tl.zeros([128, 128], dtype=tl.float32)\n"
        "    for k in range(0, K, 64):\n"
        "        x = tl.load(a + offs[:, None] * K + k + tl.arange(0, 64)[None, :])\n"
        "        y = tl.load(b + (k + tl.arange(0, 64))[:, None] * 128 + offs[None, :])\n"
        "        acc = tl.dot(x, y, acc)\n"
        "    tl.store(c + offs[:, None] * 128 + offs[None, :], tl.exp(acc) * tl.sin(acc))\n";
    const char *four = compile(&arena, "skewed.tk", skewed, 4, 0, 4);
    CHECK(four != NULL);
    if (four) {
        CHECK(count(four, ".version") == 1);
        CHECK(count(four, ".visible .entry heavy(") == 1);
        /* the kernels in program order, each in a module of its own */
        const char *ea = strstr(four, ".entry a("), *eb = strstr(four, ".entry b("), *ec = strstr(four, ".entry c("),
                   *eh = strstr(four, ".entry heavy(");
        CHECK(ea && eb && ec && eh && ea < eb && eb < ec && ec < eh);
        /* heavy's loop is the first function of its module: $L__BB0_,
         * where sharing a module with the three before it made it $L__BB3_ */
        CHECK(eh && strstr(eh, "$L__BB0_") && !strstr(four, "$L__BB3_"));
    }
    char *matmul = read_text("kernels/matmul.tk");
    CHECK(matmul != NULL);
    if (matmul) {
        const char *alone = compile(&arena, "matmul.tk", matmul, 0, 1, 18),
                   *shared = compile(&arena, "matmul.tk", matmul, 0, 3, 18);
        CHECK(alone && shared && strcmp(alone, shared) == 0);
        /* in program order: each config's _d16 variant, then its general one */
        const char *at = alone;
        char entry[64];
        for (int v = 0; v < 9 && at; v++)
            for (int general = 0; general < 2 && at; general++) {
                snprintf(entry, sizeof entry, ".visible .entry matmul__v%d%s(", v, general ? "" : "_d16");
                const char *found = strstr(at, entry);
                CHECK(found != NULL);
                at = found;
            }
        free(matmul);
    }
    tk_arena_free(&arena);
    if (!failures) printf("ok\n");
    return failures != 0;
}
