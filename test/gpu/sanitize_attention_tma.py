"""kernels/attention_tma.tk (descriptors; warp-specialized and plain
configs), through the tuner of its Python modules in build/gpu/py (from
test/gpu/build.sh), so that every config runs, at a length that is not a
multiple of the tiles, checked against float32 attention: a program to run
under compute-sanitizer.

    compute-sanitizer --tool racecheck --error-exitcode 9 python3 test/gpu/sanitize_attention_tma.py
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build" / "gpu" / "py"))
import attention_tma_d128  # noqa: E402
import attention_tma_d64_causal  # noqa: E402

for module, d, causal in ((attention_tma_d64_causal, 64, True), (attention_tma_d128, 128, False)):
    Z, H, N = 1, 2, 200
    q, k, v = (torch.randn(Z, H, N, d, device="cuda", dtype=torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    m = torch.full((Z * H * N,), float("nan"), device="cuda")
    module.attention_fwd_tma_f16(q.view(-1, d), k.view(-1, d), v.view(-1, d), d ** -0.5, m, out, Z, H, N)
    torch.cuda.synchronize()
    s = (q.float() @ k.float().transpose(-1, -2)) * d ** -0.5
    if causal:
        s = s.masked_fill(torch.ones(N, N, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    want = torch.softmax(s, -1) @ v.float()
    err = ((out.double() - want.double()).norm() / want.double().norm()).item()
    assert err < 5e-3, (d, causal, err)
print("sanitize_attention_tma: 2 kernels passed")
