"""Kernels written the way Liger, FlagGems, vLLM and Triton's tutorials
write them (test/gpu/ports/*.tk), each checked on the GPU against torch:
random sizes that are no multiple of the blocks, outputs poisoned first,
every dtype instance, optional pointers given and None, unit and other
strides launched through one header. Part of `make gpu-test`; prints a
FAIL line per failure and "N passed, M failed" last.

Each .tk is compiled by tkc (TKC, the static build on the GPU machine);
its header's launchers are wrapped by a shim generated from their C
signatures (no hand-written shim per kernel), called through ctypes.
PORTS_MATCH=TEXT runs only the checks whose name contains TEXT;
--compile-only (make test, no GPU or torch needed) only compiles every port
and builds its generated shim."""

import ctypes
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TKC = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
CC = os.environ.get("CC", "gcc")
ARCH = os.environ.get("TKC_ARCH")
MATCH = os.environ.get("PORTS_MATCH")

LAUNCHER = re.compile(r"^static inline tk_status (\w+)\(tk_stream stream((?:, [^,)]+)*)\) \{$")
CTYPES = {"int8_t": "c_int8", "int16_t": "c_int16", "int32_t": "c_int32", "int64_t": "c_int64",
          "uint8_t": "c_uint8", "uint16_t": "c_uint16", "uint32_t": "c_uint32", "uint64_t": "c_uint64",
          "float": "c_float", "double": "c_double", "bool": "c_bool"}


def launchers(header):
    """{name: [(C type, parameter name)]} of a generated header's launchers."""
    out = {}
    for line in header.read_text().splitlines():
        m = LAUNCHER.match(line)
        if not m:
            continue
        params = []
        for p in filter(None, m.group(2).split(", ")):
            ctype, name = p.rsplit(None, 1) if "*" not in p else (p[:p.rindex("*") + 1], p[p.rindex("*") + 1:])
            params.append((ctype.strip(), name.strip()))
        out[m.group(1)] = params
    return out


def launcher_library(d, header, kernel, rt):
    """One launcher of the generated header d/header as a C library built
    in d: (lib, [(C type, name)]), lib.run(stream, *args) (a tk_tensor by
    its address, a pointer as an integer) returning the tk_status, and
    lib.status(s) its message."""
    params = launchers(d / header)[kernel]
    decl = ", ".join(["void *s"] + [f"const tk_tensor *{n}" if t == "tk_tensor" else f"{t} {n}" for t, n in params])
    call = ", ".join(["(tk_stream)s"] + [f"*{n}" if t == "tk_tensor" else n for t, n in params])
    (d / "shim.c").write_text(f'#define TKC_IMPLEMENTATION\n#include "{header}"\n'
                              f'__attribute__((visibility("default"))) int run({decl}) {{ return (int){kernel}({call}); }}\n'
                              '__attribute__((visibility("default"))) const char *status(int s) '
                              '{ return tkrt_status_string((tk_status)s); }\n')
    subprocess.run([CC, "-O2", "-shared", "-fPIC", "-fvisibility=hidden", f"-I{d}", f"-I{ROOT / 'runtime_stub'}",
                    str(d / "shim.c"), str(rt), "-o", str(d / "lib.so"), "-ldl", "-lpthread"], check=True)
    lib = ctypes.CDLL(str(d / "lib.so"))
    lib.run.argtypes = [ctypes.c_void_p] + [ctypes.POINTER(TkTensor) if t == "tk_tensor" else
                                            ctypes.c_void_p if "*" in t else getattr(ctypes, CTYPES[t])
                                            for t, _ in params]
    lib.status.restype = ctypes.c_char_p
    return lib, params


def runtime_object(work):
    """runtime_stub/tkrt.c compiled once into work/tkrt.o, for launcher_library"""
    rt = Path(work) / "tkrt.o"
    subprocess.run([CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c", str(ROOT / "runtime_stub" / "tkrt.c"),
                    "-o", str(rt)], check=True)
    return rt


def build_launcher(work, rt, src, kernel, defs, arch="sm_90a"):
    """src compiled by tkc (--arch, -D defs) into a new folder of work and
    its launcher `kernel` as launcher_library gives it; None, with tkc's
    first error printed, where it does not build (a config a target
    refuses); tkc's warnings printed"""
    d = Path(work) / f"k{len(list(Path(work).iterdir()))}"
    d.mkdir()
    r = subprocess.run([TKC, f"--arch={arch}", *defs, str(src), "-o", str(d)], capture_output=True, text=True)
    if r.returncode:
        print(f"  tkc {arch} {' '.join(defs)}: does not build: {(r.stderr.splitlines() or [''])[0][:200]}")
        return None
    if r.stderr:
        print(f"  tkc {arch} {' '.join(defs)}: {r.stderr.strip()[:300]}")
    return launcher_library(d, next(d.glob("*.h")).name, kernel, rt)


class TkTensor(ctypes.Structure):
    """runtime_stub's tk_tensor: what a launcher takes for a descriptor parameter"""
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_longlong * 5), ("strides", ctypes.c_longlong * 5)]


def tk_tensor(t):
    """a torch tensor as a tk_tensor (data, shape, strides in elements)"""
    shape = list(t.shape) + [0] * (5 - t.dim())
    strides = list(t.stride()) + [0] * (5 - t.dim())
    return TkTensor(t.data_ptr(), (ctypes.c_longlong * 5)(*shape), (ctypes.c_longlong * 5)(*strides))


