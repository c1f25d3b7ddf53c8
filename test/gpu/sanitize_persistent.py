"""The persistent warp-specialized matmuls of kernels/matmul_persistent.tk
and kernels/matmul_fp8.tk (their Python modules in build/gpu/py, from
test/gpu/build.sh), each at two small ragged shapes through its tuner,
checked against torch: a program to run under compute-sanitizer.

    compute-sanitizer --tool racecheck --error-exitcode 9 python3 test/gpu/sanitize_persistent.py
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build" / "gpu" / "py"))
import matmul_fp8  # noqa: E402
import matmul_persistent  # noqa: E402


def relative_error(got, want):
    return ((got.double() - want).norm() / want.norm()).item()


for M, N, K in ((300, 520, 208), (129, 264, 80)):  # K * 1 byte: a multiple of 16 for fp8's descriptors
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    matmul_persistent.matmul_persistent_f16(a, b, c, M, N, K)
    torch.cuda.synchronize()
    assert relative_error(c, a.double() @ b.double()) < 2e-3, (M, N, K)
    a8 = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    bt8 = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
    scale = torch.tensor([0.5], device="cuda")
    c.fill_(float("nan"))
    matmul_fp8.matmul_fp8_persistent(a8, bt8, c, scale, scale, M, N, K)
    torch.cuda.synchronize()
    assert relative_error(c, (a8.double() @ bt8.double().T) * 0.25) < 2e-3, (M, N, K)
print("sanitize_persistent: 2 kernels x 2 shapes passed")
