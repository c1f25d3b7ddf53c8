/* The libFuzzer target (make fuzz): one input is one .tk file, taken
 * through the whole pipeline in-process, lexing to PTX emission (no
 * ptxas), as `tkc --emit=ptx` would. Refusing an input with diagnostics is
 * fine; a crash, a sanitizer report, an LLVM assertion, a hang (-timeout)
 * or memory exhaustion (-rss_limit_mb) is a finding. Its reproducer goes
 * into test/fuzz/ as NAME.tk, which make test replays through tkc. */
#include "../../lexer/lexer.h"
#include "../../parser/parser.h"
#include "../../sema/sema.h"
#include "../../lower/lower.h"
#include "../../codegen/codegen.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* inputs past this size only slow the search down */
enum { MAX_INPUT = 1 << 14 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > MAX_INPUT) return 0;
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    tk_arena arena = {0};
    char *text = tk_arena_alloc(&arena, size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    tk_diag diag;
    tk_diag_init(&diag, sink, false);
    tk_interner names;
    tk_interner_init(&names, &arena);
    tk_source *src = tk_source_from_string(&arena, "fuzz.tk", text, (uint32_t)size);
    tk_token_list tokens = tk_lex_source(&arena, &names, &diag, src);
    tk_module *module = diag.error_count ? NULL : tk_parse_tokens(&arena, &names, &diag, src, &tokens);
    tk_sema_options sema_opts = {0};
    tk_sema_program *program = module && !diag.error_count
                                   ? tk_sema_check(&arena, &names, &diag, module, &sema_opts)
                                   : NULL;
    if (program && !diag.error_count) {
        tk_tir_program *tir = tk_tir_lower(&arena, &diag, program, TK_TIR_DEFAULT_SPECIALIZATIONS);
        tk_tir_options tir_opts = {true, tk_target_default(), NULL};
        if (!diag.error_count && tk_tir_run_passes(&arena, &diag, tir, &tir_opts)) {
            tk_cg_options cg = {tk_target_default(), 3, false, false, getenv("CUDA_HOME"), NULL, NULL, false, false, false, 0};
            tk_cg_output out = {0};
            tk_cg_compile(&arena, &diag, tir, &cg, &out);
        }
    }
    tk_diag_flush(&diag);
    tk_arena_free(&arena);
    return 0;
}
