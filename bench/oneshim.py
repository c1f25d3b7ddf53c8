"""The build steps bench scripts share for a one-file .tk kernel called
through ctypes: the runtime compiled once into WORK/tkrt.o, and a folder's
k.h (what tkc wrote) wrapped by a C shim and linked into libk.so."""
import ctypes
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def runtime_object(work):
    rt = work / "tkrt.o"
    if not rt.exists():
        subprocess.run(["gcc", "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c",
                        str(ROOT / "runtime_stub" / "tkrt.c"), "-o", str(rt)], check=True)
    return rt


def shim_library(d, shim_source, rt):
    (d / "shim.c").write_text(shim_source)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-DTKC_IMPLEMENTATION", "-include",
                    str(d / "k.h"), f"-I{ROOT / 'runtime_stub'}", str(d / "shim.c"), str(rt),
                    "-o", str(d / "libk.so"), "-ldl", "-lpthread"], check=True)
    return ctypes.CDLL(str(d / "libk.so"))
