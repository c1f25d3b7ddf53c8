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


def op_header(warps, ta, tb, to):
    """The first lines of a case's kernel op(x, y, out, n)."""
    return f"""
@kernel(grid=(1,), num_warps={warps})
def op(x: *{ta}, y: *{tb}, out: *{to}, n: i32):
"""


def check_product(run, got_dtype, a, b, ref, tol, out_init=None):
    """Runs op(a, b, out) and compares out with ref (float64); out starts
    as out_init (an accumulator the kernel reads), else -7 everywhere."""
    out = dev(out_init.clone() if out_init is not None else torch.full(ref.shape, -7, dtype=got_dtype))
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
    # fp8 by mma.sync m16n8k32 on sm_89 and newer
    ("f8e5m2", "f8e4m3", 128, 64, 64, 8, "plain", ""),
    ("f8e4m3", "f8e4m3", 64, 64, 128, 4, "loop", ""),
    ("f8e4m3", "f8e4m3", 64, 32, 32, 4, "out_f16", ""),
    ("f8e5m2", "f8e5m2", 32, 32, 64, 4, "trans", ""),
    ("f8e4m3", "f8e5m2", 16, 16, 32, 1, "acc", ""),
    # K = 256 (M, N and K each from 16 to 256)
    ("f16", "f16", 32, 16, 256, 4, "plain", ""),
    ("bf16", "bf16", 16, 64, 256, 2, "plain", ""),
    ("i8", "i8", 16, 32, 256, 4, "plain", ""),
    ("f8e4m3", "f8e4m3", 32, 32, 256, 4, "plain", ""),
    ("f32", "f32", 16, 16, 256, 1, "plain", ""),
    # wgmma on sm_90a from registers (lower/dot_operands.c: no loop to
    # pipeline, so a loaded A and B are stored into buffers of their own):
    # tf32, i8 and fp8 only with B K-major ("bt", else mma.sync), N = 8
    # too narrow to swizzle (mma.sync), warps along M and along N
    ("f32", "f32", 64, 32, 32, 4, "plain", ""),
    ("f32", "f32", 64, 32, 32, 4, "bt", ""),
    ("i8", "i8", 64, 32, 64, 4, "plain", ""),
    ("i8", "i8", 64, 32, 64, 4, "bt", ""),
    ("f8e4m3", "f8e4m3", 64, 64, 64, 4, "bt", ""),
    ("f16", "f16", 64, 8, 32, 4, "plain", ""),
    ("bf16", "bf16", 128, 128, 64, 8, "plain", ""),
    ("f16", "f16", 64, 256, 64, 8, "bt", ""),
    # tf32 with B row-major on sm_90a, where wgmma reads 32-bit operands
    # K-major only: the product computed transposed (dot.c swap_operands),
    # B^T read into registers as wgmma's A, A^T as its K-major B; one and
    # two warpgroups, M' = 256 on one, an accumulator carried (mma.sync
    # on sm_80, and where N is under 64)
    ("f32", "f32", 32, 64, 32, 4, "plain", ""),
    ("f32", "f32", 64, 128, 64, 8, "plain", ""),
    ("f32", "f32", 16, 64, 64, 4, "loop", ""),
    ("f32", "f32", 64, 256, 32, 4, "matmul_op", ""),
]

for ta, tb, M, N, K, warps, form, extra in SHAPES:
    to = out_type(ta, "f16" if form == "out_f16" else None)
    if form == "out_f16":
        extra += ", out_dtype=tl.float16"
    a_load = f"tl.load(x + rm[:, None] * {K} + rk[None, :])"
    if form == "trans":  # a stored as [K, M]
        a_load = f"tl.trans(tl.load(x + rk[:, None] * {M} + rm[None, :]))"
    b_load = f"tl.load(y + rk[:, None] * {N} + rn[None, :])"
    if form == "bt":  # b stored as [N, K]
        b_load = f"tl.trans(tl.load(y + rn[:, None] * {K} + rk[None, :]))"
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
    src = op_header(warps, ta, tb, to) + f"""\
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
        b_dev = b.t().contiguous() if form == "bt" else b
        if ta == "i8":
            tol = 0.0
        elif ta.startswith("f8") and form == "bt" and M % 64 == 0:
            # fp8 on wgmma sums in reduced precision (as in the pipelined
            # cases below)
            tol = 2.0 ** -10 * scale(ad, bd)
        elif ta == "f32" and "input_precision" not in extra:
            # tf32 (Triton's default): operands rounded to 10-bit mantissas
            tol = 2.0 ** -10 * scale(ad, bd)
        elif to == "f64":
            tol = 1e-12 * scale(ad, bd)
        elif to == "f16":
            tol = 2e-3 * max(1.0, ref.abs().max().item()) + 1e-5 * scale(ad, bd)
        else:
            tol = 1e-5 * scale(ad, bd)
        return check_product(run, dtype(to), a_dev, b_dev, ref, tol)


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


# batched on mma.sync: every warp along the batch (Triton's rule for rank
# 3), copies where the batch is smaller than the warps, more registers
# where it is larger. (a dtype, batch, M, N, K, num_warps, acc)
BATCHED = [
    ("bf16", 8, 16, 32, 32, 4, False),
    ("f16", 1, 64, 32, 32, 4, False),
    ("f16", 4, 16, 16, 16, 8, True),
    ("i8", 4, 32, 16, 32, 4, False),
    ("f32", 2, 16, 16, 16, 2, False),
    ("f8e4m3", 2, 32, 32, 32, 4, False),
]

for ta, B, M, N, K, warps, with_acc in BATCHED:
    to = out_type(ta, None)
    src = op_header(warps, ta, ta, to) + f"""\
    i = tl.arange(0, {B})
    m = tl.arange(0, {M})
    nn = tl.arange(0, {N})
    k = tl.arange(0, {K})
    a = tl.load(x + i[:, None, None] * {M * K} + m[None, :, None] * {K} + k[None, None, :])
    b = tl.load(y + i[:, None, None] * {K * N} + k[None, :, None] * {N} + nn[None, None, :])
    c_ptrs = out + i[:, None, None] * {M * N} + m[None, :, None] * {N} + nn[None, None, :]
    tl.store(c_ptrs, {"tl.dot(a, b, tl.load(c_ptrs))" if with_acc else "tl.dot(a, b)"})
"""

    @case(f"tl.dot {ta} batched [{B}, {M}, {K}] @ [{B}, {K}, {N}], {warps} warps{' acc' if with_acc else ''}", src)
    def check_batched_mma(run, torch, ta=ta, to=to, B=B, M=M, N=N, K=K, with_acc=with_acc):
        a = inputs(ta, B * M * K, 21).view(B, M, K)
        b = inputs(ta, B * K * N, 22).view(B, K, N)
        ad, bd = a.double(), b.double()
        ref = torch.bmm(ad, bd)
        c0 = inputs(to if to != "i32" else "i8", B * M * N, 23).view(B, M, N).to(dtype(to))
        if with_acc:
            ref = ref + c0.double()
        s = (ad.abs() @ bd.abs()).max().item()
        tol = 0.0 if ta == "i8" else (2.0 ** -10 if ta == "f32" else 1e-5) * (s + 4)
        return check_product(run, dtype(to), a, b, ref, tol, c0 if with_acc else None)


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


# a K loop asking for more stages than fit beside the scratch of a
# reduction inside it (the accumulator's column sums, across warps): built
# again less deep (lower/passes.c, a -Wnum-stages warning) on sm_90a and
# sm_80; [128, 1024] @ [1024, 128], out = C then the sums of each trip's
# column sums
@case("a K loop pipelined less deep to make room for a reduction inside it", """
@kernel(grid=(1,), num_warps=4, num_stages=7)
def op(x: *f16 % 16, y: *f16 % 16, out: *f32 % 16, n: i32):
    r = tl.arange(0, 128)
    k = tl.arange(0, 64)
    acc = tl.zeros([128, 128], dtype=tl.float32)
    s = tl.zeros([128], dtype=tl.float32)
    for i in range(0, 16):
        a = tl.load(x + r[:, None] * 1024 + i * 64 + k[None, :])
        b = tl.load(y + (i * 64 + k[:, None]) * 128 + r[None, :])
        acc = tl.dot(a, b, acc)
        s += tl.sum(acc, axis=0)
    tl.store(out + r[:, None] * 128 + r[None, :], acc)
    tl.store(out + 16384 + r, s)
