"""Triton 3.6 FlashAttention-2, forward and backward: the peer that
kernels/attention.tk and kernels/attention_bwd.tk are benchmarked against
(bench/bench.py's attention rows).

Written for this benchmark in the structure of Triton's tutorial 06 (fused
attention), with plain pointers rather than tensor descriptors:
- forward: one program per (BLOCK_M query rows, z * h), an online-softmax
  loop over key tiles in bands (left of the diagonal, the diagonal, or all),
  writing Out and M = the rows' base-2 log-sum-exp;
- backward: a preprocess kernel (Delta = rowsum(O * dO)), a dK/dV kernel
  (one key tile, looping over queries) and a dQ kernel (one query tile,
  looping over keys), both rebuilding P from M.
The forward is autotuned over the configs Triton users tune attention with:
BLOCK_M 64/128, BLOCK_N 32/64/128, num_warps 4/8, num_stages 2-4, keyed on
N_CTX (the tutorial's pruning: no 8 warps below a 128x128 tile); the
backward over five configs around the tutorial's (_bwd_configs).

Like the tutorial, it needs N_CTX to be a multiple of every block size (the
benchmark's shapes are) and Q, K, V, O contiguous [Z, H, N_CTX, HEAD_DIM].
"""

import itertools

import torch
import triton
import triton.language as tl


def _configs(held, step, step_divides_held=False):
    """`held`: the tile a program keeps (64 or 128 rows), `step`: the tile
    its loop walks (32, 64 or 128 rows)."""
    out = []
    for bm, bn, w, s in itertools.product((64, 128), (32, 64, 128), (4, 8), (2, 3, 4)):
        if w == 8 and bm * bn < 128 * 128:
            continue
        if step_divides_held and bm % bn:
            continue
        out.append(triton.Config({held: bm, step: bn}, num_warps=w, num_stages=s))
    return out


@triton.jit
def _fwd_band(acc, l_i, m_i, q, k_base, v_base, stride_s, start_m, qk_scale,
              offs_m, offs_n, offs_d, N_CTX,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    # STAGE 1: causal, left of the diagonal; 2: the diagonal; 3: everything
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_base + (start_n + offs_n)[:, None] * stride_s + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k))
        if STAGE == 2:
            keep = offs_m[:, None] >= (start_n + offs_n)[None, :]
            qk = qk * qk_scale + tl.where(keep, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_s + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


# The causal bands meet at a tile edge only if BLOCK_N divides BLOCK_M.
@triton.autotune(configs=_configs("BLOCK_M", "BLOCK_N", step_divides_held=True), key=["N_CTX", "HEAD_DIM", "CAUSAL"])
@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out, stride_z, stride_h, stride_s, H, N_CTX,
              HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    head = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.full([BLOCK_M], 1.0, tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + head + offs_m[:, None] * stride_s + offs_d[None, :])
    if CAUSAL:
        acc, l_i, m_i = _fwd_band(acc, l_i, m_i, q, K + head, V + head, stride_s, start_m, qk_scale,
                                  offs_m, offs_n, offs_d, N_CTX, BLOCK_M, BLOCK_N, 1)
        acc, l_i, m_i = _fwd_band(acc, l_i, m_i, q, K + head, V + head, stride_s, start_m, qk_scale,
                                  offs_m, offs_n, offs_d, N_CTX, BLOCK_M, BLOCK_N, 2)
    else:
        acc, l_i, m_i = _fwd_band(acc, l_i, m_i, q, K + head, V + head, stride_s, start_m, qk_scale,
                                  offs_m, offs_n, offs_d, N_CTX, BLOCK_M, BLOCK_N, 3)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + head + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(Out.dtype.element_ty))


@triton.jit
def _bwd_preprocess(O, DO, Delta, stride_z, stride_h, stride_s, H, N_CTX,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_hz = tl.program_id(1)
    head = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs = offs_m[:, None] * stride_s + offs_d[None, :]
    o = tl.load(O + head + offs).to(tl.float32)
    do = tl.load(DO + head + offs).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + offs_m, tl.sum(o * do, 1))


