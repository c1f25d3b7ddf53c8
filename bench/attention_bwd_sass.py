"""Static SASS opcode counts of tkc's and Triton's dK/dV kernels pinned to
one config (64 x 64, 4 warps, 3 stages, head dim 64: Triton's pick at
Z16 H16 N4096 D64 full), or with the argument dq their dQ kernels (128 x
64, 8 warps, 3 stages: Triton's pick there), for reading where the
instructions go. Writes both disassemblies to $OUT (default /tmp) as
tk.sass and tr.sass. On the GPU machine (cuobjdump comes with the
toolkit there):
    TKC=build/static/tkc python3 bench/attention_bwd_sass.py [dq]
"""
import collections
import os
import re
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_attention as ta  # noqa: E402

OUT = os.environ.get("OUT", "/tmp")
TKC = os.environ.get("TKC", "build/static/tkc")


def main():
    Z, H, N, D = 2, 2, 1024, 64
    q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(4))
    st = [q.stride(i) for i in range(4)]
    o, m = torch.empty_like(q), torch.empty(Z * H * N, device="cuda")
    delta = torch.empty_like(m)
    ta.forward(q, k, v, o, m, D ** -0.5, False)
    dk, dv = torch.empty_like(q), torch.empty_like(q)
    kernel = sys.argv[1] if len(sys.argv) > 1 else "dkdv"
    if kernel == "dq":
        compiled = ta._attn_bwd_dq.fn[(N // 128, Z * H)](q, k, v, D ** -0.5, do, m, delta, dk, *st[:3], H, N,
                                                        HEAD_DIM=D, CAUSAL=False, BLOCK_M2=128, BLOCK_N2=64,
                                                        num_warps=8, num_stages=3)
    else:
        compiled = ta._attn_bwd_dkdv.fn[(N // 64, Z * H)](q, k, v, D ** -0.5, do, m, delta, dk, dv, *st[:3], H, N,
                                                         HEAD_DIM=D, CAUSAL=False, BLOCK_N1=64, BLOCK_M1=64,
                                                         num_warps=4, num_stages=3)
    cubins = {"tr": os.path.join(OUT, "tr.cubin"), "tk": os.path.join(OUT, "tk.cubin")}
    with open(cubins["tr"], "wb") as f:
        f.write(compiled.asm["cubin"])
    subprocess.run([TKC, "--emit=cubin", "-D", "HEAD_DIM=64", "-D", "BLOCK_N1=64", "-D", "BLOCK_M1=64",
                    "-D", "BLOCK_M2=128", "-D", "BLOCK_N2=64", "-D", "num_stages=3",
                    "kernels/attention_bwd.tk", "-o", cubins["tk"]], check=True)
    for name, cubin in sorted(cubins.items()):
        sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(OUT, f"{name}.sass"), "w") as f:
            f.write(sass)
        counts, fun = collections.Counter(), None
        for line in sass.splitlines():
            found = re.search(r"Function : (\S+)", line)
            fun = found.group(1) if found else fun
            op = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)", line)
            if fun and ("_" + kernel) in fun and op:
                counts[(fun, op.group(1))] += 1
        for f in sorted({f for f, _ in counts}):
            ops = sorted(((c, op) for (g, op), c in counts.items() if g == f), reverse=True)
            print(f"{name} {f}: {sum(c for c, _ in ops)} instructions")
            print("   " + ", ".join(f"{op} {c}" for c, op in ops))


if __name__ == "__main__":
    main()