""")
def check_shallower(run, torch):
    a = inputs("f16", 128 * 1024, 8).view(128, 1024)
    b = inputs("f16", 1024 * 128, 9).view(1024, 128)
    acc = torch.zeros(128, 128, dtype=torch.float64)
    sums = torch.zeros(128, dtype=torch.float64)
    for i in range(16):
        acc += a[:, i * 64:(i + 1) * 64].double() @ b[i * 64:(i + 1) * 64].double()
        sums += acc.sum(0)
    ref = torch.cat([acc.flatten(), sums])
    return check_product(run, torch.float32, a, b, ref, 1e-5 * 16 * 128 * scale(a, b))


# Operands computed element-wise from a load inside a pipelined K loop
# (lower/pipeline_dot.c stages the load as loaded, reads it back where it
# stood and converts it there, in the operand's layout): f32 loads made
# f16, scaled, masked with a non-zero `other`, B read K-major, A times a
# per-row factor. x: A as f32 [64, 80], y: B as f32 [80, 64] (K-major
# case: [64, 80]); K = 80 in steps of 32, the last one ragged.
CONVERTED_IN_LOOP = [
    ("A and B loaded as f32 and converted with .to()",
     "        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).to(tl.float16)\n"
     "        b = tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :], mask=k0 + rk[:, None] < 80, other=0.0)"
     ".to(tl.float16)\n", "plain"),
    ("B scaled, then converted; both masked with other=1.0",
     "        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=1.0).to(tl.float16)\n"
     "        b = (tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :], mask=k0 + rk[:, None] < 80, other=1.0) * 0.5)"
     ".to(tl.float16)\n", "ones"),
    ("B read K-major and converted",
     "        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).to(tl.float16)\n"
     "        b = tl.load(y + rn[None, :] * 80 + k0 + rk[:, None], mask=k0 + rk[:, None] < 80, other=0.0)"
     ".to(tl.float16)\n", "kmajor"),
    ("A converted, times a factor per row",
     "        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).to(tl.float16)"
     " * (rm % 3 + 1).to(tl.float16)[:, None]\n"
     "        b = tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :], mask=k0 + rk[:, None] < 80, other=0.0)"
     ".to(tl.float16)\n", "rows"),
    # steps that read the load more than once (tl.dot_scaled's decoding
    # does): a select between two branches of it, in A and in B
    ("A and B each a select between two branches of its load",
     "        xa = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0)\n"
     "        a = tl.where(xa > 0.0, xa * 0.5, xa * 2.0).to(tl.float16)\n"
     "        yb = tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :], mask=k0 + rk[:, None] < 80, other=0.0)\n"
     "        b = tl.where(yb > 0.0, yb * 0.5, yb * 2.0).to(tl.float16)\n", "branches"),
    ("B read K-major, a select between two branches of it",
     "        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).to(tl.float16)\n"
     "        yb = tl.load(y + rn[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).T\n"
     "        b = tl.where(yb > 0.0, yb * 0.5, yb * 2.0).to(tl.float16)\n", "branches_kmajor"),
]

for name, body, ref_kind in CONVERTED_IN_LOOP:
    src = f"""
@kernel(grid=(1,), num_warps=4, num_stages=3)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    c = tl.zeros([64, 64], dtype=tl.float32)
    for k0 in range(0, 80, 32):
{body}        c = tl.dot(a, b, c)
    tl.store(out + rm[:, None] * 64 + rn[None, :], c)
"""

    @case(f"tl.dot in a K loop: {name}", src)
    def check_converted(run, torch, ref_kind=ref_kind):
        a = inputs("f32", 64 * 80, 41).view(64, 80)
        b = inputs("f32", 80 * 64, 42).view(80, 64)
        b_dev = b.t().contiguous() if ref_kind in ("kmajor", "branches_kmajor") else b
        ah, bh = a.half(), b.half()
        if ref_kind.startswith("branches"):
            bh = torch.where(b > 0, b * 0.5, b * 2.0).half()
            if ref_kind == "branches":
                ah = torch.where(a > 0, a * 0.5, a * 2.0).half()
        if ref_kind == "ones":  # 96 columns of K: the 16 past 80 are 1.0 in A, 0.5 in B
            ah = torch.cat([ah, torch.ones(64, 16, dtype=torch.float16)], 1)
            bh = torch.cat([(b * 0.5).half(), torch.full((16, 64), 0.5, dtype=torch.float16)], 0)
        if ref_kind == "rows":
            ah = ah * (torch.arange(64) % 3 + 1).half()[:, None]
        ref = ah.double() @ bh.double()
        out = dev(torch.full((64, 64), -7.0))
        if run(dev(a), dev(b_dev), out, 0) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        err = (out.cpu().double() - ref).abs().max().item()
        tol = 1e-5 * scale(ah.double(), bh.double())
        return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"


# int8 weights times a scale per column loaded before the loop (w8a16):
# the row of scales is broadcast in B's operand layout, converted once
# before the loop (layouts.c); x holds A [64, 80] then the 64 scales
@case("tl.dot in a K loop: B from int8 times a scale per column", """
@kernel(grid=(1,), num_warps=4, num_stages=3)
def op(x: *f32 % 16, y: *i8 % 16, out: *f32 % 16, n: i32):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    s = tl.load(x + 64 * 80 + rn).to(tl.float16)
    c = tl.zeros([64, 64], dtype=tl.float32)
    for k0 in range(0, 80, 32):
        a = tl.load(x + rm[:, None] * 80 + k0 + rk[None, :], mask=k0 + rk[None, :] < 80, other=0.0).to(tl.float16)
        b = tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :], mask=k0 + rk[:, None] < 80, other=0)
        c = tl.dot(a, b.to(tl.float16) * s[None, :], c)
    tl.store(out + rm[:, None] * 64 + rn[None, :], c)
""")
def check_int8_scaled(run, torch):
    a = inputs("f32", 64 * 80, 43).view(64, 80)
    scales = torch.rand(64, generator=torch.Generator().manual_seed(44)) + 0.5
    b = inputs("i8", 80 * 64, 45).view(80, 64)
    ah, bh = a.half(), b.half() * scales.half()[None, :]
    ref = ah.double() @ bh.double()
    out = dev(torch.full((64, 64), -7.0))
    if run(dev(torch.cat([a.flatten(), scales])), dev(b), out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    err = (out.cpu().double() - ref).abs().max().item()
    tol = 1e-5 * scale(ah.double(), bh.double())
    return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"


# B's rows starting anywhere: with N = n not a multiple of 8, cp.async
# cannot stage B, so the general version loads it into registers,
# converts it and moves it to the operand's layout through shared memory
# each trip (read back by ldmatrix, A's local_load moved past it:
# lower/sink_loads.c); n a multiple of 16 runs the _d16 version, which
# stages B. [200, 192] @ [192, n] in 128x128x64 tiles; x holds A then n
# scales per column (f16).
GENERAL_B = [
    ("B scaled, then converted", "f16", "(b * 0.5).to(tl.float16)", "scaled"),
    ("int8 B times a scale per column", "i8", "b.to(tl.float16) * s[None, :]", "int8"),
]

for name, bt, converted, ref_kind in GENERAL_B:
    src = f"""
