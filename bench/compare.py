#!/usr/bin/env python3
"""Times builds of matmul.tk side by side in one process, beside Triton's
tutorial kernel at the same config and torch.matmul: for comparing two
versions of tkc (or two settings) on the same machine in the same run.

    VARIANTS=FILE TK_GPU_DIR=build/x/A sh test/gpu/build.sh   # one folder per build
    python3 bench/compare.py 4096 build/x/A build/x/B          # or MxNxK
    CONFIGS=c0 python3 bench/compare.py 8192 build/x/A

TRITON_CONFIG=BM,BN,BK,GROUP_M,num_warps,num_stages sets Triton's config
for every name in CONFIGS (for a config bench.py's MATMUL_CONFIGS lacks).
DTYPE=bf16 (or BF16=1), tf32 or tf32_bt feeds those operands, for folders
built from the kernels bench/matmul_dtypes.py writes (a VARIANTS line such
as `matmul_c0 build/gpu/src/bf16/matmul.tk -D BM=128 -D BN=256 -D BK=64`);
tf32_bt passes B K-major (stride_bk 1). Where Triton cannot run a config
(tf32 tiles past its shared memory), the ratios are to the first folder.

Each folder holds matmul_cI/ variants as test/gpu/variants names them (I
the config's index in bench.py's MATMUL_CONFIGS; a suffix such as _sm80
keeps that config for Triton). Every output is checked against float64
first; each implementation is timed ROUNDS times (default 3),
interleaved (do_bench median), and the median of those is printed with
the runs."""

import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton.testing  # noqa: E402

import tkshim  # noqa: E402
import triton_kernels as tk  # noqa: E402
from bench import MATMUL_CONFIGS  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dims = [int(x) for x in sys.argv[1].split("x")]
    M, N, K = dims if len(dims) == 3 else dims * 3
    kind = os.environ.get("DTYPE", "bf16" if os.environ.get("BF16") else "f16")
    dt = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32, "tf32_bt": torch.float32}[kind]
    # one rounding of the result: 2^-11 relative for f16, 2^-8 for bf16;
    # tf32 rounds the operands to 10 bits
    tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 1e-2}[dt]
    torch.backends.cuda.matmul.allow_tf32 = dt == torch.float32  # cuBLAS beside tl.dot's default tf32
    torch.manual_seed(0)
    # rows padded to 16 elements, as matmul.tk's strides promise and as
    # bench.py's matmul_group lays them out (3000x5000x2000's B and C)
    def matrix(rows, cols):
        return torch.empty(rows, -(-cols // 16) * 16, device="cuda", dtype=dt)[:, :cols]
    a = matrix(M, K)
    b = matrix(N, K).t() if kind.endswith("_bt") else matrix(K, N)
    a.copy_(torch.randn(M, K, device="cuda"))
    b.copy_(torch.randn(K, N, device="cuda"))
    ref = a.double() @ b.double()
    flops = 2 * M * N * K
    with torch.cuda.stream(torch.cuda.Stream()):
        for name in os.environ.get("CONFIGS", "c0,c2").split(","):
            # TRITON_CONFIG=BM,BN,BK,GROUP_M,warps,stages for a build of a
            # config bench.py does not list
            override = os.environ.get("TRITON_CONFIG")
            cfg = (tuple(int(x) for x in override.split(",")) if override
                   else MATMUL_CONFIGS[int(name.split("_")[0][1:])])
            impls = []
            for d in sys.argv[2:]:
                lib = Path(d) / f"matmul_{name}" / "libtkshim.so"
                if not lib.exists():
                    print(f"{name}: {lib} missing")
                    continue
                kern = tkshim.Kernel(f"matmul_{name}", lib)
                c = matrix(M, N).fill_(float("nan"))
                fn = kern.launcher(a, b, c, M, N, K, a.stride(0), 1, b.stride(0), b.stride(1), c.stride(0), 1)
                if fn() != kern.success:
                    sys.exit(f"{lib}: launch failed")
                torch.cuda.synchronize()
                err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
                if not err < tol:
                    sys.exit(f"{lib}: max error {err:.2e} of the largest element")
                impls.append((d, fn))
            c_tri = matrix(M, N)
            try:
                tk.matmul(a, b, c_tri, cfg)
                impls.append(("triton", lambda: tk.matmul(a, b, c_tri, cfg)))
            except Exception as e:  # noqa: BLE001 (Triton's out-of-resources error)
                print(f"{name}: Triton cannot run this config: {type(e).__name__}")
            impls.append(("torch", lambda: torch.matmul(a, b)))
            base = "triton" if any(label == "triton" for label, _ in impls) else impls[0][0]
            runs = {label: [] for label, _ in impls}
            for _ in range(int(os.environ.get("ROUNDS", "3"))):
                for label, fn in impls:
                    runs[label].append(triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"))
            for label, _ in impls:
                tf = [flops / ms / 1e9 for ms in runs[label]]
                # each round's ratio to Triton's time in that round: clocks
                # drift between rounds, less within one
                ratio = statistics.median(t / ms for t, ms in zip(runs[base], runs[label]))
                print(f"{name} {M}x{N}x{K} {label:24s} {statistics.median(tf):7.1f} TFLOP/s  "
                      f"{ratio:5.2f}x {base:8s} runs {' '.join(f'{x:.0f}' for x in tf)}", flush=True)


if __name__ == "__main__":
    main()
