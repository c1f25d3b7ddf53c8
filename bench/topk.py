"""tl.topk over rows, as MoE routing uses it: M rows of N scores, each
program BM rows, the K largest of each row kept. tkc (and, with
TKC_BEFORE, the same source built by an earlier tkc), Triton 3.6's
tl.topk and torch.topk, one process, outputs checked against torch first,
medians of 7 interleaved do_bench rounds, microseconds.

    TKC=build/static/tkc [TKC_BEFORE=...] python3 bench/topk.py
"""
import os
import subprocess
import tempfile
import ctypes

import torch
import triton
import triton.language as tl

from oneshim import runtime_object, shim_library

TKC = os.environ.get("TKC", "build/tkc")

SOURCE = """
@kernel(grid=(cdiv(M, BM),), num_warps=4)
def topk_rows(x: *f32 % 16, out: *f32 % 16, M: i32, N: constexpr = 64, K: constexpr = 8, BM: constexpr = 16):
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    v = tl.load(x + r[:, None] * N + tl.arange(0, N)[None, :], mask=r[:, None] < M, other=float('-inf'))
    tl.store(out + r[:, None] * K + tl.arange(0, K)[None, :], tl.topk(v, K), mask=r[:, None] < M)
"""

SHIM = """
#include <stdint.h>
__attribute__((visibility("default"))) int shim(void *stream, void *x, void *out, int32_t M) {
    return (int)topk_rows(stream, x, out, M);
}
"""


@triton.jit
def triton_topk(x, out, M, N: tl.constexpr, K: tl.constexpr, BM: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    v = tl.load(x + r[:, None] * N + tl.arange(0, N)[None, :], mask=r[:, None] < M, other=float('-inf'))
    tl.store(out + r[:, None] * K + tl.arange(0, K)[None, :], tl.topk(v, K), mask=r[:, None] < M)


def build(work, name, tkc, n, k, bm):
    rt = runtime_object(work)
    d = work / name
    d.mkdir()
    (d / "k.tk").write_text(SOURCE)
    subprocess.run([tkc, "-D", f"N={n}", "-D", f"K={k}", "-D", f"BM={bm}", str(d / "k.tk"), "-o", str(d)],
                   check=True)
    lib = shim_library(d, SHIM, rt)
    lib.shim.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int32]
    return lib


def main():
    from pathlib import Path
    work = Path(tempfile.mkdtemp(prefix="tktopk-"))
    stream = torch.cuda.current_stream().cuda_stream
    print(f"{torch.cuda.get_device_name()}; microseconds, medians of 7 interleaved do_bench rounds", flush=True)
    for M, N, K, BM in ((16384, 64, 8, 16), (16384, 128, 8, 16), (65536, 256, 16, 8)):
        libs = {"tkc": build(work, f"now_{N}", TKC, N, K, BM)}
        if os.environ.get("TKC_BEFORE"):
            libs["tkc before"] = build(work, f"before_{N}", os.environ["TKC_BEFORE"], N, K, BM)
        x = torch.randn(M, N, device="cuda")
        want = torch.topk(x, K, dim=-1).values
        fs = {}
        for name, lib in libs.items():
            out = torch.full((M, K), float("nan"), device="cuda")
            args = (stream, x.data_ptr(), out.data_ptr(), M)
            assert lib.shim(*args) == 0
            torch.cuda.synchronize()
            assert torch.equal(out, want), f"{name}: wrong answer"
            fs[name] = lambda lib=lib, args=args: lib.shim(*args)
        out_t = torch.empty(M, K, device="cuda")
        grid = (triton.cdiv(M, BM),)
        run_triton = lambda: triton_topk[grid](x, out_t, M, N, K, BM, num_warps=4)  # noqa: E731
        run_triton()
        torch.cuda.synchronize()
        assert torch.equal(out_t, want), "triton: wrong answer"
        fs["triton"] = run_triton
        fs["torch.topk"] = lambda: torch.topk(x, K, dim=-1)
        rounds = [{k: triton.testing.do_bench(f, warmup=25, rep=100) for k, f in fs.items()} for _ in range(7)]
        med = {k: sorted(r[k] for r in rounds)[3] for k in fs}
        row = ", ".join(f"{k} {v * 1000:.1f}" for k, v in med.items())
        print(f"M={M} N={N} K={K} BM={BM}: {row}; tkc/triton {med['triton'] / med['tkc']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
