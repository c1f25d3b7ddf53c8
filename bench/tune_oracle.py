#!/usr/bin/env python3
"""matmul.tk's autotuned launcher against an oracle (each of its configs
alone, the fastest per shape) and against Triton's @triton.autotune over
tutorial 03's sixteen configs, at shapes from 512^3 to 8192^3, a skinny and
ragged ones; f16, one process, outputs checked against float64 first.
Each implementation's first call tunes (not timed); then do_bench medians,
ROUNDS rounds interleaved (default 3), the median of each.

    DIR=build/gpu python3 bench/tune_oracle.py    # DIR/matmul (no -D) and DIR/matmul_cI, each config
"""

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

import tkshim  # noqa: E402
import triton_kernels as tk  # noqa: E402
from bench import MATMUL_CONFIGS  # noqa: E402

SHAPES = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (64, 8192, 8192), (1000, 1000, 1000), (4095, 4097, 1023), (3000, 5000, 2000)]

triton_tuned = triton.autotune(
    configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": g}, num_warps=w, num_stages=s)
             for bm, bn, bk, g, w, s in tk.TUTORIAL_03_CONFIGS],
    key=["M", "N", "K"])(tk._matmul_kernel)


def main():
    d = Path(os.environ.get("DIR", ROOT / "build" / "gpu"))
    tuned = tkshim.Kernel("matmul", d / "matmul" / "libtkshim.so")
    singles = [tkshim.Kernel(f"matmul_c{i}", d / f"matmul_c{i}" / "libtkshim.so")
               for i in range(len(MATMUL_CONFIGS))]
    rounds = int(os.environ.get("ROUNDS", "3"))
    print("| shape | tkc tuned | oracle (best config) | tuned/oracle | Triton autotuned | tkc/Triton | "
          "tkc first call | Triton first call |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for M, N, K in SHAPES:
        def matrix(rows, cols):
            return torch.empty(rows, -(-cols // 16) * 16, device="cuda", dtype=torch.float16)[:, :cols]
        a, b = matrix(M, K), matrix(K, N)
        a.copy_(torch.randn(M, K, device="cuda"))
        b.copy_(torch.randn(K, N, device="cuda"))
        ref = a.double() @ b.double()
        impls, first = {}, {}
        for label, kern in [("tuned", tuned)] + [(f"c{i}", k) for i, k in enumerate(singles)]:
            c = matrix(M, N)
            fn = kern.launcher(a, b, c, M, N, K, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1)
            c.fill_(float("nan"))
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if fn() != kern.success:
                sys.exit(f"{label}: launch failed")
            torch.cuda.synchronize()
            first[label] = time.perf_counter() - t0
            err = ((c.double() - ref).norm() / ref.norm()).item()
            if not err < 2e-3:
                sys.exit(f"{label} {M}x{N}x{K}: rel err {err:.1e}")
            impls[label] = fn
        c_tri = matrix(M, N).fill_(float("nan"))
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
        tri = lambda: triton_tuned[grid](a, b, c_tri, M, N, K, a.stride(0), a.stride(1), b.stride(0),  # noqa: E731
                                         b.stride(1), c_tri.stride(0), c_tri.stride(1))
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        tri()
        torch.cuda.synchronize()
        first["triton"] = time.perf_counter() - t0
        err = ((c_tri.double() - ref).norm() / ref.norm()).item()
        if not err < 2e-3:
            sys.exit(f"triton {M}x{N}x{K}: rel err {err:.1e}")
        impls["triton"] = tri
        runs = {label: [] for label in impls}
        for _ in range(rounds):
            for label, fn in impls.items():
                runs[label].append(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"))
        ms = {label: statistics.median(v) for label, v in runs.items()}
        flops = 2 * M * N * K
        tf = {label: flops / t / 1e9 for label, t in ms.items()}
        best = min((f"c{i}" for i in range(len(singles))), key=lambda lab: ms[lab])
        print(f"| {M}x{N}x{K} | {tf['tuned']:.1f} | {tf[best]:.1f} ({best}) | {ms[best] / ms['tuned']:.3f} | "
              f"{tf['triton']:.1f} | {ms['triton'] / ms['tuned']:.3f} | {first['tuned']:.2f} s | "
              f"{first['triton']:.2f} s |", flush=True)
    print("Triton's choices:")
    for key, cfg in triton_tuned.cache.items():
        print(f"  {key[:3]}: {cfg}")


if __name__ == "__main__":
    main()
