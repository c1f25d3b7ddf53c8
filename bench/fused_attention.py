#!/usr/bin/env python3
"""Triton's tutorial 06 forward (fused attention over host descriptors) in
both compilers: tkc's port (test/gpu/ports/fused_attention.tk, compiled
here by TKC, default build/tkc, with -D values) and the same kernel in
Triton 3.6 (below, written as the tutorial writes it), at the same
configs, causal (STAGE 3: two loops) or not, warp_specialize off and on,
f16, head dim 64, in one process. Outputs are checked against torch's
SDPA first; then do_bench(warmup=25, rep=100) medians over ROUNDS
interleaved rounds (default 3), TFLOP/s.

    python3 bench/fused_attention.py [ZxHxN[c] ...]      (c: causal)
CONFIGS="BM,BN,warps,stages,ws;..." replaces the configs.
"""

import ctypes
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu" / "ports"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from interleaved import medians, print_rates  # noqa: E402
from run_ports import build_launcher, runtime_object, tk_tensor  # noqa: E402

SRC = ROOT / "test" / "gpu" / "ports" / "fused_attention.tk"
# BLOCK_N <= HEAD_DIM (the tutorial's static assertion), so no BLOCK_N 128 at head dim 64
CONFIGS = [(128, 64, 8, 2, 0), (128, 64, 8, 2, 1), (128, 64, 8, 3, 1), (128, 64, 4, 3, 0)]
if os.environ.get("CONFIGS"):
    CONFIGS = [tuple(int(x) for x in c.split(",")) for c in os.environ["CONFIGS"].split(";")]


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype: tl.constexpr, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    offs_m, offs_n, N_CTX, warp_specialize: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offsetk_y = offset_y + lo
    offsetv_y = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=warp_specialize):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([offsetk_y, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offsetv_y, 0])
        p = p.to(dtype)
        acc = tl.dot(p, v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offsetk_y += BLOCK_N
        offsetv_y += BLOCK_N
    return acc, l_i, m_i


@triton.jit
def triton_attn_fwd(sm_scale, M, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX, HEAD_DIM: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    warp_specialize: tl.constexpr):
    dtype = tl.float16
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype, start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX,
                                        warp_specialize)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype, start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX, warp_specialize)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([qo_offset_y, 0], acc.to(dtype))


def build_tkc(work, rt, cfg, stage):
    bm, bn, warps, stages, ws = cfg
    defs = [f"-DBLOCK_M={bm}", f"-DBLOCK_N={bn}", f"-Dnum_warps={warps}", f"-Dnum_stages={stages}",
            f"-DSTAGE={stage}", f"-Dwarp_specialize={'True' if ws else 'False'}"]
    got = build_launcher(work, rt, SRC, "_attn_fwd", defs)
    return got[0] if got else None


def main():
    shapes = [a for a in sys.argv[1:] if not a.startswith("--")] or ["16x16x4096c", "16x16x4096", "4x32x16384c"]
    rounds = int(os.environ.get("ROUNDS", "3"))
    print(torch.cuda.get_device_name(), flush=True)
    work = Path(tempfile.mkdtemp(prefix="tkc_fa_"))
    rt = runtime_object(work)
    bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=100)  # noqa: E731
    D = 64
    for shape in shapes:
        causal = shape.endswith("c")
        Z, H, N = (int(x) for x in shape.rstrip("c").split("x"))
        stage = 3 if causal else 1
        torch.manual_seed(0)
        q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
        want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=D ** -0.5)
        q2, k2, v2 = (t.view(-1, D) for t in (q, k, v))
        stream = torch.cuda.current_stream().cuda_stream
        fs = {}
        for cfg in CONFIGS:
            bm, bn, warps, stages, ws = cfg
            o, m = torch.full_like(q, float("nan")), torch.empty(Z * H * N, device="cuda")
            lib = build_tkc(work, rt, cfg, stage)
            if lib:
                tq, tk, tv, to = tk_tensor(q2), tk_tensor(k2), tk_tensor(v2), tk_tensor(o.view(-1, D))
                fs[f"tkc {cfg}"] = ((lambda lib=lib, tq=tq, tk=tk, tv=tv, to=to, m=m:
                                     lib.run(stream, D ** -0.5, m.data_ptr(), Z, H, ctypes.byref(tq), ctypes.byref(tk),
                                             ctypes.byref(tv), ctypes.byref(to), N)), o)
            o_t, m_t = torch.full_like(q, float("nan")), torch.empty(Z * H * N, device="cuda")
            dq = TensorDescriptor(q2, q2.shape, q2.stride(), [bm, D])
            dk = TensorDescriptor(k2, k2.shape, k2.stride(), [bn, D])
            dv = TensorDescriptor(v2, v2.shape, v2.stride(), [bn, D])
            do = TensorDescriptor(o_t.view(-1, D), (Z * H * N, D), (D, 1), [bm, D])
            fs[f"Triton {cfg}"] = ((lambda dq=dq, dk=dk, dv=dv, do=do, m_t=m_t, cfg=cfg:
                                    triton_attn_fwd[(triton.cdiv(N, cfg[0]), Z * H)](
                                        D ** -0.5, m_t, Z, H, dq, dk, dv, do, N, D, cfg[0], cfg[1], stage,
                                        bool(cfg[4]), num_warps=cfg[2], num_stages=cfg[3]) and None), o_t)
        runs = {}
        for name, (f, o) in fs.items():
            try:
                s = f()
                torch.cuda.synchronize()
            except Exception as e:  # a config one compiler cannot build here
                print(f"  {name}: {type(e).__name__}: {str(e)[:120]}")
                continue
            if s not in (None, 0):  # the tkc launcher's CUresult (a Triton launch gives None)
                print(f"  {name}: status {s}")
                continue
            err = (o.float() - want.float()).abs().max().item()
            if not err < 2e-2:
                print(f"  {name}: WRONG, max error {err:.3g}")
                continue
            runs[name] = f
        flops = 4.0 * Z * H * N * N * D * (0.5 if causal else 1.0)
        print_rates(f"Z{Z} H{H} N{N} D{D} {'causal' if causal else 'full'}", medians(runs, rounds, bench), flops)


if __name__ == "__main__":
    main()
