# tkc's and Triton's forward kernels pinned to one config (128 x 64, 4 warps,
# 3 stages: both tuners' pick at Z16 H16 N4096 D64 causal), timed with
# do_bench in interleaved rounds and launched once more each between
# cudaProfilerStart/Stop, for ncu. Triton's compiled kernel (PTX, SASS
# through cuobjdump when OUT is set) is copied to $OUT for reading beside
# tkc's. On the GPU machine:
#   echo 'attention_d64p_causal attention.tk -D HEAD_DIM=64 -D CAUSAL=True -D BLOCK_M=128 -D BLOCK_N=64 -D num_warps=4 -D num_stages=3' > /tmp/v
#   VARIANTS=/tmp/v sh test/gpu/build.sh
#   python3 bench/attention_fwd_profile.py
#   ncu --profile-from-start off --kernel-name regex:attn --section WarpStateStats python3 bench/attention_fwd_profile.py
# Environment: VARIANT (default attention_d64p_causal), CAUSAL (1), D (64),
# BM, BN, WARPS, STAGES (Triton's pin: 128, 64, 4, 3), SHAPE (16x16x4096),
# TRITON_TUNED=1 (Triton's autotuned kernel instead of the pin; its pick is
# printed).
import os, shutil, subprocess, sys, torch, triton
sys.path.insert(0, "test/gpu"); sys.path.insert(0, "bench")
import tkshim, triton_attention as ta

env = os.environ.get
Z, H, N = (int(x) for x in env("SHAPE", "16x16x4096").split("x"))
D, causal = int(env("D", "64")), env("CAUSAL", "1") == "1"
BM, BN, W, S = (int(env(n, d)) for n, d in (("BM", "128"), ("BN", "64"), ("WARPS", "4"), ("STAGES", "3")))
q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
scale = D ** -0.5
st = [q.stride(i) for i in range(4)]
o, m = torch.empty_like(q), torch.empty(Z * H * N, device="cuda")
o_t, m_t = torch.empty_like(q), torch.empty_like(m)
fwd = tkshim.Kernel(env("VARIANT", "attention_d64p_causal"))
tk = lambda: fwd(q, k, v, scale, m, o, *st, *st, *st, *st, Z, H, N)
assert tk() == 0
tr = lambda: ta._attn_fwd.fn[(triton.cdiv(N, BM), Z * H)](q, k, v, scale, m_t, o_t, *st[:3], H, N,
                                                          HEAD_DIM=D, CAUSAL=causal, BLOCK_M=BM, BLOCK_N=BN,
                                                          num_warps=W, num_stages=S)
if env("TRITON_TUNED") == "1":
    tr = lambda: ta._attn_fwd[(lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H))](
        q, k, v, scale, m_t, o_t, *st[:3], H, N, HEAD_DIM=D, CAUSAL=causal)
    compiled = tr()
    print("triton's pick:", ta._attn_fwd.best_config)
else:
    compiled = tr()
torch.cuda.synchronize()
print("out max err", (o.float() - o_t.float()).abs().max().item())
times = {"tkc": [], "triton": []}
for _ in range(int(env("ROUNDS", "5"))):
    times["tkc"].append(triton.testing.do_bench(tk, warmup=25, rep=100))
    times["triton"].append(triton.testing.do_bench(tr, warmup=25, rep=100))
med = {n: sorted(t)[len(t) // 2] for n, t in times.items()}
print(f"Z{Z} H{H} N{N} D{D} {'causal' if causal else 'full'} {env('VARIANT', 'attention_d64p_causal')} "
      f"vs triton {'tuned' if env('TRITON_TUNED') == '1' else f'{BM}x{BN} {W}w {S}st'}: "
      f"tkc {med['tkc']:.3f} ms, triton {med['triton']:.3f} ms, tkc/triton speed {med['triton'] / med['tkc']:.3f}")
print("triton: registers", compiled.n_regs, "spills", compiled.n_spills, "shared", compiled.metadata.shared)
out = env("OUT")
if out:
    with open(os.path.join(out, "triton_attn_fwd.ptx"), "w") as f:
        f.write(compiled.asm["ptx"])
    with open(os.path.join(out, "triton_attn_fwd.cubin"), "wb") as f:
        f.write(compiled.asm["cubin"])
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    for name in ("triton_attn_fwd",):
        with open(os.path.join(out, name + ".sass"), "w") as f:
            subprocess.run([cuobjdump, "-sass", os.path.join(out, name + ".cubin")], stdout=f, check=False)
torch.cuda.profiler.start(); tk(); tr(); torch.cuda.synchronize(); torch.cuda.profiler.stop()