@triton.jit
def _dkdv_band(dk, dv, k, v, q_base, do_base, m_base, d_base, stride_s, qk_scale,
               offs_n, offs_d, lo, hi, BLOCK_M1: tl.constexpr, MASK: tl.constexpr):
    for start_m in range(lo, hi, BLOCK_M1):
        start_m = tl.multiple_of(start_m, BLOCK_M1)
        offs_m = start_m + tl.arange(0, BLOCK_M1)
        q = tl.load(q_base + offs_m[:, None] * stride_s + offs_d[None, :])
        m = tl.load(m_base + offs_m)
        pT = tl.math.exp2(tl.dot(k, tl.trans(q)) * qk_scale - m[None, :])
        if MASK:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_base + offs_m[:, None] * stride_s + offs_d[None, :])
        dv = tl.dot(pT.to(do.dtype), do, dv)
        delta = tl.load(d_base + offs_m)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - delta[None, :])
        dk = tl.dot(dsT.to(q.dtype), q, dk)
    return dk, dv


def _bwd_configs(held, step):
    """The backward kernels are tuned over fewer configs: each compiles four
    dots, and the full space costs minutes of compiling per head size and
    mask. Tutorial 06's blocks (a 128-row held tile walked in 32-row steps,
    4 warps) at three depths, and two other shapes."""
    shapes = [(128, 32, 4, 2), (128, 32, 4, 3), (128, 32, 4, 5), (64, 64, 4, 3), (128, 64, 8, 3)]
    return [triton.Config({held: h, step: s}, num_warps=w, num_stages=n) for h, s, w, n in shapes]