@kernel(grid=(2 * cdiv(n, 128),), num_warps=4, num_stages=3)
def op(x: *f16 % 16, y: *{bt} % 16, out: *f32 % 16, n: i32):
    pid_m = tl.program_id(0) // cdiv(n, 128)
    pid_n = tl.program_id(0) % cdiv(n, 128)
    rm = pid_m * 128 + tl.arange(0, 128)
    rn = pid_n * 128 + tl.arange(0, 128)
    rk = tl.arange(0, 64)
    s = tl.load(x + 200 * 192 + rn, mask=rn < n, other=1.0)
    acc = tl.zeros([128, 128], dtype=tl.float32)
    for k0 in range(0, 192, 64):
        a = tl.load(x + rm[:, None] * 192 + k0 + rk[None, :], mask=rm[:, None] < 200, other=0.0)
        b = tl.load(y + (k0 + rk[:, None]) * n + rn[None, :], mask=rn[None, :] < n, other=0)
        acc = tl.dot(a, {converted}, acc)
    tl.store(out + rm[:, None] * n + rn[None, :], acc, mask=(rm[:, None] < 200) & (rn[None, :] < n))
"""

    @case(f"tl.dot in a K loop, B's rows not 16-byte aligned: {name}", src)
    def check_general_b(run, torch, bt=bt, ref_kind=ref_kind):
        for n in (330, 257, 320):
            a = inputs("f16", 200 * 192, 51).view(200, 192)
            scales = (torch.rand(n, generator=torch.Generator().manual_seed(52)) + 0.5).half()
            b = inputs(bt, 192 * n, 53).view(192, n)
            bh = b * 0.5 if ref_kind == "scaled" else b.half() * scales[None, :]
            ref = a.double() @ bh.double()
            out = dev(torch.full((200, n), -7.0))
            if run(dev(torch.cat([a.flatten(), scales])), dev(b), out, n) != 0:
                return f"launch failed (n = {n})"
            torch.cuda.synchronize()
            err = (out.cpu().double() - ref).abs().max().item()
            tol = 1e-5 * scale(a.double(), bh.double())
            if not err <= tol:
                return f"n = {n}: max error {err:.3g} > {tol:.3g}"
        return None


# ---- operands and accumulators from anywhere --------------------------------
# Operands converted with .to() from f32 loads, scaled (arithmetic), B
# transposed with tl.trans and .T, the accumulator carried through an if
# inside the K loop, a dot under an if; one program, [64, 64] @ [64, 32].
# (name, body computing c from rm, rn, rk over x: *f32 and y: *f32, what
# the reference multiplies)
ANYWHERE = [
    ("operands converted with .to() from f32",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16)\n"
     "    c = tl.dot(a, b)\n", "half"),
    ("operands scaled after their loads",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16) * 2.0\n"
     "    b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16) * 0.5\n"
     "    c = tl.dot(a, b)\n", "half"),
    ("B read as [N, K] and transposed with tl.trans",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    bt = tl.load(y + rn[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    c = tl.dot(a, tl.trans(bt))\n", "half_bt"),
    ("B read as [N, K] and transposed with .T",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    bt = tl.load(y + rn[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    c = a @ bt.T\n", "half_bt"),
    ("the accumulator through an if in the K loop",
     "    c = tl.zeros([64, 32], dtype=tl.float32)\n"
     "    r16 = tl.arange(0, 16)\n"
     "    for k0 in range(0, 64, 16):\n"
     "        a = tl.load(x + rm[:, None] * 64 + k0 + r16[None, :]).to(tl.float16)\n"
     "        b = tl.load(y + (k0 + r16[:, None]) * 32 + rn[None, :]).to(tl.float16)\n"
     "        if k0 % 32 == 0:\n"
     "            c = tl.dot(a, b, c)\n"
     "        else:\n"
     "            c += tl.dot(a, b)\n", "half"),
    ("a dot under an if",
     "    c = tl.zeros([64, 32], dtype=tl.float32) - 1.0\n"
     "    if n > 0:\n"
     "        a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "        b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16)\n"
     "        c = tl.dot(a, b)\n", "half"),
    # where layouts meet (lower/propagate.c chooses by cost): the if's
    # result in the loaded tile's layout, so the dot's result converts in
    # its branch; a loaded tile (times 0) added to a dot's result made
    # before the loop; row statistics carried by a while loop, as
    # attention's (c ends as 0.5 s + 0.5 s: exact)
    ("an if whose branches disagree: the dot's result or a loaded tile",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16)\n"
     "    if n > 0:\n"
     "        c = tl.dot(a, b)\n"
     "    else:\n"
     "        c = tl.load(y + rm[:, None] * 32 + rn[None, :])\n", "half"),
    ("a dot's result made before a loop meets a load in it",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16)\n"
     "    s = tl.dot(a, b)\n"
     "    c = tl.zeros([64, 32], dtype=tl.float32)\n"
     "    for i in range(0, n + 1):\n"
     "        c = s + tl.load(x + i * 32 + rm[:, None] * 64 + rn[None, :]) * 0.0\n", "half"),
    ("row statistics carried by a while loop",
     "    a = tl.load(x + rm[:, None] * 64 + rk[None, :]).to(tl.float16)\n"
     "    b = tl.load(y + rk[:, None] * 32 + rn[None, :]).to(tl.float16)\n"
     "    m = tl.full([64], float('-inf'), tl.float32)\n"
     "    c = tl.zeros([64, 32], dtype=tl.float32)\n"
     "    i = 0\n"
     "    while i < n + 1:\n"
     "        s = tl.dot(a, b)\n"
     "        m_new = tl.maximum(m, tl.max(s, 1))\n"
     "        c = c * tl.exp2(m - m_new)[:, None] + s * 0.5\n"
     "        m = m_new\n"
     "        i += 1\n", "half"),
]

for name, body, ref_kind in ANYWHERE:
    src = op_header(4, "f32", "f32", "f32") + f"""\
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 32)
    rk = tl.arange(0, 64)
{body}    tl.store(out + rm[:, None] * 32 + rn[None, :], c)
"""

    @case(f"tl.dot: {name}", src)
    def check_anywhere(run, torch, name=name, ref_kind=ref_kind):
        a = inputs("f32", 64 * 64, 31).view(64, 64)
        b = inputs("f32", 64 * 32, 32).view(64, 32) if ref_kind == "half" else inputs("f32", 32 * 64, 32).view(32, 64)
        ah, bh = a.half().double(), b.half().double()
        if "scaled" in name:
            ah, bh = ah * 2.0, (b.half() * 0.5).double()
        ref = ah @ (bh if ref_kind == "half" else bh.t())
        tol = 1e-5 * ((ah.abs() @ (bh if ref_kind == "half" else bh.t()).abs()).max().item() + 4)
        # the kernel's run(x, y, out, n) passes n = 0 to check_product's run;
        # the dot under an if needs n > 0
        out = dev(torch.full((64, 32), -7.0))
        if run(dev(a), dev(b), out, 1) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        err = (out.cpu().double() - ref).abs().max().item()
        return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"


# A pipelined (a view of its stages) and B scaled in registers in the same
# K loop: wgmma reads B from a buffer stored every trip (dot_operands.c),
# after a barrier that waits for every warpgroup's wgmma of the trip
# before (8 warps: two warpgroups side by side along N)
@case("tl.dot: A pipelined, B scaled in registers in the same K loop, 8 warps", """
@kernel(grid=(1,), num_warps=8)
def op(x: *f16, y: *f16, out: *f32, n: i32):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    acc = tl.zeros([64, 64], dtype=tl.float32)
    for k0 in range(0, 160, 32):
        a = tl.load(x + rm[:, None] * 160 + k0 + rk[None, :])
        b = (tl.load(y + (k0 + rk[:, None]) * 64 + rn[None, :]) * 2.0).to(tl.float16)
        acc += tl.dot(a, b)
    tl.store(out + rm[:, None] * 64 + rn[None, :], acc)
