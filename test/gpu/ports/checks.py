"""The checks of run_ports.py, one or more a port (a check's name starts
with its port's file name): each gets the compiled
module and torch, and returns None when the kernel agrees with torch, else
what went wrong. Sizes are no multiple of the blocks; outputs start
poisoned (NaN, or a sentinel for integers)."""

from run_ports import check

DT = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i64": "int64"}
TOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-6}


def tdt(torch, name):
    return getattr(torch, DT[name])


def compare(torch, got, want, tol, what=""):
    """None where got (any dtype) is within tol of want (float64), relative
    to want's largest magnitude; poison left anywhere fails."""
    g = got.double().cpu()
    w = want.double().cpu()
    if g.shape != w.shape:
        return f"{what}shape {tuple(g.shape)}, want {tuple(w.shape)}"
    if torch.isnan(g).any() and not torch.isnan(w).any():
        return f"{what}{int(torch.isnan(g).sum())} elements left poisoned"
    scale = max(w.abs().max().item(), 1e-30)
    err = (g - w).abs().max().item() / scale
    return None if err <= tol else f"{what}max error {err:.2e} (of the largest value), tolerance {tol:.1e}"


def nan_like(torch, shape, dtype):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


for dt in ("f16", "bf16", "f32"):
    @check(f"rms_norm {dt}: weight given and None, rows of 1000 and 3000 at row strides 1000..3011")
    def rms(mod, torch, dt=dt):
        t = tdt(torch, dt)
        for n_cols, pad, with_w in ((1000, 0, True), (3000, 11, True), (1000, 24, False), (1, 3, True)):
            n_rows = 37
            x = torch.randn(n_rows, n_cols + pad, device="cuda", dtype=torch.float32).to(t)[:, :n_cols]
            w = torch.randn(n_cols, device="cuda", dtype=torch.float32).to(t) if with_w else None
            y = nan_like(torch, (n_rows, n_cols + 5), t)
            rstd = nan_like(torch, (n_rows,), torch.float32)
            eps, offset = 1e-6, 0.5
            mod(f"rms_norm_fwd_{dt}", y, y.stride(0), x, x.stride(0), w if w is not None else 0, rstd, n_rows,
                n_cols, eps, offset)
            xd = x.double()
            r = torch.rsqrt((xd * xd).mean(dim=1) + eps)
            want = xd * r[:, None]
            if with_w:
                want = want * (offset + w.double())
            err = (compare(torch, y[:, :n_cols], want.to(t), TOL[dt] * 4, f"n_cols {n_cols} y: ") or
                   compare(torch, rstd, r, 1e-5, f"n_cols {n_cols} rstd: "))
            if err:
                return err
            if not torch.isnan(y[:, n_cols:]).all():
                return f"n_cols {n_cols}: wrote past the row"
        return None

    @check(f"cross_entropy {dt}: vocab 5003 and 32000, rows with ignore_index return early")
    def ce(mod, torch, dt=dt):
        t = tdt(torch, dt)
        for n_cols in (5003, 32000):
            n_rows = 19
            x = (torch.randn(n_rows, n_cols, device="cuda", dtype=torch.float32) * 3).to(t)
            y = torch.randint(0, n_cols, (n_rows,), device="cuda", dtype=torch.int64)
            y[::4] = -100
            loss = nan_like(torch, (n_rows,), torch.float32)
            mod(f"cross_entropy_fwd_{dt}", x, x.stride(0), y, loss, n_rows, n_cols, -100)
            want = torch.nn.functional.cross_entropy(x.double(), y, ignore_index=-100, reduction="none")
            err = compare(torch, loss, want, 1e-5, f"vocab {n_cols}: ")
            if err:
                return err
        return None

    @check(f"rotary {dt}: in place over [tokens, heads, 128], q a strided view")
    def rot(mod, torch, dt=dt):
        t = tdt(torch, dt)
        n_tokens, n_heads, half = 77, 6, 64
        base = torch.randn(n_tokens, n_heads + 2, 2 * half, device="cuda", dtype=torch.float32).to(t)
        q = base[:, 1:n_heads + 1, :]
        before, outside = q.clone(), (base[:, 0].clone(), base[:, -1].clone())
        ang = torch.randn(n_tokens, half, device="cuda", dtype=torch.float32)
        cos, sin = ang.cos(), ang.sin()
        mod(f"rotary_{dt}", q, q.stride(0), q.stride(1), cos, sin, cos.stride(0), n_tokens, n_heads)
        x1, x2 = before[..., :half].double(), before[..., half:].double()
        c, s = cos.double()[:, None, :], sin.double()[:, None, :]
        want = torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
        err = compare(torch, q, want.to(t), TOL[dt] * 4)
        if err:
            return err
        if not (torch.equal(base[:, 0], outside[0]) and torch.equal(base[:, -1], outside[1])):
            return "touched the heads outside the view"
        return None

    @check(f"swiglu {dt}: a contiguous (unit column stride) and a strided view, one header")
    def swi(mod, torch, dt=dt):
        t = tdt(torch, dt)
        n_rows, n_cols = 33, 3001
        for col_step in (1, 2):
            a_full = torch.randn(n_rows, n_cols * col_step, device="cuda", dtype=torch.float32).to(t)
            a = a_full[:, ::col_step]
            b = torch.randn(n_rows, n_cols, device="cuda", dtype=torch.float32).to(t)
            c = nan_like(torch, (n_rows, n_cols), t)
            mod(f"swiglu_fwd_{dt}", a, a.stride(0), a.stride(1), b, b.stride(0), c, c.stride(0), n_rows, n_cols)
            ad = a.double()
            want = (ad * torch.sigmoid(ad)).to(t).double() * b.double()
            err = compare(torch, c, want.to(t), TOL[dt] * 4, f"column stride {col_step}: ")
            if err:
                return err
        return None


