#!/usr/bin/env python3
"""First-call autotuning time of kernels/matmul.tk's launcher beside
Triton's @triton.autotune over the same configs (tutorial 03's kernel),
in one process: for each, the first call at one shape (tkc: module loads +
tuning; Triton: compiles + tuning), the first call at a second shape of the
same specialization (tuning alone), and a later call (a look-up). Every
result is checked against float64 first.

    VARIANTS=... sh test/gpu/build.sh      # build/gpu/matmul (matmul.tk, no -D)
    python3 bench/tune_time.py             # TKC_TUNE_VERBOSE=1 shows tkc's choices
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402

import tkshim  # noqa: E402
import triton_kernels as tk  # noqa: E402
from bench import MATMUL_CONFIGS  # noqa: E402

tuned = triton.autotune(
    configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": g}, num_warps=w, num_stages=s)
             for bm, bn, bk, g, w, s in MATMUL_CONFIGS],
    key=["M", "N", "K"])(tk._matmul_kernel)


def triton_call(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
    tuned[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))


def main():
    kern = tkshim.Kernel("matmul")
    shapes = [(4096, 4096, 4096), (4096, 4096, 2048)]
    for label in ("tkc", "triton"):
        for i, (M, N, K) in enumerate(shapes):
            a = torch.randn(M, K, device="cuda").half()
            b = torch.randn(K, N, device="cuda").half()
            c = torch.full((M, N), float("nan"), device="cuda").half()
            ref = a.double() @ b.double()
            runs = []
            for _ in range(2):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                if label == "tkc":
                    status = kern(a, b, c, M, N, K, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1)
                    if status != kern.success:
                        sys.exit(f"tkc: launch failed: {kern.describe(status)}")
                else:
                    triton_call(a, b, c)
                torch.cuda.synchronize()
                runs.append(time.perf_counter() - t0)
                err = ((c.double() - ref).norm() / ref.norm()).item()
                if not err < 2e-3:
                    sys.exit(f"{label} {M}x{N}x{K}: rel err {err:.1e}")
            first = "first call (loads/compiles + tunes)" if i == 0 else "first call, new shape (tunes)"
            print(f"{label:6s} {M}x{N}x{K}: {first} {runs[0]:7.2f} s; next call {runs[1] * 1e3:7.3f} ms",
                  flush=True)
    print("Triton's choices:", {str(k): str(v) for k, v in tuned.cache.items()})


if __name__ == "__main__":
    main()