""")
def check_scaled_b_in_loop(run, torch):
    a = inputs("f16", 64 * 160, 41).view(64, 160)
    b = inputs("f16", 160 * 64, 42).view(160, 64)
    ad, bd = a.double(), b.double() * 2.0
    return check_product(run, torch.float32, a, b, ad @ bd, 1e-5 * (scale(ad, bd) + 4))


# Rows a pipelined dot loop loads besides its tiles (pipeline_dot.c's
# row_load: attention's M and Delta), copied ahead with the tiles and read
# back from their stages. Masked columns past n must read the rows'
# `other` (+inf for M, 1.0 for D, put back after the zero-filled copy), so
# that each contributes exp2(-inf) + 1.0 - 1.0 = 0: a zero-filled M would
# add exp2(s), a zero-filled D -1. n not a multiple of the tile nor of 4
# (D starts at y + n: 4-byte copies); a causal-style mask inside the loop.
ROWS_SOURCE = """
@kernel(grid=(1,), num_warps={warps})
def op(x: *f16 % 16, y: *f32 % 16, out: *f32, n: i32):
    rows = tl.arange(0, 64)
    cols = tl.arange(0, {bn})
    e = tl.arange(0, 64)
    a = tl.load(x + rows[:, None] * 64 + e[None, :])
    acc = tl.zeros([64, {bn}], dtype=tl.float32)
    for start in tl.range(0, n, {bn}, num_stages={stages}):
        offs = start + cols
        ok = offs < n
        b = tl.load(x + 4096 + offs[:, None] * 64 + e[None, :], mask=ok[:, None], other=0.0)
        row_m = tl.load(y + offs, mask=ok, other=float('inf'))
        row_d = tl.load(y + n + offs, mask=ok, other=1.0)
        s = tl.dot(a, tl.trans(b)) * 0.125 - row_m[None, :]
        s = tl.where(offs[None, :] <= rows[:, None] + start, s, float('-inf'))
        acc += tl.exp2(s) + row_d[None, :] - 1.0
    tl.store(out + rows[:, None] * {bn} + cols[None, :], acc)
