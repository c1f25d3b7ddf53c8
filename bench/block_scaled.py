#!/usr/bin/env python3
"""kernels/matmul_block_scaled.tk beside the same kernel in Triton 3.6
(tutorial 10's block-scaled matmul, written below as the tutorial writes
it) at tkc's configs, and torch.matmul in bf16 on the dequantized
operands (what the tensor cores run on a GPU without a scaled MMA), in
one process: outputs checked against float64 first, then do_bench
(warmup=25, rep=100) medians over ROUNDS interleaved rounds (default 3),
TFLOP/s (2 M N K). f16 C.

    python3 bench/block_scaled.py [FORMAT:MxNxK ...]   (FORMAT mxfp8, mxfp4, nvfp4, mixed)

tkc's module comes from build/gpu/py (test/gpu/build.sh), tuned at its
first call.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "build" / "gpu" / "py"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from block_scaled_data import operand, scales  # noqa: E402
from interleaved import medians, print_rates  # noqa: E402

FORMATS = {"mxfp8": ("e4m3", "e4m3", 32), "mxfp4": ("e2m1", "e2m1", 32), "nvfp4": ("e2m1", "e2m1", 16),
           "mixed": ("e4m3", "e2m1", 32)}
CONFIGS = [(128, 128, 128, 8, 3), (128, 256, 128, 8, 3)]  # BM, BN, BK, warps, stages: the .tk file's


@triton.jit
def triton_block_scaled(a_desc, a_scale_desc, b_desc, b_scale_desc, c_desc, M, N, K,
                        FORMAT_A: tl.constexpr, FORMAT_B: tl.constexpr, PA: tl.constexpr, PB: tl.constexpr,
                        VEC: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                        STAGES: tl.constexpr):
    rep_m: tl.constexpr = BM // 128
    rep_n: tl.constexpr = BN // 128
    rep_k: tl.constexpr = BK // VEC // 4
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    ka = 0
    kb = 0
    ks = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        a = a_desc.load([pid_m * BM, ka])
        b = b_desc.load([pid_n * BN, kb])
        sa = a_scale_desc.load([0, pid_m * rep_m, ks, 0, 0])
        sb = b_scale_desc.load([0, pid_n * rep_n, ks, 0, 0])
        sa = sa.reshape(rep_m, rep_k, 32, 4, 4).trans(0, 3, 2, 1, 4).reshape(BM, BK // VEC)
        sb = sb.reshape(rep_n, rep_k, 32, 4, 4).trans(0, 3, 2, 1, 4).reshape(BN, BK // VEC)
        acc = tl.dot_scaled(a, sa, FORMAT_A, b.T, sb, FORMAT_B, acc)
        ka += BK // PA
        kb += BK // PB
        ks += rep_k
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


def main():
    import matmul_block_scaled
    shapes = [a for a in sys.argv[1:]] or ["mxfp8:4096x4096x4096", "mxfp8:8192x8192x8192", "mxfp4:8192x8192x8192",
                                           "nvfp4:8192x8192x8192", "mixed:8192x8192x8192"]
    rounds = int(os.environ.get("ROUNDS", "3"))
    print(torch.cuda.get_device_name(), flush=True)
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100)  # noqa: E731
    for shape in shapes:
        fmt, dims = shape.split(":")
        M, N, K = (int(x) for x in dims.split("x"))
        fa, fb, vec = FORMATS[fmt]
        pa, pb = (2 if f == "e2m1" else 1 for f in (fa, fb))
        torch.manual_seed(0)
        a, av = operand(fa, M, K)
        b, bv = operand(fb, N, K)
        sa, sav = scales(M, K, vec, fmt == "nvfp4")
        sb, sbv = scales(N, K, vec, fmt == "nvfp4")
        want = (av * sav) @ (bv * sbv).T
        kernel = getattr(matmul_block_scaled, f"matmul_block_scaled_{fmt}_f16")
        fs = {}
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        fs["tkc tuned"] = ((lambda c=c: kernel(a, sa, b, sb, c, M, N, K)), c)
        for bm, bn, bk, warps, stages in CONFIGS:
            ct = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
            descs = (TensorDescriptor.from_tensor(a, [bm, bk // pa]), TensorDescriptor.from_tensor(sa, [1, bm // 128, bk // vec // 4, 2, 256]),
                     TensorDescriptor.from_tensor(b, [bn, bk // pb]), TensorDescriptor.from_tensor(sb, [1, bn // 128, bk // vec // 4, 2, 256]),
                     TensorDescriptor.from_tensor(ct, [bm, bn]))
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            fs[f"Triton {bm}x{bn}x{bk} {warps}w {stages}st"] = (
                (lambda d=descs, g=grid, bm=bm, bn=bn, bk=bk, w=warps, s=stages:
                 triton_block_scaled[g](*d, M, N, K, fa, fb, pa, pb, vec, bm, bn, bk, s, num_warps=w) and None), ct)
        a16, b16 = (av * sav).to(torch.bfloat16), (bv * sbv).to(torch.bfloat16)
        fs["torch.matmul bf16 (dequantized)"] = ((lambda: torch.matmul(a16, b16.T)), None)
        runs = {}
        for name, (f, out) in fs.items():
            try:
                f()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - a config one compiler cannot build here
                print(f"  {name}: {type(e).__name__}: {str(e)[:160]}")
                continue
            if out is not None:
                err = ((out.double() - want).norm() / want.norm()).item()
                if not err < 2e-3:
                    print(f"  {name}: WRONG, relative error {err:.3g}")
                    continue
            runs[name] = f
        print_rates(f"{fmt} {M}x{N}x{K}", medians(runs, rounds, bench), 2.0 * M * N * K)


if __name__ == "__main__":
    main()
