"""Op-family GPU tests: every case of cases.py compiled by tkc into its own
folder, wrapped by the one shim (shim.c) and checked against torch on
random data with the output poisoned first. Prints a line per failure and
"N passed, M failed" last. Needs TKC (a tkc that runs here: the static
build on the GPU machine) and a C compiler. TKC_ARCH=sm_80 compiles for
that target instead of tkc's default (a newer GPU runs sm_80 code); the
cases tkc refuses there (fp8 needs sm_89) are counted as skipped.
OPS_MATCH=TEXT runs only the cases whose name contains TEXT (and none of
the special checks)."""

import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402
import regressions as R  # noqa: E402
import dot_cases  # noqa: E402,F401  (adds its cases to R.CASES)
import atomic_cases  # noqa: E402,F401  (adds its cases to R.CASES)

ROOT = Path(__file__).resolve().parents[3]
TKC = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
CC = os.environ.get("CC", "gcc")
ARCH = os.environ.get("TKC_ARCH")
ARCH_FLAGS = [f"--arch={ARCH}"] if ARCH else []
MATCH = os.environ.get("OPS_MATCH")
N = 1000


def rand(dtype, n, nonzero=False, gen=None):
    if dtype.is_floating_point:
        t = torch.randn(n, device="cuda", dtype=torch.float32, generator=gen)
        if nonzero:
            t = t.sign() * (t.abs() + 0.25)
        return t.to(dtype)
    lo, hi = (0, 200) if dtype == torch.uint8 else (-100, 100)
    t = torch.randint(lo, hi, (n,), device="cuda", generator=gen).to(dtype)
    if nonzero:
        t = torch.where(t == 0, torch.ones_like(t), t)
    return t


def poison(t):
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.fill_(0x55)


