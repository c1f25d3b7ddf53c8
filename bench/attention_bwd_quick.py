# The attention backward, quickly: tkc's three kernels (preprocess, dK/dV, dQ, after
# tkc's forward, each tuned at its first launch) against bench/triton_attention.py's
# FA2 backward, in one process, do_bench medians, TFLOP/s as 2.5x the forward's
# flops. bench.py --only "attention bwd" runs the full table with the SDPA columns.
# Needs build/gpu/attention_d{64,128}[_causal] and attention_bwd_d{64,128}[_causal]
# (test/gpu/build.sh). Run from the repository root: python3 bench/attention_bwd_quick.py
import sys, torch, triton
sys.path.insert(0, "test/gpu"); sys.path.insert(0, "bench")
import tkshim, triton_attention as ta
dev = "cuda"
print(torch.cuda.get_device_name(), flush=True)
for Z, H, N, D, causal in ((4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (16, 16, 4096, 64, False), (16, 16, 4096, 64, True), (4, 32, 1024, 128, False), (16, 16, 1024, 64, True)):
    tail = "_causal" if causal else ""
    fwd = tkshim.Kernel(f"attention_d{D}{tail}")
    pre, dkdv, dqk = (tkshim.Kernel(f"attention_bwd_d{D}{tail}", kernel=f"attention_bwd_{n}") for n in ("preprocess", "dkdv", "dq"))
    q, k, v, do = (torch.randn(Z, H, N, D, device=dev, dtype=torch.float16) for _ in range(4))
    scale = D ** -0.5
    st = [q.stride(i) for i in range(4)]
    o = torch.empty_like(q); m = torch.empty(Z * H * N, device=dev); delta = torch.empty_like(m)
    assert fwd(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N) == 0
    dq, dk, dv = (torch.empty_like(q) for _ in range(3))
    def run():
        assert pre(o, do, delta, *st[:3], Z, H, N) == 0
        assert dkdv(q, k, v, scale, do, m, delta, dk, dv, *st[:3], Z, H, N) == 0
        assert dqk(q, k, v, scale, do, m, delta, dq, *st[:3], Z, H, N) == 0
    run(); torch.cuda.synchronize()
    t_tk = triton.testing.do_bench(run, warmup=25, rep=200, return_mode="median")
    o_t, m_t, d_t = torch.empty_like(q), torch.empty(Z * H * N, device=dev), torch.empty(Z * H * N, device=dev)
    ta.forward(q, k, v, o_t, m_t, scale, causal)
    dq_t, dk_t, dv_t = (torch.empty_like(q) for _ in range(3))
    g = lambda: ta.backward(q, k, v, o_t, do, m_t, d_t, dq_t, dk_t, dv_t, scale, causal)
    g(); torch.cuda.synchronize()
    t_tr = triton.testing.do_bench(g, warmup=25, rep=200, return_mode="median")
    err = max(((a.float() - b.float()).norm() / b.float().norm()).item() for a, b in ((dq, dq_t), (dk, dk_t), (dv, dv_t)))
    fl = 2.5 * 4 * Z * H * N * N * D * (0.5 if causal else 1.0)
    print(f"| Z{Z} H{H} N{N} D{D} {'causal' if causal else 'full'} | {fl / t_tk / 1e9:.0f} | {fl / t_tr / 1e9:.0f} | {t_tr / t_tk:.2f} | rel diff {err:.1e}", flush=True)
