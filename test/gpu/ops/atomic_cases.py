"""GPU cases of atomics whose pointer, value and mask tiles come from other
layouts (issue 26), added to regressions.CASES (same harness: a kernel
op(x, y, out, n) and a check on the CPU): every atomic kind and dtype with
its values transposed and its old values stored; the shapes the
differential tester found wrong or crashing (size-1 dimensions, a
reduction's slice, a join, tiles smaller than the program, masks of
another layout, an atomic in a static_range); and a tensor descriptor's
atomics, gather and scatter and fields, on blocks partly outside the
tensor. Expected values are computed on the CPU from the same index
arithmetic; sums use integer-valued floats, so every order of contended
adds is exact."""

try:
    import torch
except ImportError:  # make test only compiles the sources
    torch = None

from regressions import case, dev

# kind -> the dtypes tkc (and Triton) allow for it
KINDS = {
    "add": ["i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"],
    "max": ["i32", "u32", "i64", "u64", "f32", "f64"],
    "min": ["i32", "u32", "i64", "u64", "f32", "f64"],
    "and": ["i32", "u32", "i64", "u64"],
    "or": ["i32", "u32", "i64", "u64"],
    "xor": ["i32", "u32", "i64", "u64"],
    "xchg": ["i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"],
    "cas": ["i16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"],
}

STORAGE = {"i16": "int16", "i32": "int32", "u32": "int32", "i64": "int64", "u64": "int64",
           "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}


def storage(t):
    return getattr(torch, STORAGE[t])


def is_float(t):
    return t in ("f16", "bf16", "f32", "f64")


def model_values(t, n, seed):
    """n random values of t as exact Python-side numbers (int64 holding the
    unsigned value for u32; float64 already rounded to t for floats)."""
    g = torch.Generator().manual_seed(seed)
    if t == "u32":
        return torch.randint(0, 2**32, (n,), generator=g, dtype=torch.int64)
    if t == "u64":
        return torch.randint(0, 2**61, (n,), generator=g, dtype=torch.int64)
    if t.startswith(("i", "u")):
        return torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int64)
    return (torch.randn(n, generator=g) * 8).to(storage(t)).to(torch.float64)


def to_device(t, v):
    if t == "u32":  # the same 32 bits as int32
        v = torch.where(v >= 2**31, v - 2**32, v)
    return dev(v.to(storage(t)))


def from_device(t, v):
    v = v.cpu().to(torch.float64) if is_float(t) else v.cpu().to(torch.int64)
    return v & 0xFFFFFFFF if t == "u32" else v


def apply(kind, t, old, val, cmp=None):
    if kind == "add":
        s = old + val
        if t == "u32":  # wraps, as the hardware's 32-bit add does
            return s & 0xFFFFFFFF
        return s.to(storage(t)).to(torch.float64) if is_float(t) else s
    if kind == "max":
        return torch.maximum(old, val)
    if kind == "min":
        return torch.minimum(old, val)
    if kind == "and":
        return old & val
    if kind == "or":
        return old | val
    if kind == "xor":
        return old ^ val
    if kind == "xchg":
        return val
    return torch.where(old == cmp, val, old)


def same(a, b):
    return bool(((a == b) | (torch.isnan(a) & torch.isnan(b)) if a.is_floating_point() else (a == b)).all())


# ---- every kind and dtype, values transposed, old values stored ------------

def transposed_source(kind, t):
    cmp_load = "    want = tl.trans(tl.load(x + 1024 + pid * 512 + r * 64 + c))\n" if kind == "cas" else ""
    call = "tl.atomic_cas(y + dst, want, vt)" if kind == "cas" else f"tl.atomic_{kind}(y + dst, vt)"
    return f"""
@kernel(grid=(2,), num_warps=8)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    pid = tl.program_id(0)
    r = tl.arange(0, 8)[:, None]
    c = tl.arange(0, 64)[None, :]
    vt = tl.trans(tl.load(x + pid * 512 + r * 64 + c))
{cmp_load}    dst = pid * 512 + tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(out + dst, {call})
"""


def transposed_index():
    """dst position -> the x element its value came from: vt[i, j] is
    x[pid*512 + j*64 + i], stored at pid*512 + i*8 + j."""
    src = torch.empty(1024, dtype=torch.int64)
    for pid in range(2):
        i = torch.arange(64)[:, None]
        j = torch.arange(8)[None, :]
        src[(pid * 512 + i * 8 + j).flatten()] = (pid * 512 + j * 64 + i).flatten()
    return src


