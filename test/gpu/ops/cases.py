"""The op-family cases of `make gpu-test`: one small kernel each, written
from a template, with a torch reference. Every kernel is named `op` and
takes (x, y, out, n) so that one shim serves all (test/gpu/ops/shim.c).

A case is (name, tk source, x dtype, y dtype, out dtype, n, reference,
tolerance). The reference gets x and y as torch tensors (on the GPU) and
returns the expected out."""

try:  # the GPU run needs torch; generating the sources (make test) does not
    import torch
except ImportError:
    torch = None

TORCH_DTYPES = {  # tkc dtype names and torch's
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
}


def dtype(name):
    return getattr(torch, TORCH_DTYPES[name])


def fn(name):
    """torch.NAME, looked up when a reference runs."""
    return lambda *a: getattr(torch, name)(*a)

# a (value, index) combine function for tuple reductions: the larger value,
# the smaller index on ties
ARGMAX_PAIR = """
@func
def argmax_pair(v1, i1, v2, i2):
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)
"""

ELEMENTWISE = """
@kernel(grid=(cdiv(n, BLOCK),), num_warps=4)
def op(x: *{tx} % 16, y: *{ty} % 16, out: *{to} % 16, n: i32, BLOCK: constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m, other={other})
    b = tl.load(y + offs, mask=m, other={other})
    tl.store(out + offs, {expr}, mask=m)
"""

ROWS = """
@kernel(grid=(1,), num_warps={warps})
def op(x: *{tx} % 16, y: *{ty} % 16, out: *{to} % 16, n: i32):
    r = tl.arange(0, {R})
    c = tl.arange(0, {C})
    a = tl.load(x + r[:, None] * {C} + c[None, :])
    {body}
"""


# y optional (`*T | None`): the case of kind "y_null" passes NULL for it,
# which launches the variant compiled with y None
OPTIONAL_Y = """
@kernel(grid=(cdiv(n, BLOCK),), num_warps=4)
def op(x: *{tx} % 16, y: *{ty} | None, out: *{to} % 16, n: i32, BLOCK: constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    if y is not None:
        a = a * tl.load(y + offs, mask=m)
    tl.store(out + offs, a + 1, mask=m)
"""


def odd_n():
    return 1000  # not a multiple of the block: masks matter