def main():
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    work = Path(tempfile.mkdtemp(prefix="tkops-"))
    rt = work / "tkrt.o"
    subprocess.run([CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c", str(ROOT / "runtime_stub" / "tkrt.c"),
                    "-o", str(rt)], check=True)
    passed = failed = skipped = 0
    stream = torch.cuda.current_stream().cuda_stream
    for i, case in enumerate(C.cases()):
        if MATCH and MATCH not in case[0]:
            continue
        try:
            ok = run_case(i, case, work, rt, gen, stream)
        except Exception as e:  # a broken case must not hide the others
            ok = False
            print(f"FAIL {case[0]}: {type(e).__name__}: {e}")
        if ok is None:
            skipped += 1
            continue
        passed += ok
        failed += not ok
    for name, check in SPECIAL:
        if MATCH:
            break
        try:
            ok = check(work, rt)
        except Exception as e:
            ok = False
            print(f"FAIL {name}: {type(e).__name__}: {e}")
        passed += ok
        failed += not ok
    p, f, s = R.run_all(build, work, rt)
    passed += p
    failed += f
    skipped += s
    notes = ([ARCH] if ARCH else []) + ([f"cases matching {MATCH!r}"] if MATCH else [])
    notes += [f"{skipped} skipped: fp8 needs sm_89"] if skipped else []
    target = f" ({'; '.join(notes)})" if notes else ""
    print(f"op families{target}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def build(work, rt, tag, source, *flags):
    """Compiles source into work/tag with the shared shim; the library path."""
    d = work / tag
    d.mkdir()
    (d / "op.tk").write_text(source)
    subprocess.run([TKC, *ARCH_FLAGS, *flags, str(d / "op.tk"), "-o", str(d)], check=True, capture_output=True)
    lib = d / "libop.so"
    subprocess.run([CC, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-DTKC_IMPLEMENTATION", "-include", str(d / "op.h"),
                    f"-I{ROOT / 'runtime_stub'}", str(ROOT / "test" / "gpu" / "ops" / "shim.c"), str(rt),
                    "-o", str(lib), "-ldl", "-lpthread"], check=True, capture_output=True)
    return lib


# Launches a shim's op once in a fresh process (device printf and a failed
# assert both need one) and prints what the launch and the sync returned.
LAUNCH = '''
import ctypes, sys, torch
lib = ctypes.CDLL(sys.argv[1])
lib.tkshim_op.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32]
x = torch.arange(1, 5, device="cuda", dtype=torch.float32)
s = lib.tkshim_op(None, x.data_ptr(), x.data_ptr(), x.data_ptr(), 7)
try:
    torch.cuda.synchronize()
    print("sync ok", s, flush=True)
except RuntimeError as e:
    print("sync failed", s, str(e).splitlines()[0], flush=True)
'''

PRINT_SRC = """
@kernel(grid=(2,), num_warps=1)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 4)
    tl.device_print("v", tl.load(x + offs))
    print("n", n)
"""

ASSERT_SRC = """
@kernel(grid=(1,), num_warps=1)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.arange(0, 4)
    tl.device_assert(tl.load(x + offs) < 3.0, "too large for this kernel")
"""


def check_print(work, rt):
    lib = build(work, rt, "print", PRINT_SRC)
    r = subprocess.run([sys.executable, "-c", LAUNCH, str(lib)], capture_output=True, text=True, timeout=120)
    lines = set(r.stdout.splitlines())
    want = {f"v pid ({p}, 0, 0) idx ({i}) {i + 1:.6f}" for p in range(2) for i in range(4)}
    want |= {f"n pid ({p}, 0, 0) 7" for p in range(2)}
    missing = want - lines
    if missing or "sync ok 0" not in lines:
        print(f"FAIL device_print: missing {sorted(missing)[:3]}; got {r.stdout[:300]!r} {r.stderr[-300:]!r}")
        return False
    return True


def check_assert(work, rt):
    ok = True
    lib = build(work, rt, "assert", ASSERT_SRC, "--debug")
    r = subprocess.run([sys.executable, "-c", LAUNCH, str(lib)], capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    if "sync failed 0" not in out or "too large for this kernel" not in out or "op.tk" not in out:
        print(f"FAIL device_assert under --debug: {out[-400:]!r}")
        ok = False
    lib = build(work, rt, "assert_off", ASSERT_SRC)
    r = subprocess.run([sys.executable, "-c", LAUNCH, str(lib)], capture_output=True, text=True, timeout=120)
    if "sync ok 0" not in r.stdout:
        print(f"FAIL device_assert without --debug should not check: {(r.stdout + r.stderr)[-300:]!r}")
        ok = False
    return ok


RANDOM_SRC = """
@kernel(grid=(cdiv(n, 256),), num_warps=4)
def op(x: *f32 % 16, y: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    m = offs < n
    tl.store(out + offs, tl.{fn}(1234, offs + 7), mask=m)
"""


def check_random(work, rt):
    """tl.rand, tl.randn and tl.randint against Triton's own on the same seed and offsets."""
    import triton
    import triton.language as tl

    @triton.jit
    def ref_kernel(out, n, FN: tl.constexpr):
        offs = tl.program_id(0) * 256 + tl.arange(0, 256)
        m = offs < n
        if FN == 0:
            v = tl.rand(1234, offs + 7)
        elif FN == 1:
            v = tl.randn(1234, offs + 7)
        elif FN == 2:
            v = tl.randint(1234, offs + 7).to(tl.int32, bitcast=True).to(tl.float32)
        elif FN == 3:
            a, b, c, d = tl.randint4x(1234, offs + 7)
            v = (a ^ (b >> 1) ^ (c >> 2) ^ (d >> 3)).to(tl.int32, bitcast=True).to(tl.float32)
        elif FN == 4:
            a, b, c, d = tl.rand4x(1234, offs + 7)
            v = a - b * 2.0 + c * 4.0 - d * 8.0
        else:
            a, b, c, d = tl.randn4x(1234, offs + 7)
            v = a - b * 2.0 + c * 4.0 - d * 8.0
        tl.store(out + offs, v, mask=m)

    four = {
        "randint4x": "a, b, c, d = tl.randint4x(1234, offs + 7)\n"
                     "    v = (a ^ (b >> 1) ^ (c >> 2) ^ (d >> 3)).to(tl.int32, bitcast=True).to(tl.float32)",
        "rand4x": "a, b, c, d = tl.rand4x(1234, offs + 7)\n    v = a - b * 2.0 + c * 4.0 - d * 8.0",
        "randn4x": "a, b, c, d = tl.randn4x(1234, offs + 7)\n    v = a - b * 2.0 + c * 4.0 - d * 8.0",
    }
    ok = True
    n = N
    for i, fn in enumerate(["rand", "randn", "randint", "randint4x", "rand4x", "randn4x"]):
        src = RANDOM_SRC.replace("{fn}", fn)
        if fn == "randint":
            src = src.replace("tl.randint(1234, offs + 7)", "tl.randint(1234, offs + 7).to(tl.int32, bitcast=True).to(tl.float32)")
        if fn in four:
            src = src.replace(f"tl.store(out + offs, tl.{fn}(1234, offs + 7), mask=m)",
                              four[fn] + "\n    tl.store(out + offs, v, mask=m)")
        lib = build(work, rt, f"random_{fn}", src)
        so = ctypes.CDLL(str(lib))
        so.tkshim_op.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32]
        out = torch.full((n,), float("nan"), device="cuda")
        dummy = torch.zeros(16, device="cuda")
        status = so.tkshim_op(None, dummy.data_ptr(), dummy.data_ptr(), out.data_ptr(), n)
        ref = torch.empty(n, device="cuda")
        ref_kernel[(triton.cdiv(n, 256),)](ref, n, FN=i)
        torch.cuda.synchronize()
        err = ((out.double() - ref.double()).norm() / ref.double().norm()).item()
        tol = 0 if fn in ("rand", "randint", "randint4x") else 1e-5
        if status != 0 or not err <= tol:
            print(f"FAIL tl.{fn} against Triton's: status {status}, rel.err {err:.2e}")
            ok = False
    return ok


def check_many_kernels(work, rt):
    """400 kernels of one file (800 entries with their % 16 variants): tkc
    hands ptxas the module in pieces and links them with nvlink; kernels
    from the first, middle and last pieces run and compute the right thing."""
    d = work / "many"
    d.mkdir()
    src = "".join(f"""
@kernel(grid=(cdiv(n, 128),), num_warps=4)
def k{i}(x: *f32 % 16, out: *f32 % 16, n: i32):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    tl.store(out + offs, tl.load(x + offs, mask=offs < n) * {i}.0 + 1.0, mask=offs < n)
""" for i in range(400))
    (d / "many.tk").write_text(src)
    subprocess.run([TKC, *ARCH_FLAGS, str(d / "many.tk"), "-o", str(d)], check=True, capture_output=True)
    picks = [0, 1, 150, 255, 256, 399]
    shim = '#define TKC_IMPLEMENTATION\n#include "many.h"\n__attribute__((visibility("default"))) int run_k(int w, void *s, void *x, void *o, int n) {\n'
    shim += "    switch (w) {\n" + "".join(f"    case {i}: return (int)k{i}(s, x, o, n);\n" for i in picks)
    shim += "    default: return -1;\n    }\n}\n"
    (d / "shim.c").write_text(shim)
    lib = d / "libmany.so"
    subprocess.run([CC, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", f"-I{d}", f"-I{ROOT / 'runtime_stub'}",
                    str(d / "shim.c"), str(rt), "-o", str(lib), "-ldl", "-lpthread"], check=True, capture_output=True)
    so = ctypes.CDLL(str(lib))
    so.run_k.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    n = 1000
    x = torch.randn(n + 24, device="cuda")
    ok = True
    for i in picks:
        out = torch.full((n,), float("nan"), device="cuda")
        status = so.run_k(i, None, x.data_ptr(), out.data_ptr(), n)
        torch.cuda.synchronize()
        ref = x[:n].double() * i + 1.0
        if status != 0 or not ((out.double() - ref).abs().max() <= 1e-6 * ref.abs().max()):
            print(f"FAIL 400 kernels in one file: k{i} gave status {status} or wrong values")
            ok = False
    return ok


SPECIAL = [("device_print", check_print), ("device_assert", check_assert), ("random", check_random),
           ("many kernels", check_many_kernels)]


def run_case(i, case, work, rt, gen, stream):
    """Compiles, runs and checks one case; True when it passes, None when
    tkc refuses it for the target (TKC_ARCH)."""
    name, tmpl, tx, ty, to, expr, ref, kind = case
    d = work / f"c{i}"
    d.mkdir()
    (d / "op.tk").write_text(C.source(case))
    r = subprocess.run([TKC, *ARCH_FLAGS, str(d / "op.tk"), "-o", str(d)], capture_output=True, text=True)
    if r.returncode == 1 and ARCH and "needs sm_89 or newer" in r.stderr:
        return None
    if r.returncode != 0:
        print(f"FAIL {name}: tkc: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else r.returncode}")
        return False
    lib = d / "libop.so"
    r = subprocess.run([CC, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-DTKC_IMPLEMENTATION", "-include", str(d / "op.h"),
                        f"-I{ROOT / 'runtime_stub'}", str(ROOT / "test" / "gpu" / "ops" / "shim.c"), str(rt),
                        "-o", str(lib), "-ldl", "-lpthread"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {name}: shim: {r.stderr.strip()[:300]}")
        return False
    so = ctypes.CDLL(str(lib))
    so.tkshim_op.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int32]
    so.tkshim_status_string.restype = ctypes.c_char_p
    dx, dy, do = C.dtype(tx), C.dtype(ty), C.dtype(to)
    n = {"reduce": 2048, "big": 32768, "bigblock": 8192}.get(kind, N)
    x = rand(dx, max(n, 2048), gen=gen)
    y = rand(dy, max(n, 2048), nonzero=(kind == "nonzero_b"), gen=gen)
    if kind == "atomic":
        out = torch.empty(8, device="cuda", dtype=do)
        init = {"add": 0, "max": -1e30 if do.is_floating_point else -2**31,
                "min": 1e30 if do.is_floating_point else 2**31 - 1}[name.split()[0].split("_")[1]]
        out.fill_(init)
    elif kind in ("reduce", "big", "bigblock"):
        out = torch.empty(n, device="cuda", dtype=do)
        poison(out)
    else:
        out = torch.empty(n, device="cuda", dtype=do)
        poison(out)
    status = so.tkshim_op(stream, x.data_ptr(), None if kind == "y_null" else y.data_ptr(), out.data_ptr(), n)
    torch.cuda.synchronize()
    if status != 0:
        print(f"FAIL {name}: status {status}: {so.tkshim_status_string(status).decode()}")
        return False
    if kind == "atomic":
        expect = ref(x[:n], y[:n])
        expect = torch.maximum(expect, out.new_full((8,), init)) if "max" in name else \
            torch.minimum(expect, out.new_full((8,), init)) if "min" in name else expect + init
        got = out
    elif kind in ("reduce", "big", "bigblock"):
        expect = ref(x, y).reshape(-1)
        got = out[:expect.numel()]
    else:
        expect = ref(x[:n], y[:n])
        got = out
    expect = expect.to(do)
    if kind == "nan":
        # NaN exactly where the reference has one (the poison is NaN too,
        # so every element must also match where it is a number)
        g, e = got.double(), expect.double()
        same_nan = torch.equal(torch.isnan(g), torch.isnan(e))
        num = ~torch.isnan(e)
        ok = same_nan and torch.equal(g[num], e[num])
        if not ok:
            print(f"FAIL {name}: NaN in {int(torch.isnan(g).sum())} elements, expected {int(torch.isnan(e).sum())}")
        return ok
    if kind == "exact":
        # every element as the reference's, infinities included
        bad = (got.double() != expect.double()).sum().item()
        if bad:
            print(f"FAIL {name}: {bad} of {got.numel()} elements differ")
        return bad == 0
    if do.is_floating_point:
        g, e = got.double(), expect.double()
        if torch.isnan(g).any() and not torch.isnan(e).any():
            print(f"FAIL {name}: NaN left in the output (unwritten or wrong)")
            return False
        tol = 1e-3 if do in (torch.float16, torch.bfloat16) else 1e-5 if kind in ("approx", "reduce", "atomic") else 2e-6
        err = ((g - e).norm() / e.norm().clamp_min(1e-30)).item()
        ok = err <= tol
        detail = f"rel.err {err:.2e} > {tol:.0e}"
    else:
        bad = (got != expect).sum().item()
        ok = bad == 0
        detail = f"{bad} of {got.numel()} elements differ"
    if not ok:
        print(f"FAIL {name}: {detail}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