@check("cumsum i32: rows of 1000 over blocks of 256, the total carried")
def cumsum(mod, torch):
    n_rows, n_cols = 13, 1000
    x = torch.randint(-1000, 1000, (n_rows, n_cols), device="cuda", dtype=torch.int32)
    y = torch.full_like(x, 0x55555555)
    mod("row_cumsum", x, y, x.stride(0), n_rows, n_cols)
    want = torch.cumsum(x, dim=1, dtype=torch.int32)
    return None if torch.equal(y, want) else f"{int((y != want).sum())} of {want.numel()} wrong"


for dt in ("f16", "f32"):
    @check(f"argmax {dt}: rows of 50257 over blocks of 1024")
    def argmax(mod, torch, dt=dt):
        t = tdt(torch, dt)
        n_rows, n_cols = 9, 50257
        x = torch.randn(n_rows, n_cols, device="cuda", dtype=torch.float32).to(t)
        x[3, 50256] = 100  # the last element
        x[4, 0] = 100      # the first
        out = torch.full((n_rows,), -1, device="cuda", dtype=torch.int64)
        mod(f"row_argmax_{dt}", x, x.stride(0), out, n_rows, n_cols)
        want = torch.argmax(x.float(), dim=1)
        return None if torch.equal(out, want) else f"got {out.tolist()}, want {want.tolist()}"

for dt in ("f16", "f32", "i64"):
    @check(f"index_select {dt}: 300 rows picked (repeats) of 1000, 777 columns")
    def isel(mod, torch, dt=dt):
        t = tdt(torch, dt)
        src = (torch.randn(1000, 777, device="cuda") * 1000).to(t)
        idx = torch.randint(0, 1000, (300,), device="cuda", dtype=torch.int64)
        out = torch.full((300, 777), 7, device="cuda").to(t)
        mod(f"index_select_{dt}", src, src.stride(0), idx, out, out.stride(0), 300, 777)
        want = torch.index_select(src, 0, idx)
        return None if torch.equal(out, want) else f"{int((out != want).sum())} of {want.numel()} wrong"


