"""Per-kernel times of tkc's attention backward (preprocess, dK/dV, dQ, each
tuned at its first launch) against bench/triton_attention.py's, and
Triton's autotune picks, in one process (do_bench medians). Which of the
two tuned kernels is behind, and by how much. On the GPU machine:
    VARIANTS=FILE sh test/gpu/build.sh   # attention_d64, attention_d128,
                                          # attention_bwd_d64, attention_bwd_d128
    TKC_TUNE_VERBOSE=1 python3 bench/attention_bwd_split.py
"""
import sys, torch, triton
sys.path.insert(0, "test/gpu"); sys.path.insert(0, "bench")
import tkshim, triton_attention as ta
bench = lambda f: triton.testing.do_bench(f, warmup=25, rep=200)
for Z, H, N, D, causal in [(16, 16, 1024, 64, False), (16, 16, 4096, 64, False), (4, 32, 4096, 128, False)]:
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(4))
    scale = D ** -0.5
    st = [q.stride(i) for i in range(4)]
    name = f"attention_bwd_d{D}" + ("_causal" if causal else "")
    fwd = tkshim.Kernel(f"attention_d{D}" + ("_causal" if causal else ""))
    pre, dkdv, dqk = (tkshim.Kernel(name, kernel=f"attention_bwd_{n}") for n in ("preprocess", "dkdv", "dq"))
    o = torch.empty_like(q); m = torch.empty(Z * H * N, device="cuda"); delta = torch.empty_like(m)
    assert fwd(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N) == 0
    dq, dk, dv = (torch.empty_like(q) for _ in range(3))
    t_pre = lambda: pre(o, do, delta, *st[:3], Z, H, N)
    t_kv = lambda: dkdv(q, k, v, scale, do, m, delta, dk, dv, *st[:3], Z, H, N)
    t_q = lambda: dqk(q, k, v, scale, do, m, delta, dq, *st[:3], Z, H, N)
    for f in (t_pre, t_kv, t_q):
        assert f() == 0
    torch.cuda.synchronize()
    tk = [bench(f) for f in (t_pre, t_kv, t_q)]
    dq2, dk2, dv2 = (torch.empty_like(q) for _ in range(3))
    s3 = (q.stride(0), q.stride(1), q.stride(2))
    r_pre = lambda: ta._bwd_preprocess[(N // 128, Z * H)](o, do, delta, *s3, H, N, BLOCK_M=128, HEAD_DIM=D)
    g1 = lambda meta: (triton.cdiv(N, meta["BLOCK_N1"]), Z * H)
    g2 = lambda meta: (triton.cdiv(N, meta["BLOCK_M2"]), Z * H)
    r_kv = lambda: ta._attn_bwd_dkdv[g1](q, k, v, scale, do, m, delta, dk2, dv2, *s3, H, N, HEAD_DIM=D, CAUSAL=causal)
    r_q = lambda: ta._attn_bwd_dq[g2](q, k, v, scale, do, m, delta, dq2, *s3, H, N, HEAD_DIM=D, CAUSAL=causal)
    for f in (r_pre, r_kv, r_q):
        f()
    torch.cuda.synchronize()
    tr = [bench(f) for f in (r_pre, r_kv, r_q)]
    err = max(((a.float() - b.float()).norm() / b.float().norm()).item() for a, b in ((dq, dq2), (dk, dk2), (dv, dv2)))
    print(Z, H, N, D, causal, "tkc pre/dkdv/dq ms", [round(x, 3) for x in tk], "triton", [round(x, 3) for x in tr],
          "ratios", [round(b / a, 2) for a, b in zip(tk, tr)], "err", f"{err:.2g}", flush=True)
    print("  triton picks:", ta._attn_bwd_dkdv.best_config, ta._attn_bwd_dq.best_config, flush=True)