for kind, types in KINDS.items():
    for t in types:
        @case(f"tl.atomic_{kind} {t}: transposed values, distinct addresses, old values", transposed_source(kind, t))
        def check_transposed(run, torch, kind=kind, t=t):
            xv = model_values(t, 2048, 11)
            yv = model_values(t, 1024, 12)
            src = transposed_index()
            val = xv[src]
            cmp = None
            if kind == "cas":  # x[1024:] holds cmp: equal to y at even positions
                cmp = yv.clone()
                cmp[1::2] = cmp[1::2] + 1
                xv[1024 + src] = cmp
            x, y = to_device(t, xv), to_device(t, yv)
            out = to_device(t, torch.full((1024,), float("nan"), dtype=torch.float64) if is_float(t)
                            else torch.full((1024,), 7, dtype=torch.int64))
            if run(x, y, out, 0) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            want_y = apply(kind, t, yv, val, cmp)
            got_y, got_out = from_device(t, y), from_device(t, out)
            if not same(got_out, yv):
                return f"old values: {(got_out != yv).sum().item()} of 1024 wrong"
            if not same(got_y, want_y):
                bad = (got_y != want_y).nonzero().flatten()[:3].tolist()
                return f"memory: {(got_y != want_y).sum().item()} of 1024 wrong (first at {bad})"
            return None


# ---- the shapes of the issue -----------------------------------------------

def ints(n, seed, lo=-50, hi=50):
    return torch.randint(lo, hi, (n,), generator=torch.Generator().manual_seed(seed))


def expect_equal(what, got, want):
    got = got.cpu()
    if torch.equal(got, want):
        return None
    bad = (got != want).nonzero().flatten()[:3].tolist()
    return f"{what}: {(got != want).sum().item()} elements wrong (first at {bad}: {got.flatten()[bad].tolist()} " \
           f"!= {want.flatten()[bad].tolist()})"


