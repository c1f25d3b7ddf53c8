#!/usr/bin/env python3
"""Issue 29's "report beside cuBLAS" rows, in one process: outputs checked
against float64 first, then do_bench medians over ROUNDS interleaved rounds
(default 3), TFLOP/s (2 M N K summed over the problems).

- A grouped GEMM, C_g = A_g @ B_g in f16 (f32 accumulation), several
  problems in one launch: test/gpu/ports/grouped_gemm.tk's grouped_matmul
  (Triton's tutorial 08 kernel: a grid of one program an SM walking every
  problem's tiles, the problems' addresses and sizes read from tables),
  the same kernel in Triton 3.6 (written below, the same config), and
  torch.matmul once a problem (cuBLAS, one launch after another).
- A decode-like matmul, 64 x 8192 x 8192 in bf16: kernels/matmul.tk's tuned
  launcher (bf16 operands as bench/matmul_dtypes.py derives them) beside
  torch.matmul.

    python3 bench/grouped_gemm.py       (TKC: the tkc to build with)
"""

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "ports"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton.testing  # noqa: E402

from interleaved import medians, print_rates  # noqa: E402
from matmul_dtypes import derive  # noqa: E402
from run_ports import build_launcher, runtime_object  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
BM, BN, BK, WARPS, STAGES = 128, 128, 32, 4, 3  # tutorial 08's first config, for both compilers
GROUPS = {
    "4 x 1024^3": [(1024, 1024, 1024)] * 4,
    "4 x 2048^3": [(2048, 2048, 2048)] * 4,
    "8 ragged M (MoE-like) x 2048 x 1024": [(m, 2048, 1024) for m in (37, 1100, 256, 700, 2048, 9, 512, 1500)],
}


@triton.jit
def triton_grouped(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                   NUM_SM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_n_tiles = tl.cdiv(gn, BN)
        num_tiles = tl.cdiv(gm, BM) * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile = tile_idx - last_problem_end
            offs_m = (tile // num_n_tiles) * BM + tl.arange(0, BM)
            offs_n = (tile % num_n_tiles) * BN + tl.arange(0, BN)
            offs_k = tl.arange(0, BK)
            a_ptrs = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_n[None, :]
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BK)):
                k_left = gk - kk * BK
                a = tl.load(a_ptrs, mask=(offs_m[:, None] < gm) & (offs_k[None, :] < k_left), other=0.0)
                b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < gn), other=0.0)
                acc += tl.dot(a, b)
                a_ptrs += BK
                b_ptrs += BK * ldb
            c_ptrs = c_ptr + ldc * offs_m[:, None] + offs_n[None, :]
            tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < gm) & (offs_n[None, :] < gn))
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


def check(outs, refs, what):
    for i, (c, ref) in enumerate(zip(outs, refs)):
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        if not err < 4e-3:
            sys.exit(f"{what}: problem {i} max error {err:.2e} of the largest element")


def grouped(work, rt, sms):
    lib, _ = build_launcher(work, rt, ROOT / "test" / "gpu" / "ports" / "grouped_gemm.tk", "grouped_matmul",
                            [f"-DBM={BM}", f"-DBN={BN}", f"-DBK={BK}", f"-Dnum_warps={WARPS}",
                             f"-Dnum_stages={STAGES}"])
    stream = torch.cuda.current_stream().cuda_stream
    for title, sizes in GROUPS.items():
        torch.manual_seed(0)
        As = [torch.randn(m, k, device="cuda", dtype=torch.float16) for m, n, k in sizes]
        Bs = [torch.randn(k, n, device="cuda", dtype=torch.float16) for m, n, k in sizes]
        outs = {name: [torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16) for m, n, k in sizes]
                for name in ("tkc", "triton", "torch")}
        table = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.int64)
        dims = torch.tensor([v for s in sizes for v in s], device="cuda", dtype=torch.int32)
        lds = torch.tensor([v for a, b in zip(As, Bs) for v in (a.stride(0), b.stride(0), b.shape[1])],
                           device="cuda", dtype=torch.int32)
        a_t, b_t = table(As), table(Bs)
        c_tkc, c_tri = table(outs["tkc"]), table(outs["triton"])
        n = len(sizes)

        def run_tkc():
            s = lib.run(stream, a_t.data_ptr(), b_t.data_ptr(), c_tkc.data_ptr(), dims.data_ptr(), lds.data_ptr(),
                        n, sms)
            if s:
                sys.exit(f"tkc grouped_matmul: {lib.status(s).decode()}")

        def run_triton():
            triton_grouped[(sms,)](a_t, b_t, c_tri, dims, lds, n, NUM_SM=sms, BM=BM, BN=BN, BK=BK,
                                   num_warps=WARPS, num_stages=STAGES)

        def run_torch():
            for a, b, c in zip(As, Bs, outs["torch"]):
                torch.matmul(a, b, out=c)

        fns = {f"tkc grouped_matmul {BM}x{BN}x{BK} {WARPS}w {STAGES}st": run_tkc,
               "Triton tutorial 08 kernel, same config": run_triton,
               "torch.matmul a problem (cuBLAS)": run_torch}
        for f in fns.values():
            f()
        torch.cuda.synchronize()
        refs = [a.double() @ b.double() for a, b in zip(As, Bs)]
        for name in outs:
            check(outs[name], refs, name)
        med = medians(fns, ROUNDS, lambda f: triton.testing.do_bench(f, warmup=25, rep=100, return_mode="median"))
        flops = sum(2 * m * n * k for m, n, k in sizes)
        print_rates(f"grouped f16, {title}", med, flops, width=44, base=med["torch.matmul a problem (cuBLAS)"],
                    base_name="cuBLAS")


def decode(work, rt):
    src = Path(work) / "matmul_bf16.tk"
    src.write_text(derive("bf16"))
    lib, _ = build_launcher(work, rt, src, "matmul", [])
    stream = torch.cuda.current_stream().cuda_stream
    M, N, K = 64, 8192, 8192
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)

    def run_tkc():
        s = lib.run(stream, a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, K, 1, N, 1, N, 1)
        if s:
            sys.exit(f"tkc matmul: {lib.status(s).decode()}")

    run_tkc()  # the first call tunes
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    if not err < 1e-2:
        sys.exit(f"tkc matmul bf16: max error {err:.2e} of the largest element")
    fns = {"tkc matmul.tk bf16 (tuned)": run_tkc, "torch.matmul (cuBLAS)": lambda: torch.matmul(a, b)}
    med = medians(fns, ROUNDS, lambda f: triton.testing.do_bench(f, warmup=25, rep=100, return_mode="median"))
    print_rates(f"decode-like bf16 {M}x{N}x{K}", med, 2 * M * N * K, width=44, base=med["torch.matmul (cuBLAS)"],
                base_name="cuBLAS")


def main():
    print(torch.cuda.get_device_name())
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    with tempfile.TemporaryDirectory() as work:
        rt = runtime_object(work)
        grouped(work, rt, sms)
        decode(work, rt)


if __name__ == "__main__":
    main()