"""

for warps, bn, stages in [(4, 32, 3), (8, 64, 2), (4, 64, 4)]:
    @case(f"tl.dot: rows M and D staged with the tiles, {warps} warps, 64 x {bn}, {stages} stages",
          ROWS_SOURCE.format(warps=warps, bn=bn, stages=stages))
    def check_staged_rows(run, torch, bn=bn):
        for n in (1, 31, bn + 3, 7 * bn + 5, 8 * bn):
            a = inputs("f16", 64 * 64, 51).view(64, 64)
            q = inputs("f16", n * 64, 52).view(n, 64)
            m = inputs("f32", n, 53) + 1.0
            d = inputs("f32", n, 54)
            x = torch.cat([a.flatten(), q.flatten()])
            y = torch.cat([m, d])
            s = (a.double() @ q.double().T) * 0.125 - m.double()[None, :]
            cols = torch.arange(n)
            trip_start = cols // bn * bn
            s = torch.where(cols[None, :] <= torch.arange(64)[:, None] + trip_start[None, :], s, -float("inf"))
            # column j of the output sums the columns start + j of each trip
            terms = torch.exp2(s) + d.double()[None, :] - 1.0
            trips = (n + bn - 1) // bn
            padded = torch.zeros(64, trips * bn, dtype=torch.float64)
            padded[:, :n] = terms
            ref = padded.view(64, trips, bn).sum(1)
            out = dev(torch.full((64, bn), -7.0))
            if run(dev(x), dev(y), out, n) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            got = out.cpu().double()
            tol = 1e-4 * (ref.abs().max().item() + trips)
            err = (got - ref).abs().max().item()
            if not err <= tol:
                return f"n={n}: max error {err:.3g} > {tol:.3g}"
        return None


# ---- pipelined K loops (lower/pipeline_dot.c) --------------------------------
# One program computes out[M, N] = A[M, :K] @ B[:K, N], walking K in BK
# steps with masked loads that feed tl.dot: the loop is pipelined num_stages
# deep through shared memory (cp.async), and on sm_90a f16/bf16 becomes
# wgmma. Rows are lda / ldb elements apart (multiples of 16 bytes where the
# case wants 16-byte copies). Cases: ragged K whose last step ends inside a
# 16-byte vector (mixed masks), `other` not 0 (element-wise copies), fewer
# trips than stages, one trip, a reverse loop, a step known only at run time,
# carried pointers (a_ptrs += BK), 8 warps (two warpgroups along N, one
# starting inside a swizzle atom), two 64-column atoms along K, 32- and
# 64-byte swizzles, tf32, i8, bf16, num_stages=1 (not pipelined), a loop
# that writes through the pointer it loads (not pipelined), an operand two
# dots share, and a pipelined loop inside another loop.

# (name, dtype, M, N, K, BK, warps, stages, lda, ldb, other, form)
PIPELINED = [
    ("ragged K, mixed vectors", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "index"),
    ("carried pointers", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "carried"),
    ("other=1.0", "f16", 64, 64, 45, 16, 4, 3, 48, 64, "1.0", "index"),
    ("8 warps, N=64", "f16", 64, 64, 96, 32, 8, 3, 96, 64, "0.0", "index"),
    ("8 warps, N=32", "f16", 64, 32, 64, 16, 8, 2, 64, 32, "0.0", "index"),
    # fewer warps than a warpgroup: mma.sync on sm_90a too (wgmma there
    # would be an illegal instruction), tiles wgmma would otherwise take
    ("2 warps, M=64", "f16", 64, 32, 100, 32, 2, 3, 104, 32, "0.0", "index"),
    ("1 warp, M=64", "bf16", 64, 64, 100, 32, 1, 2, 104, 64, "0.0", "carried"),
    ("2 warps, f8e4m3 B K-major", "f8e4m3", 64, 32, 200, 64, 2, 3, 208, 208, "0.0", "b_kmajor"),
    ("2 warps, A in registers", "f16", 64, 64, 100, 32, 2, 3, 104, 64, "0.0", "a_negated"),
    ("BK=128, 2 row tiles", "f16", 128, 32, 300, 128, 4, 2, 304, 32, "0.0", "carried"),
    ("BK=16, 4 stages", "f16", 64, 64, 64, 16, 4, 4, 64, 64, "0.0", "index"),
    ("one trip", "f16", 64, 64, 20, 32, 4, 3, 32, 64, "0.0", "index"),
    ("two trips, 4 stages", "f16", 64, 64, 50, 32, 4, 4, 56, 64, "0.0", "carried"),
    ("bf16 ragged", "bf16", 64, 128, 200, 64, 4, 3, 200, 128, "0.0", "carried"),
    ("tf32", "f32", 32, 32, 70, 16, 4, 3, 72, 32, "0.0", "index"),
    ("i8", "i8", 32, 32, 100, 32, 4, 3, 112, 32, "0", "index"),
    ("f8e4m3 ragged", "f8e4m3", 64, 64, 200, 64, 4, 3, 208, 64, "0.0", "carried"),
    ("f8e5m2, 4 stages", "f8e5m2", 32, 64, 128, 32, 4, 4, 128, 64, "0.0", "index"),
    ("reverse loop", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "reverse"),
    ("step at run time", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "runtime_step"),
    ("num_stages=1", "f16", 64, 64, 100, 32, 4, 1, 104, 64, "0.0", "index"),
    ("writes its own input", "f16", 64, 64, 64, 32, 4, 3, 64, 64, "0.0", "writes"),
    ("two dots share A", "f16", 64, 64, 96, 32, 4, 3, 96, 64, "0.0", "two_dots"),
    ("inside another loop", "f16", 64, 64, 96, 32, 4, 3, 96, 64, "0.0", "nested"),
    # two pipelined loops one after the other (causal attention's two
    # stages) share their buffers' memory: the second's first copies must
    # not land before the first's last reads
    ("two loops in a row", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "two_loops"),
    ("two loops in a row, B K-major", "bf16", 64, 128, 200, 64, 8, 3, 200, 208, "0.0", "two_loops_b_kmajor"),
    # operands promised 8-byte aligned only: 8-byte cp.async (.ca) whose
    # ignore-src predicate is the mask (tf32 above: 4-byte ones)
    ("8-byte copies", "f16", 64, 64, 100, 32, 4, 3, 104, 68, "0.0", "aligned8"),
    # operands promised 16-byte aligned: the prefix a ragged K keeps of
    # each 16-byte vector, counted from the mask's comparisons
    # (codegen/async.c prefix_count): each comparison form, 64-bit offsets,
    # two bounds, and B's columns masked as well
    ("mask k <= K - 1", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "mask_le"),
    ("mask K > k", "f16", 64, 64, 99, 32, 4, 3, 104, 64, "0.0", "mask_gt"),
    ("mask K - 1 >= k", "bf16", 64, 64, 77, 32, 4, 3, 80, 64, "0.0", "mask_ge"),
    ("mask in 64 bits", "f16", 64, 64, 101, 32, 4, 3, 104, 64, "0.0", "mask_i64"),
    ("mask k < K + 6 and k < K", "f16", 64, 64, 98, 32, 4, 3, 104, 64, "0.0", "mask_two_bounds"),
    ("B columns masked too", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "mask_columns"),
    ("mask k <= K - 1, 8 warps", "f16", 128, 64, 93, 64, 8, 3, 96, 64, "0.0", "mask_le"),
    # offsets cast to i8 wrap inside a vector (125, 126, 127, -128, ...):
    # the mask keeps no prefix there, each element is copied as it says
    ("mask of i8 offsets that wrap", "f16", 64, 64, 128, 32, 4, 3, 128, 64, "0.0", "mask_i8_wraps"),
    # addresses as integers step by the element's size, not by 1
    ("mask on addresses as integers", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "mask_addresses"),
    # carried pointers whose advance each trip computes from the trip
    ("carried pointers, advance from the trip", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "carried_varying"),
    ("carried pointers, advance from the trip, 4 stages", "bf16", 64, 64, 200, 32, 4, 4, 200, 64, "0.0",
     "carried_varying"),
    # a step known only at run time that is negative: trips count down
    ("negative step at run time", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "runtime_negative_step"),
    # no trip at all: every copy ahead is masked off, the accumulator stays 0
    ("no trips", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "no_trips"),
    ("a range that counts down without a negative step", "f16", 64, 64, 100, 32, 4, 4, 104, 64, "0.0",
     "backward_range"),
    # B column-major (K contiguous, Triton's tutorial feeds fp8 as b.T;
    # ldb is then B's column stride) and A column-major (lda its row
    # stride): column-major buffers, copied down their columns, read by
    # wgmma K-major (B), MN-major (16-bit A), or by mma.sync (ldmatrix
    # without .trans for B); each dtype, every swizzle, 8 warps, ragged K
    ("B K-major", "f16", 64, 64, 100, 32, 4, 3, 104, 112, "0.0", "b_kmajor"),
    ("B K-major, BK=16", "f16", 64, 64, 100, 16, 4, 3, 104, 112, "0.0", "b_kmajor"),
    ("B K-major, 8 warps, carried", "bf16", 128, 128, 200, 64, 8, 3, 200, 208, "0.0", "b_kmajor_carried"),
    ("B K-major, tf32", "f32", 64, 64, 70, 32, 4, 3, 72, 72, "0.0", "b_kmajor"),
    ("B K-major, tf32, BK=64", "f32", 64, 32, 150, 64, 4, 3, 152, 152, "0.0", "b_kmajor"),
    ("B K-major, i8", "i8", 64, 64, 100, 32, 4, 3, 112, 112, "0", "b_kmajor"),
    ("B K-major, i8, 8 warps", "i8", 128, 128, 300, 128, 8, 3, 304, 304, "0", "b_kmajor"),
    ("B K-major, f8e4m3", "f8e4m3", 64, 64, 200, 64, 4, 3, 208, 208, "0.0", "b_kmajor"),
    ("B K-major, f8e5m2, BK=128", "f8e5m2", 64, 128, 300, 128, 4, 3, 304, 304, "0.0", "b_kmajor_carried"),
    # fp8 with max_num_imprecise_acc=32: on wgmma each 32-element step's
    # product summed apart and added to the accumulator in f32
    ("B K-major, f8e4m3, max_num_imprecise_acc=32", "f8e4m3", 64, 64, 200, 64, 4, 3, 208, 208, "0.0",
     "b_kmajor_imprecise"),
    # the same operands loaded the other way round (K contiguous in their
    # rows) and transposed for the dot: the copies transpose the pointers
    ("tl.trans(B), B K-major", "f16", 64, 64, 100, 32, 4, 3, 104, 112, "0.0", "b_kmajor_trans"),
    ("tl.trans(B), f8e4m3", "f8e4m3", 64, 64, 200, 64, 4, 3, 208, 208, "0.0", "b_kmajor_trans"),
    ("tl.trans(B), i8, 8 warps", "i8", 128, 64, 300, 64, 8, 3, 304, 304, "0", "b_kmajor_trans"),
    ("A.T and tl.trans(B)", "bf16", 64, 64, 100, 32, 4, 3, 64, 112, "0.0", "a_mmajor_b_kmajor_trans"),
    ("A.T, tf32", "f32", 64, 32, 70, 32, 4, 3, 64, 32, "0.0", "a_mmajor_trans"),
    # A M-major read back into wgmma's register A over many trips: tf32 a
    # K step at a time in flight (step_groups), fp8 waited for in its trip
    ("A.T and tl.trans(B), tf32, many trips", "f32", 64, 64, 1000, 32, 4, 3, 64, 1008, "0.0",
     "a_mmajor_b_kmajor_trans"),
    ("A.T and tl.trans(B), fp8, many trips", "f8e4m3", 64, 64, 1000, 64, 4, 3, 64, 1008, "0.0",
     "a_mmajor_b_kmajor_trans"),
    # A computed in registers (-A) beside a pipelined B: wgmma takes A from
    # registers (mma.sync's fragments), as attention's P
    ("A in registers", "f16", 64, 64, 100, 32, 4, 3, 104, 64, "0.0", "a_negated"),
    ("A in registers, 8 warps", "bf16", 128, 128, 200, 64, 8, 3, 200, 128, "0.0", "a_negated"),
    ("A in registers, tf32, B K-major", "f32", 64, 64, 70, 32, 4, 3, 72, 72, "0.0", "a_negated_b_kmajor"),
    ("A in registers, i8, B K-major", "i8", 64, 64, 100, 32, 4, 3, 112, 112, "0", "a_negated_b_kmajor"),
    ("A in registers, f8e4m3, B K-major", "f8e4m3", 64, 64, 200, 64, 4, 3, 208, 208, "0.0", "a_negated_b_kmajor"),
    # many trips, the copies issued before the dot: a trip's A written
    # into registers while the previous trip's wgmma may still be reading
    # its own (the two must not share registers)
    ("A in registers, many trips, 8 warps", "f16", 128, 128, 2048, 32, 8, 4, 2048, 128, "0.0", "a_negated"),
    ("A in registers, many trips, 4 warps", "bf16", 64, 128, 1000, 32, 4, 4, 1000, 128, "0.0", "a_negated"),
    ("A in registers, many trips, tf32, B K-major", "f32", 128, 128, 1000, 32, 8, 4, 1000, 1000, "0.0",
     "a_negated_b_kmajor"),
    ("A in registers, many trips, N=256", "f16", 128, 256, 1000, 64, 8, 3, 1000, 256, "0.0", "a_negated"),
    ("A M-major", "f16", 64, 64, 100, 32, 4, 3, 64, 64, "0.0", "a_mmajor"),
    ("A M-major, B K-major", "f16", 64, 64, 100, 32, 4, 3, 64, 112, "0.0", "a_mmajor_b_kmajor"),
    ("A M-major, f8e4m3", "f8e4m3", 64, 64, 100, 32, 4, 3, 64, 112, "0.0", "a_mmajor_b_kmajor"),
    ("A M-major, i8", "i8", 64, 32, 100, 32, 4, 3, 64, 32, "0", "a_mmajor"),
    # stages that fill shared memory, one buffer more not fitting: on
    # sm_90a the wgmma stays in flight over num_stages buffers, each trip's
    # copies waiting for the previous trip's wgmma (then a second barrier);
    # 3 buffers, then 3 of the 4 asked for, then 2 of the 3 asked for
    ("no buffer to spare, 3 stages", "f16", 128, 128, 300, 128, 4, 3, 304, 128, "0.0", "carried"),
    ("no buffer to spare, tf32, B K-major, 4 stages asked", "f32", 128, 128, 200, 64, 4, 4, 200, 200, "0.0",
     "b_kmajor"),
    ("no buffer to spare, tf32, B K-major, 2 deep", "f32", 64, 256, 150, 64, 4, 3, 152, 152, "0.0", "b_kmajor"),
    # tf32 with B row-major, computed transposed on sm_90a (B^T from its
    # stage into wgmma's register A): ragged K, carried pointers on two
    # warpgroups, N = 256 (M' = 256) at BK = 16, B's columns masked,
    # A computed in registers, other=1.0, two loops sharing the buffers
    ("B row-major, tf32, transposed product", "f32", 64, 64, 70, 32, 4, 3, 72, 64, "0.0", "index"),
    ("B row-major, tf32, transposed product, 8 warps", "f32", 128, 128, 200, 32, 8, 3, 200, 128, "0.0",
     "carried"),
    ("B row-major, tf32, transposed product, N=256", "f32", 64, 256, 100, 16, 8, 4, 104, 256, "0.0", "index"),
    ("B row-major, tf32, transposed product, columns masked", "f32", 64, 64, 100, 32, 4, 3, 104, 64, "0.0",
     "mask_columns"),
    ("B row-major, tf32, transposed product, A in registers", "f32", 64, 64, 70, 32, 4, 3, 72, 64, "0.0",
     "a_negated"),
    ("B row-major, tf32, transposed product, other=1.0", "f32", 64, 64, 45, 16, 4, 3, 48, 64, "1.0", "index"),
    ("B row-major, tf32, transposed product, two loops", "f32", 64, 128, 100, 32, 4, 3, 104, 128, "0.0",
     "two_loops"),
    # ... its wgmma in flight into the next trip a K step at a time
    # (step_groups), over many trips: 4 steps a trip on two warpgroups, 8
    # steps a trip (BK = 64), and 128 x 256 (two 64-row tiles a warpgroup)
    ("B row-major, tf32, transposed product, many trips", "f32", 128, 128, 1000, 32, 8, 4, 1000, 128, "0.0",
     "carried"),
    ("B row-major, tf32, transposed product, many trips, BK=64", "f32", 64, 128, 1000, 64, 4, 3, 1000, 128,
     "0.0", "index"),
    ("B row-major, tf32, transposed product, 128x256, many trips", "f32", 128, 256, 300, 32, 8, 4, 300, 256,
     "0.0", "index"),
]

# the columns of B that the mask_columns form keeps
MASKED_COLUMNS = 61

# A's mask in the mask_ forms: k < K written other ways (n is 1 at run time)
A_MASKS = {
    "mask_le": "{k} <= {K} - n",
    "mask_gt": "{K} > {k}",
    "mask_ge": "{K} - n >= {k}",
    "mask_i64": "({k}).to(tl.int64) < {K} + (n - 1).to(tl.int64)",
    "mask_two_bounds": "({k} < {K} + 6 * n) & ({k} < {K})",
    "mask_i8_wraps": "({k} + 3).to(tl.int8) < 100",
    "mask_addresses": "(x + rm[:, None] * {lda} + {k}).to(tl.int64) < (x + rm[:, None] * {lda} + {K}).to(tl.int64)",
}


def i8_wrap_kept(k):
    """which k the mask_i8_wraps form keeps"""
    return ((k + 3 + 128) % 256 - 128) < 100


def pipelined_source(t, M, N, K, BK, warps, stages, lda, ldb, other, form):
    rng = f"tl.range(0, cdiv({K}, {BK}), num_stages={stages})"
    if form == "no_trips":  # n is 1 at run time: an empty range, then a backward one
        rng = f"tl.range(0, cdiv({K}, {BK}) * (n - 1), num_stages={stages})"
    if form == "backward_range":
        rng = f"tl.range(n, -cdiv({K}, {BK}), num_stages={stages})"
    a_at = f"x + rm[:, None] * {lda} + kb * {BK} + rk[None, :]"
    b_at = f"y + (kb * {BK} + rk[:, None]) * {ldb} + rn[None, :]"
    if "a_mmajor" in form:
        a_at = f"x + (kb * {BK} + rk[None, :]) * {lda} + rm[:, None]"
    if "b_kmajor" in form:
        b_at = f"y + rn[None, :] * {ldb} + kb * {BK} + rk[:, None]"
    a_mask = f"kb * {BK} + rk[None, :] < {K}"
    b_mask = f"kb * {BK} + rk[:, None] < {K}"
    if form in A_MASKS:
        a_mask = A_MASKS[form].format(k=f"kb * {BK} + rk[None, :]", K=K, lda=lda)
    if form == "mask_columns":
        b_mask = f"({b_mask}) & (rn[None, :] < {MASKED_COLUMNS} * n)"
    acc_t = "tl.int32" if t == "i8" else "tl.float32"
    loads = (f"        a = tl.load({a_at}, mask={a_mask}, other={other})\n"
             f"        b = tl.load({b_at}, mask={b_mask}, other={other})\n")
    if form.endswith("_trans"):
        # the same memory loaded the other way round (K contiguous in the
        # loaded tile's rows) and transposed for the dot: tl.trans (B) and
        # .T (A), pipelined through it
        a_line = f"        a = tl.load({a_at}, mask={a_mask}, other={other})\n"
        b_line = f"        b = tl.load({b_at}, mask={b_mask}, other={other})\n"
        if "a_mmajor" in form:
            a_line = (f"        a = tl.load(x + (kb * {BK} + rk[:, None]) * {lda} + rm[None, :], "
                      f"mask=kb * {BK} + rk[:, None] < {K}, other={other}).T\n")
        if "b_kmajor" in form:
            b_line = (f"        b = tl.trans(tl.load(y + rn[:, None] * {ldb} + kb * {BK} + rk[None, :], "
                      f"mask=kb * {BK} + rk[None, :] < {K}, other={other}))\n")
        loads = a_line + b_line
    head = f"    acc = tl.zeros([{M}, {N}], dtype={acc_t})\n"
    if form == "b_kmajor_carried":
        head += (f"    a_ptrs = x + rm[:, None] * {lda} + rk[None, :]\n"
                 f"    b_ptrs = y + rn[None, :] * {ldb} + rk[:, None]\n")
        loop = f"    for kb in {rng}:\n"
        body = (f"        a = tl.load(a_ptrs, mask={a_mask}, other={other})\n"
                f"        b = tl.load(b_ptrs, mask={b_mask}, other={other})\n"
                f"        acc = tl.dot(a, b, acc)\n"
                f"        a_ptrs += {BK}\n"
                f"        b_ptrs += {BK}\n")
    elif form in ("carried", "carried_varying"):
        # carried_varying: each trip's advance computed from the trip (it
        # is BK every trip, as (kb % 2) * BK + (1 - kb % 2) * BK)
        step = f"((kb % 2) * {BK} + (1 - kb % 2) * {BK})" if form == "carried_varying" else f"{BK}"
        head += (f"    a_ptrs = x + rm[:, None] * {lda} + rk[None, :]\n"
                 f"    b_ptrs = y + rk[:, None] * {ldb} + rn[None, :]\n")
        loop = f"    for kb in {rng}:\n"
        body = (f"        a = tl.load(a_ptrs, mask={a_mask}, other={other})\n"
                f"        b = tl.load(b_ptrs, mask={b_mask}, other={other})\n"
                f"        acc = tl.dot(a, b, acc)\n"
                f"        a_ptrs += {step}\n"
                f"        b_ptrs += {step} * {ldb}\n")
    elif form == "reverse":
        loop = f"    for kb in range(cdiv({K}, {BK}) - 1, -1, -1):\n"
        body = loads + "        acc = tl.dot(a, b, acc)\n"
    elif form == "runtime_step":
        loop = f"    for kb in range(0, cdiv({K}, {BK}), n):\n"
        body = loads + "        acc = tl.dot(a, b, acc)\n"
    elif form == "runtime_negative_step":  # -n is -1 at run time
        loop = f"    for kb in tl.range(cdiv({K}, {BK}) - 1, -1, -n, num_stages={stages}):\n"
        body = loads + "        acc = tl.dot(a, b, acc)\n"
    elif form == "writes":
        # each trip reads B's rows, then bumps the first one it read: a
        # pipeline that read ahead would miss the bump
        loop = f"    for kb in {rng}:\n"
        body = (loads + "        acc = tl.dot(a, b, acc)\n"
                f"        tl.store(y + (kb * {BK} + {BK}) * {ldb} + rn, "
                f"tl.load(y + (kb * {BK} + {BK}) * {ldb} + rn, mask=kb * {BK} + {BK} < {K}) + 1.0, "
                f"mask=kb * {BK} + {BK} < {K})\n")
    elif form == "two_dots":
        loop = f"    for kb in {rng}:\n"
        body = (loads + "        acc = tl.dot(a, b, acc)\n"
                "        acc = tl.dot(a, b * 2.0, acc)\n")
    elif form.startswith("two_loops"):
        loop = f"    for kb in {rng}:\n"
        body = (loads + "        acc = tl.dot(a, b, acc)\n"
                f"    for kb in {rng}:\n" + loads + "        acc = tl.dot(a, b, acc)\n")
    elif form == "nested":
        head = f"    total = tl.zeros([{M}, {N}], dtype={acc_t})\n"
        loop = (f"    for rep in range(0, 2):\n"
                f"        acc = tl.zeros([{M}, {N}], dtype={acc_t})\n"
                f"        for kb in {rng}:\n")
        body = ("    " + loads.replace("\n        ", "\n            ") + "            acc = tl.dot(a, b, acc)\n"
                "        total += acc\n"
                "    acc = total\n")
    else:
        loop = f"    for kb in {rng}:\n"
        body = loads + "        acc = tl.dot(a, b, acc)\n"
    if form.startswith("a_negated"):
        body = body.replace("        a = tl.load(", "        a = -tl.load(", 1)
    if form == "b_kmajor_imprecise":
        body = body.replace("tl.dot(a, b, acc)", "tl.dot(a, b, acc, max_num_imprecise_acc=32)")
    align = " % 8" if form == "aligned8" else " % 16" if form.startswith(("mask", "a_mmajor", "b_kmajor", "a_negated", "two_loops")) else ""
    return f"""