@triton.autotune(configs=_bwd_configs("BLOCK_N1", "BLOCK_M1"), key=["N_CTX", "HEAD_DIM", "CAUSAL"])
@triton.jit
def _attn_bwd_dkdv(Q, K, V, sm_scale, DO, M, Delta, DK, DV, stride_z, stride_h, stride_s, H, N_CTX,
                   HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
                   BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr):
    off_hz = tl.program_id(1)
    head = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    stats = off_hz.to(tl.int64) * N_CTX
    start_n = tl.program_id(0) * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_n[:, None] * stride_s + offs_d[None, :]
    k = tl.load(K + head + rows)
    v = tl.load(V + head + rows)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    if CAUSAL:
        # the query tiles that straddle the diagonal (whole BLOCK_M1 tiles,
        # which may start before start_n and end after the key tile), then
        # every later one
        lo = (start_n // BLOCK_M1) * BLOCK_M1
        mid = lo + tl.cdiv(start_n + BLOCK_N1 - lo, BLOCK_M1) * BLOCK_M1
        dk, dv = _dkdv_band(dk, dv, k, v, Q + head, DO + head, M + stats, Delta + stats, stride_s, qk_scale,
                            offs_n, offs_d, lo, mid, BLOCK_M1, True)
        dk, dv = _dkdv_band(dk, dv, k, v, Q + head, DO + head, M + stats, Delta + stats, stride_s, qk_scale,
                            offs_n, offs_d, mid, N_CTX, BLOCK_M1, False)
    else:
        dk, dv = _dkdv_band(dk, dv, k, v, Q + head, DO + head, M + stats, Delta + stats, stride_s, qk_scale,
                            offs_n, offs_d, 0, N_CTX, BLOCK_M1, False)
    tl.store(DK + head + rows, (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(DV + head + rows, dv.to(DV.dtype.element_ty))


@triton.jit
def _dq_band(dq, q, do, m, delta, k_base, v_base, stride_s, qk_scale, offs_m, offs_d, lo, hi,
             BLOCK_N2: tl.constexpr, MASK: tl.constexpr):
    for start_n in range(lo, hi, BLOCK_N2):
        start_n = tl.multiple_of(start_n, BLOCK_N2)
        offs_n = start_n + tl.arange(0, BLOCK_N2)
        k = tl.load(k_base + offs_n[:, None] * stride_s + offs_d[None, :])
        v = tl.load(v_base + offs_n[:, None] * stride_s + offs_d[None, :])
        p = tl.math.exp2(tl.dot(q, tl.trans(k)) * qk_scale - m[:, None])
        if MASK:
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(k.dtype), k, dq)
    return dq


@triton.autotune(configs=_bwd_configs("BLOCK_M2", "BLOCK_N2"), key=["N_CTX", "HEAD_DIM", "CAUSAL"])
@triton.jit
def _attn_bwd_dq(Q, K, V, sm_scale, DO, M, Delta, DQ, stride_z, stride_h, stride_s, H, N_CTX,
                 HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
                 BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr):
    off_hz = tl.program_id(1)
    head = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    stats = off_hz.to(tl.int64) * N_CTX
    start_m = tl.program_id(0) * BLOCK_M2
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_m[:, None] * stride_s + offs_d[None, :]
    q = tl.load(Q + head + rows)
    do = tl.load(DO + head + rows)
    m = tl.load(M + stats + offs_m)
    delta = tl.load(Delta + stats + offs_m)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    if CAUSAL:
        # key tiles left of the query tile, then those straddling its rows
        hi = (start_m // BLOCK_N2) * BLOCK_N2
        dq = _dq_band(dq, q, do, m, delta, K + head, V + head, stride_s, qk_scale, offs_m, offs_d,
                      0, hi, BLOCK_N2, False)
        dq = _dq_band(dq, q, do, m, delta, K + head, V + head, stride_s, qk_scale, offs_m, offs_d,
                      hi, start_m + BLOCK_M2, BLOCK_N2, True)
    else:
        dq = _dq_band(dq, q, do, m, delta, K + head, V + head, stride_s, qk_scale, offs_m, offs_d,
                      0, N_CTX, BLOCK_N2, False)
    tl.store(DQ + head + rows, (dq * sm_scale).to(DQ.dtype.element_ty))


def _check(q):
    Z, H, N, D = q.shape
    assert q.is_contiguous() and N % 128 == 0, "needs contiguous Q, K, V and N_CTX % 128 == 0"
    return Z, H, N, D


def forward(q, k, v, o, m, sm_scale, causal):
    """Out into o, the base-2 log-sum-exp into m ([Z * H, N_CTX] f32)."""
    Z, H, N, D = _check(q)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H)  # noqa: E731
    _attn_fwd[grid](q, k, v, sm_scale, m, o, q.stride(0), q.stride(1), q.stride(2), H, N,
                    HEAD_DIM=D, CAUSAL=causal)


def backward(q, k, v, o, do, m, delta, dq, dk, dv, sm_scale, causal):
    """dQ, dK, dV into dq, dk, dv; delta is [Z * H, N_CTX] f32 scratch."""
    Z, H, N, D = _check(q)
    st = (q.stride(0), q.stride(1), q.stride(2))
    _bwd_preprocess[(N // 128, Z * H)](o, do, delta, *st, H, N, BLOCK_M=128, HEAD_DIM=D)
    g1 = lambda meta: (triton.cdiv(N, meta["BLOCK_N1"]), Z * H)  # noqa: E731
    _attn_bwd_dkdv[g1](q, k, v, sm_scale, do, m, delta, dk, dv, *st, H, N, HEAD_DIM=D, CAUSAL=causal)
    g2 = lambda meta: (triton.cdiv(N, meta["BLOCK_M2"]), Z * H)  # noqa: E731
    _attn_bwd_dq[g2](q, k, v, sm_scale, do, m, delta, dq, *st, H, N, HEAD_DIM=D, CAUSAL=causal)


if __name__ == "__main__":
    # a quick self-check against torch autograd
    torch.manual_seed(0)
    for causal in (False, True):
        for (Z, H, N, D) in ((1, 2, 256, 64), (1, 2, 384, 128)):
            q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(4))
            scale = D ** -0.5
            qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
            ref = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=causal, scale=scale)
            ref.backward(do.float())
            o, dq, dk, dv = (torch.empty_like(q) for _ in range(4))
            m, delta = (torch.empty(Z * H * N, device="cuda") for _ in range(2))
            forward(q, k, v, o, m, scale, causal)
            backward(q, k, v, o, do, m, delta, dq, dk, dv, scale, causal)
            for name, got, want in (("O", o, ref), ("dQ", dq, qf.grad), ("dK", dk, kf.grad), ("dV", dv, vf.grad)):
                err = ((got.float() - want).norm() / want.norm()).item()
                print(f"causal={causal} {Z}x{H}x{N}x{D} {name}: rel err {err:.1e}")
                assert err < 1e-2, name
