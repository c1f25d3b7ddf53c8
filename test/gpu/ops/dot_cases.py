"""GPU cases of tl.dot, added to regressions.CASES (same harness: a kernel
op(x, y, out, n) and a check against torch in float64): every dtype
pairing, non-square M, N, K from 16 to 256, transposed operands, the
accumulator forms (acc=, +=, a loop over K), out_dtype=f16, a @ b, and a
batched 3-D product. Tolerances per dtype: exact for i8 -> i32; relative
to sum |a||b| 1e-5 for f32 products of f16/bf16/fp8/f32 inputs (the fma
path accumulates in f32 with one rounding per step), 2^-10 for f32 with
input_precision tf32 (Triton's default: mma.sync on operands rounded to
tf32), 1e-12 for f64, 2e-3 for f16 results."""

try:
    import torch
except ImportError:  # make test only compiles the sources
    torch = None

from regressions import case, dev


def dtype(t):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
            "i8": torch.int8, "f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2,
            "i32": torch.int32}[t]


def inputs(t, n, seed):
    g = torch.Generator().manual_seed(seed)
    if t == "i8":
        return torch.randint(-100, 100, (n,), generator=g).to(torch.int8)
    return torch.randn(n, generator=g).to(dtype(t))


def out_type(ta, out_dtype):
    if out_dtype:
        return out_dtype
    return {"i8": "i32", "f64": "f64"}.get(ta, "f32")