@kernel(grid=(1,), num_warps={warps})
def op(x: *{t}{align}, y: *{t}{align}, out: *{'i32' if t == 'i8' else 'f32'}, n: i32):
    rm = tl.arange(0, {M})
    rn = tl.arange(0, {N})
    rk = tl.arange(0, {BK})
{head}{loop}{body}    tl.store(out + rm[:, None] * {N} + rn[None, :], acc)
"""


for name, t, M, N, K, BK, warps, stages, lda, ldb, other, form in PIPELINED:
    src = pipelined_source(t, M, N, K, BK, warps, stages, lda, ldb, other, form)

    @case(f"tl.dot pipelined loop: {name} ({t} [{M}, {K}] @ [{K}, {N}], BK={BK}, "
          f"{warps} warps, num_stages={stages})", src)
    def check_pipelined(run, torch, t=t, M=M, N=N, K=K, BK=BK, lda=lda, ldb=ldb, other=other, form=form):
        kpad = -(-K // BK) * BK
        a_full = inputs(t, M * lda, 11).view(M, lda)
        b_full = inputs(t, (kpad + BK) * ldb, 12).view(kpad + BK, ldb)
        if "a_mmajor" in form:  # element (m, k) at k * lda + m
            a_full = inputs(t, (kpad + BK) * lda, 11).view(kpad + BK, lda)
        if "b_kmajor" in form:  # element (k, n) at n * ldb + k
            b_full = inputs(t, N * ldb, 12).view(N, ldb)
        # what the loads see: elements past K read as `other`
        fill = float(other)
        a_seen = torch.full((M, kpad), fill, dtype=torch.float64)
        b_seen = torch.full((kpad, N), fill, dtype=torch.float64)
        a_seen[:, :K] = a_full[:K, :M].t().double() if "a_mmajor" in form else a_full[:, :K].double()
        b_seen[:K, :] = b_full[:, :K].t().double() if "b_kmajor" in form else b_full[:K, :N].double()
        if form == "mask_columns":
            b_seen[:, MASKED_COLUMNS:] = fill
        if form == "mask_i8_wraps":
            a_seen[:, ~i8_wrap_kept(torch.arange(kpad))] = fill
        if form == "writes":
            for kb in range(kpad // BK):
                nxt = kb * BK + BK
                if nxt < K:  # bumped (in f16) before the trip that reads it
                    b_seen[nxt, :] = (b_full[nxt, :N].float() + 1.0).to(b_full.dtype).double()
        ref = a_seen @ b_seen
        if form.startswith("a_negated"):
            ref = -ref
        if form in ("no_trips", "backward_range"):
            ref = torch.zeros_like(ref)
        if form == "two_dots":
            ref = ref + a_seen @ (b_seen * 2.0)
        if form == "nested" or form.startswith("two_loops"):
            ref = 2 * ref
        x, y = dev(a_full.contiguous()), dev(b_full.contiguous())
        out_t = torch.int32 if t == "i8" else torch.float32
        out = dev(torch.full((M, N), -7, dtype=out_t))
        if run(x, y, out, 1) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        got = out.cpu().double()
        if torch.isnan(got).any():
            return "NaN in the output (an element not written)"
        s = (a_seen.abs() @ b_seen.abs()).max().item() * (3 if form == "two_dots" else 2 if form == "nested" or
                                                           form.startswith("two_loops") else 1)
        # fp8 on wgmma (B K-major, sm_90a) sums in reduced precision (the
        # H200 measured 1.2e-4 of s at K=300); with max_num_imprecise_acc=32
        # only within each 32-element step (1.9e-5 at K=200), which this
        # tolerance tells apart
        tol = 0.0 if t == "i8" else 1e-5 * s
        if t == "f32" or (t.startswith("f8") and "b_kmajor" in form):
            tol = (2.0 ** -14 if form == "b_kmajor_imprecise" else 2.0 ** -10) * s
        err = (got - ref).abs().max().item()
        return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"


# ---- chained dots (lower/dot.c: every warp along M) ------------------------
# S = A B, P = the f16 or bf16 of S / 8, C = P V: attention's two products
# without the softmax, where P is the second dot's A as it is. Small M
# under many warps puts copies of the rows in several warps.
for t in ("f16", "bf16"):
    for M, warps in ((16, 4), (32, 1), (64, 4), (64, 8), (128, 4)):
        src = op_header(warps, t, t, "f32") + f"""\
    rm = tl.arange(0, {M})
    rk = tl.arange(0, 32)
    rn = tl.arange(0, 64)
    a = tl.load(x + rm[:, None] * 32 + rk[None, :])
    b = tl.load(y + rk[:, None] * 64 + rn[None, :])
    p = (tl.dot(a, b) * 0.125).to(tl.{'float16' if t == 'f16' else 'bfloat16'})
    v = tl.load(y + 2048 + rn[:, None] * 32 + rk[None, :])
    tl.store(out + rm[:, None] * 32 + rk[None, :], tl.dot(p, v))