def cases():
    out = []
    ints = ["i8", "i16", "i32", "i64", "u8"]
    floats = ["f16", "bf16", "f32", "f64"]
    # arithmetic per dtype (same dtype both sides)
    for t in ints + floats:
        for sym, opfn in [("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b)]:
            out.append((f"{t} a {sym} b", ELEMENTWISE, t, t, t, f"a {sym} b", opfn, None))
        out.append((f"{t} maximum", ELEMENTWISE, t, t, t if t != "bf16" else "f32",
                    "tl.maximum(a, b)", fn("maximum"), None))
        out.append((f"{t} where", ELEMENTWISE, t, t, t, "tl.where(a < b, a, b)",
                    lambda a, b: torch.where(a < b, a, b), None))
        out.append((f"{t} a < b", ELEMENTWISE, t, t, "i8", "(a < b).to(tl.int8)",
                    lambda a, b: (a < b).to(torch.int8), None))
    # -x is 0 - x, as Triton's: -(+0.0) is +0.0, which the bitcast shows (a*0.0 is +0.0 or -0.0)
    for t, bits in (("f16", "i16"), ("bf16", "i16"), ("f32", "i32"), ("f64", "i64")):
        out.append((f"{t} -x of zeros, bits", ELEMENTWISE, t, t, bits, f"(-(a * 0.0)).to(tl.{bits.replace('i', 'int')}, bitcast=True)",
                    (lambda d: (lambda a, b: (0.0 - a * 0.0).view(dtype(d))))(bits), None))
    # an optional pointer, given and passed as NULL
    for t in ("f32", "f16"):
        out.append((f"{t} optional y given", OPTIONAL_Y, t, t, t, "", lambda a, b: a * b + 1, None))
        out.append((f"{t} optional y NULL", OPTIONAL_Y, t, t, t, "", lambda a, b: a + 1, "y_null"))
    # tl.logical_and / tl.logical_or on booleans, as functions and methods
    for t in ("i32", "f32"):
        out.append((f"{t} tl.logical_and", ELEMENTWISE, t, t, "i8", "tl.logical_and(a < b, a > 0).to(tl.int8)",
                    lambda a, b: ((a < b) & (a > 0)).to(torch.int8), None))
        out.append((f"{t} logical_or method", ELEMENTWISE, t, t, "i8", "(a < b).logical_or(b < 0).to(tl.int8)",
                    lambda a, b: ((a < b) | (b < 0)).to(torch.int8), None))
    for t in ints:
        for sym, opfn in [("&", lambda a, b: a & b), ("|", lambda a, b: a | b), ("^", lambda a, b: a ^ b)]:
            out.append((f"{t} a {sym} b", ELEMENTWISE, t, t, t, f"a {sym} b", opfn, None))
        # C semantics: truncation and the sign of the dividend
        out.append((f"{t} a // b", ELEMENTWISE, t, t, t, "a // b",
                    lambda a, b: torch.div(a, b, rounding_mode="trunc"), "nonzero_b"))
        out.append((f"{t} a % b", ELEMENTWISE, t, t, t, "a % b",
                    lambda a, b: torch.fmod(a, b), "nonzero_b"))
        out.append((f"{t} a / b", ELEMENTWISE, t, t, "f32", "a / b",
                    lambda a, b: a.float() / b.float(), "nonzero_b"))
    for t in floats:
        out.append((f"{t} a / b", ELEMENTWISE, t, t, t if t in ("f32", "f64") else "f32", "a / b",
                    lambda a, b: a.float() / b.float(), "nonzero_b"))
    # math functions (f32, as Triton)
    for name in ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "abs", "floor", "ceil",
                 "sigmoid", "erf"]:
        arg = "tl.abs(a) + 0.5" if name in ("log", "log2", "sqrt", "rsqrt") else "a"
        ref = (lambda f, pos: (lambda a, b: f(a.abs() + 0.5) if pos else f(a)))(fn(name), arg != "a")
        out.append((f"f32 tl.{name}", ELEMENTWISE, "f32", "f32", "f32", f"tl.{name}({arg})", ref, "approx"))
    out.append(("f32 tl.fma", ELEMENTWISE, "f32", "f32", "f32", "tl.fma(a, b, a)",
                lambda a, b: a * b + a, "approx"))
    # casts
    pairs = [("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("bf16", "f32"), ("f32", "i32"),
             ("i32", "f32"), ("i8", "i32"), ("i32", "i8"), ("u8", "i32"), ("i64", "f64"), ("f64", "f32"),
             ("f16", "bf16"), ("i32", "i64"), ("i16", "f16")]
    for a_t, b_t in pairs:
        out.append((f"cast {a_t} -> {b_t}", ELEMENTWISE, a_t, a_t, b_t, f"a.to(tl.{b_t})",
                    (lambda d: (lambda a, b: a.to(dtype(d))))(b_t), "cast"))
    # a signed integer taken as a wider unsigned one, then to a 16-bit
    # float: -5 as u64 is 2^64 - 5 (LLVM's SLP vectorizer converted the
    # 16-bit integer instead; codegen/cast.c); in f16 the negatives are
    # all infinity, which the exact comparison accepts
    for a_t, mid, bits, b_t in [("i16", "uint64", 64, "bf16"), ("i8", "uint32", 32, "f16"),
                                ("i16", "uint32", 32, "bf16"), ("i8", "uint64", 64, "f16")]:
        out.append((f"cast {a_t} -> {mid} -> {b_t}", ELEMENTWISE, a_t, a_t, b_t, f"a.to(tl.{mid})",
                    (lambda w, d: (lambda a, b: torch.where(a < 0, a.double() + 2.0 ** w, a.double()).to(dtype(d))))(bits, b_t),
                    "exact"))
    # fp8 (Triton's float8e4nv and float8e5) and round-toward-zero
    for f8, tname in [("f8e4m3", "float8e4nv"), ("f8e5m2", "float8e5")]:
        out.append((f"cast f32 -> {f8} -> f32", ELEMENTWISE, "f32", "f32", "f32",
                    f"a.to(tl.{tname}).to(tl.float32)",
                    (lambda d: (lambda a, b: a.to(dtype(d)).to(torch.float32)))(f8), "cast"))
        out.append((f"store {f8} from f16", ELEMENTWISE, "f16", "f16", f8, f"a.to(tl.{tname})",
                    (lambda d: (lambda a, b: a.float().to(dtype(d))))(f8), "cast"))
    def rtz_ref(d):
        def ref(a, b):
            r = a.to(dtype(d))
            over = r.float().abs() > a.abs()
            bits = r.view(torch.int16 if r.element_size() == 2 else torch.int32)
            return torch.where(over, (bits - 1).view(dtype(d)), r)
        return ref
    for src, t in (("f32", "f16"), ("f32", "bf16"), ("f64", "f16"), ("f64", "bf16"), ("f64", "f32")):
        out.append((f"cast {src} -> {t} rtz", ELEMENTWISE, src, src, t,
                    f'a.to(tl.{t}, fp_downcast_rounding="rtz")', rtz_ref(t), "cast"))
    # reductions over each axis, and full ones
    for red, rfn in [("sum", lambda t, ax: t.sum(ax)), ("max", lambda t, ax: t.amax(ax)),
                     ("min", lambda t, ax: t.amin(ax))]:
        for ax, idx in [(1, "r"), (0, "c")]:
            body = f"tl.store(out + {idx}, tl.{red}(a, axis={ax}))"
            src = ROWS.replace("{body}", body)
            out.append((f"f32 tl.{red} axis={ax} [64, 32]", src.format(warps=4, tx="f32", ty="f32", to="f32",
                        R=64, C=32), "f32", "f32", "f32", None,
                        (lambda f, a_: (lambda x, y: f(x[:64 * 32].view(64, 32), a_)))(rfn, ax), "reduce"))
    # integer reductions: tl.reduce_or and tl.xor_sum, over each axis
    def bit_reduce(op):
        def r(t, ax):
            t = t.to(torch.int32)
            acc = t.select(ax, 0).clone()
            for i in range(1, t.shape[ax]):
                acc = op(acc, t.select(ax, i))
            return acc
        return r
    for red, rfn in [("reduce_or", bit_reduce(lambda p, q: p | q)), ("xor_sum", bit_reduce(lambda p, q: p ^ q))]:
        for ax, idx in [(1, "r"), (0, "c")]:
            body = f"tl.store(out + {idx}, tl.{red}(a, axis={ax}))"
            out.append((f"i32 tl.{red} axis={ax} [64, 32]", ROWS.replace("{body}", body).format(
                warps=4, tx="i32", ty="i32", to="i32", R=64, C=32), "i32", "i32", "i32", None,
                (lambda f, a_: (lambda x, y: f(x[:2048].view(64, 32), a_)))(rfn, ax), "reduce"))
    for red, rfn in [("argmax", lambda t, ax: t.argmax(ax)), ("argmin", lambda t, ax: t.argmin(ax))]:
        for ax, idx in [(1, "r"), (0, "c")]:
            for t in ("f32", "i32"):
                body = f"tl.store(out + {idx}, tl.{red}(a, axis={ax}))"
                out.append((f"{t} tl.{red} axis={ax} [64, 32]", ROWS.replace("{body}", body).format(
                    warps=4, tx=t, ty=t, to="i32", R=64, C=32), t, t, "i32", None,
                    (lambda f, a_: (lambda x, y: f(x[:2048].view(64, 32), a_).to(torch.int32)))(rfn, ax), "reduce"))
    funcs = ('''
@func
def add_fn(a, b):
    return a + b

@func
def max_fn(a, b):
    return tl.maximum(a, b)
''')
    for fname, rfn in [("add_fn", lambda t, ax: t.sum(ax)), ("max_fn", lambda t, ax: t.amax(ax))]:
        for ax, idx in [(1, "r"), (0, "c")]:
            body = f"tl.store(out + {idx}, tl.reduce(a, {ax}, {fname}))"
            out.append((f"f32 tl.reduce({fname}) axis={ax} [64, 32]", funcs + ROWS.replace("{body}", body).format(
                warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
                (lambda f, a_: (lambda x, y: f(x[:2048].view(64, 32), a_)))(rfn, ax), "reduce"))
    for fname, sfn in [("add_fn", lambda t, ax: t.cumsum(ax)), ("max_fn", lambda t, ax: t.cummax(ax).values)]:
        for ax in (0, 1):
            body = f"tl.store(out + r[:, None] * 32 + c[None, :], tl.associative_scan(a, {ax}, {fname}))"
            out.append((f"f32 tl.associative_scan({fname}) axis={ax} [64, 32]", funcs + ROWS.replace("{body}", body).format(
                warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
                (lambda f, a_: (lambda x, y: f(x[:2048].view(64, 32), a_).reshape(-1)))(sfn, ax), "reduce"))
    for scan, sfn in [("cumsum", lambda t, ax: t.cumsum(ax)), ("cumprod", lambda t, ax: t.cumprod(ax))]:
        for ax in (0, 1):
            for rev in (False, True):
                body = (f"tl.store(out + r[:, None] * 32 + c[None, :], "
                        f"tl.{scan}(a * 0.05 + 1.0 if {scan == 'cumprod'} else a, axis={ax}, reverse={rev}))")
                ref = (lambda f, a_, rv, prod: (lambda x, y: (
                    (lambda m: (f(m.flip(a_), a_).flip(a_) if rv else f(m, a_)))(
                        x[:2048].view(64, 32) * 0.05 + 1.0 if prod else x[:2048].view(64, 32))).reshape(-1)))(
                    sfn, ax, rev, scan == "cumprod")
                out.append((f"f32 tl.{scan} axis={ax} reverse={rev} [64, 32]", ROWS.replace("{body}", body).format(
                    warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None, ref, "reduce"))
    body = "tl.store(out + r[:, None] * 32 + c[None, :], tl.cumsum(a, axis=0))"
    out.append(("i32 tl.cumsum axis=0 [64, 32]", ROWS.replace("{body}", body).format(
        warps=4, tx="i32", ty="i32", to="i32", R=64, C=32), "i32", "i32", "i32", None,
        lambda x, y: x[:2048].view(64, 32).cumsum(0).to(torch.int32).reshape(-1), "reduce"))
    body = "tl.store(out, tl.sum(tl.sum(a, axis=1), axis=0))"
    out.append(("f32 sum of a tile [64, 32]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: x[:64 * 32].sum().reshape(1), "reduce"))
    body = "tl.store(out + r[:, None] * 32 + c[None, :], a - tl.max(a, axis=1)[:, None])"
    out.append(("f32 a - max(a, axis=1)[:, None]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: (x[:2048].view(64, 32) - x[:2048].view(64, 32).amax(1, keepdim=True)).reshape(-1), "reduce"))
    body = "tl.store(out + c[:, None] * 64 + r[None, :], tl.trans(a))"
    out.append(("f32 tl.trans [64, 32]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: x[:2048].view(64, 32).t().reshape(-1), "reduce"))
    body = ("tl.store(out + r[:, None, None] * 64 + c[None, :, None] * 2 + tl.arange(0, 2)[None, None, :], "
            "tl.join(a, a * 2.0))")
    out.append(("f32 tl.join [64, 32] -> [64, 32, 2]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: torch.stack([x[:2048].view(64, 32), x[:2048].view(64, 32) * 2], -1).reshape(-1), "big"))
    body = ("lo, hi = tl.split(tl.reshape(a, 64, 16, 2))\n"
            "    k = tl.arange(0, 16)\n"
            "    tl.store(out + r[:, None] * 16 + k[None, :], lo - hi)")
    out.append(("f32 tl.split [64, 16, 2]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: (x[:2048].view(64, 16, 2)[..., 0] - x[:2048].view(64, 16, 2)[..., 1]).reshape(-1), "reduce"))
    src = """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    i = tl.arange(0, 128)
    both = tl.cat(tl.load(x + i), tl.load(y + i) + 1.0, can_reorder=True)
    tl.store(out + tl.arange(0, 256), both)
"""
    out.append(("f32 tl.cat [128] + [128]", src, "f32", "f32", "f32", None,
                lambda x, y: torch.cat([x[:128], y[:128] + 1]), "reduce"))
    src = """
@kernel(grid=(cdiv(n, 256),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    m = offs < n
    a = tl.load(x + offs, mask=m, eviction_policy="evict_first", cache_modifier=".cg")
    b = tl.load(y + offs, eviction_policy="evict_last")
    tl.store(out + offs, a + b, mask=m, eviction_policy="evict_first")
"""
    out.append(("f32 loads and stores with cache and eviction hints", src, "f32", "f32", "f32", None,
                lambda x, y: x + y, None))
    for ax in (0, 1):
        body = f"tl.store(out + r[:, None] * 32 + c[None, :], tl.softmax(a, dim={ax}))"
        out.append((f"f32 tl.softmax dim={ax} [64, 32]", ROWS.replace("{body}", body).format(
            warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
            (lambda a_: (lambda x, y: torch.softmax(x[:2048].view(64, 32), a_).reshape(-1)))(ax), "reduce"))
    # block pointers: a 64x32 window of a 100x50 matrix, partly outside it,
    # stepped along the columns by tl.advance in a loop
    src = """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    src = tl.make_block_ptr(base=x, shape=(100, 50), strides=(50, 1), offsets=(40, 0),
                            block_shape=(64, 32), order=(1, 0))
    dst = tl.make_block_ptr(base=out, shape=(64, 64), strides=(64, 1), offsets=(0, 0),
                            block_shape=(64, 32), order=(1, 0))
    for i in range(0, 2):
        t = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, t * 2.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, 32))
        dst = tl.advance(dst, (0, 32))
"""
    def block_ref(x, y):
        m = torch.zeros(104, 64, device=x.device)
        m[:100, :50] = x[:5000].view(100, 50)
        return (m[40:104, :64] * 2).reshape(-1)
    out.append(("f32 make_block_ptr, advance, boundary_check", src, "f32", "f32", "f32", None, block_ref, "bigblock"))
    # tensor descriptors: a 32x32 block of a 20x50 matrix read at (-8, 30),
    # partly outside (NaN padding), stored at (0, 20) into a 25x40 one, whose
    # elements outside the block or the shape keep the poison
    src = """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    src = tl.make_tensor_descriptor(x, [20, 50], [50, 1], [32, 32], padding_option="nan")
    dst = tl.make_tensor_descriptor(out, [25, 40], [40, 1], [32, 32])
    dst.store([0, 20], src.load([-8, 30]) * 2.0)
"""
    def descriptor_window_ref(x, y):
        block = torch.full((32, 32), float("nan"), device=x.device)
        block[8:28, 0:20] = x.view(20, 50)[:, 30:50]
        o = torch.full((25, 40), float("nan"), device=x.device)
        o[:, 20:40] = (block * 2)[0:25, 0:20]
        return o.reshape(-1)
    out.append(("f32 tensor descriptor window, NaN padding, store clipped", src, "f32", "f32", "f32", None,
                descriptor_window_ref, "nan"))
    # a matmul over descriptors whose blocks pass the shapes (M 48 of 64, N
    # 24 of 32, K 40: the second K block half outside, zero-padded)
    src = """
@kernel(grid=(1,), num_warps=4)
def op(x: *f16 % 16, y: *f16 % 16, out: *f32 % 16, n: i32):
    a = tl.make_tensor_descriptor(x, [48, 40], [40, 1], [64, 32])
    b = tl.make_tensor_descriptor(y, [40, 24], [24, 1], [32, 32])
    c = tl.make_tensor_descriptor(out, [48, 24], [24, 1], [64, 32])
    acc = tl.zeros((64, 32), dtype=tl.float32)
    for k in range(0, 2):
        acc = tl.dot(a.load([0, k * 32]), b.load([k * 32, 0]), acc)
    c.store([0, 0], acc)
"""
    out.append(("f16 tensor descriptor matmul, ragged blocks", src, "f16", "f16", "f32", None,
                lambda x, y: (x[:1920].double().view(48, 40) @ y[:960].double().view(40, 24)).float().reshape(-1),
                "bigblock"))
    # a layout conversion by warp shuffles: a transposed [4, 8] tile plus
    # an [8, 4] one, one element a thread (no alignment promise), one warp
    for t in ("f32", "i64", "f16"):
        src = f"""
@kernel(grid=(1,), num_warps=1)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    r = tl.arange(0, 4)
    c = tl.arange(0, 8)
    v = tl.load(x + r[:, None] * 8 + c[None, :])
    w = tl.load(y + c[:, None] * 4 + r[None, :])
    tl.store(out + c[:, None] * 4 + r[None, :], tl.trans(v) + w)
"""
        out.append((f"{t} tl.trans [4, 8] + [8, 4]: warp shuffles", src, t, t, t, None,
                    lambda x, y: (x[:32].view(4, 8).t() + y[:32].view(8, 4)).reshape(-1), "reduce"))
    # a conversion through more than 48 KB of shared memory (opt-in at launch)
    body = "tl.store(out + c[:, None] * 128 + r[None, :], tl.trans(a))"
    out.append(("f32 tl.trans [128, 256]: 128 KB of shared memory", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=128, C=256), "f32", "f32", "f32", None,
        lambda x, y: x[:32768].view(128, 256).t().reshape(-1), "big"))
    # transposes through a swizzled shared layout, 4- and 8-byte words
    body = "tl.store(out + c[:, None] * 64 + r[None, :], tl.trans(a))"
    for t in ("f32", "i64", "f16"):
        out.append((f"{t} tl.trans [64, 64]: swizzled shared memory", ROWS.replace("{body}", body).format(
            warps=4, tx=t, ty=t, to=t, R=64, C=64), t, t, t, None,
            lambda x, y: x[:4096].view(64, 64).t().reshape(-1), "big"))
    # a pair held by two lanes: split converts it into registers first
    src = """
@kernel(grid=(1,), num_warps=1)
def op(x: *f32, y: *f32, out: *f32 % 16, n: i32):
    v = tl.load(x + tl.arange(0, 64)[:, None] * 2 + tl.arange(0, 2)[None, :])
    lo, hi = tl.split(v)
    tl.store(out + tl.arange(0, 64), lo - hi * 3.0)
"""
    out.append(("f32 tl.split of a pair across lanes", src, "f32", "f32", "f32", None,
                lambda x, y: x[:128].view(64, 2)[:, 0] - x[:128].view(64, 2)[:, 1] * 3, "reduce"))
    # control flow
    src = """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    pid = tl.program_id(0)
    offs = pid * 128 + tl.arange(0, 128)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    acc = tl.zeros([128], dtype=tl.float32)
    for i in range(0, 5):
        acc += a * i
    k = 0
    while k < 3:
        acc += 1.0
        k += 1
    if pid % 2 == 0:
        acc = acc * 2.0
    else:
        acc = acc - 1.0
    tl.store(out + offs, acc, mask=m)
"""
    def cf_ref(x, y):
        acc = x * 10 + 3
        pid = torch.arange(x.numel(), device=x.device) // 128
        return torch.where(pid % 2 == 0, acc * 2, acc - 1)
    out.append(("control flow for/while/if", src, "f32", "f32", "f32", None, cf_ref, "approx"))
    src = """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    pid = tl.program_id(0)
    if pid * 128 >= n:
        return
    offs = pid * 128 + tl.arange(0, 128)
    tl.store(out + offs, tl.load(x + offs, mask=offs < n) + 1.0, mask=offs < n)
"""
    out.append(("early return", src, "f32", "f32", "f32", None, lambda x, y: x + 1, None))
    # atomics: every element adds into out[offs % 8]
    src = """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    m = offs < n
    tl.atomic_{kind}(out + offs % 8, tl.load(x + offs, mask=m), mask=m)
"""
    for kind, t, afn in [("add", "f32", lambda v: v.sum(0)), ("add", "i32", lambda v: v.sum(0)),
                         ("max", "i32", lambda v: v.amax(0)), ("min", "f32", lambda v: v.amin(0))]:
        out.append((f"tl.atomic_{kind} {t}", src.replace("{t}", t).replace("{kind}", kind), t, t, t, None,
                    (lambda f: (lambda x, y: f(torch.nn.functional.pad(x, (0, (-x.numel()) % 8)).view(-1, 8))))(afn),
                    "atomic"))
    out += regression_cases()
    return out


def umulhi_ref(bits):
    """The high half of the unsigned product of the operands' bits, as the
    signed type again (Triton's tl.umulhi), in Python integers."""
    def ref(a, b):
        mask = (1 << bits) - 1
        hi = [((p & mask) * (q & mask)) >> bits for p, q in zip(a.cpu().tolist(), b.cpu().tolist())]
        hi = [h - (1 << bits) if h >> (bits - 1) else h for h in hi]
        return torch.tensor(hi, dtype=a.dtype, device=a.device)
    return ref


def regression_cases():
    """Wrong answers found by review, one case each (see also regressions.py)."""
    out = []
    # negative operands: the unsigned product's high half, not the signed one
    for t, bits in (("i32", 32), ("i64", 64)):
        out.append((f"{t} tl.umulhi of negative values", ELEMENTWISE, t, t, t, "tl.umulhi(a * 1000003, b - 77)",
                    (lambda r: lambda a, b: r(a * 1000003, b - 77))(umulhi_ref(bits)), None))
    # f16 clamped by float bounds computes (and is) f32
    out.append(("f16 tl.clamp with float bounds", ELEMENTWISE, "f16", "f16", "f32", "tl.clamp(a, -0.5, 0.75)",
                lambda a, b: a.float().clamp(-0.5, 0.75), None))
    # f8 arithmetic: computed in f32, rounded to the f8 type after each op
    for f8, tname in (("f8e4m3", "float8e4nv"), ("f8e5m2", "float8e5")):
        def f8ref(fn, d=f8):
            return lambda a, b: fn(a.to(dtype(d)).float(), b.to(dtype(d)).float(), d)
        rnd = lambda v, d: v.to(dtype(d)).float()  # noqa: E731
        for name, expr, fn in [
            ("a + b", "(a.to(tl.{f}) + b.to(tl.{f})).to(tl.float32)", lambda p, q, d: rnd(p + q, d)),
            ("a * 2.0 - b", "(a.to(tl.{f}) * 2.0 - b.to(tl.{f})).to(tl.float32)",
             lambda p, q, d: rnd(rnd(p * 2, d) - q, d)),
            ("-a", "(-a.to(tl.{f})).to(tl.float32)", lambda p, q, d: -p),
            ("maximum", "tl.maximum(a.to(tl.{f}), b.to(tl.{f})).to(tl.float32)", lambda p, q, d: torch.maximum(p, q)),
            ("a > b", "(a.to(tl.{f}) > b.to(tl.{f})).to(tl.float32)", lambda p, q, d: (p > q).float()),
        ]:
            out.append((f"{f8} {name}", ELEMENTWISE, "f32", "f32", "f32", expr.replace("{f}", tname), f8ref(fn),
                        "cast"))
    # run-time control flow: names assigned in branches, nested ifs with a
    # return, compound conditions, a @func with an if/else
    src = """
@func
def pick(a, pid):
    if pid % 3 == 0:
        r = a * 2.0
    else:
        r = a + 1.0
    return r

@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    pid = tl.program_id(0)
    offs = pid * 128 + tl.arange(0, 128)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    s = 0.0
    if pid % 2 == 0 and pid > 1 or not pid < 5:
        s = 3.0
    if pid % 2 == 1:
        if pid > 2:
            t = a * 5.0
        else:
            t = a - 5.0
    else:
        if pid == 0:
            tl.store(out + offs, a + 100.0, mask=m)
            return
        t = a * 0.5
    tl.store(out + offs, t + s + pick(a, pid), mask=m)
"""
    def ssa_ref(x, y):
        pid = torch.arange(x.numel(), device=x.device) // 128
        s = torch.where(((pid % 2 == 0) & (pid > 1)) | ~(pid < 5), 3.0, 0.0)
        t = torch.where(pid % 2 == 1, torch.where(pid > 2, x * 5, x - 5), x * 0.5)
        u = torch.where(pid % 3 == 0, x * 2, x + 1)
        return torch.where(pid == 0, x + 100, t + s + u)
    out.append(("names assigned in run-time ifs (SSA)", src, "f32", "f32", "f32", None, ssa_ref, "approx"))
    # returns inside run-time ifs of a @func (what follows moves into the branches)
    src = """
@func
def pick(a, pid):
    if pid % 3 == 0:
        return a * 2.0
    b = a + 1.0
    if pid % 3 == 1:
        return b
    elif pid > 5:
        return b * 3.0
    return a - b

@func
def sign(x):
    if x > 0:
        return 1
    else:
        return -1

@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    pid = tl.program_id(0)
    offs = pid * 128 + tl.arange(0, 128)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    tl.store(out + offs, pick(a, pid) + sign(pid - 3), mask=m)
"""
    def ret_ref(x, y):
        pid = torch.arange(x.numel(), device=x.device) // 128
        b = x + 1
        v = torch.where(pid % 3 == 0, x * 2, torch.where(pid % 3 == 1, b, torch.where(pid > 5, b * 3, x - b)))
        return v + torch.where(pid > 3, 1.0, -1.0)
    out.append(("return inside run-time ifs of a @func", src, "f32", "f32", "f32", None, ret_ref, "approx"))
    # join of two scalars
    src = """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    tl.store(out + tl.arange(0, 2), tl.join(tl.load(x + 3), tl.load(y + 5)))
"""
    out.append(("f32 tl.join of two scalars", src, "f32", "f32", "f32", None,
                lambda x, y: torch.stack([x[3], y[5]]), "reduce"))
    # a grid written as a conditional expression
    src = """
@kernel(grid=(cdiv(n, 128) if n > 0 else 1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    tl.store(out + offs, tl.load(x + offs, mask=offs < n) + 1.0, mask=offs < n)
"""
    out.append(("grid from a conditional expression", src, "f32", "f32", "f32", None, lambda x, y: x + 1, None))
    out += surface_cases()
    out += address_cases()
    return out


def address_cases():
    """Pointer chains that lower/reassociate.c rewrites in loops
    (test/golden/ops/address_chain.tk): a tile whose base moves each trip,
    its offsets summed before the loop, negative and unsigned ones too."""
    out = []
    src = """
@kernel(grid=(cdiv(n, 64),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    rows = tl.arange(0, 8)
    cols = tl.arange(0, 8)
    first = tl.program_id(0) * 64
    acc = tl.zeros([8, 8], tl.float32)
    for t in range(0, 4):
        base = x + first + t * 3 + 16
        idx = first + t * 3 + rows[:, None] * 8 + cols[None, :]
        acc += tl.load(base + (rows[:, None] - 2) * 8 + cols[None, :], mask=idx < n, other=0.0)
    offs = first + rows[:, None] * 8 + cols[None, :]
    tl.store(out + offs, acc, mask=offs < n)
"""
    def windows(x, y):
        n = x.numel()
        i = torch.arange(n, device=x.device)
        return sum(torch.where(i + 3 * t < n, x[(i + 3 * t).clamp(max=n - 1)], 0.0) for t in range(4))
    out.append(("a tile's base moved each trip, its offsets summed before the loop", src, "f32", "f32", "f32",
                None, windows, "approx"))
    src = """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 128)
    first = tl.program_id(0) * 128
    acc = tl.zeros([128], tl.float32)
    for t in range(0, 3):
        if t != 1:
            p = x + first + (offs + 1).to(tl.uint32)
            acc += tl.load(p - 1, mask=first + offs < n, other=0.0) * (t + 1)
    tl.store(out + first + offs, acc, mask=first + offs < n)
"""
    out.append(("an unsigned offset beside a signed one, in an if in a loop", src, "f32", "f32", "f32", None,
                lambda x, y: x * 4, "approx"))
    return out


LIBDEVICE = "from triton.language.extra import libdevice\n" + ELEMENTWISE


def surface_cases():
    """Triton features a port needs: libdevice under Triton's names, full and
    (value, index) reductions, ravel, interleave, broadcast, item."""
    out = []
    th = torch  # no other name in this function may rebind it: the lambdas read it late
    for name, expr, ref in [
        ("asin", "libdevice.asin(a * 0.2)", lambda a, b: th.asin(a * 0.2)),
        ("acos", "libdevice.acos(a * 0.2)", lambda a, b: th.acos(a * 0.2)),
        ("atan", "libdevice.atan(a)", lambda a, b: th.atan(a)),
        ("atan2", "libdevice.atan2(a, b)", lambda a, b: th.atan2(a, b)),
        ("sinh", "libdevice.sinh(a)", lambda a, b: th.sinh(a)),
        ("cosh", "libdevice.cosh(a)", lambda a, b: th.cosh(a)),
        ("tanh via tl.math", "tl.math.tanh(a)", lambda a, b: th.tanh(a)),
        ("pow f32", "libdevice.pow(tl.abs(a) + 0.5, b)", lambda a, b: th.pow(a.abs() + 0.5, b)),
        ("pow int exponent", "libdevice.pow(a, 3)", lambda a, b: a * a * a),
        ("log1p", "libdevice.log1p(tl.abs(a))", lambda a, b: th.log1p(a.abs())),
        ("expm1", "libdevice.expm1(a)", lambda a, b: th.expm1(a)),
        ("round (half away from zero)", "libdevice.round(a * 3.0)",
         lambda a, b: th.sign(a * 3) * th.floor((a * 3).abs() + 0.5)),
        ("rint", "libdevice.rint(a * 3.0)", lambda a, b: th.round(a * 3)),
        ("trunc", "libdevice.trunc(a * 3.0)", lambda a, b: th.trunc(a * 3)),
        ("fmod", "libdevice.fmod(a, tl.abs(b) + 0.5)", lambda a, b: th.fmod(a, b.abs() + 0.5)),
        ("hypot", "libdevice.hypot(a, b)", lambda a, b: th.hypot(a, b)),
        ("cbrt", "libdevice.cbrt(a)", lambda a, b: th.sign(a) * a.abs().pow(1.0 / 3)),
        ("erfinv", "libdevice.erfinv(a * 0.2)", lambda a, b: th.erfinv(a * 0.2)),
        ("isnan", "libdevice.isnan(tl.where(a > 0.5, a - a + float('nan'), a)).to(tl.float32)",
         lambda a, b: (a > 0.5).float()),
        ("isinf", "libdevice.isinf(a * 1e38 * 1e38).to(tl.float32)", lambda a, b: th.ones_like(a)),
    ]:
        out.append((f"libdevice.{name}", LIBDEVICE, "f32", "f32", "f32", expr, ref, "approx"))
    nan_in = "tl.where(a > 1.0, a - a + float('nan'), a)"
    for prop, fn in [("NONE", lambda p, q: torch.fmax(p, q)), ("ALL", lambda p, q: torch.maximum(p, q))]:
        out.append((f"f32 tl.maximum propagate_nan={prop}", ELEMENTWISE, "f32", "f32", "f32",
                    f"tl.maximum({nan_in}, b, propagate_nan=tl.PropagateNan.{prop})",
                    (lambda f: lambda a, b: f(torch.where(a > 1.0, float("nan"), a), b))(fn), "nan"))
    # inline PTX once per element: one output, an integer funnel shift, two outputs
    out.append(("tl.inline_asm_elementwise f32 add", ELEMENTWISE, "f32", "f32", "f32",
                'tl.inline_asm_elementwise("add.f32 $0, $1, $2;", "=f,f,f", [a, b], dtype=tl.float32, '
                'is_pure=True, pack=1)', lambda a, b: a + b, None))
    def funnel_ref(a, b):
        """shf.l.wrap.b32 d, a, b, 5: the high word of {b, a} << 5"""
        res = []
        for lo, hi in zip(a.cpu().tolist(), b.cpu().tolist()):
            v = ((((hi & 0xffffffff) << 32) | (lo & 0xffffffff)) << 5 >> 32) & 0xffffffff
            res.append(v - (1 << 32) if v >= 1 << 31 else v)
        return torch.tensor(res, dtype=torch.int32, device=a.device)
    out.append(("tl.inline_asm_elementwise i32 shf.l.wrap", ELEMENTWISE, "i32", "i32", "i32",
                'tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, 5;", "=r,r,r", [a, b], dtype=tl.int32, '
                'is_pure=True, pack=1)', funnel_ref, None))
    out.append(("tl.inline_asm_elementwise two outputs", ELEMENTWISE, "f32", "f32", "f32",
                'tl.inline_asm_elementwise("sub.f32 $0, $2, $3; mul.f32 $1, $2, $3;", "=f,=f,f,f", [a, b], '
                'dtype=(tl.float32, tl.float32), is_pure=True, pack=1)[0] * 2.0 + '
                'tl.inline_asm_elementwise("sub.f32 $0, $2, $3; mul.f32 $1, $2, $3;", "=f,=f,f,f", [a, b], '
                'dtype=(tl.float32, tl.float32), is_pure=True, pack=1)[1]',
                lambda a, b: (a - b) * 2 + a * b, "approx"))
    # pack > 1: elements narrower than 32 bits share a register, as in Triton;
    # 256 elements over 128 threads leave pack=4 half empty (undef padding)
    out.append(("tl.inline_asm_elementwise f16 pack=2 mul.rn.f16x2", ELEMENTWISE, "f16", "f16", "f16",
                'tl.inline_asm_elementwise("mul.rn.f16x2 $0, $1, $2;", "=r,r,r", [a, b], dtype=tl.float16, '
                'is_pure=True, pack=2)', lambda a, b: a * b, "approx"))
    out.append(("tl.inline_asm_elementwise i8 pack=4 and.b32", ELEMENTWISE, "i8", "i8", "i8",
                'tl.inline_asm_elementwise("and.b32 $0, $1, 0x7F7F7F7F;", "=r,r", [a], dtype=tl.int8, '
                'is_pure=True, pack=4)', lambda a, b: torch.bitwise_and(a, 127), None))
    out.append(("tl.inline_asm_elementwise i16 pack=4: two registers a value", ELEMENTWISE, "i16", "i16", "i16",
                'tl.inline_asm_elementwise("and.b32 $0, $2, 0x7FFF7FFF; and.b32 $1, $3, 0x7FFF7FFF;", "=r,=r,r,r", '
                '[a], dtype=tl.int16, is_pure=True, pack=4)', lambda a, b: torch.bitwise_and(a, 0x7FFF), None))
    out.append(("tl.inline_asm_elementwise f32 pack=2, two outputs", ELEMENTWISE, "f32", "f32", "f32",
                'tl.inline_asm_elementwise("sub.f32 $0, $4, $6; sub.f32 $1, $5, $7; mul.f32 $2, $4, $6; '
                'mul.f32 $3, $5, $7;", "=f,=f,=f,=f,f,f,f,f", [a, b], dtype=(tl.float32, tl.float32), '
                'is_pure=True, pack=2)[0] * 2.0 + tl.inline_asm_elementwise("sub.f32 $0, $4, $6; '
                'sub.f32 $1, $5, $7; mul.f32 $2, $4, $6; mul.f32 $3, $5, $7;", "=f,=f,=f,=f,f,f,f,f", [a, b], '
                'dtype=(tl.float32, tl.float32), is_pure=True, pack=2)[1]', lambda a, b: (a - b) * 2 + a * b, "approx"))
    out.append(("libdevice.cbrt f64", LIBDEVICE, "f64", "f64", "f64", "libdevice.cbrt(a)",
                lambda a, b: torch.sign(a) * a.abs().pow(1.0 / 3), "approx"))
    # reductions over every dimension of a 2-D tile, and (value, index) pairs
    for red, rfn in [("sum", lambda m: m.sum()), ("max", lambda m: m.amax()), ("min", lambda m: m.amin())]:
        body = f"tl.store(out + r, tl.{red}(a) + tl.zeros([64], dtype=tl.float32))"
        out.append((f"f32 tl.{red} over all of [64, 32]", ROWS.replace("{body}", body).format(
            warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
            (lambda f: lambda x, y: f(x[:2048].view(64, 32)).expand(64))(rfn), "reduce"))
    for red in ("max", "min"):
        for ax, idx in [(1, "r"), (0, "c")]:
            body = (f"v, i = tl.{red}(a, axis={ax}, return_indices=True)\n"
                    f"    tl.store(out + {idx}, v + i.to(tl.float32) * 1000.0)")
            def ref(x, y, red=red, ax=ax):
                m = x[:2048].view(64, 32)
                v, i = (m.max(ax) if red == "max" else m.min(ax))
                return v + i.float() * 1000
            out.append((f"f32 tl.{red}(axis={ax}, return_indices=True)", ROWS.replace("{body}", body).format(
                warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None, ref, "reduce"))
    for ft in ("f32", "i32"):
        body = ("tl.store(out + r[:, None] * 32 + c[None, :], tl.flip(a, 0) + tl.flip(a) * 2 + a.flip(1) * 3)\n"
                "    i = tl.arange(0, 128)\n"
                "    tl.store(out + 2048 + i, tl.flip(tl.load(x + i)))")
        def flip_ref(x, y):
            m = x[:2048].view(64, 32)
            return torch.cat([(m.flip(0) + m.flip(1) * 2 + m.flip(1) * 3).reshape(-1), x[:128].flip(0)])
        out.append((f"{ft} tl.flip along each axis of [64, 32] and [128]", ROWS.replace("{body}", body).format(
            warps=4, tx=ft, ty=ft, to=ft, R=64, C=32), ft, ft, ft, None, flip_ref, "big"))
    # tl.reduce over tuples: Welford's (mean, m2, count) and (value, index)
    src = """
@func
def welford(m1, s1, n1, m2, s2, n2):
    n = n1 + n2
    d = m2 - m1
    w = tl.where(n == 0.0, 0.0, n2 / tl.maximum(n, 1.0))
    return m1 + d * w, s1 + s2 + d * d * n1 * w, n

""" + ARGMAX_PAIR + """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    a = tl.load(x + r[:, None] * 32 + c[None, :])
    mean, m2, cnt = tl.reduce((a, tl.zeros([64, 32], dtype=tl.float32), tl.full([64, 32], 1.0, tl.float32)), 1, welford)
    tl.store(out + r, mean)
    tl.store(out + 64 + r, m2 / cnt)
    v, i = tl.reduce((a, r[:, None] + c[None, :] * 0), 0, argmax_pair)
    tl.store(out + 128 + c, v + i.to(tl.float32) * 100.0)
"""
    def tuple_ref(x, y):
        m = x[:2048].view(64, 32)
        return torch.cat([m.mean(1), m.var(1, unbiased=False), m.max(0).values + m.argmax(0).float() * 100])
    out.append(("tl.reduce over tuples: Welford and (value, index)", src, "f32", "f32", "f32", None, tuple_ref,
                "reduce"))
    # a tuple reduce over every dimension (flattened first), keep_dims too
    src = ARGMAX_PAIR + """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    a = tl.load(x + r[:, None] * 32 + c[None, :])
    v, i = tl.reduce((a, r[:, None] * 32 + c[None, :]), None, argmax_pair)
    w, j = tl.reduce((-a, r[:, None] * 32 + c[None, :]), None, argmax_pair, keep_dims=True)
    tl.store(out + r, v + i.to(tl.float32) * 100.0 + tl.sum(w + j.to(tl.float32) * 1000.0) + r * 0.0)
"""
    def all_pair_ref(x, y):
        m = x[:2048]
        return (m.max() + m.argmax().float() * 100 + (-m).max() + (-m).argmax().float() * 1000).expand(64)
    out.append(("tl.reduce over a tuple, every dimension", src, "f32", "f32", "f32", None, all_pair_ref, "reduce"))
    # an associative combine that does not commute (keep the earlier value):
    # forward every prefix is the first element, reverse (the flipped tile's
    # forward scan) the last
    for ax in (0, 1):
        for rev in (False, True):
            src = ("@func\ndef first(p, q):\n    return p\n" +
                   ROWS.replace("{body}", f"tl.store(out + r[:, None] * 32 + c[None, :], "
                                          f"tl.associative_scan(a, {ax}, first, reverse={rev}))"))
            def first_ref(x, y, ax=ax, rev=rev):
                m = x[:2048].view(64, 32)
                edge = m.select(ax, -1 if rev else 0).unsqueeze(ax)
                return edge.expand(64, 32).reshape(-1)
            out.append((f"f32 tl.associative_scan(first) axis={ax} reverse={rev}", src.format(
                warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None, first_ref, "reduce"))
    # tl.associative_scan over tuples: h[t] = a[t] * h[t-1] + b[t] as (a, b) pairs
    for ax in (0, 1):
        for rev in (False, True):
            src = f"""
@func
def recur(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2

@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    a = tl.load(x + r[:, None] * 32 + c[None, :]) * 0.1 + 0.9
    b = tl.load(y + r[:, None] * 32 + c[None, :])
    p, h = tl.associative_scan((a, b), {ax}, recur, reverse={rev})
    tl.store(out + r[:, None] * 32 + c[None, :], h)
    tl.store(out + 2048 + r[:, None] * 32 + c[None, :], p)
"""
            def recur_ref(x, y, ax=ax, rev=rev):
                a = x[:2048].view(64, 32) * 0.1 + 0.9
                b = y[:2048].view(64, 32)
                if rev:
                    a, b = a.flip(ax), b.flip(ax)
                h = torch.zeros_like(b)
                p = torch.ones_like(a)
                hs, ps = [], []
                prev_h = torch.zeros_like(b.select(ax, 0))
                prev_p = torch.ones_like(a.select(ax, 0))
                for t_ in range(a.shape[ax]):
                    prev_p = prev_p * a.select(ax, t_)
                    prev_h = prev_h * a.select(ax, t_) + b.select(ax, t_)
                    hs.append(prev_h)
                    ps.append(prev_p)
                h, p = torch.stack(hs, ax), torch.stack(ps, ax)
                if rev:
                    h, p = h.flip(ax), p.flip(ax)
                return torch.cat([h.reshape(-1), p.reshape(-1)])
            out.append((f"tl.associative_scan over (a, b) pairs axis={ax} reverse={rev}", src, "f32", "f32", "f32",
                        None, recur_ref, "big"))
    body = "tl.store(out + tl.arange(0, 2048), tl.ravel(a) * 2.0)"
    out.append(("f32 tl.ravel [64, 32]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: x[:2048] * 2, "reduce"))
    body = "tl.store(out + r[:, None] * 64 + tl.arange(0, 64)[None, :], tl.interleave(a, a * 2.0))"
    out.append(("f32 tl.interleave [64, 32] x 2", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: torch.stack([x[:2048].view(64, 32), x[:2048].view(64, 32) * 2], -1).reshape(-1), "big"))
    body = ("p, q = tl.broadcast(a, tl.load(x + c)[None, :] * 3.0)\n"
            "    tl.store(out + r[:, None] * 32 + c[None, :], p - q)")
    out.append(("f32 tl.broadcast [64, 32] with [1, 32]", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: (x[:2048].view(64, 32) - x[:32][None, :] * 3).reshape(-1), "reduce"))
    body = "tl.store(out + r, tl.sum(a, axis=1, keep_dims=True).reshape(64, 1).sum(axis=0).item() + r * 0.0)"
    out.append(("f32 .item() of a [1] tile", ROWS.replace("{body}", body).format(
        warps=4, tx="f32", ty="f32", to="f32", R=64, C=32), "f32", "f32", "f32", None,
        lambda x, y: x[:2048].sum().expand(64), "reduce"))
    return out


def source(case):
    name, tmpl, tx, ty, to, expr, ref, kind = case
    if expr is None:
        return tmpl
    other = "1" if tx not in ("f16", "bf16", "f32", "f64") else "1.0"
    return tmpl.format(tx=tx, ty=ty, to=to, expr=expr, other=other)
