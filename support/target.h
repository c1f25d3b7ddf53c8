/* The GPU a compilation is for (prefix tk_target_): filled once from
 * --arch by the driver and handed to lower/ and codegen/, so no stage
 * parses an architecture name. What each target can do is described here
 * once, from NVIDIA's tables (PTX ISA, CUDA C Programming Guide's
 * "Technical Specifications per Compute Capability"). */
#ifndef TK_TARGET_H
#define TK_TARGET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tk_target {
    const char *name;          /* "sm_90a": LLVM's CPU and ptxas -arch */
    int sm;                    /* compute capability x 10: 80, 86, 89, 90 */
    bool arch_specific;        /* an "a" target: features that do not carry forward */
    int ptx_version;           /* PTX ISA written, x 10: 78 = .version 7.8 */
    bool has_cp_async;         /* cp.async (sm_80) */
    bool has_fp8;              /* f8e4m3/f8e5m2 conversions and mma (sm_89) */
    bool has_tma;              /* cp.async.bulk.tensor, mbarrier tx counts (sm_90) */
    bool has_wgmma;            /* wgmma.mma_async (sm_90a only) */
    bool has_setmaxnreg;       /* setmaxnreg: warpgroups trading registers, for warp specialization (sm_90a only) */
    bool has_griddepcontrol;   /* griddepcontrol.wait / launch_dependents: programmatic dependent launch (sm_90) */
    bool has_bf16_atomic_add;  /* atom.add.noftz.bf16 (sm_90); f16's is sm_70's */
    uint32_t smem_per_block;   /* bytes of shared memory one block may opt into */
    uint32_t smem_static;      /* without opting in (48 KB) */
    uint32_t smem_per_sm;      /* an SM's for its resident blocks (1 KB of it reserved a block) */
} tk_target;

/* The target named `name` ("sm_80", ...), or NULL when tkc does not
 * support it. */
const tk_target *tk_target_find(const char *name);
/* The names tkc supports, for messages: "sm_80, sm_86, sm_89, sm_90 or sm_90a". */
const char *tk_target_names(void);
/* Every target tkc supports, comma-separated: "sm_80,sm_86,sm_89,sm_90,sm_90a". */
const char *tk_target_list(void);
/* The default target (sm_90a). */
const tk_target *tk_target_default(void);

#endif