def check_product(run, got_dtype, a, b, ref, tol):
    """Runs op(a, b, out) and compares out with ref (float64)."""
    out = dev(torch.full(ref.shape, -7, dtype=got_dtype))
    if run(dev(a), dev(b), out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    got = out.cpu().double()
    if torch.isnan(got).any():
        return "NaN in the output (an element not written)"
    err = (got - ref).abs().max().item()
    if err > tol:
        return f"max error {err:.3g} > {tol:.3g}"
    return None


def scale(a, b):
    """sum |a||b| per output element: the size of the rounding to expect"""
    return (a.abs() @ b.abs()).max().item()


# (a dtype, b dtype, M, N, K, num_warps, form, extra arguments)
SHAPES = [
    ("f16", "f16", 64, 32, 32, 4, "plain", ""),
    ("bf16", "bf16", 32, 64, 16, 4, "plain", ""),
    ("f32", "f32", 16, 16, 16, 1, "plain", ", input_precision=\"ieee\""),
    ("f32", "f32", 32, 32, 64, 4, "plain", ""),
    ("f32", "f32", 32, 16, 32, 2, "plain", ", input_precision=\"tf32x3\""),
    ("i8", "i8", 32, 32, 32, 4, "plain", ""),
    ("f64", "f64", 16, 32, 16, 4, "plain", ""),
    ("f8e4m3", "f8e4m3", 32, 32, 32, 4, "plain", ""),
    ("f8e5m2", "f8e5m2", 16, 64, 32, 4, "plain", ""),
    ("f8e4m3", "f8e5m2", 32, 16, 64, 4, "plain", ", max_num_imprecise_acc=32"),
    ("f16", "f16", 128, 64, 128, 8, "plain", ""),
    ("f16", "f16", 256, 16, 16, 4, "plain", ""),
    ("f16", "f16", 16, 256, 32, 4, "plain", ""),
    ("f16", "f16", 64, 64, 64, 4, "acc", ""),
    ("f16", "f16", 32, 64, 128, 4, "loop", ""),
    ("f16", "f16", 64, 32, 32, 4, "trans", ""),
    ("f16", "f16", 32, 32, 32, 4, "matmul_op", ""),
    ("f16", "f16", 64, 32, 32, 4, "out_f16", ""),
    ("bf16", "bf16", 32, 32, 32, 4, "trans", ""),
]

for ta, tb, M, N, K, warps, form, extra in SHAPES:
    to = out_type(ta, "f16" if form == "out_f16" else None)
    if form == "out_f16":
        extra += ", out_dtype=tl.float16"
    a_load = f"tl.load(x + rm[:, None] * {K} + rk[None, :])"
    if form == "trans":  # a stored as [K, M]
        a_load = f"tl.trans(tl.load(x + rk[:, None] * {M} + rm[None, :]))"
    b_load = f"tl.load(y + rk[:, None] * {N} + rn[None, :])"
    c_ptrs = f"out + rm[:, None] * {N} + rn[None, :]"
    if form == "acc":
        body = f"    c = tl.dot({a_load}, {b_load}, tl.load({c_ptrs}){extra})\n"
    elif form == "loop":  # K in chunks of 32, the accumulator carried
        body = (f"    c = tl.zeros([{M}, {N}], dtype=tl.float32)\n"
                f"    rk = tl.arange(0, 32)\n"
                f"    for k0 in range(0, {K}, 32):\n"
                f"        a = tl.load(x + rm[:, None] * {K} + k0 + rk[None, :])\n"
                f"        b = tl.load(y + (k0 + rk[:, None]) * {N} + rn[None, :])\n"
                f"        c += tl.dot(a, b)\n")
    elif form == "matmul_op":
        body = f"    c = {a_load} @ {b_load}\n"
    else:
        body = f"    c = tl.dot({a_load}, {b_load}{extra})\n"
    src = f"""
@kernel(grid=(1,), num_warps={warps})
def op(x: *{ta}, y: *{tb}, out: *{to}, n: i32):
    rm = tl.arange(0, {M})
    rn = tl.arange(0, {N})
    rk = tl.arange(0, {K})
{body}    tl.store({c_ptrs}, c)
"""

    @case(f"tl.dot {ta} x {tb} -> {to} [{M}, {K}] @ [{K}, {N}] {form}{extra}", src)
    def check_dot(run, torch, ta=ta, tb=tb, to=to, M=M, N=N, K=K, form=form, extra=extra):
        a = inputs(ta, M * K, 1).view(M, K)
        b = inputs(tb, K * N, 2).view(K, N)
        ad, bd = a.double(), b.double()
        ref = ad @ bd
        if form == "acc":
            c0 = inputs("f32", M * N, 3).view(M, N)
            ref = ref + c0.double()
            out = dev(c0.clone())
            if run(dev(a), dev(b), out, 0) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            err = (out.cpu().double() - ref).abs().max().item()
            tol = 1e-5 * (scale(ad, bd) + 4)
            return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"
        a_dev = a.t().contiguous() if form == "trans" else a
        if ta == "i8":
            tol = 0.0
        elif ta == "f32" and "input_precision" not in extra:
            # tf32 (Triton's default): operands rounded to 10-bit mantissas
            tol = 2.0 ** -10 * scale(ad, bd)
        elif to == "f64":
            tol = 1e-12 * scale(ad, bd)
        elif to == "f16":
            tol = 2e-3 * max(1.0, ref.abs().max().item()) + 1e-5 * scale(ad, bd)
        else:
            tol = 1e-5 * scale(ad, bd)
        return check_product(run, dtype(to), a_dev, b, ref, tol)


# batched: [2, 32, 16] @ [2, 16, 32]
@case("tl.dot f16 batched [2, 32, 16] @ [2, 16, 32] -> f32", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f16, y: *f16, out: *f32, n: i32):
    i = tl.arange(0, 2)
    m = tl.arange(0, 32)
    k = tl.arange(0, 16)
    a = tl.load(x + i[:, None, None] * 512 + m[None, :, None] * 16 + k[None, None, :])
    b = tl.load(y + i[:, None, None] * 512 + k[None, :, None] * 32 + m[None, None, :])
    tl.store(out + i[:, None, None] * 1024 + m[None, :, None] * 32 + m[None, None, :], tl.dot(a, b))
""")
def check_batched(run, torch):
    a = inputs("f16", 2 * 32 * 16, 4).view(2, 32, 16)
    b = inputs("f16", 2 * 16 * 32, 5).view(2, 16, 32)
    ref = torch.bmm(a.double(), b.double())
    return check_product(run, torch.float32, a, b, ref, 1e-5 * 16 * 16)


# a matmul tile with masks on ragged edges: matmul.tk's body on one program
# per [32, 32] tile of C, M = 50, N = 70, K = 45
@case("tl.dot in a masked K loop over ragged M, N, K (matmul.tk's body)", """
@kernel(grid=(cdiv(50, 32) * cdiv(70, 32),), num_warps=4)
def op(x: *f16, y: *f16, out: *f32, n: i32):
    pid = tl.program_id(0)
    pid_m = pid // cdiv(70, 32)
    pid_n = pid % cdiv(70, 32)
    rm = pid_m * 32 + tl.arange(0, 32)
    rn = pid_n * 32 + tl.arange(0, 32)
    rk = tl.arange(0, 16)
    acc = tl.zeros([32, 32], dtype=tl.float32)
    for k0 in range(0, 45, 16):
        a = tl.load(x + rm[:, None] * 45 + k0 + rk[None, :], mask=(rm[:, None] < 50) & (k0 + rk[None, :] < 45), other=0.0)
        b = tl.load(y + (k0 + rk[:, None]) * 70 + rn[None, :], mask=(k0 + rk[:, None] < 45) & (rn[None, :] < 70), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(out + rm[:, None] * 70 + rn[None, :], acc, mask=(rm[:, None] < 50) & (rn[None, :] < 70))
""")
def check_ragged(run, torch):
    a = inputs("f16", 50 * 45, 6).view(50, 45)
    b = inputs("f16", 45 * 70, 7).view(45, 70)
    ref = a.double() @ b.double()
    return check_product(run, torch.float32, a, b, ref, 1e-5 * 45 * 16)