class Module:
    """A compiled port: every launcher of its header as a Python function
    taking torch tensors (their data_ptr) and numbers, returning tk_status."""

    def __init__(self, name, work, rt, defines=()):
        d = work / (name + "".join(defines).replace("=", "_").replace("-D", "_"))
        d.mkdir(parents=True, exist_ok=True)
        flags = ([f"--arch={ARCH}"] if ARCH else []) + list(defines)
        r = subprocess.run([TKC, *flags, str(HERE / f"{name}.tk"), "-o", str(d)], capture_output=True, text=True)
        if r.returncode or r.stderr:  # a port compiles without a warning
            raise RuntimeError(f"tkc: {r.stderr[:400]}")
        self.sigs = launchers(d / f"{name}.h")
        shim = [f'#define TKC_IMPLEMENTATION\n#include "{name}.h"\n']
        for k, params in self.sigs.items():
            # a tk_tensor (a descriptor parameter) by its address
            decl = ", ".join(["void *tk_stream_arg"] + [f"const tk_tensor *{n}" if t == "tk_tensor" else f"{t} {n}"
                                                         for t, n in params])
            call = ", ".join(["(tk_stream)tk_stream_arg"] + [f"*{n}" if t == "tk_tensor" else n for t, n in params])
            shim.append(f'__attribute__((visibility("default"))) int tkport_{k}({decl}) {{ return (int){k}({call}); }}\n')
        shim.append('__attribute__((visibility("default"))) const char *tkport_status(int s) '
                    '{ return tkrt_status_string((tk_status)s); }\n')
        (d / "shim.c").write_text("".join(shim))
        lib = d / "libport.so"
        subprocess.run([CC, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", f"-I{d}", f"-I{ROOT / 'runtime_stub'}",
                        str(d / "shim.c"), str(rt), "-o", str(lib), "-ldl", "-lpthread"], check=True, capture_output=True)
        self.lib = ctypes.CDLL(str(lib))
        self.lib.tkport_status.restype = ctypes.c_char_p
        for k, params in self.sigs.items():
            f = getattr(self.lib, f"tkport_{k}")
            f.argtypes = [ctypes.c_void_p] + [ctypes.POINTER(TkTensor) if t == "tk_tensor" else
                                              ctypes.c_void_p if "*" in t else getattr(ctypes, CTYPES[t])
                                              for t, _ in params]
            f.restype = ctypes.c_int

    def __call__(self, kernel, *args):
        import torch
        f = getattr(self.lib, f"tkport_{kernel}")
        stream = torch.cuda.current_stream().cuda_stream
        kinds = [t for t, _ in self.sigs[kernel]]
        c_args = [ctypes.byref(tk_tensor(a)) if k == "tk_tensor" else a.data_ptr() if isinstance(a, torch.Tensor)
                  else a for a, k in zip(args, kinds)]
        s = f(stream, *c_args)
        if s != 0:
            raise RuntimeError(f"{kernel}: {self.lib.tkport_status(s).decode()}")
        torch.cuda.synchronize()


CHECKS = []


def check(name, defines=()):
    """A check of the port its name starts with, built with -D `defines`."""
    def add(fn):
        CHECKS.append((name, fn, tuple(defines)))
        return fn
    return add


def compile_only(work, rt):
    """make test's part, without a GPU or torch: every port compiled, its
    shim generated and built, each launcher found in the library."""
    passed = failed = 0
    for src in sorted(HERE.glob("*.tk")):
        try:
            m = Module(src.stem, work, rt)
            if not m.sigs:
                raise RuntimeError("no launcher found in the header")
            passed += 1
        except Exception as e:
            print(f"FAIL port {src.name}: {type(e).__name__}: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    work = Path(tempfile.mkdtemp(prefix="tkports-"))
    rt = work / "tkrt.o"
    subprocess.run([CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c", str(ROOT / "runtime_stub" / "tkrt.c"),
                    "-o", str(rt)], check=True)
    if sys.argv[1:] == ["--compile-only"]:
        return compile_only(work, rt)
    import torch
    import checks  # noqa: F401  (fills CHECKS)
    modules = {}
    passed = failed = skipped = 0
    for name, fn, defines in CHECKS:
        if MATCH and MATCH not in name:
            continue
        port = name.split(" ")[0]
        try:
            if (port, defines) not in modules:
                modules[port, defines] = Module(port, work, rt, defines)
            torch.manual_seed(0)
            err = fn(modules[port, defines], torch)
        except Exception as e:  # a broken check must not hide the others
            err = f"{type(e).__name__}: {e}"
            # a port with fp8 instances is not built for an older TKC_ARCH
            if ARCH and "needs sm_89 or newer" in err:
                skipped += 1
                continue
        if err:
            print(f"FAIL {name}: {err}")
            failed += 1
        else:
            passed += 1
    notes = f" ({skipped} skipped: fp8 needs sm_89)" if skipped else ""
    print(f"ports{' (' + ARCH + ')' if ARCH else ''}: {passed} passed, {failed} failed{notes}")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.modules.setdefault("run_ports", sys.modules[__name__])
    sys.exit(main())