"""

        @case(f"tl.dot chain {t}: P = [{M}, 32] @ [32, 64] / 8, then P @ [64, 32], {warps} warps", src)
        def check_chain(run, torch, t=t, M=M):
            a = inputs(t, M * 32, 41).view(M, 32)
            y = inputs(t, 4096, 42)
            b, v = y[:2048].view(32, 64), y[2048:].view(64, 32)
            p = ((a.double() @ b.double()) * 0.125).to(dtype(t))
            ref = p.double() @ v.double()
            # P may round one ulp apart from the reference's: 2^-8 (bf16) or 2^-11 (f16) of each term
            tol = ((p.double().abs() @ v.double().abs()).max().item()) * (2 ** -7 if t == "bf16" else 2 ** -10)
            out = dev(torch.full((M, 32), -7.0))
            if run(dev(a), dev(y), out, 0) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            err = (out.cpu().double() - ref).abs().max().item()
            return None if err <= tol else f"max error {err:.3g} > {tol:.3g}"


# An online softmax over key blocks (test/golden/ops/dot_row_stats.tk): the
# running row max and sum carried in the rows' slice of the accumulator,
# broadcast back against it; out = the sum over blocks of exp2(S - max) / sum.
for warps in (4, 8):
    src = op_header(warps, "f16", "f16", "f32") + """\
    rows = tl.arange(0, 64)
    cols = tl.arange(0, 64)
    a = tl.load(x + rows[:, None] * 64 + cols[None, :])
    m = tl.full([64], float('-inf'), tl.float32)
    l = tl.zeros([64], dtype=tl.float32)
    acc = tl.zeros([64, 64], dtype=tl.float32)
    for start in range(0, n, 64):
        b = tl.load(y + (start + rows[:, None]) * 64 + cols[None, :])
        s = tl.dot(a, tl.trans(b)) * 0.125
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + p
        m = m_new
    tl.store(out + rows[:, None] * 64 + cols[None, :], acc / l[:, None])
