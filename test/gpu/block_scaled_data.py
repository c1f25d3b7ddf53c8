"""Inputs of kernels/matmul_block_scaled.tk and their float64 values, for
test/gpu/python_binding.py and bench/block_scaled.py: random operands in
e4m3 or in e2m1 packed two codes a byte along K (the first in the low
four bits), and block scales (e8m0 codes, or f8e4m3 for nvfp4) in the
packed 5-D layout the kernel reads."""

import torch

E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def operand(fmt, rows, K, device="cuda"):
    """(the kernel's bytes [rows, K / PA], the float64 values [rows, K])"""
    if fmt == "e4m3":
        x = torch.randn(rows, K, device=device).to(torch.float8_e4m3fn)
        return x, x.double()
    codes = torch.randint(0, 16, (rows, K), device=device, dtype=torch.uint8)
    values = torch.tensor(E2M1, dtype=torch.float64, device=device)[codes.long()]
    return (codes[:, 0::2] | (codes[:, 1::2] << 4)).contiguous(), values


def scales(rows, K, vec, nv, device="cuda"):
    """(the packed [1, ceil(rows / 128), K / vec / 4, 2, 256] scales, their
    float64 values broadcast to [rows, K]). Scales from 2^-2 to 2^2 (e8m0)
    or 0.25 to 2 (e4m3): products of 8192 terms stay inside f16."""
    groups, padded = K // vec, -(-rows // 128) * 128
    if nv:
        s = (torch.rand(padded, groups, device=device) * 1.75 + 0.25).to(torch.float8_e4m3fn)
        values = s.double()
    else:
        s = torch.randint(125, 130, (padded, groups), device=device, dtype=torch.uint8)
        values = torch.exp2(s.double() - 127)
    packed = s.view(padded // 128, 4, 32, groups // 4, 4).permute(0, 3, 2, 1, 4).contiguous()
    return packed.view(1, padded // 128, groups // 4, 2, 256), values[:rows].repeat_interleave(vec, dim=1)