@case("tl.atomic_add i64 of transposed values into repeating addresses (% 2)", """
@kernel(grid=(12,), num_warps=8)
def op(x: *i64, y: *i64, out: *i64 % 16, n: i32):
    pid = tl.program_id(0)
    v = pid * 512 + tl.arange(0, 8)[:, None] * 67 + tl.arange(0, 64)[None, :]
    vt = tl.trans(v)
    idx = (tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :]) % 2
    tl.atomic_add(out + idx, vt.to(tl.int64))
""")
def check_trans_repeating(run, torch):
    out = dev(torch.full((4,), 5, dtype=torch.int64))
    x = dev(torch.zeros(4, dtype=torch.int64))
    if run(x, x, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    pid = torch.arange(12)[:, None, None]
    a = torch.arange(8)[None, :, None]
    b = torch.arange(64)[None, None, :]
    v = (pid * 512 + a * 67 + b).expand(12, 8, 64)
    even = v[:, 0::2, :].sum().item()
    odd = v[:, 1::2, :].sum().item()
    return expect_equal("sums", out, torch.tensor([5 + even, 5 + odd, 5, 5]))


@case("tl.atomic_max of an [N, 1] column into repeating addresses (% 4)", """
@kernel(grid=(4,), num_warps=4)
def op(x: *i32, y: *i32, out: *i32, n: i32):
    v = tl.load(x + tl.program_id(0) * 32 + tl.arange(0, 32)[:, None])
    tl.atomic_max(out + (tl.arange(0, 32)[:, None] % 4), v)
""")
def check_column_max(run, torch):
    xv = ints(128, 21, -1000, 1000)
    out = dev(torch.full((8,), -2000, dtype=torch.int32))
    if run(dev(xv.to(torch.int32)), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = torch.full((8,), -2000, dtype=torch.int32)
    want[:4] = xv.view(4, 8, 4).amax(dim=(0, 1)).to(torch.int32)
    return expect_equal("maxima", out, want)


@case("tl.atomic_add of a row max (a [16] slice) into 16 addresses under 8 warps", """
@kernel(grid=(4,), num_warps=8)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.arange(0, 16)[:, None] * 64 + tl.arange(0, 64)[None, :]
    m = tl.max(tl.load(x + tl.program_id(0) * 1024 + offs), axis=1)
    tl.atomic_add(out + tl.arange(0, 16), m)
""")
def check_row_max(run, torch):
    xv = ints(4096, 22).float()
    out = dev(torch.full((32,), 3.0))
    if run(dev(xv), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = torch.full((32,), 3.0)
    want[:16] += xv.view(4, 16, 64).amax(dim=2).sum(dim=0)
    return expect_equal("sums of row maxima", out, want)


@case("tl.atomic_add of a [1, 256] tile beside its 16-byte vectorized store", """
@kernel(grid=(4,), num_warps=4)
def op(x: *f32 % 16, y: *f32, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 256)[None, :]
    v = tl.load(x + offs)
    tl.store(out + tl.program_id(0) * 256 + offs, v)
    tl.atomic_add(y + offs, v)
""")
def check_row_beside_store(run, torch):
    xv = ints(256, 23).float()
    y = dev(torch.full((260,), 1.0))
    out = dev(torch.full((1024 + 4,), float("nan")))
    if run(dev(xv), y, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want_y = torch.full((260,), 1.0)
    want_y[:256] += 4 * xv
    want_out = torch.cat([xv.repeat(4), torch.full((4,), float("nan"))])
    got = out.cpu()
    if not (torch.equal(got[:1024], want_out[:1024]) and bool(got[1024:].isnan().all())):
        return "the stored copies are wrong"
    return expect_equal("sums", y, want_y)


@case("tl.atomic_add of a masked [1, N] tile (n not a multiple of the block)", """
@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.arange(0, 128)[None, :]
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out + offs, v, mask=offs < n)
""")
def check_masked_row(run, torch):
    xv = ints(128, 24).float()
    for n in (100, 1, 128):
        out = dev(torch.full((130,), 2.0))
        if run(dev(xv), out, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = torch.full((130,), 2.0)
        want[:n] += 4 * xv[:n]
        problem = expect_equal(f"n={n}", out, want)
        if problem:
            return problem
    return None


@case("tl.atomic_add under a mask of another layout (a transpose)", """
@kernel(grid=(2,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    r = tl.arange(0, 16)[:, None]
    c = tl.arange(0, 32)[None, :]
    keep = tl.trans(tl.load(x + c * 16 + r) > 0.0)
    tl.atomic_add(out + c.T * 16 + r.T, 1.0, mask=keep)
""")
def check_mask_transposed(run, torch):
    xv = torch.randn(512, generator=torch.Generator().manual_seed(25))
    out = dev(torch.zeros(520))
    if run(dev(xv), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = torch.zeros(520)
    want[:512] = 2.0 * (xv > 0).float()
    return expect_equal("counts", out, want)


@case("tl.atomic_max of an [8, 1, 8] tile in a static_range", """
@kernel(grid=(4,), num_warps=4)
def op(x: *i32, y: *i32, out: *i32, n: i32):
    for i in tl.static_range(3):
        offs = tl.arange(0, 8)[:, None, None] * 8 + tl.arange(0, 1)[None, :, None] + tl.arange(0, 8)[None, None, :]
        tl.atomic_max(out + offs % 5, tl.load(x + offs) + i)
""")
def check_three_d(run, torch):
    xv = ints(64, 26, -1000, 1000)
    out = dev(torch.full((8,), -5000, dtype=torch.int32))
    if run(dev(xv.to(torch.int32)), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = torch.full((8,), -5000, dtype=torch.int32)
    for j in range(5):
        want[j] = int(xv[torch.arange(64) % 5 == j].max()) + 2
    return expect_equal("maxima", out, want)


for warps in (1, 4, 8):
    @case(f"tl.atomic_add of 8 elements under {warps} warps: once each, every holder gets the old value", f"""
@kernel(grid=(1,), num_warps={warps})
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.arange(0, 8)
    prev = tl.atomic_add(y + offs, tl.load(x + offs))
    tl.store(out + offs, prev)
    tl.store(out + 8 + offs, prev * 0.0 + tl.sum(prev, axis=0))
""")
    def check_small_tile(run, torch):
        xv = ints(8, 27).float()
        yv = ints(8, 28).float()
        y = dev(yv.clone())
        out = dev(torch.full((16,), float("nan")))
        if run(dev(xv), y, out, 0) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        return expect_equal("sums", y, yv + xv) or \
            expect_equal("old values", out, torch.cat([yv, torch.full((8,), yv.sum().item())]))


@case("tl.atomic_or of joined values ([32] and [32] -> [32, 2])", """
@kernel(grid=(2,), num_warps=2)
def op(x: *i32, y: *i32, out: *i32, n: i32):
    a = tl.load(x + tl.arange(0, 32))
    b = tl.load(x + 32 + tl.arange(0, 32))
    both = tl.join(a, b)
    tl.atomic_or(out + tl.arange(0, 32)[:, None] * 2 + tl.arange(0, 2)[None, :], both)
""")
def check_joined(run, torch):
    xv = ints(64, 29, 0, 1 << 20)
    init = ints(64, 30, 0, 1 << 20)
    out = dev(init.to(torch.int32))
    if run(dev(xv.to(torch.int32)), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    joined = torch.stack([xv[:32], xv[32:]], dim=1).flatten()
    return expect_equal("bits", out, (init | joined).to(torch.int32))


@case("tl.atomic_add of a keep_dims reduction ([32, 1]) against [32, 16] addresses", """
@kernel(grid=(2,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :]
    s = tl.sum(tl.load(x + offs), axis=1, keep_dims=True)
    tl.atomic_add(out + offs, s)
""")
def check_kept_dims(run, torch):
    xv = ints(512, 31).float()
    out = dev(torch.zeros(512))
    if run(dev(xv), out, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = (2 * xv.view(32, 16).sum(dim=1, keepdim=True)).expand(32, 16).flatten()
    return expect_equal("sums", out, want)


# a 16-bit cas or xchg is a loop of 32-bit compare-and-swaps that the
# owners' lanes leave at different trips: warp shuffles after it (a scan,
# a reduction) read wrong partners unless the warp is whole again
for kind, t in (("cas", "f16"), ("cas", "bf16"), ("cas", "i16"), ("xchg", "f16"), ("xchg", "bf16")):
    call = (f"tl.atomic_cas(y + r, tl.full((4, 1), 1, tl.{STORAGE[t]}), v.to(tl.{STORAGE[t]}))" if kind == "cas"
            else f"tl.atomic_xchg(y + r, v.to(tl.{STORAGE[t]}))")
    @case(f"tl.atomic_{kind} {t} then a reverse cumsum and a sum (warp shuffles after the cas loop)", f"""
@kernel(grid=(3,), num_warps=4)
def op(x: *i32, y: *{t}, out: *i32, n: i32):
    r = tl.arange(0, 4)[:, None]
    v = tl.load(x + tl.program_id(0) * 4 + r)
    {call}
    s = tl.cumsum(v, axis=0, reverse=True)
    tl.store(out + tl.program_id(0) * 8 + r, s)
    tl.store(out + tl.program_id(0) * 8 + 4 + r, s * 0 + tl.sum(v, axis=0)[None, :])
""")
    def check_cas_then_scan(run, torch, t=t):
        xv = ints(12, 33, -100, 100)
        y = dev(torch.zeros(8, dtype=storage(t)))
        out = dev(torch.full((24,), -7, dtype=torch.int32))
        if run(dev(xv.to(torch.int32)), y, out, 0) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        v = xv.view(3, 4)
        rev = v.flip(1).cumsum(1).flip(1)
        want = torch.cat([rev, v.sum(1, keepdim=True).expand(3, 4)], dim=1).flatten().to(torch.int32)
        return expect_equal("scans after the atomic", out, want)



# one lane's 16-bit cas or xchg (a loop) on a [1] tile whose old value
# reaches every lane through shared memory and a barrier, amid shuffles
# (a cumprod, interleaves of a replicated value): the barrier was the
# aligned bar.sync, the warp reached it divergent, and a shuffle after it
# read 0 (difftest program 1186, reduced; on the H200 the bf16 cas under 1
# and 4 warps gave out[1030] = 0 in every run)
for kind, t in (("cas", "bf16"), ("cas", "f16"), ("cas", "i16"), ("xchg", "bf16"), ("xchg", "f16")):
    for warps in (1, 4):
        s16 = STORAGE[t]
        call = (f"tl.atomic_cas(y + 21 + pid + tl.arange(0, 1), tl.full((1,), 1, tl.{s16}), v2.to(tl.{s16}), sem=\"release\")"
                if kind == "cas" else f"tl.atomic_xchg(y + 21 + pid + tl.arange(0, 1), v2.to(tl.{s16}), sem=\"release\")")
        @case(f"tl.atomic_{kind} {t} on a [1] tile under {warps} warps amid shuffles, old value shared", f"""
@kernel(grid=(3,), num_warps={warps})
def op(x: *u16, y: *{t}, out: *f16, n: i32):
    pid = tl.program_id(0)
    ibase = pid * 1024
    v1 = tl.load(x + ibase + tl.arange(0, 32) + 202, mask=ibase + tl.arange(0, 32) + 202 < n, other=7)
    v2 = tl.sum(v1, axis=0, keep_dims=True)
    v8 = tl.erf(v2.to(tl.float32))
    v9 = tl.cumprod(v1 % 2, axis=0)
    old = {call}
    pair = tl.trans(tl.arange(0, 2)[:, None] + tl.arange(0, 1)[None, :])
    tl.store(out + pid * 1100 + 1025 + pair, tl.join(old, old), mask=ibase + pair < n)
    tl.store(out + pid * 1100 + 1027 + tl.arange(0, 4), tl.interleave(tl.interleave(v8, v8), v8))
    tl.store(out + pid * 1100 + 1031 + tl.arange(0, 64), tl.interleave(v9, v9), mask=ibase + tl.arange(0, 64) < n)
""")
        def check_one_lane_amid_shuffles(run, torch, kind=kind, t=t):
            n = 2201
            xv = ints(3072, 37, 0, 200)
            init = torch.tensor([1, 5, 1])
            y = dev(torch.cat([torch.zeros(21), init]).to(storage(t)))
            out = dev(torch.full((3300,), float("nan"), dtype=torch.float16))
            if run(dev(xv.to(torch.int16)), y, out, n) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            want = torch.full((3300,), float("nan"))
            sums = []
            for pid in range(3):
                idx = pid * 1024 + 202 + torch.arange(32)
                v1 = torch.where(idx < n, xv[idx.clamp(max=3071)], torch.tensor(7))
                sums.append(int(v1.sum()))
                base = pid * 1100
                for j in range(2):
                    if pid * 1024 + j < n:
                        want[base + 1025 + j] = float(init[pid])
                want[base + 1027:base + 1031] = 1.0  # erf of a sum of at least 1
                scan = torch.cumprod(v1 % 2, 0).repeat_interleave(2)
                for j in range(64):
                    if pid * 1024 + j < n:
                        want[base + 1031 + j] = float(scan[j])
            new = torch.tensor(sums).to(storage(t))
            swapped = torch.where(init == 1, new.to(init.dtype), init).to(storage(t)) if kind == "cas" else new
            got = out.cpu().float()
            ok = (got == want) | (got.isnan() & want.isnan())
            if not ok.all():
                bad = (~ok).nonzero().flatten()[:3].tolist()
                return f"out: {int((~ok).sum())} elements wrong (first at {bad}: {got[bad].tolist()} != {want[bad].tolist()})"
            return expect_equal("y after the atomics", y[21:].float(), swapped.float())


# ---- a tensor descriptor's atomics -------------------------------------------

# kind -> the element types Triton's descriptor reductions take (f16 and
# bf16 min and max need TMA's reduction, not emitted here yet)
DESC_KINDS = {
    "add": ["i32", "u32", "u64", "f32", "f16", "bf16"],
    "max": ["i32", "u32", "i64", "u64"],
    "min": ["i32", "u32", "i64", "u64"],
    "and": ["i32", "u32", "i64", "u64"],
    "or": ["i32", "u32", "i64", "u64"],
    "xor": ["i32", "u32", "i64", "u64"],
}


def descriptor_source(kind, t):
    return f"""
@kernel(grid=(4,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    p = tl.program_id(0)
    v = tl.load(x + p * 512 + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    d = tl.make_tensor_descriptor(y, [20, 40], [40, 1], [16, 32])
    d.atomic_{kind}([8, 16], v)
"""


for kind, types in DESC_KINDS.items():
    for t in types:
        @case(f"desc.atomic_{kind} {t}: four programs on one block, partly outside the tensor",
              descriptor_source(kind, t))
        def check_descriptor(run, torch, kind=kind, t=t):
            # integer-valued floats: every order of the contended adds is exact
            xv = (torch.randint(-8, 9, (2048,), generator=torch.Generator().manual_seed(31)).to(torch.float64)
                  if is_float(t) else model_values(t, 2048, 31))
            guard = 64
            yv = (torch.randint(-8, 9, (800 + guard,), generator=torch.Generator().manual_seed(32)).to(torch.float64)
                  if is_float(t) else model_values(t, 800 + guard, 32))
            x, y = to_device(t, xv), to_device(t, yv)
            if run(x, y, y, 0) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            want = yv.clone()
            m = want[:800].view(20, 40)
            for p in range(4):
                block = xv[p * 512:(p + 1) * 512].view(16, 32)
                m[8:20, 16:40] = apply(kind, t, m[8:20, 16:40], block[:12, :24])
            got = from_device(t, y)
            if not same(got, want):
                bad = (got != want).nonzero().flatten()[:3].tolist()
                return f"{(got != want).sum().item()} of {800 + guard} wrong (first at {bad})"
            return None


@case("desc.shape and desc.strides of an in-kernel descriptor", """
@kernel(grid=(1,), num_warps=1)
def op(x: *i64 % 16, y: *i64 % 16, out: *i64 % 16, n: i32):
    d = tl.make_tensor_descriptor(x, [n, 24], [48, 1], [8, 16])
    s0, s1 = d.shape
    r = tl.arange(0, 4)
    tl.store(out + r, tl.where(r == 0, s0, tl.where(r == 1, s1, tl.where(r == 2, d.strides[0], d.strides[1]))))
""")
def check_descriptor_fields(run, torch):
    x = dev(torch.zeros(64, dtype=torch.int64))
    out = dev(torch.full((8,), -7, dtype=torch.int64))
    if run(x, x, out, 37) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    return expect_equal("fields", out, torch.tensor([37, 24, 48, 1, -7, -7, -7, -7]))


# ---- a tensor descriptor's gather and scatter --------------------------------

def rows_source(t, cols, pad):
    return f"""
@kernel(grid=(1,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    src = tl.make_tensor_descriptor(x, [12, 40], [48, 1], [1, {cols}], padding_option="{pad}")
    dst = tl.make_tensor_descriptor(out, [12, 40], [48, 1], [1, {cols}])
    i = tl.arange(0, 16)
    g = src.gather((i * 5 + n) % 17 - 2, 44 - {cols})
    dst.scatter(g + g, 13 - i, 43 - {cols})
    dst.scatter(g, i + 12, 2)
"""


for t, cols, pad in (("f32", 8, "zero"), ("f32", 8, "nan"), ("f16", 16, "zero"), ("i8", 32, "zero"),
                     ("i32", 16, "zero")):
    @case(f"desc.gather and desc.scatter {t}, [1, {cols}] blocks, rows and columns out of bounds, {pad} padding",
          rows_source(t, cols, pad))
    def check_rows(run, torch, t=t, cols=cols, pad=pad):
        st = {"f32": torch.float32, "f16": torch.float16, "i8": torch.int8, "i32": torch.int32}[t]
        g = torch.Generator().manual_seed(41)
        if st.is_floating_point:
            xv = torch.randn(12 * 48, generator=g).to(st)
            poison = torch.full((12 * 48 + 64,), -7.0).to(st)
        else:
            xv = torch.randint(-60, 60, (12 * 48,), generator=g).to(st)  # g + g fits i8
            poison = torch.full((12 * 48 + 64,), -7, dtype=st)
        x, out = dev(xv), dev(poison.clone())
        n = 3
        if run(x, x, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        X = xv.view(12, 48)
        i = torch.arange(16)
        rows, c0 = (i * 5 + n) % 17 - 2, 44 - cols
        fill = float("nan") if pad == "nan" else 0
        G = torch.full((16, cols), fill, dtype=torch.float64)
        for a in range(16):
            for j in range(cols):
                if 0 <= rows[a] < 12 and c0 + j < 40:
                    G[a, j] = float(X[rows[a], c0 + j])
        want = poison.to(torch.float64).clone()
        W = want[:12 * 48].view(12, 48)
        c1 = 43 - cols  # the second scatter's rows are all past the shape: nothing written
        for a in range(16):
            d = 13 - a
            for j in range(cols):
                if 0 <= d < 12 and c1 + j < 40:
                    W[d, c1 + j] = G[a, j] * 2
        want = want.to(st)
        got = out.cpu()
        if st.is_floating_point:
            ok = (got == want) | (torch.isnan(got) & torch.isnan(want))
        else:
            ok = got == want
        if not bool(ok.all()):
            bad = (~ok).nonzero().flatten()[:3].tolist()
            return f"{(~ok).sum().item()} of {got.numel()} wrong (first at {bad})"
        return None