@check("moe_matmul f16: 4 experts, tokens gathered by index, blocks padded with -1")
def moe(mod, torch):
    n_tokens, K, N, E, BM = 300, 200, 136, 4, 64
    x = torch.randn(n_tokens, K, device="cuda", dtype=torch.float16)
    w = torch.randn(E, K, N, device="cuda", dtype=torch.float16) / 8
    expert_of = torch.randint(0, E, (n_tokens,), device="cuda")
    ids, experts = [], []
    for e in range(E):
        toks = (expert_of == e).nonzero().flatten().tolist()
        while toks:
            block, toks = toks[:BM], toks[BM:]
            ids += block + [-1] * (BM - len(block))
            experts.append(e)
    M = len(ids)
    tokens = torch.tensor(ids, device="cuda", dtype=torch.int32)
    expert = torch.tensor(experts, device="cuda", dtype=torch.int32)
    out = nan_like(torch, (M, N), torch.float16)
    mod("moe_matmul", x, w, out, tokens, expert, M, N, K, x.stride(0), w.stride(0), w.stride(1), out.stride(0))
    rows = tokens.long().clamp(min=0)
    want = torch.einsum("mk,mkn->mn", x[rows].double(), w[expert.long().repeat_interleave(BM)].double())
    valid = tokens >= 0
    err = compare(torch, out[valid], want[valid], 4e-3)
    if err:
        return err
    return None if torch.isnan(out[~valid]).all() else "wrote padding rows"


def grouped_problems(mod, torch, kernel, b_transposed):
    """5 problems of ragged sizes through tables of addresses; B as B^T
    ([n, k] rows) where b_transposed."""
    sizes = [(129, 64, 70), (1, 200, 33), (300, 17, 128), (64, 64, 64), (97, 130, 1)]
    As, Bs, Cs = [], [], []
    for m, n, k in sizes:
        As.append(torch.randn(m, k, device="cuda", dtype=torch.float16))
        Bs.append(torch.randn(*((n, k) if b_transposed else (k, n)), device="cuda", dtype=torch.float16))
        Cs.append(nan_like(torch, (m, n), torch.float16))
    table = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.int64)
    dims = torch.tensor([v for s in sizes for v in s], device="cuda", dtype=torch.int32)
    lds = torch.tensor([v for a, b, c in zip(As, Bs, Cs) for v in (a.stride(0), b.stride(0), c.stride(0))],
                       device="cuda", dtype=torch.int32)
    mod(kernel, table(As), table(Bs), table(Cs), dims, lds, len(sizes), 132)
    for i, (a, b, c) in enumerate(zip(As, Bs, Cs)):
        b = b.double().T if b_transposed else b.double()
        err = compare(torch, c, a.double() @ b, 4e-3, f"problem {i} {tuple(sizes[i])}: ")
        if err:
            return err
    return None


@check("grouped_gemm f16: 5 problems of ragged sizes through tables of addresses")
def grouped(mod, torch):
    return grouped_problems(mod, torch, "grouped_matmul", False)


@check("grouped_gemm f16 through tensor descriptors: 5 ragged problems, B given as B^T")
def grouped_descriptors(mod, torch):
    return grouped_problems(mod, torch, "grouped_matmul_descriptors", True)

@check("tma_persistent f16: tutorial 09's matmuls over host descriptors (persistent, and a tile a program), ragged "
       "sizes, subtiled epilogue, grids of num_sms() programs smaller and larger than the tile count")
@check("tma_persistent f16 warp-specialized: the same with a producer warpgroup (WARP_SPECIALIZE)",
       ["-DWARP_SPECIALIZE=1"])
@check("tma_persistent f16 warp-specialized, 4 warps, 4 stages: one consumer warpgroup, a deeper ring",
       ["-DWARP_SPECIALIZE=1", "-Dnum_warps=4", "-Dnum_stages=4"])
