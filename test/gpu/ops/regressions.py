"""Regression cases of `make gpu-test` for defects that gave wrong answers or
faults on the GPU: scalar and replicated atomics, spin locks, 2-D pointer
tiles over rows of any length, broadcast masks, tuple assignment, run-time
ifs whose branch returns. Each
kernel is named `op` and takes (x, y, out, n) like the op-family cases, so
the same shim serves; each case has its own check, since most look at
state before and after, or launch several times.

A case is (name, tk source, check). check(run, torch) gets
run(x, y, out, n) -> tk_status and returns None when the case passes,
else what went wrong."""

try:
    import torch
except ImportError:  # make test only compiles the sources
    torch = None

CASES = []


def case(name, source):
    def add(check):
        CASES.append((name, source, check))
        return check
    return add


def dev(t):
    return t.to("cuda")


def exact_for_each_n(run, size, ns, want_of, seed):
    """Runs op(x, x, out, n) for each n on random x[size] and out poisoned
    with -7; out must equal want_of(x, n) exactly (None), else says where."""
    for n in ns:
        x = dev(rand_f32(size, seed))
        out = dev(torch.full((size,), -7.0))
        if run(x, x, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        got, want = out.cpu(), want_of(x.cpu(), n)
        if not torch.equal(got, want):
            return f"n={n}: {(got != want).sum().item()} elements wrong"
    return None


def rand_f32(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, generator=g)


# ---- fp8 converted up --------------------------------------------------------
# Every code of each fp8 type to f32 and through f16, against torch's
# conversion: sm_89 and newer convert by cvt; sm_80 (TKC_ARCH=sm_80), which
# has none, by bit arithmetic (codegen/cast.c): subnormals, NaNs (e4m3's
# 0x7F and 0xFF), infinities (e5m2) and the sign of zero included.

for f8, torch_name in (("f8e4m3", "float8_e4m3fn"), ("f8e5m2", "float8_e5m2")):
    @case(f"{f8} converted up, every code, to f32 and through f16", f"""
@kernel(grid=(1,), num_warps=4)
def op(x: *{f8} % 16, y: *{f8} % 16, out: *f32 % 16, n: i32):
    o = tl.arange(0, 256)
    a = tl.load(x + o)
    tl.store(out + o, a.to(tl.float32))
    tl.store(out + 256 + o, a.to(tl.float16).to(tl.float32))
""")
    def check_f8_up(run, torch, torch_name=torch_name):
        codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
        want = codes.view(getattr(torch, torch_name)).float()
        x = dev(codes).view(getattr(torch, torch_name))
        out = dev(torch.full((512,), -7.0))
        if run(x, x, out, 256) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        got = out.cpu()
        for part, name in ((got[:256], "f32"), (got[256:], "through f16")):
            same = ((part == want) & (part.signbit() == want.signbit())) | (part.isnan() & want.isnan())
            if not same.all():
                bad = codes[~same][:4].tolist()
                return f"{name}: {(~same).sum().item()} codes wrong, first {bad}: {part[~same][:4].tolist()}"
        return None


# ---- atomics ----------------------------------------------------------------

for t, one in (("f32", "1.0"), ("i32", "1")):
    @case(f"scalar tl.atomic_add {t}: once per program, old value to every thread", f"""
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    old = tl.atomic_add(y, {one})
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    tl.store(out + offs, old + tl.zeros([128], dtype=tl.{'float32' if t == 'f32' else 'int32'}), mask=offs < n)
""")
    def check_scalar_add(run, torch, t=t):
        dt = torch.float32 if t == "f32" else torch.int32
        n, programs = 1024, 8
        x = dev(torch.zeros(16, dtype=dt))
        y = dev(torch.zeros(16, dtype=dt))
        out = dev(torch.full((1024,), -7, dtype=dt))
        if run(x, y, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        if y[0].item() != programs:
            return f"counter is {y[0].item()}, expected {programs} (one add per program)"
        got = out[:programs * 128].view(programs, 128).cpu()
        if not bool((got == got[:, :1]).all()):
            return "threads of one program saw different old values"
        olds = sorted(int(v) for v in got[:, 0].tolist())
        if olds != list(range(programs)):
            return f"old values {olds}, expected 0..{programs - 1}"
        return None


@case("scalar atomics on i32: add, xor, max, min, xchg, or, and, cas once per program", """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *i32, y: *i32, out: *i32, n: i32):
    pid = tl.program_id(0)
    tl.atomic_add(y, 1)
    tl.atomic_xor(y + 1, pid + 1)
    tl.atomic_max(y + 2, pid)
    tl.atomic_min(y + 3, -pid)
    tl.atomic_xchg(y + 4, pid)
    tl.atomic_or(y + 5, 1 << pid)
    tl.atomic_and(y + 6, ~(1 << pid))
    tl.atomic_cas(y + 7, pid, pid + 1)
""")
def check_scalar_kinds(run, torch):
    n, programs = 1000, 8
    y = dev(torch.tensor([0, 0, -1, 1, -1, 0, -1, 0] + [0] * 8, dtype=torch.int32))
    x = dev(torch.zeros(16, dtype=torch.int32))
    out = dev(torch.zeros(16, dtype=torch.int32))
    if run(x, y, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    got = y[:8].cpu().tolist()
    xor = 0
    for p in range(programs):
        xor ^= p + 1
    want = [programs, xor, programs - 1, -(programs - 1), None, (1 << programs) - 1, -1 & ~((1 << programs) - 1), None]
    for i, (g, w) in enumerate(zip(got, want)):
        if w is not None and g != w:
            return f"y[{i}] = {g}, expected {w} (atomics once per program); all: {got}"
    if not 0 <= got[4] < programs:
        return f"xchg left {got[4]}"
    # cas pid -> pid + 1 succeeds only in program order: 0 → at least 1, at most 8
    if not 1 <= got[7] <= programs:
        return f"cas chain left {got[7]}"
    return None


TORCH = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i32": "int32", "i16": "int16",
         "i64": "int64", "f64": "float64"}

# scope="sys": inline PTX (atom.relaxed.sys) between fences, for each
# 32- and 64-bit type and kind PTX has
for t in ("i32", "i64", "f32", "f64"):
    flt = t[0] == "f"
    body = "\n".join([
        "    tl.atomic_add(y + offs % 4, v, mask=m, scope=\"sys\")",
        "    old = tl.atomic_xchg(y + 8 + offs, v, mask=m, sem=\"release\", scope=\"sys\")",
        "    tl.store(out + offs, old, mask=m)",
    ] + ([] if flt else [
        "    tl.atomic_max(y + 4 + offs * 0, v, mask=m, sem=\"acquire\", scope=\"sys\")",
        "    tl.atomic_min(y + 5 + offs * 0, v, mask=m, sem=\"relaxed\", scope=\"sys\")",
        "    tl.atomic_or(y + 6 + offs * 0, v & 255, mask=m, scope=\"sys\")",
        "    tl.atomic_xor(y + 7 + offs * 0, v, mask=m, scope=\"sys\")",
    ]))

    @case(f"atomics with scope='sys' on {t}: add, xchg (and max, min, or, xor on integers)", f"""
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    m = offs < n
    v = tl.load(x + offs, mask=m)
{body}
""")
    def check_sys(run, torch, t=t, flt=flt):
        dt = getattr(torch, TORCH[t])
        n = 1000
        if flt:
            xs = rand_f32(n, 11).to(dt)
        else:
            g = torch.Generator().manual_seed(11)
            xs = torch.randint(-1000, 1000, (n,), generator=g).to(dt)
        y0 = torch.zeros(8 + n, dtype=dt)
        y0[4], y0[5] = -(10 ** 6), 10 ** 6
        x, y, out = dev(xs), dev(y0.clone()), dev(torch.full((n,), 7, dtype=dt))
        if run(x, y, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        yc, xd = y.cpu(), xs.double()
        sums = [xd[i::4].sum().item() for i in range(4)]
        tol = 1e-3 if flt else 0
        for i in range(4):
            if abs(yc[i].item() - sums[i]) > tol * max(1.0, abs(sums[i])):
                return f"add: y[{i}] = {yc[i].item()}, expected {sums[i]}"
        if not torch.equal(yc[8:8 + n], xs) or not bool((out.cpu() == 0).all()):
            return "xchg: wrong values or old values"
        if not flt:
            want = [int(xs.max()), int(xs.min()), 0, 0]
            for v in xs.tolist():
                want[2] |= v & 255
                want[3] ^= v
            got = [int(yc[i]) for i in (4, 5, 6, 7)]
            if got != want:
                return f"max, min, or, xor: {got}, expected {want}"
        return None


# The last program to finish sums every program's partial: its plain
# stores are released by the counter's atomic_add (acq_rel) after a
# barrier, and the last program's plain loads are acquired by it.
@case("the last program reduces the partials: atomic_add orders plain stores and loads (acq_rel)", """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    pid = tl.program_id(0)
    offs = pid * 128 + tl.arange(0, 128)
    tl.store(out + 1 + pid, tl.sum(tl.load(x + offs, mask=offs < n, other=0.0), axis=0))
    tl.debug_barrier()
    done = tl.atomic_add(y, 1)
    if done == tl.num_programs(0) - 1:
        p = tl.arange(0, 128)
        tl.store(out, tl.sum(tl.load(out + 1 + p, mask=p < tl.num_programs(0), other=0.0), axis=0))
""")
def check_last_program(run, torch):
    n = 127 * 128 + 5
    xs = rand_f32(n, 21)
    for trial in range(20):
        x, y, out = dev(xs), dev(torch.zeros(4, dtype=torch.int32)), dev(torch.full((200,), float("nan")))
        if run(x, y, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = xs.double().sum().item()
        got = out[0].item()
        if not abs(got - want) <= 1e-3 * max(1.0, abs(want)):
            return f"trial {trial}: total {got}, expected {want} (a partial read before it was written)"
    return None

for t in ("f32", "f16", "bf16", "i32"):
    for block in (16, 128):
        @case(f"tl.atomic_add {t}[{block}] returns the old values (replicated layout)", f"""
@kernel(grid=(cdiv(n, {block}),), num_warps=4)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    offs = tl.program_id(0) * {block} + tl.arange(0, {block})
    m = offs < n
    old = tl.atomic_add(y + offs, tl.load(x + offs, mask=m), mask=m)
    tl.store(out + offs, old, mask=m)
""")
        def check_tile_add(run, torch, t=t):
            dt = getattr(torch, TORCH[t])
            n = 1000
            if dt.is_floating_point:
                x, y0 = rand_f32(n, 2).to(dt), rand_f32(n, 3).to(dt)
            else:
                x, y0 = torch.arange(n, dtype=dt) % 97 - 40, torch.arange(n, dtype=dt) * 3 - 500
            x, y = dev(x), dev(y0.clone())
            out = dev(torch.zeros(n + 64, dtype=dt))
            out[n:] = 5
            if run(x, y, out, n) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            if not torch.equal(out[:n].cpu(), y0):
                bad = (out[:n].cpu() != y0).sum().item()
                return f"{bad} of {n} old values wrong"
            if not bool((out[n:] == 5).all()):
                return "wrote past n"
            want = (dev(y0) + x)
            if not torch.equal(y, want):
                return f"memory after the add differs in {(y != want).sum().item()} elements"
            return None

for t in ("f32", "f16", "bf16", "i16", "i32", "i64", "f64"):
    @case(f"tl.atomic_cas on {t} tiles", f"""
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *{t}, y: *{t}, out: *{t}, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    v = tl.load(x + offs)
    old = tl.atomic_cas(y + offs, v, v + v)
    tl.store(out + offs, old)
""")
    def check_cas(run, torch, t=t):
        dt = getattr(torch, TORCH[t])
        n = 1024
        if dt.is_floating_point:
            x = rand_f32(n, 4).to(dt)
            other = rand_f32(n, 5).to(dt)
        else:
            x = (torch.arange(n) % 101 - 50).to(dt)
            other = (torch.arange(n) % 89 + 60).to(dt)
        y0 = torch.where(torch.arange(n) % 2 == 0, x, other)
        y = dev(y0.clone())
        out = dev(torch.zeros(n, dtype=dt))
        if run(dev(x), y, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        if not torch.equal(out.cpu(), y0):
            return f"old values differ in {(out.cpu() != y0).sum().item()} elements"
        want = torch.where(y0 == x, x + x, y0)
        if not torch.equal(y.cpu(), want):
            return f"memory differs in {(y.cpu() != want).sum().item()} elements"
        return None


# ---- 2-D pointer tiles over rows of any length --------------------------------

ROW_TILES = {
    "rows": """
@kernel(grid=(1,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    m = (r[:, None] < 32) & (c[None, :] < n)
    v = tl.load(x + r[:, None] * n + c[None, :], mask=m)
    tl.store(out + r[:, None] * n + c[None, :], v * 2, mask=m)
""",
    "columns": """
@kernel(grid=(1,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    m = (r[:, None] < n) & (c[None, :] < 32)
    v = tl.load(x + r[:, None] + c[None, :] * n, mask=m)
    tl.store(out + r[:, None] + c[None, :] * n, v * 2, mask=m)
""",
    "block pointers": """
@kernel(grid=(1,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    src = tl.make_block_ptr(base=x, shape=(32, n), strides=(n, 1), offsets=(0, 0),
                            block_shape=(32, 64), order=(1, 0))
    dst = tl.make_block_ptr(base=out, shape=(32, n), strides=(n, 1), offsets=(0, 0),
                            block_shape=(32, 64), order=(1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1)) * 2, boundary_check=(0, 1))
""",
    "i64 rows": """
@kernel(grid=(1,), num_warps=8)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    r = tl.arange(0, 32).to(tl.int64)
    c = tl.arange(0, 64)
    m = (r[:, None] < 32) & (c[None, :] < n)
    v = tl.load(x + r[:, None] * n + c[None, :], mask=m)
    tl.store(out + r[:, None] * n + c[None, :], v * 2, mask=m)
""",
}

for kind, src in ROW_TILES.items():
    for t in ("f32", "f16", "i32"):
        @case(f"2-D {kind} of {t} over rows of odd lengths", src.replace("{t}", t))
        def check_rows(run, torch, t=t, kind=kind):
            dt = getattr(torch, TORCH[t])
            g = torch.Generator().manual_seed(6)
            lengths = [70, 33, 17, 1, 3, 64, 48, 100, 16, 80] + torch.randint(1, 130, (6,), generator=g).tolist()
            for n in lengths:
                total = 32 * n
                x = (rand_f32(total + 64, n) * 10).to(dt)
                out = torch.full((total + 64,), 77, dtype=dt)
                xd, od = dev(x), dev(out)
                if run(xd, xd, od, n) != 0:
                    return f"n={n}: launch failed"
                torch.cuda.synchronize()
                want = out.clone()
                if kind == "columns":
                    rows, cols = min(n, 32), 32  # element (r, c) at r + c * n
                    idx = (torch.arange(rows)[:, None] + torch.arange(cols)[None, :] * n).reshape(-1)
                else:
                    rows, cols = 32, min(n, 64)
                    idx = (torch.arange(rows)[:, None] * n + torch.arange(cols)[None, :]).reshape(-1)
                want[idx] = x[idx] * 2
                got = od.cpu()
                if not torch.equal(got, want):
                    return f"n={n}: {(got != want).sum().item()} elements wrong"
            return None


# ---- broadcast masks and tiles of lower rank ------------------------------------

@case("a [64] mask and a [64] tile over [32, 64] pointers", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    v = tl.load(x + r[:, None] * 64 + c[None, :], mask=c < n, other=-1.0)
    tl.store(out + r[:, None] * 64 + c[None, :], v + c.to(tl.float32), mask=c < n + 5)
""")
def check_rank_broadcast(run, torch):
    n = 37
    x = dev(rand_f32(2048, 7))
    out = dev(torch.full((2048 + 64,), 9.0))
    if run(x, x, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    c = torch.arange(64)
    v = torch.where(c < n, x.cpu().view(32, 64), torch.tensor(-1.0)) + c.float()
    want = torch.where(c < n + 5, v, torch.tensor(9.0)).reshape(-1)
    got = out.cpu()
    if not torch.equal(got[:2048], want) or not bool((got[2048:] == 9.0).all()):
        return f"{(got[:2048] != want).sum().item()} elements wrong"
    return None


# ---- masks against a multiple of 16 (lower/axis.c: which turn inside a vector) ----
# n is promised a multiple of 16: offs < n and offs >= n turn at a vector's
# edge (one predicate a vector), offs <= n, offs > n, == and != inside one.
# Every element the mask drops keeps its poison, including past n.

MASK_FORMS = [
    ("offs < n", lambda o, n: o < n), ("offs >= n", lambda o, n: o >= n),
    ("n > offs", lambda o, n: n > o), ("n <= offs", lambda o, n: n <= o),
    ("offs <= n", lambda o, n: o <= n), ("offs > n", lambda o, n: o > n),
    ("n >= offs", lambda o, n: n >= o), ("n < offs", lambda o, n: n < o),
    ("offs == n", lambda o, n: o == n), ("offs != n", lambda o, n: o != n),
]

for text, keep in MASK_FORMS:
    @case(f"a store masked by {text}, n a multiple of 16: each element as its mask says", f"""
@kernel(grid=(4,), num_warps=2)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32 % 16):
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    tl.store(out + offs, tl.load(x + offs) + 1.0, mask={text})
""")
    def check_mask_form(run, torch, keep=keep):
        return exact_for_each_n(run, 1024, (0, 16, 256, 512 + 48, 1024),
                                lambda x, n: torch.where(keep(torch.arange(1024), n), x + 1.0, torch.tensor(-7.0)), 11)


@case("a load masked on its addresses as integers (4 apart): each element as its mask says", """
@kernel(grid=(1,), num_warps=1)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 128)
    ptrs = x + offs
    tl.store(out + offs, tl.load(ptrs, mask=ptrs.to(tl.int64) < (x + n).to(tl.int64), other=-1.0))
""")
def check_address_mask(run, torch):
    return exact_for_each_n(run, 128, (0, 5, 66, 127),
                            lambda x, n: torch.where(torch.arange(128) < n, x, torch.tensor(-1.0)), 13)


@case("a loop value carried three deep (r = q; q = p; p += 3): x + r loads as unaligned as r is", """
@kernel(grid=(1,), num_warps=1)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 128)
    p = 0
    q = 0
    r = 0
    acc = tl.zeros([128], dtype=tl.float32)
    for i in range(0, n):
        acc += tl.load(x + r + offs)
        r = q
        q = p
        p = p + 3
    tl.store(out + offs, acc)
""")
def check_carried_three_deep(run, torch):
    n = 6
    x = dev(rand_f32(256, 17))
    out = dev(torch.full((128,), -7.0))
    if run(x, x, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    xs, want, p, q, r = x.cpu(), torch.zeros(128), 0, 0, 0
    for _ in range(n):
        want += xs[r:r + 128]
        r, q, p = q, p, p + 3
    err = (out.cpu() - want).abs().max().item()
    return None if err <= 1e-5 else f"max error {err:.3g}"


# ---- tiles coalesced as they lie (lower/layout_rules.c tir_coalesced_layout) -----
# A tile whose first dimension is contiguous is read and written down its
# columns, 16 bytes a thread (codegen/memory.c cg_access_dim); where it
# meets a row-major tile one of them is converted. Masks ragged on both
# dimensions, each n, out poisoned: (r, c) of the column-major x is
# x[r + 64 c].

for t, tt in (("f32", "float32"), ("f16", "float16")):
    @case(f"a column-major {t} tile beside a row-major one, each coalesced as it lies", f"""
@kernel(grid=(1,), num_warps=4)
def op(x: *{t} % 16, y: *{t} % 16, out: *{t} % 16, n: i32):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    m = (r[:, None] < n) & (c[None, :] < 30)
    a = tl.load(x + r[:, None] + c[None, :] * 64, mask=m, other=-1.0)
    b = tl.load(y + r[:, None] * 32 + c[None, :], mask=m, other=-2.0)
    tl.store(out + r[:, None] * 32 + c[None, :], a + b, mask=m)
    tl.store(out + 2048 + r[:, None] + c[None, :] * 64, a * 2.0, mask=m)
""")
    def check_column_major(run, torch, tt=tt):
        dt = getattr(torch, tt)
        x, y = rand_f32(2048, 51).to(dt), rand_f32(2048, 52).to(dt)
        for n in (64, 61, 1):
            out = dev(torch.full((4096,), -7.0, dtype=dt))
            if run(dev(x), dev(y), out, n) != 0:
                return "launch failed"
            torch.cuda.synchronize()
            got = out.cpu()
            xt = x.view(32, 64).t()
            m = (torch.arange(64)[:, None] < n) & (torch.arange(32)[None, :] < 30)
            first = torch.where(m, xt + y.view(64, 32), torch.tensor(-7.0, dtype=dt))
            second = torch.where(m, xt * 2, torch.tensor(-7.0, dtype=dt)).t().reshape(-1)
            if not torch.equal(got[:2048], first.reshape(-1)):
                return f"n={n}: the row-major sum wrong at {(got[:2048] != first.reshape(-1)).sum().item()} elements"
            if not torch.equal(got[2048:], second):
                return f"n={n}: the column-major store wrong at {(got[2048:] != second).sum().item()} elements"
        return None


# ---- names -------------------------------------------------------------------------

@case("a, b = b, a and tuples keep their values", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    i = tl.arange(0, 128)
    a = tl.load(x + i)
    b = tl.load(y + i)
    s = tl.load(x)
    t = tl.load(y)
    s, t = t, s
    for k in range(0, n):
        a, b = b, a + b
    kept = (a, b)
    a = a * 3.0
    tl.store(out + i, kept[0] - a + s)
    tl.store(out + 128 + i, b + t)
""")
def check_swap(run, torch):
    x, y = rand_f32(128, 8), rand_f32(128, 9)
    out = dev(torch.full((256,), float("nan")))
    n = 5
    if run(dev(x), dev(y), out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    a, b = x.clone(), y.clone()
    for _ in range(n):
        a, b = b, a + b
    want = torch.cat([a - a * 3.0 + y[0], b + x[0]])
    err = ((out.cpu() - want).abs().max() / want.abs().max()).item()
    return None if err < 1e-6 else f"relative error {err:.2e}"


@case("a while condition with an atomic and a @func: redone before every test", """
@func
def halve(v):
    if v > 4.0:
        r = v * 0.5
    else:
        r = v - 1.0
    return r

@kernel(grid=(1,), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    i = tl.arange(0, 128)
    acc = tl.zeros([128], dtype=tl.float32)
    while tl.atomic_add(y, 1) < n:
        acc += tl.load(x + i)
    v = 40.0
    k = 0
    while halve(v) > 0.0:
        v = halve(v)
        k += 1
    tl.store(out + i, acc + k)
""")
def check_while_condition(run, torch):
    x = dev(rand_f32(128, 10))
    y = dev(torch.zeros(4, dtype=torch.int32))
    out = dev(torch.full((128,), float("nan")))
    n = 5
    if run(x, y, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    if y[0].item() != n + 1:
        return f"the counter is {y[0].item()}, expected {n + 1}: the condition's atomic ran {y[0].item()} times"
    v, k = 40.0, 0
    while (v * 0.5 if v > 4.0 else v - 1.0) > 0.0:
        v = v * 0.5 if v > 4.0 else v - 1.0
        k += 1
    want = x * n + k
    err = ((out - want).abs().max() / want.abs().max()).item()
    return None if err < 1e-6 else f"relative error {err:.2e}"


@case("tl.max and tl.min of a negated i32 tile, four registers a thread (ptxas fused a max tree into a VIMNMX3 that lost a negation)", """
@kernel(grid=(n,), num_warps=4)
def op(x: *i32 % 16, y: *i32 % 16, out: *i32 % 16, n: i32):
    pid = tl.program_id(0)
    v = tl.load(x + pid * 1024 + tl.arange(0, 64)[None, :])
    w = -v
    tl.store(out + pid * 4 + tl.arange(0, 1), tl.max(w, axis=1))
    tl.store(out + pid * 4 + 1 + tl.arange(0, 1), tl.min(w, axis=1))
    tl.store(out + pid * 4 + 2, tl.max(tl.maximum(w, v)))
    tl.store(out + pid * 4 + 3, tl.min(tl.minimum(-w, w)))
""")
def check_neg_max_i32(run, torch):
    n = 256
    g = torch.Generator().manual_seed(7)
    x = torch.randint(-100, 101, (n * 1024,), generator=g, dtype=torch.int32)
    out = dev(torch.full((n * 4,), -77, dtype=torch.int32))
    if run(dev(x), dev(x), out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    v = x.view(n, 1024)[:, :64]
    want = torch.stack([(-v).max(1).values, (-v).min(1).values, torch.maximum(-v, v).max(1).values,
                        torch.minimum(v, -v).min(1).values], 1).flatten()
    bad = (out.cpu() != want).nonzero().flatten()
    return None if len(bad) == 0 else f"{len(bad)} of {n * 4} wrong, first at {bad[0].item()}"


@case("i16 taken as u64, then stored to bf16, in whole blocks (LLVM's SLP vectorizer converted the i16)", """
@kernel(grid=(n // 256,), num_warps=1)
def op(x: *i16 % 16, y: *i8 % 16, out: *bf16 % 16, n: i32):
    o = tl.program_id(0) * 256 + tl.arange(0, 256)
    tl.store(out + o, tl.load(x + o).to(tl.uint64))
    tl.store(out + n + o, tl.load(y + o).to(tl.uint32))
""")
def check_signed_as_unsigned_to_bf16(run, torch):
    n = 256 * 37
    g = torch.Generator().manual_seed(5)
    x = torch.randint(-30000, 30000, (n,), generator=g, dtype=torch.int32).to(torch.int16)
    y = torch.randint(-128, 128, (n,), generator=g, dtype=torch.int32).to(torch.int8)
    out = dev(torch.full((2 * n,), float("nan"), dtype=torch.bfloat16))
    if run(dev(x), dev(y), out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    as_u = lambda v, w: torch.where(v < 0, v.double() + 2.0 ** w, v.double())
    want = torch.cat([as_u(x, 64), as_u(y, 32)]).to(torch.bfloat16)
    bad = (out.cpu().double() != want.double()).sum().item()
    return None if bad == 0 else f"{bad} of {2 * n} elements differ"


def run_returning(run, n, seed, want):
    """Runs op(x, y, out, n) on n programs of 96 random floats each, out
    poisoned with NaN; want(block, p, want_y, want_out) fills in what
    program p must write. None if it did."""
    x = rand_f32(n * 96, seed)
    y = dev(torch.full((n * 2,), -77, dtype=torch.int32))
    out = dev(torch.full((n * 128,), float("nan")))
    if run(dev(x), y, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    y, out = y.cpu(), out.cpu()
    want_out = torch.full((n * 128,), float("nan"))
    want_y = torch.empty(n * 2, dtype=torch.int32)
    for p in range(n):
        b = x[p * 96:(p + 1) * 96]
        want(b, p, want_y, want_out)
    return returned_values_differ(y, want_y, out, want_out)


def returned_values_differ(y, want_y, out, want_out):
    """What a @func that returns early got wrong: y exactly, the stores
    made (NaN where none may be) and their values; None if nothing."""
    if not torch.equal(y, want_y):
        bad = (y != want_y).nonzero()[0].item()
        return f"index {bad}: {y[bad].item()} for {want_y[bad].item()} ({(y != want_y).sum().item()} wrong)"
    if not torch.equal(out.isnan(), want_out.isnan()):
        return f"{(out.isnan() != want_out.isnan()).sum().item()} stores where the @func had returned (or missing)"
    ok = ~want_out.isnan()
    err = (out[ok] - want_out[ok]).abs().max().item()
    return None if err < 1e-4 else f"max error {err:.2e}"


@case("a @func returning inside a runtime if inside tl.static_range: later trips and the code after the loop skipped", """
@func
def first_negative(x_ptr, N: constexpr):
    for i in tl.static_range(N):
        if tl.load(x_ptr + i) < 0:
            return i
    return -1

@func
def scan_pairs(x_ptr, out_ptr, A: constexpr, B: constexpr):
    for a in tl.static_range(A):
        for b in tl.static_range(B):
            v = tl.load(x_ptr + a * B + b)
            tl.store(out_ptr + a * B + b, v + 1.0)
            if v > 1.0:
                return a * B + b
    return A * B

@func
def first_row_over(x_ptr, bound, R: constexpr, C: constexpr):
    cols = tl.arange(0, C)
    for r in tl.static_range(R):
        row = tl.load(x_ptr + r * C + cols)
        if tl.sum(row, 0) > bound:
            return row * (r + 1)
        elif tl.sum(row, 0) < -bound:
            return -row
    return tl.zeros([C], dtype=tl.float32)

@kernel(grid=(n,), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    pid = tl.program_id(0)
    base = x + pid * 96
    tl.store(y + pid * 2, first_negative(base, 4))
    tl.store(y + pid * 2 + 1, scan_pairs(base, out + pid * 128 + 32, 2, 3))
    tl.store(out + pid * 128 + tl.arange(0, 32), first_row_over(base, 2.0, 3, 32))
""")
def check_static_loop_return(run, torch):
    def want(b, p, want_y, want_out):
        want_y[2 * p] = next((i for i in range(4) if b[i] < 0), -1)
        j = 0
        while j < 6:
            want_out[p * 128 + 32 + j] = b[j] + 1.0
            if b[j] > 1.0:
                break
            j += 1
        want_y[2 * p + 1] = j
        row = torch.zeros(32)
        for r in range(3):
            s = b[r * 32:(r + 1) * 32].sum()
            if s > 2.0:
                row = b[r * 32:(r + 1) * 32] * (r + 1)
                break
            if s < -2.0:
                row = -b[r * 32:(r + 1) * 32]
                break
        want_out[p * 128:p * 128 + 32] = row
    return run_returning(run, 301, 21, want)


@case("a @func returning inside runtime for and while loops (nested, in an if, a tile, a tuple, nothing returned): later trips do not run", """
@func
def first_negative(x_ptr, m):
    for i in range(m):
        if tl.load(x_ptr + i) < -0.5:
            return i
    return -1

@func
def find_pair(x_ptr, m):
    for i in range(m):
        for j in range(i + 1, m):
            if tl.load(x_ptr + i) + tl.load(x_ptr + j) > 2.5:
                return i * 16 + j
    return -1

@func
def row_or_minus_one(x_ptr, m, flag, C: constexpr):
    cols = tl.arange(0, C)
    if flag > 0:
        r = 0
        while r < m:
            row = tl.load(x_ptr + r * C + cols)
            if tl.sum(row, 0) > 3.0:
                return row
            r += 1
    return tl.zeros([C], dtype=tl.float32) - 1.0

@func
def copy_until_negative(x_ptr, out_ptr, m):
    for i in range(m):
        v = tl.load(x_ptr + i)
        if v < -1.0:
            return
        tl.store(out_ptr + i, v)

@func
def first_below(x_ptr, m, bound):
    for i in range(m):
        v = tl.load(x_ptr + i)
        if v < bound:
            return i, v
    return -1, 0.0

@func
def copy_until_negative_static(x_ptr, out_ptr, N: constexpr):
    for i in tl.static_range(N):
        v = tl.load(x_ptr + i)
        if v < -1.0:
            return
        tl.store(out_ptr + i, v + 1.0)

@kernel(grid=(n,), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    pid = tl.program_id(0)
    base = x + pid * 96
    m = 3 + pid % 7
    tl.store(y + pid * 2, first_negative(base, m))
    tl.store(y + pid * 2 + 1, find_pair(base, m))
    tl.store(out + pid * 128 + tl.arange(0, 32), row_or_minus_one(base, m % 3 + 1, pid % 2, 32))
    copy_until_negative(base, out + pid * 128 + 32, m)
    copy_until_negative_static(base + 10, out + pid * 128 + 48, 8)
    j, w = first_below(base, m, -0.8)
    tl.store(out + pid * 128 + 60, w)
    tl.store(out + pid * 128 + 61, j.to(tl.float32))
""")
def check_runtime_loop_return(run, torch):
    def want(b, p, want_y, want_out):
        m = 3 + p % 7
        want_y[2 * p] = next((i for i in range(m) if b[i] < -0.5), -1)
        want_y[2 * p + 1] = next((i * 16 + j for i in range(m) for j in range(i + 1, m)
                                  if (b[i] + b[j]).item() > 2.5), -1)
        row = torch.full((32,), -1.0)
        if p % 2 > 0:
            for r in range(m % 3 + 1):
                if b[r * 32:(r + 1) * 32].sum() > 3.0:
                    row = b[r * 32:(r + 1) * 32]
                    break
        want_out[p * 128:p * 128 + 32] = row
        for i in range(m):
            if b[i] < -1.0:
                break
            want_out[p * 128 + 32 + i] = b[i]
        for i in range(8):
            if b[10 + i] < -1.0:
                break
            want_out[p * 128 + 48 + i] = b[10 + i] + 1.0
        j = next((i for i in range(m) if b[i] < -0.8), -1)
        want_out[p * 128 + 60] = b[j] if j >= 0 else 0.0
        want_out[p * 128 + 61] = float(j)
    return run_returning(run, 333, 23, want)


@case("tuples through a runtime if and loop: merged item by item, returned by a @func from a branch, nested, compile-time items kept, loop-carried", """
@func
def swap_or_scale(x, y, flag):
    if flag > 0:
        return y, x
    return x * 2.0, y * 2.0

@func
def pick(x, flag):
    if flag > 1:
        t = ((x, 1), 4, 7)
    else:
        t = ((x + 1.0, 2), 4, 8)
    return t

@kernel(grid=(cdiv(n, 64),), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    pid = tl.program_id(0)
    offs = pid * 64 + tl.arange(0, 64)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    w = tl.load(x + n + offs, mask=offs < n, other=0.0)
    flag = pid % 4
    if flag > 2:
        t = (v, w + 1.0)
    else:
        t = (w, v)
    a, b = swap_or_scale(v, w, flag)
    (p, k), four, m = pick(v, flag)
    tl.static_assert(four == 4)
    acc = (v, w, 0)
    for i in range(flag + 1):
        prev = acc
        acc = (prev[1], acc[0] + 1.0, acc[2] + 1)
    tl.store(out + offs, a + b * 3.0 + t[0] * 5.0 + t[1] * 7.0 + p * k + m + acc[0] * 11.0 + acc[1] * 13.0 + acc[2],
             mask=offs < n)
""")
def check_tuple_branches(run, torch):
    n = 1000
    x = rand_f32(2 * n, 31)
    out = dev(torch.full((n,), float("nan")))
    if run(dev(x), dev(torch.zeros(4, dtype=torch.int32)), out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    v, w = x[:n], x[n:]
    flag = (torch.arange(n) // 64) % 4
    t0, t1 = torch.where(flag > 2, v, w), torch.where(flag > 2, w + 1.0, v)
    a, b = torch.where(flag > 0, w, v * 2.0), torch.where(flag > 0, v, w * 2.0)
    p = torch.where(flag > 1, v, v + 1.0)
    k, m = torch.where(flag > 1, 1.0, 2.0), torch.where(flag > 1, 7.0, 8.0)
    acc = (v, w, torch.zeros(n))
    for i in range(4):
        step = (acc[1], acc[0] + 1.0, acc[2] + 1)
        acc = tuple(torch.where(flag >= i, s, o) for s, o in zip(step, acc))
    want = a + b * 3.0 + t0 * 5.0 + t1 * 7.0 + p * k + m + acc[0] * 11.0 + acc[1] * 13.0 + acc[2]
    err = (out.cpu() - want).abs().max().item()
    return None if err < 1e-4 else f"max error {err:.2e}"


@case("'and', 'or' and 'x if c else y' run the other side only when Python would", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    i = 0
    while i < n and tl.atomic_add(y, 1) >= 0:
        i += 1
    a = i > n and tl.atomic_add(y + 1, 1) >= 0
    b = i >= n or tl.atomic_add(y + 2, 1) >= 0
    c = tl.atomic_add(y + 3, 1) if i < n else -1
    d = -1 if i < n else tl.atomic_add(y + 4, 7) + 2
    offs = tl.arange(0, 128)
    tl.store(out + offs, tl.load(x + offs) + i + a.to(tl.float32) * 10.0 + b.to(tl.float32) * 100.0 + c * 1000 + d)
""")
def check_short_circuit(run, torch):
    x = dev(rand_f32(128, 11))
    y = dev(torch.zeros(8, dtype=torch.int32))
    out = dev(torch.full((128,), float("nan")))
    n = 6
    if run(x, y, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    counts = y[:5].cpu().tolist()
    if counts != [n, 0, 0, 0, 7]:
        return f"the guarded atomics ran {counts} times/amounts, expected {[n, 0, 0, 0, 7]}"
    want = x + n + 100.0 - 1000.0 + 2.0
    err = ((out - want).abs().max() / want.abs().max()).item()
    return None if err < 1e-6 else f"relative error {err:.2e}"


# last: a lock that never opens hangs the child, and only what is left is lost

LOCK = """
@kernel(grid=(64,), num_warps=4)
def op(x: *f32, y: *i32, out: *f32, n: i32):
    offs = tl.arange(0, 128)
    while tl.atomic_cas(y, 0, 1) == 1:
        pass
    tl.store(out + offs, tl.load(out + offs) + tl.load(x + offs))
    tl.debug_barrier()
    tl.atomic_xchg(y, 0)
"""


@case("spin lock from scalar atomic_cas and atomic_xchg (Triton's serialized add)", LOCK)
def check_lock(run, torch):
    x = dev(rand_f32(128, 1))
    y = dev(torch.zeros(4, dtype=torch.int32))
    out = dev(torch.zeros(128))
    if run(x, y, out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    if y[0].item() != 0:
        return f"lock left at {y[0].item()}"
    err = ((out - 64 * x).abs().max() / (64 * x).abs().max()).item()
    return None if err < 1e-5 else f"relative error {err:.2e}: additions lost under the lock"


# ---- run-time ifs whose branch returns ---------------------------------------

@case("run-time if whose branch returns, a pointer assigned in it and after it", """
@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    pid = tl.program_id(0)
    p = out
    if n == pid:
        p += pid
        tl.store(p, 0.0)
        return
    p += pid
    tl.store(p, 1.0)
""")
def check_return_pointer(run, torch):
    for n in (2, 7):
        out = dev(torch.full((5,), float("nan")))
        if run(out, out, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = torch.tensor([0.0 if pid == n else 1.0 for pid in range(4)] + [float("nan")])
        got = out.cpu()
        if not (torch.equal(got[:4], want[:4]) and bool(got[4].isnan())):
            return f"n={n}: {got.tolist()}"
    return None


@case("run-time if/else, the else returning, tiles and scalars assigned in both, a loop after", """
@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    pid = tl.program_id(0)
    offs = pid * 64 + tl.arange(0, 64)
    acc = tl.load(x + offs)
    s = pid * 2
    if n > pid:
        acc += 1.0
        s += 1
    else:
        acc += 2.0
        s += 3
        tl.store(out + offs, acc + s)
        return
    for i in range(0, n):
        acc += i
        s += i
    tl.store(out + offs, acc + s)
""")
def check_return_else(run, torch):
    xv = torch.randint(-50, 50, (256,), generator=torch.Generator().manual_seed(32)).float()
    for n in (0, 2, 5):
        out = dev(torch.full((256,), float("nan")))
        if run(dev(xv), out, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = torch.empty(256)
        for pid in range(4):
            part = xv[pid * 64:(pid + 1) * 64]
            if n > pid:
                loop = sum(range(n))
                want[pid * 64:(pid + 1) * 64] = part + 1.0 + loop + pid * 2 + 1 + loop
            else:
                want[pid * 64:(pid + 1) * 64] = part + 2.0 + pid * 2 + 3
        if not torch.equal(out.cpu(), want):
            return f"n={n}: {(out.cpu() != want).sum().item()} elements wrong"
    return None


@case("nested run-time ifs whose inner branches return, names assigned around them", """
@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    pid = tl.program_id(0)
    offs = tl.arange(0, 64)
    v = tl.full([64], 1.0, dtype=tl.float32)
    q = out + pid * 256
    if n > pid:
        v *= 2.0
        q += 64
        if n > pid + 2:
            v += 10.0
            tl.store(q + offs, v)
            return
        else:
            v += 20.0
            tl.store(q + offs, v)
            return
    v += 3.0
    q += 128
    if n < 0:
        v -= 1.0
        tl.store(q + offs, v)
        return
    tl.store(q + offs, v + 100.0)
""")
def check_return_nested(run, torch):
    for n in (-1, 0, 2, 9):
        out = dev(torch.full((1024,), float("nan")))
        if run(out, out, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = torch.full((1024,), float("nan"))
        for pid in range(4):
            base = pid * 256
            if n > pid:
                want[base + 64:base + 128] = 12.0 if n > pid + 2 else 22.0
            elif n < 0:
                want[base + 128:base + 192] = 3.0
            else:
                want[base + 128:base + 192] = 104.0
        got = out.cpu()
        if not bool(((got == want) | (got.isnan() & want.isnan())).all()):
            return f"n={n}: {((got != want) & ~(got.isnan() & want.isnan())).sum().item()} elements wrong"
    return None


@case("@func whose run-time if returns, a pointer assigned in it and after it", """
@func
def pick(p, y, pid):
    if y == pid:
        p += pid
        return p
    p += 8 + pid
    return p

@func
def store_or_skip(p, v, y):
    if y == 0:
        v = v + 1.0
        tl.store(p, v)
        return
    v = v * 2.0
    tl.store(p + 1, v)

@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    pid = tl.program_id(0)
    tl.store(pick(out, n, pid), 1.0)
    store_or_skip(out + 16 + 2 * pid, pid * 1.0, n - pid)
""")
def check_return_func(run, torch):
    for n in (0, 2):
        out = dev(torch.full((24,), float("nan")))
        if run(out, out, out, n) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        want = torch.full((24,), float("nan"))
        for pid in range(4):
            want[pid if n == pid else 8 + pid] = 1.0
            if n - pid == 0:
                want[16 + 2 * pid] = pid + 1.0
            else:
                want[16 + 2 * pid + 1] = pid * 2.0
        got = out.cpu()
        if not bool(((got == want) | (got.isnan() & want.isnan())).all()):
            return f"n={n}: {got.tolist()}"
    return None


# ---- launch-time specialization (lower/specialize.c): every version right ---------

@case("specialized versions: pointers one element off 16 bytes, sizes ragged and not", """
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) * 2.0 + tl.load(y + offs, mask=m), mask=m)
""")
def check_specialized_alignment(run, torch):
    for n in (4096, 1000, 17, 4099):
        for shift in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (3, 2, 1)):
            x, y = dev(rand_f32(n + 8, 31)), dev(rand_f32(n + 8, 32))
            out = dev(torch.full((n + 8,), -7.0))
            xs, ys, outs = x[shift[0]:], y[shift[1]:], out[shift[2]:]
            if run(xs, ys, outs, n) != 0:
                return f"n={n} shift={shift}: launch failed"
            torch.cuda.synchronize()
            want = out.clone()
            want[shift[2]:shift[2] + n] = xs[:n] * 2.0 + ys[:n]
            if not torch.equal(out, want):
                return f"n={n} shift={shift}: {(out != want).sum().item()} elements wrong (guards included)"
    return None


@case("specialized versions: a unit stride (== 1) and others", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    offs = tl.arange(0, 256)
    tl.store(out + offs, tl.load(x + offs * n))
""")
def check_specialized_unit_stride(run, torch):
    for n in (1, 2, 3, 16, 0, -1):
        for shift in (0, 1):
            x = dev(rand_f32(256 * 17 + 8, 33))
            start = 255 * max(-n, 0) + shift  # n = -1 reads backwards from x[start]
            base = x[start:]
            out = dev(torch.full((264,), -7.0))
            if run(base, base, out, n) != 0:
                return f"n={n} shift={shift}: launch failed"
            torch.cuda.synchronize()
            want = out.clone()
            want[:256] = x[start + torch.arange(256, device="cuda") * n]
            if not torch.equal(out, want):
                return f"stride n={n} shift={shift}: {(out != want).sum().item()} elements wrong"
    return None


@case("specialized versions: a row stride (% 16) over a 2-D tile", """
@kernel(grid=(1,), num_warps=4)
def op(x: *f16, y: *f16, out: *f16, n: i32):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    v = tl.load(x + r[:, None] * n + c[None, :], mask=c[None, :] < n)
    tl.store(out + r[:, None] * 64 + c[None, :], v, mask=c[None, :] < n)
""")
def check_specialized_row_stride(run, torch):
    for n in (64, 80, 65, 1000, 16, 3):
        for shift in (0, 1):
            x = dev(rand_f32(32 * n + 64 + 8, 34).half())
            xs = x[shift:]
            out = dev(torch.full((32 * 64 + 8,), -7.0, dtype=torch.float16))
            if run(xs, xs, out, n) != 0:
                return f"n={n} shift={shift}: launch failed"
            torch.cuda.synchronize()
            want = out.clone()
            cols = min(n, 64)
            rows = xs[:32 * n].view(32, n)[:, :cols]
            want[:32 * 64].view(32, 64)[:, :cols] = rows
            if not torch.equal(out, want):
                return f"row stride n={n} shift={shift}: {(out != want).sum().item()} elements wrong"
    return None


@case("a heuristic the launcher computes: a run-time loop bound (cdiv) and next_power_of_2", """
@heuristics(ITERS=lambda a: cdiv(a['n'], 128), P=lambda a: next_power_of_2(a['n']))
@kernel(grid=(1,), num_warps=4)
def op(x: *f32, y: *f32, out: *f32, n: i32, ITERS: constexpr, P: constexpr):
    acc = tl.zeros([128], dtype=tl.float32)
    for i in range(ITERS):
        offs = i * 128 + tl.arange(0, 128)
        acc += tl.load(x + offs, mask=offs < n, other=0.0)
    tl.store(out + tl.arange(0, 128), acc)
    tl.store(out + 128, P.to(tl.float32))
""")
def check_computed_heuristic(run, torch):
    for n in (1, 128, 1000, 4097):
        x = dev(rand_f32(n, 35))
        out = dev(torch.full((136,), -7.0))
        if run(x, x, out, n) != 0:
            return f"n={n}: launch failed"
        torch.cuda.synchronize()
        padded = torch.zeros((n + 127) // 128 * 128, device="cuda")
        padded[:n] = x
        want = padded.view(-1, 128).sum(0)
        if not torch.allclose(out[:128], want, rtol=1e-5, atol=1e-5):
            return f"n={n}: sums differ by {(out[:128] - want).abs().max().item():.2e}"
        p = 1
        while p < n:
            p *= 2
        if out[128].item() != p or not torch.equal(out[129:], torch.full((7,), -7.0, device="cuda")):
            return f"n={n}: next_power_of_2 {out[128].item()}, not {p} (or a guard written)"
    return None


# ---- floats to 8- and 16-bit integers (ptxas) ------------------------------------
# A float clamped and converted to i16 before a run-time loop with an
# atomic, compared after it (difftest seed 12, program 19): ptxas kept
# cvt.rzi.s16.f32's value in the low half of a register whose high half
# was stale and compared 32 bits, 50 of the 256 compares wrong. Narrow
# conversions go through 32 bits now (codegen/cast.c). x: the bf16 inputs,
# y: the i64 results (v22 at pid * 97), out: bf16 scratch the program
# stores into; n = 975.
@case("a float made i16 before a run-time loop with an atomic, compared after it", """
@func
def f6(p0):
    v7 = p0 >= p0
    v8 = v7 ^ v7
    return v8

@kernel(grid=(8,), num_warps=4)
def op(x: *bf16, y: *i64, out: *bf16, n: i32, BLOCK: constexpr = 128):
    pid = tl.program_id(0)
    ibase = pid * BLOCK
    v1 = tl.load(x + ibase + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]), mask=(ibase + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]) < n), other=1.0)
    if pid <= 0:
        acc5 = pid
        tl.store(out + pid * 162 + 0, acc5, mask=pid < 8)
        m11 = v1
    else:
        v9 = f6(v1)
        v10 = v1 / (tl.abs(v1) + 1)
        tl.atomic_add(out + 1296 + 0 + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]) * 0, v1)
        tl.store(out + pid * 162 + 1 + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]), v9, mask=ibase + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]) < n)
        tl.store(out + pid * 162 + 33 + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]), v10, mask=ibase + (tl.arange(0, 1)[:, None] + tl.arange(0, 32)[None, :]) < n)
        m11 = v1
    v12 = m11 - v1
    v13 = tl.argmax(v12, axis=1)
    v14 = m11 != v13
    v15 = tl.minimum(tl.maximum(m11, -100.0), 100.0).to(tl.int16)
    nit16 = n % 4 + 1
    acc18 = v15
    for i17 in range(0, nit16):
        old19 = tl.atomic_max(y + 776 + 0 + pid * 4 + (tl.arange(0, 4)), v13, sem="release")
        acc18 = acc18 + v15
    v20 = tl.where(v14, v14, acc18)
    v22 = v20 < v15
    tl.store(y + pid * 97 + 0 + tl.trans((tl.arange(0, 32)[:, None] + tl.arange(0, 1)[None, :])), v22)
""")
def check_i16_after_loop(run, torch):
    n = 975
    g = torch.Generator().manual_seed(1219)
    x = (torch.rand(1088, generator=g, dtype=torch.float64) * 8 - 4).to(torch.bfloat16)
    y = dev(torch.zeros(1100, dtype=torch.int64))
    out = dev(torch.zeros(1400, dtype=torch.bfloat16))
    if run(dev(x), y, out, n) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    want = []
    for p in range(8):
        for j in range(32):
            i = p * 128 + j
            m = x[i].float().item() if i < n else 1.0
            v15 = int(max(min(m, 100.0), -100.0))
            # m != argmax (0): v20 = 1; else v20 = v15 * (n % 4 + 2)
            want.append(int(1 < v15) if m != 0 else int(v15 * 5 < v15))
    got = torch.stack([y[p * 97:p * 97 + 32].cpu() for p in range(8)]).flatten()
    bad = (got != torch.tensor(want)).sum().item()
    return None if bad == 0 else f"{bad} of 256 compares wrong"


# Every float type to every 8- and 16-bit integer type saturates (NaN is
# 0), truncating toward zero, as cvt.rzi does and as Triton's conversions
# run on NVIDIA GPUs: what the 32-bit route must keep. x: 32 values,
# out: i32 [8 conversions, 32].
NARROW = [1e6, -1e6, 40000.5, -40000.5, 32767.9, -32768.9, 300.7, -300.7, 255.9, 256.2, 127.9, -128.9,
          128.5, -129.5, 65535.9, 65536.5, -0.9, -1.5, 0.9, 2.5, -2.5, 0.0, -0.0, 100.25, -7.75, 1.0, 3e9, -3e9,
          70000.0, float("inf"), float("-inf"), float("nan")]


@case("floats (f32, f16, bf16, f64) to i16, i8, u16, u8: saturating, toward zero, NaN 0", """
@kernel(grid=(1,), num_warps=1)
def op(x: *f32 % 16, y: *f32 % 16, out: *i32 % 16, n: i32):
    r = tl.arange(0, 32)
    v = tl.load(x + r)
    tl.store(out + r, v.to(tl.int16).to(tl.int32))
    tl.store(out + 32 + r, v.to(tl.int8).to(tl.int32))
    tl.store(out + 64 + r, v.to(tl.uint16).to(tl.int32))
    tl.store(out + 96 + r, v.to(tl.uint8).to(tl.int32))
    tl.store(out + 128 + r, v.to(tl.float16).to(tl.int16).to(tl.int32))
    tl.store(out + 160 + r, v.to(tl.float16).to(tl.uint8).to(tl.int32))
    tl.store(out + 192 + r, v.to(tl.bfloat16).to(tl.int8).to(tl.int32))
    tl.store(out + 224 + r, v.to(tl.float64).to(tl.uint16).to(tl.int32))
""")
def check_narrow_saturation(run, torch):
    import math
    x = torch.tensor(NARROW, dtype=torch.float32)

    def sat(v, lo, hi):
        if math.isnan(v):
            return 0
        if math.isinf(v):
            return hi if v > 0 else lo
        return max(lo, min(hi, math.trunc(v)))
    via = [x, x, x, x, x.half().float(), x.half().float(), x.bfloat16().float(), x.double()]
    ranges = [(-32768, 32767), (-128, 127), (0, 65535), (0, 255), (-32768, 32767), (0, 255), (-128, 127), (0, 65535)]
    want = torch.tensor([sat(v.item(), lo, hi) for src, (lo, hi) in zip(via, ranges) for v in src], dtype=torch.int32)
    out = dev(torch.full((256,), -7, dtype=torch.int32))
    if run(dev(x), dev(x), out, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    bad = (out.cpu() != want).nonzero().flatten().tolist()
    return None if not bad else f"{len(bad)} wrong, first at {bad[:6]} (got {out.cpu()[bad[:6]].tolist()}, " \
        f"want {want[bad[:6]].tolist()})"


# ---- running them ---------------------------------------------------------------

def child(libs):
    """In a process of its own (a spin lock that never ends must not hang
    make gpu-test): runs each case on its shim library, one line each."""
    import ctypes
    for i, lib in enumerate(libs):
        name, _, check = CASES[i]
        if lib == "-":
            continue
        so = ctypes.CDLL(lib)
        so.tkshim_op.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32]
        stream = torch.cuda.current_stream().cuda_stream

        def run(x, y, out, n, so=so):
            return so.tkshim_op(stream, x.data_ptr(), y.data_ptr(), out.data_ptr(), n)
        try:
            problem = check(run, torch)
        except Exception as e:  # one broken case must not hide the others
            problem = f"{type(e).__name__}: {e}"
        print(f"{i} {'ok' if problem is None else 'FAIL ' + problem}", flush=True)


def run_all(build, work, rt, timeout=300):
    """Builds every case with build(work, rt, tag, source) and runs them in
    a child process; returns (passed, failed, skipped: refused for the
    target, as fp8 before sm_89 must be) and prints each failure."""
    import subprocess
    import sys
    import os
    libs = []
    passed = failed = skipped = 0
    match = os.environ.get("OPS_MATCH")
    for i, (name, source, _) in enumerate(CASES):
        if match and match not in name:  # run_ops.py's filter: not run, not counted
            libs.append("-")
            continue
        try:
            libs.append(str(build(work, rt, f"regression{i}", source)))
        except Exception as e:
            why = getattr(e, "stderr", b"") or str(e).encode()
            libs.append("-")
            if b"needs sm_89 or newer" in why:  # fp8 on an older target: refused, as it must be
                skipped += 1
                continue
            print(f"FAIL {name}: build: {why.decode(errors='replace')[:300]}")
            failed += 1
    try:
        r = subprocess.run([sys.executable, __file__, *libs], capture_output=True, text=True, timeout=timeout)
        lines = r.stdout.splitlines()
        tail = r.stderr[-300:]
    except subprocess.TimeoutExpired as e:
        lines = (e.stdout or b"").decode(errors="replace").splitlines() if isinstance(e.stdout, bytes) else \
            (e.stdout or "").splitlines()
        tail = f"timed out after {timeout} s (a hang)"
    done = {}
    for line in lines:
        index, _, verdict = line.partition(" ")
        if index.isdigit():
            done[int(index)] = verdict
    for i, (name, _, _) in enumerate(CASES):
        if libs[i] == "-":
            continue
        verdict = done.get(i)
        if verdict == "ok":
            passed += 1
        else:
            failed += 1
            print(f"FAIL {name}: {verdict or 'no result: ' + tail}")
    return passed, failed, skipped


if __name__ == "__main__":
    # the parent's cases, in its order: this module's, dot_cases.py's and atomic_cases.py's
    # (imported as modules, so they add to one CASES list)
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    import regressions
    import dot_cases  # noqa: F401
    import atomic_cases  # noqa: F401
    regressions.child(sys.argv[1:])

@case("-x of an i16 tile then tl.max (ptxas dropped a negation in VIMNMX3.S16x2)", """
@kernel(grid=(3,), num_warps=8)
def op(x: *i16, y: *u32, out: *i64, n: i32):
    pid = tl.program_id(0)
    v1 = tl.load(x + pid + tl.arange(0, 64))
    v2 = tl.interleave(v1, v1)
    v4 = -v1
    if n > 100:
        tl.atomic_xchg(y + 410 + pid, pid, mask=pid < 2, sem="release")
        tl.store(out + pid * 289 + 128 + tl.arange(0, 128), v2, mask=pid + tl.arange(0, 128) < n)
        tl.store(y + pid * 136 + tl.arange(0, 64), tl.where(v4 == pid, v1, v4))
    else:
        tl.store(out + pid * 289 + 256, tl.max(v4))
    tl.store(out + pid * 289 + 257 + (tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]), pid)
    tl.store(y + pid * 136 + 128 + (tl.arange(0, 1)[:, None] + tl.arange(0, 8)[None, :]), pid)
""")
def check_i16_neg_max(run, torch):
    g = torch.Generator().manual_seed(352)
    for n in (97, 50):
        x = dev(torch.randint(-100, 101, (192,), generator=g, dtype=torch.int16))
        y = dev(torch.full((420,), 0x55, dtype=torch.int32))
        out = dev(torch.full((900,), 0x55, dtype=torch.int64))
        if run(x, y, out, n) != 0:
            return f"n={n}: launch failed"
        torch.cuda.synchronize()
        want = torch.full((900,), 0x55, dtype=torch.int64)
        wy = torch.full((420,), 0x55, dtype=torch.int32)
        xs = x.cpu().to(torch.int64)
        for pid in range(3):
            want[pid * 289 + 256] = (-xs[pid:pid + 64]).max()
            want[pid * 289 + 257:pid * 289 + 289] = pid
            wy[pid * 136 + 128:pid * 136 + 136] = pid
        if not torch.equal(out.cpu(), want):
            bad = (out.cpu() != want).nonzero().flatten().tolist()[:4]
            return f"n={n}: out differs at {bad}: {[out[i].item() for i in bad]} not {[want[i].item() for i in bad]}"
        if not torch.equal(y.cpu(), wy):
            return f"n={n}: y differs"
    return None


@case("16-bit atomics on uniform pointers: cas (bf16, i16) and xchg (f16)", """
@kernel(grid=(2,), num_warps=4)
def op(x: *bf16, y: *f16, out: *i16, n: i32):
    pid = tl.program_id(0)
    i = tl.arange(0, 4)
    old = tl.atomic_cas(x + 76 + pid * 4 + i, tl.full((4,), 1, tl.bfloat16), (i + 2).to(tl.bfloat16))
    tl.store(x + pid * 4 + i, old)
    o2 = tl.atomic_xchg(y + 3 + pid * 4 + i, (i + 10 * pid).to(tl.float16))
    tl.store(y + 20 + pid * 4 + i, o2)
    o3 = tl.atomic_cas(out + pid * 4 + i, tl.full((4,), 0, tl.int16), (i + 5).to(tl.int16), sem="relaxed", scope="cta")
    tl.store(out + 20 + pid * 4 + i, o3)
""")
def check_atomics16(run, torch):
    x0 = torch.full((90,), -3.0, dtype=torch.bfloat16)
    x0[76:84] = torch.tensor([1, 0, 1, 1, 0, 1, 7, 1], dtype=torch.bfloat16)
    y0 = torch.arange(40, dtype=torch.float16) * 0.5 - 7
    z0 = torch.full((40,), 9, dtype=torch.int16)
    z0[0:8] = torch.tensor([0, 4, 0, 0, 2, 0, 0, 1], dtype=torch.int16)
    x, y, z = dev(x0.clone()), dev(y0.clone()), dev(z0.clone())
    if run(x, y, z, 0) != 0:
        return "launch failed"
    torch.cuda.synchronize()
    wx, wy, wz = x0.clone(), y0.clone(), z0.clone()
    for pid in range(2):
        for i in range(4):
            k = 76 + pid * 4 + i
            wx[pid * 4 + i] = x0[k]
            if x0[k] == 1:
                wx[k] = i + 2
            wy[20 + pid * 4 + i] = y0[3 + pid * 4 + i]
            wy[3 + pid * 4 + i] = i + 10 * pid
            wz[20 + pid * 4 + i] = z0[pid * 4 + i]
            if z0[pid * 4 + i] == 0:
                wz[pid * 4 + i] = i + 5
    for name, got, want in (("x", x, wx), ("y", y, wy), ("out", z, wz)):
        if not torch.equal(got.cpu(), want):
            bad = (got.cpu() != want).nonzero().flatten().tolist()[:4]
            return f"{name} differs at {bad}"
    return None


@case("tl.histogram of i32 with a mask, over programs (atomic_add of the counts)", """
@kernel(grid=(cdiv(n, 1024),), num_warps=4)
def op(x: *i32, y: *i32, out: *i32, n: i32):
    offs = tl.program_id(0) * 1024 + tl.arange(0, 1024)
    v = tl.load(x + offs, mask=offs < n, other=0)
    tl.atomic_add(out + tl.arange(0, 64), tl.histogram(v, 64, mask=offs < n))
""")
def check_histogram_i32(run, torch):
    g = torch.Generator().manual_seed(64)
    for n in (1, 1000, 4097, 70001):
        x = torch.randint(-3, 68, (n,), generator=g, dtype=torch.int32)
        out = dev(torch.zeros(64, dtype=torch.int32))
        if run(dev(x), dev(x), out, n) != 0:
            return f"n={n}: launch failed"
        torch.cuda.synchronize()
        inside = x[(x >= 0) & (x < 64)].to(torch.int64)
        want = torch.bincount(inside, minlength=64).to(torch.int32)
        if not torch.equal(out.cpu(), want):
            return f"n={n}: {(out.cpu() != want).sum().item()} bins wrong"
    return None


@case("tl.histogram of u8 (256 bins, no mask) and of i64 (negative values, a mask)", """
@kernel(grid=(1,), num_warps=2)
def op(x: *u8, y: *i64, out: *i32, n: i32):
    i = tl.arange(0, 512)
    tl.store(out + tl.arange(0, 256), tl.load(x + i).histogram(256))
    w = tl.load(y + i, mask=i < n, other=5)
    tl.store(out + 256 + tl.arange(0, 16), tl.histogram(w, 16, mask=(i < n) & (i % 3 != 0)))
""")
def check_histogram_u8_i64(run, torch):
    g = torch.Generator().manual_seed(256)
    x = torch.randint(0, 256, (512,), generator=g, dtype=torch.uint8)
    y = torch.randint(-40, 40, (512,), generator=g, dtype=torch.int64)
    for n in (0, 300, 512):
        out = dev(torch.full((280,), -7, dtype=torch.int32))
        if run(dev(x), dev(y), out, n) != 0:
            return f"n={n}: launch failed"
        torch.cuda.synchronize()
        want = torch.full((280,), -7, dtype=torch.int32)
        want[:256] = torch.bincount(x.to(torch.int64), minlength=256).to(torch.int32)
        i = torch.arange(512)
        sel = y[(i < n) & (i % 3 != 0) & (y >= 0) & (y < 16)]
        want[256:272] = torch.bincount(sel, minlength=16).to(torch.int32)
        if not torch.equal(out.cpu(), want):
            return f"n={n}: {(out.cpu() != want).sum().item()} counts wrong"
    return None


# ---- tables of pointers -------------------------------------------------------

for ytype, convert in (("*i64", ".to(tl.pointer_type(tl.float32))"), ("**f32", "")):
    @case(f"a table of pointers ({ytype}): each program reads its group's source and destination "
          "addresses, ragged groups", f"""
@kernel(grid=(4,), num_warps=4)
def op(x: *f32, y: {ytype}, out: *f32, n: i32):
    g = tl.program_id(0)
    src = tl.load(y + g){convert}
    dst = tl.load(y + 4 + g){convert}
    size = n - 37 * g
    for start in range(0, size, 256):
        offs = start + tl.arange(0, 256)
        tl.store(dst + offs, tl.load(src + offs, mask=offs < size) * 2 + g, mask=offs < size)
""")
    def check_pointer_table(run, torch):
        for n in (37 * 3 + 1, 1000, 4099):
            x = dev(rand_f32(4 * n, n))
            out = dev(torch.full((4 * n + 16,), -7.0))
            starts = [g * n + (g % 2) for g in range(4)]  # not all aligned
            table = [x.data_ptr() + 4 * s for s in starts] + [out.data_ptr() + 4 * s for s in starts]
            y = dev(torch.tensor(table, dtype=torch.int64))
            if run(x, y, out, n) != 0:
                return f"n={n}: launch failed"
            torch.cuda.synchronize()
            want = torch.full((4 * n + 16,), -7.0)
            xc = x.cpu()
            for g, s in enumerate(starts):
                size = n - 37 * g
                want[s:s + size] = xc[s:s + size] * 2 + g
            if not torch.equal(out.cpu(), want):
                return f"n={n}: {(out.cpu() != want).sum().item()} elements wrong"
        return None


# ---- tl.gather against torch.gather ---------------------------------------------

GATHER_CASES = [
    # (name, src dtype, index dtype, src shape, index shape, axis, warps)
    ("1-D f32, i32 index, 256 -> 128", "f32", "i32", (256,), (128,), 0, 4),
    ("1-D i64, i16 index, 64 -> 512", "i64", "i16", (64,), (512,), 0, 8),
    ("2-D f16 along axis 1, i64 index, [32, 64] -> [32, 16]", "f16", "i64", (32, 64), (32, 16), 1, 4),
    ("2-D f32 along axis 0, u8 index, [32, 64] -> [8, 64]", "f32", "u8", (32, 64), (8, 64), 0, 4),
    ("2-D bf16 along axis 0, i32 index, [16, 128] -> [64, 128]", "bf16", "i32", (16, 128), (64, 128), 0, 2),
    ("3-D f32 along axis 1, i32 index, [4, 32, 8] -> [4, 64, 8]", "f32", "i32", (4, 32, 8), (4, 64, 8), 1, 4),
]


def gather_offsets(shape):
    """The row-major offsets of a tile of `shape`, as tkc source."""
    terms = []
    for d, size in enumerate(shape):
        stride = 1
        for s in shape[d + 1:]:
            stride *= s
        idx = "tl.arange(0, %d)" % size
        if len(shape) > 1:
            idx += "[" + ", ".join(":" if e == d else "None" for e in range(len(shape))) + "]"
        terms.append(f"{idx} * {stride}" if stride > 1 else idx)
    return " + ".join(terms)


for gname, gsrc, gidx, gshape, ishape, gaxis, gwarps in GATHER_CASES:
    @case(f"tl.gather {gname}", f"""
@kernel(grid=(1,), num_warps={gwarps})
def op(x: *{gsrc}, y: *{gidx}, out: *{gsrc}, n: i32):
    src = tl.load(x + {gather_offsets(gshape)})
    index = tl.load(y + {gather_offsets(ishape)})
    tl.store(out + {gather_offsets(ishape)}, tl.gather(src, index, {gaxis}))
""")
    def check_gather(run, torch, gsrc=gsrc, gidx=gidx, gshape=gshape, ishape=ishape, gaxis=gaxis):
        from cases import dtype
        g = torch.Generator().manual_seed(77)
        if gsrc in ("i64",):
            src = torch.randint(-2**40, 2**40, gshape, generator=g, dtype=torch.int64)
        else:
            src = torch.randn(gshape, generator=g).to(dtype(gsrc))
        index = torch.randint(0, gshape[gaxis], ishape, generator=g, dtype=torch.int64)
        want = torch.gather(src, gaxis, index) if all(
            ishape[d] <= gshape[d] for d in range(len(gshape)) if d != gaxis) else None
        if want is None:
            return "bad case"
        out = dev(torch.full(ishape, -7).to(src.dtype))
        if run(dev(src), dev(index.to(dtype(gidx))), out, 0) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        if not torch.equal(out.cpu(), want):
            return f"{(out.cpu() != want).sum().item()} of {want.numel()} elements wrong"
        return None


# ---- tl.sort and tl.topk against torch.sort and torch.topk --------------------

SORT_CASES = [
    # (name, dtype, shape, k (None: sort), descending, warps)
    ("sort f32 [256] ascending", "f32", (256,), None, False, 4),
    ("sort i16 [8, 64] descending", "i16", (8, 64), None, True, 4),
    ("sort bf16 [2, 16], fewer pairs than threads", "bf16", (2, 16), None, False, 8),
    ("sort i32 [4, 1024], 16 pairs a thread", "i32", (4, 1024), None, False, 4),
    ("sort u8 [64] descending (unsigned order)", "u8", (64,), None, True, 1),
    ("sort f64 [16, 32] descending", "f64", (16, 32), None, True, 2),
    ("topk f16 [4, 128] k=8", "f16", (4, 128), 8, True, 4),
    ("topk i64 [256] k=256", "i64", (256,), 256, True, 4),
    ("topk f32 [32, 64] k=1", "f32", (32, 64), 1, True, 4),
    ("topk f32 [8, 128] k=16 smallest (descending=False)", "f32", (8, 128), 16, False, 4),
    ("topk bf16 [4, 64] k=4 (as f32, as Triton's)", "bf16", (4, 64), 4, True, 4),
    ("topk u8 [16, 64] k=4 (as i32, as Triton's)", "u8", (16, 64), 4, True, 4),
    ("topk i16 [8, 32] k=8 (as i32, as Triton's)", "i16", (8, 32), 8, True, 2),
]

for sname, sdt, sshape, sk, sdesc, swarps in SORT_CASES:
    oshape = sshape[:-1] + ((sk,) if sk else (sshape[-1],))
    call = (f"tl.topk(v, {sk}, descending={sdesc})" if sk else f"tl.sort(v, descending={sdesc})")
    @case(f"tl.{sname}", f"""
@kernel(grid=(1,), num_warps={swarps})
def op(x: *{sdt}, y: *{sdt}, out: *{sdt}, n: i32):
    v = tl.load(x + {gather_offsets(sshape)})
    tl.store(out + {gather_offsets(oshape)}, {call})
""")
    def check_sort(run, torch, sdt=sdt, sshape=sshape, sk=sk, sdesc=sdesc, oshape=oshape):
        from cases import dtype
        g = torch.Generator().manual_seed(91)
        t = dtype(sdt)
        if t.is_floating_point:
            x = torch.randn(sshape, generator=g, dtype=torch.float64).to(t)
        elif t == torch.uint8:
            x = torch.randint(0, 256, sshape, generator=g).to(t)
        else:
            lim = 2**40 if t == torch.int64 else 30000 if t == torch.int16 else 2**30
            x = torch.randint(-lim, lim, sshape, generator=g, dtype=torch.int64).to(t)
        if sk:
            want = torch.topk(x.to(torch.float64) if t == torch.bfloat16 else x, sk, dim=-1, largest=sdesc,
                              sorted=True).values.to(t)
        else:
            want = torch.sort(x.to(torch.float64) if t == torch.bfloat16 else x, dim=-1,
                              descending=sdesc).values.to(t)
        out = dev(torch.full(oshape, 7).to(t))
        if run(dev(x), dev(x), out, 0) != 0:
            return "launch failed"
        torch.cuda.synchronize()
        if not torch.equal(out.cpu(), want):
            return f"{(out.cpu() != want).sum().item()} of {want.numel()} elements wrong"
        return None


# ---- programmatic dependent launch ---------------------------------------------

@case("launch_pdl=True: launched through cuLaunchKernelEx, gdc_wait before reading what the kernel "
      "before it (a torch fill, then this kernel again) wrote", """
@kernel(grid=(cdiv(n, 256),), num_warps=4, launch_pdl=True)
def op(x: *f32, y: *f32, out: *f32, n: i32):
    tl.extra.cuda.gdc_wait()
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    v = tl.load(x + offs, mask=offs < n)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(out + offs, v + 1, mask=offs < n)
""")
def check_pdl(run, torch):
    n = 1 << 20
    a = dev(torch.zeros(n))
    b = dev(torch.zeros(n))
    for step in range(20):
        a.fill_(float(step))
        # b = a + 1, then a = b + 1: each launch reads what the one before wrote
        if run(a, a, b, n) != 0 or run(b, b, a, n) != 0:
            return "launch failed"
    torch.cuda.synchronize()
    want = float(19 + 2)
    if not bool((a == want).all()):
        return f"{int((a != want).sum())} elements are not {want}"
    return None