"""

    @case(f"tl.dot online softmax: row max and sum carried in the accumulator's rows, {warps} warps", src)
    def check_online_softmax(run, torch):
        n = 192
        a = inputs("f16", 64 * 64, 43).view(64, 64)
        k = inputs("f16", n * 64, 44).view(n, 64)
        s = (a.double() @ k.double().t()) * 0.125
        p = torch.exp2(s - s.max(1, keepdim=True).values)
        ref = p.view(64, n // 64, 64).sum(1) / p.sum(1, keepdim=True)
        out = dev(torch.full((64, 64), -7.0))
        if run(dev(a), dev(k), out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        err = (out.cpu().double() - ref).abs().max().item()
        return None if err <= 1e-4 else f"max error {err:.3g} > 1e-4"


# A loop-invariant A operand (attention's Q) read by wgmma from one buffer
# copied once, in a loop under an `if` too (test/golden/ops/dot_resident_if.tk):
# first: a loop over 128 rows of y, then under `if n > 0` a loop over the
# n rows after them; or the `if` loop first. out = x @ (the rows' sum).
for order in ("loop then if", "if then loop"):
    first, second = ("range(0, 128, 64)", "range(128, 128 + n, 64)")
    loop = """    for start in {r}:
{ind}        b = tl.load(y + (start + rows[:, None]) * 64 + cols[None, :])
{ind}        acc = tl.dot(a, b, acc)
"""
    plain, under_if = loop.format(r=first, ind=""), "    if n > 0:\n" + "\n".join(
        "    " + line if line else line for line in loop.format(r=second, ind="").split("\n"))
    body = plain + under_if if order == "loop then if" else under_if + plain
    src = """
@kernel(grid=(1,), num_warps=4, num_stages=3)
def op(x: *f16 % 16, y: *f16 % 16, out: *f32 % 16, n: i32):
    rows = tl.arange(0, 64)
    cols = tl.arange(0, 64)
    a = tl.load(x + rows[:, None] * 64 + cols[None, :])
    acc = tl.zeros([64, 64], dtype=tl.float32)
""" + body + """    tl.store(out + rows[:, None] * 64 + cols[None, :], acc)
"""

    @case(f"tl.dot with a loop-invariant A over two K loops, {order}", src)
    def check_resident_if(run, torch):
        a = inputs("f16", 64 * 64, 51).view(64, 64)
        y = inputs("f16", 320 * 64, 52).view(320, 64)
        for n in (0, 64, 192):
            rows = 128 + n
            ref = a.double() @ y[:rows].double().view(rows // 64, 64, 64).sum(0)
            out = dev(torch.full((64, 64), -7.0))
            if run(dev(a), dev(y), out, n) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            err = (out.cpu().double() - ref).abs().max().item()
            tol = 1e-5 * rows * scale(a, y[:64].abs() * (rows // 64))
            if err > tol:
                return f"n={n}: max error {err:.3g} > {tol:.3g}"
        return None


# B K-major with its columns wrapped (offs % N) and A's rows wrapped (% M,
# M = n at run time), as Triton's tutorial 03 indexes them
# (test/golden/ops/dot_wrapped.tk): the pointer tile recomputed in the
# copies' layout in front of the loop. M, N, K not multiples of the tiles.
WRAPPED_N, WRAPPED_K, WRAPPED_LD = 70, 200, 208
for t in ("f16", "f8e4m3", "i8"):
    acc_t, zero, extra = ("tl.int32", "0", ", out_dtype=tl.int32") if t == "i8" else ("tl.float32", "0.0", "")
    to = "i32" if t == "i8" else "f32"
    src = f"""
@kernel(grid=(cdiv(n, 64), cdiv({WRAPPED_N}, 64)), num_warps=4, num_stages=3)
def op(x: *{t} % 16, y: *{t} % 16, out: *{to} % 16, n: i32):
    offs_m = (tl.program_id(0) * 64 + tl.arange(0, 64)) % n
    offs_n = (tl.program_id(1) * 64 + tl.arange(0, 64)) % {WRAPPED_N}
    rk = tl.arange(0, 64)
    a_ptrs = x + offs_m[:, None].to(tl.int64) * {WRAPPED_LD} + rk[None, :]
    b_ptrs = y + offs_n[None, :].to(tl.int64) * {WRAPPED_LD} + rk[:, None]
    acc = tl.zeros([64, 64], dtype={acc_t})
    for k in range(0, tl.cdiv({WRAPPED_K}, 64)):
        a = tl.load(a_ptrs, mask=rk[None, :] < {WRAPPED_K} - k * 64, other={zero})
        b = tl.load(b_ptrs, mask=rk[:, None] < {WRAPPED_K} - k * 64, other={zero})
        acc = tl.dot(a, b, acc{extra})
        a_ptrs += 64
        b_ptrs += 64
    rm = tl.program_id(0) * 64 + tl.arange(0, 64)
    rn = tl.program_id(1) * 64 + tl.arange(0, 64)
    tl.store(out + rm[:, None] * {WRAPPED_N} + rn[None, :], acc, mask=(rm[:, None] < n) & (rn[None, :] < {WRAPPED_N}))
"""

    @case(f"tl.dot with wrapped rows and columns, B K-major, {t}", src)
    def check_wrapped(run, torch, t=t):
        for m in (100, 64, 1):
            a = inputs(t, m * WRAPPED_LD, 61).view(m, WRAPPED_LD)
            b = inputs(t, WRAPPED_N * WRAPPED_LD, 62).view(WRAPPED_N, WRAPPED_LD)
            ref = a[:, :WRAPPED_K].double() @ b[:, :WRAPPED_K].double().T
            out = dev(torch.full((m, WRAPPED_N), -7, dtype=torch.int32 if t == "i8" else torch.float32))
            if run(dev(a), dev(b), out, m) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            err = (out.cpu().double() - ref).abs().max().item()
            # fp8 sums in wgmma's reduced precision (the B K-major cases)
            s = scale(a[:, :WRAPPED_K].double(), b[:, :WRAPPED_K].double().T)
            tol = 0 if t == "i8" else (2.0 ** -10 if t == "f8e4m3" else 1e-5) * s
            if err > tol:
                return f"M={m}: max error {err:.3g} > {tol:.3g}"
        return None
