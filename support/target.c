/* The targets tkc supports, one row each. The PTX version is the one LLVM
 * writes for the target by default, except where tkc needs more: sm_80 and
 * sm_86 take 7.5 for cp.async's ignore-src operand (a masked copy is one
 * predicated instruction), sm_89 8.1 for its fp8 conversions. */
#include "target.h"

#include <string.h>

enum { KB = 1024 };

static const tk_target targets[] = {
    /* name     sm  a      ptx  cp.async fp8   tma    wgmma  setmaxnreg gdc    bf16 add  smem/block  static   smem/SM */
    {"sm_80",  80, false, 75, true,    false, false, false, false,      false, false,    163 * KB, 48 * KB, 164 * KB},
    {"sm_86",  86, false, 75, true,    false, false, false, false,      false, false,    99 * KB,  48 * KB, 100 * KB},
    {"sm_89",  89, false, 81, true,    true,  false, false, false,      false, false,    99 * KB,  48 * KB, 100 * KB},
    {"sm_90",  90, false, 78, true,    true,  true,  false, false,      true,  true,     227 * KB, 48 * KB, 228 * KB},
    {"sm_90a", 90, true,  80, true,    true,  true,  true,  true,       true,  true,     227 * KB, 48 * KB, 228 * KB},
};

const tk_target *tk_target_find(const char *name) {
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i].name, name) == 0) return &targets[i];
    return NULL;
}

const char *tk_target_names(void) { return "sm_80, sm_86, sm_89, sm_90 or sm_90a"; }
const char *tk_target_list(void) { return "sm_80,sm_86,sm_89,sm_90,sm_90a"; }

const tk_target *tk_target_default(void) { return &targets[sizeof targets / sizeof targets[0] - 1]; }
