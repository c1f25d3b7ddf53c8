# difftest program seed=1 index=1186 (Triton side)
import triton
import triton.language as tl


@triton.jit
def f26(p0, p1):
    v27 = p1.min(axis=-1)
    v28 = p1.to(tl.float16)
    return v28

@triton.jit
def k(a, b, c, out, out2, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    ibase = pid * BLOCK
    v1 = tl.load(a + ibase + (tl.arange(0, 32)) + 202, mask=(ibase + (tl.arange(0, 32)) + 202 < n), other=7)
    v2 = tl.sum(v1, axis=0, keep_dims=True)
    v3 = tl.exp2(pid.to(tl.float32))
    v4 = tl.sigmoid(v3)
    m6 = v3
    if pid % 2 == 0:
        v5 = v2.to(tl.float16)
        tl.store(out2 + pid * 1100 + 0 + (tl.arange(0, 1)), v5)
        m6 = v4
    v7 = v4.to(tl.float32)
    v8 = tl.erf(v2.to(tl.float32))
    v9 = tl.cumprod(v1 % 2, axis=0)
    if pid != 0:
        v10 = tl.load(c + ibase + 903)
        v11 = m6 + v4
        v12 = tl.sum(v8)
        v13 = tl.load(a + ibase + (tl.arange(0, 32)[:, None] + tl.arange(0, 32)[None, :] * 32))
        tl.store(out + pid * 7 + 0, v11)
        tl.store(out + pid * 7 + 1, v12, mask=pid < 1)
        tl.store(out2 + pid * 1100 + 1 + tl.trans((tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])), v13)
        m20 = v8
    else:
        nit14 = n % 3 + 1
        acc16 = v8
        for i15 in range(0, nit14):
            v17 = tl.broadcast_to(v8, (16,))
            v18 = tl.sqrt(tl.abs(v9.to(tl.float32)))
            v19 = tl.cumprod(v9 % 2, axis=0)
            acc16 = tl.maximum(acc16, m6)
        tl.store(out + pid * 7 + 2 + (tl.arange(0, 1)), acc16)
        m20 = v8
    old21 = tl.atomic_cas(out + 21 + 0 + pid * 1 + (tl.arange(0, 1)), tl.full((1,), 1, tl.bfloat16), v2.to(tl.bfloat16), sem="release")
    v22 = tl.join(old21, old21)
    v23 = tl.interleave(v8, v8)
    v24 = tl.interleave(v23, m20)
    v25 = tl.interleave(v9, v9)
    v29 = f26(v3, v8)
    v30 = tl.load(c + ibase + (tl.arange(0, 32)), mask=(ibase + (tl.arange(0, 32)) < n), other=7)
    v31 = tl.argmax(v30, axis=-1)
    v32 = v31 << (v31 & 1)
    v33 = tl.rsqrt(tl.abs(v23) + 1.0)
    v34 = tl.join(old21, old21)
    v35, v36 = tl.split(v34)
    tl.store(out2 + pid * 1100 + 1025 + tl.trans((tl.arange(0, 2)[:, None] + tl.arange(0, 1)[None, :])), v22, mask=ibase + tl.trans((tl.arange(0, 2)[:, None] + tl.arange(0, 1)[None, :])) < n)
    tl.store(out2 + pid * 1100 + 1027 + (tl.arange(0, 4)), v24)
    tl.store(out2 + pid * 1100 + 1031 + (tl.arange(0, 64)), v25, mask=ibase + (tl.arange(0, 64)) < n)


GRID = (3,)
NUM_WARPS = 1
BLOCK = 1024
N = 2201