def tma_persistent(mod, torch):
    # 128 x 128 tiles (the default config): 40, 1, 3, 2, 136 and 1056 tiles
    # on the device's multiprocessors (132 on an H100 or H200)
    for M, N, K in ((1000, 520, 328), (128, 128, 64), (300, 136, 8), (64, 200, 1000), (2100, 1000, 72),
                    (4000, 4104, 64)):
        a = torch.randn(M, K, device="cuda", dtype=torch.float16) / 4
        b = torch.randn(N, K, device="cuda", dtype=torch.float16) / 4
        for kernel in ("matmul_kernel_tma_persistent", "matmul_kernel_tma"):
            c = nan_like(torch, (M, N), torch.float16)
            mod(kernel, a, b, c, M, N, K)
            err = compare(torch, c, a.double() @ b.double().T, 4e-3, f"{kernel} {M}x{N}x{K}: ")
            if err:
                return err
    # a view whose rows are 16-byte multiples apart but not dense
    big = torch.randn(256, 264, device="cuda", dtype=torch.float16) / 4
    a, b = big[:200, :256], torch.randn(72, 256, device="cuda", dtype=torch.float16) / 4
    c = nan_like(torch, (200, 72), torch.float16)
    mod("matmul_kernel_tma_persistent", a, b, c, 200, 72, 256)
    return compare(torch, c, a.double() @ b.double().T, 4e-3, "a strided view of A: ")


for dt in ("f16", "f8e4m3"):
    @check(f"tutorial_matmul {dt}: free strides, B row-major and B K-major (b.T) through one header")
    def tmm(mod, torch, dt=dt):
        t = torch.float16 if dt == "f16" else torch.float8_e4m3fn
        for M, N, K in ((200, 136, 256), (64, 64, 96), (1, 300, 128)):
            a = (torch.randn(M, K, device="cuda") / 4).to(t)
            for kmajor in (False, True):
                b = (torch.randn(N, K, device="cuda") / 4).to(t).T if kmajor else \
                    (torch.randn(K, N, device="cuda") / 4).to(t)
                c = nan_like(torch, (M, N), torch.float16)
                mod(f"matmul_{dt}", a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1))
                want = a.double() @ b.double()
                err = compare(torch, c, want, 4e-3, f"{M}x{N}x{K} B {'K-major' if kmajor else 'row-major'}: ")
                if err:
                    return err
        return None


def mx_codes(torch, fmt, shape):
    """Random codes of a format (no NaN or infinity), as uint8 bytes, and
    their values in float64; e2m1 packs two codes a byte along the last
    dimension of `shape`, which is the packed one, the first in the low bits."""
    g = torch.Generator(device="cpu").manual_seed(hash(fmt) % 1000 + shape[0])
    if fmt == "e2m1":
        lo, hi = (torch.randint(0, 16, shape, generator=g, dtype=torch.uint8) for _ in range(2))
        table = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=torch.float64)
        return lo | (hi << 4), table[lo.long()], table[hi.long()]
    codes = torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
    if fmt == "e4m3":
        codes[(codes & 0x7F) == 0x7F] = 0x38  # NaN codes made 1.0
        return codes, codes.view(torch.float8_e4m3fn).double(), None
    codes[(codes & 0x7C) == 0x7C] = 0x3C  # infinities and NaNs made 1.0
    return codes, codes.view(torch.float8_e5m2).double(), None


