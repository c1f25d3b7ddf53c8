# tkc's and Triton's dK/dV kernels pinned to one config (64 x 64, 4 warps, 3 stages:
# Triton's pick at Z16 H16 N4096 D64 full), timed with do_bench and launched once
# more each between cudaProfilerStart/Stop, for ncu. On the GPU machine:
#   echo 'attention_bwd_d64p attention_bwd.tk -D HEAD_DIM=64 -D BLOCK_N1=64 -D BLOCK_M1=64 -D BLOCK_M2=128 -D BLOCK_N2=64 -D num_stages=3' > /tmp/v
#   VARIANTS=/tmp/v sh test/gpu/build.sh
#   python3 bench/attention_bwd_profile.py
#   ncu --profile-from-start off --kernel-name regex:dkdv --metrics smsp__inst_executed.sum python3 bench/attention_bwd_profile.py
import sys, torch, triton
sys.path.insert(0, "test/gpu"); sys.path.insert(0, "bench")
import tkshim, triton_attention as ta
Z, H, N, D = 16, 16, 4096, 64
q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(4))
scale = D ** -0.5
st = [q.stride(i) for i in range(4)]
o = torch.empty_like(q); m = torch.empty(Z * H * N, device="cuda"); delta = torch.empty_like(m)
ta.forward(q, k, v, o, m, scale, False)
pre, dkdv = (tkshim.Kernel("attention_bwd_d64p", kernel=f"attention_bwd_{n}") for n in ("preprocess", "dkdv"))
dk, dv = torch.empty_like(q), torch.empty_like(q)
assert pre(o, do, delta, *st[:3], Z, H, N) == 0
tk = lambda: dkdv(q, k, v, scale, do, m, delta, dk, dv, *st[:3], Z, H, N)
assert tk() == 0
dk_t, dv_t = torch.empty_like(q), torch.empty_like(q)
tr = lambda: ta._attn_bwd_dkdv.fn[(N // 64, Z * H)](q, k, v, scale, do, m, delta, dk_t, dv_t, *st[:3], H, N,
                                                    HEAD_DIM=D, CAUSAL=False, BLOCK_N1=64, BLOCK_M1=64,
                                                    num_warps=4, num_stages=3)
tr(); torch.cuda.synchronize()
print("dk err", ((dk.float() - dk_t.float()).norm() / dk_t.float().norm()).item())
print("tkc ms", triton.testing.do_bench(tk, warmup=25, rep=200), "triton ms", triton.testing.do_bench(tr, warmup=25, rep=200))
torch.cuda.profiler.start(); tk(); tr(); torch.cuda.synchronize(); torch.cuda.profiler.stop()