def mx_problem(torch, fa, fb, M, N, K, group):
    """A, B as the kernels take them (bytes, or bf16 for fa 'bf16'), the
    scales (e8m0 codes 120..134, or f8e4m3 values for group 16), and the
    float64 reference."""
    if fa == "bf16":
        a_dev = (torch.randn(M, K) / 4).to(torch.bfloat16)
        a_val = a_dev.double()
    elif fa == "e2m1":
        a_dev, lo, hi = mx_codes(torch, fa, (M, K // 2))
        a_val = torch.stack((lo, hi), dim=2).reshape(M, K)
    else:
        a_dev, a_val, _ = mx_codes(torch, fa, (M, K))
    if fb == "e2m1":
        # B [K, N] packed along K: byte (j, n) holds rows 2j and 2j + 1
        b_dev, lo, hi = mx_codes(torch, fb, (K // 2, N))
        b_val = torch.stack((lo, hi), dim=1).reshape(K, N)
    else:
        b_dev, b_val, _ = mx_codes(torch, fb, (K, N))
    g = torch.Generator(device="cpu").manual_seed(M * 7 + N)
    if group == 32:
        sa = torch.randint(120, 135, (M, K // 32), generator=g, dtype=torch.uint8)
        sb = torch.randint(120, 135, (N, K // 32), generator=g, dtype=torch.uint8)
        sa_val, sb_val = 2.0 ** (sa.double() - 127), 2.0 ** (sb.double() - 127)
    else:
        sa = (torch.rand(M, K // 16, generator=g) * 3 + 0.25).to(torch.float8_e4m3fn)
        sb = (torch.rand(N, K // 16, generator=g) * 3 + 0.25).to(torch.float8_e4m3fn)
        sa_val, sb_val = sa.double(), sb.double()
    a_scaled = a_val if fa == "bf16" else a_val * sa_val.repeat_interleave(group, dim=1)
    b_scaled = b_val * sb_val.repeat_interleave(group, dim=1).T
    return a_dev, sa, b_dev, sb, a_scaled @ b_scaled


for fa, fb, group in (("e4m3", "e4m3", 32), ("e5m2", "e4m3", 32), ("e2m1", "e2m1", 32), ("e2m1", "e4m3", 32),
                      ("bf16", "e2m1", 32), ("e2m1", "e2m1", 16)):
    name = f"{'nv' if group == 16 else 'mx'}_{fa}_{fb}"

    @check(f"dot_scaled {name}: tl.dot_scaled over a K loop, ragged M and N, against the dequantized float64 product")
    def dot_scaled(mod, torch, fa=fa, fb=fb, group=group, name=name):
        for M, N, K in ((100, 80, 256), (64, 64, 64), (1, 16, 128)):
            a, sa, b, sb, want = mx_problem(torch, fa, fb, M, N, K, group)
            cuda = [x.cuda() for x in (a, sa, b, sb)]
            if fa == "e5m2":
                cuda[0] = cuda[0].view(torch.float8_e5m2)
            if fb == "e4m3" and fa == "e5m2":
                cuda[2] = cuda[2].view(torch.float8_e4m3fn)
            c = nan_like(torch, (M, N), torch.float32)
            if fa == "bf16":
                mod(name, cuda[0], cuda[2], cuda[3], c, M, N, K)
            else:
                mod(name, cuda[0], cuda[1], cuda[2], cuda[3], c, M, N, K)
            err = compare(torch, c, want, 1e-5, f"{M}x{N}x{K}: ")
            if err:
                return err
        return None


def attention_against_float64(mod, torch, causal):
    for Z, H, N in ((1, 2, 128), (2, 3, 384), (1, 1, 1024)):
        q, k, v = (torch.randn(Z, H, N, 64, device="cuda", dtype=torch.float16) for _ in range(3))
        out = nan_like(torch, (Z, H, N, 64), torch.float16)
        m = nan_like(torch, (Z * H * N,), torch.float32)
        scale = 64 ** -0.5
        mod("_attn_fwd", scale, m, Z, H, q.view(-1, 64), k.view(-1, 64), v.view(-1, 64), out.view(-1, 64), N)
        s = (q.double() @ k.double().transpose(-1, -2)) * scale
        if causal:
            s = s.masked_fill(torch.ones(N, N, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
        err = compare(torch, out, torch.softmax(s, -1) @ v.double(), 4e-3, f"Z{Z} H{H} N{N} Out: ")
        if err:
            return err
        want_m = torch.logsumexp(s, -1).reshape(-1) / torch.log(torch.tensor(2.0, dtype=torch.float64))
        err = compare(torch, m, want_m, 1e-3, f"Z{Z} H{H} N{N} M: ")
        if err:
            return err
    return None


@check("fused_attention f16: tutorial 06's forward over host descriptors, causal (STAGE 3: two loops), "
       "N_CTX a multiple of BLOCK_M as the tutorial needs, against float64 attention")
@check("fused_attention f16 warp-specialized: both causal loops walked by one producer warpgroup, its ring "
       "running on from one loop to the next", ["-Dwarp_specialize=True"])
def fused_attention_causal(mod, torch):
    return attention_against_float64(mod, torch, True)


@check("fused_attention f16 non-causal (STAGE 1)", ["-DSTAGE=1"])
@check("fused_attention f16 non-causal warp-specialized", ["-DSTAGE=1", "-Dwarp_specialize=True"])
def fused_attention_full(mod, torch):
    return attention_against_float64(mod, torch, False)
