"""The regression and tl.dot GPU cases whose names contain PATTERN, each
built by tkc (TKC, TKC_ARCH as in run_ops.py) and run under
compute-sanitizer with each of memcheck, racecheck and synccheck (the
results are checked as in make gpu-test). Prints each tool's verdict and
"N passed, M failed" last. Usage, on the GPU machine:

    TKC=build/static/tkc python3 test/gpu/ops/sanitize.py "pipelined loop"
"""

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import regressions as R  # noqa: E402
import dot_cases  # noqa: E402,F401  (adds its cases to R.CASES)
import atomic_cases  # noqa: E402,F401  (adds its cases to R.CASES)
import run_ops  # noqa: E402

TOOLS = ("memcheck", "racecheck", "synccheck")


def main():
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    work = Path(tempfile.mkdtemp(prefix="tksan-"))
    rt = work / "tkrt.o"
    subprocess.run([run_ops.CC, "-O2", "-fPIC", "-std=c11", "-D_DEFAULT_SOURCE", "-c",
                    str(run_ops.ROOT / "runtime_stub" / "tkrt.c"), "-o", str(rt)], check=True)
    libs = []
    for i, (name, source, _) in enumerate(R.CASES):
        libs.append(str(run_ops.build(work, rt, f"case{i}", source)) if pattern in name else "-")
    chosen = sum(lib != "-" for lib in libs)
    passed = failed = 0
    child = [sys.executable, str(Path(R.__file__).resolve()), *libs]
    for tool in TOOLS:
        # API errors are not the kernels' (an sm_80 cubin refused by a newer
        # GPU, which the runtime answers by loading the PTX)
        r = subprocess.run(["compute-sanitizer", f"--tool={tool}", "--report-api-errors", "no",
                            "--error-exitcode=9", *child],
                           capture_output=True, text=True, timeout=1200)
        ok_cases = sum(1 for line in r.stdout.splitlines() if line.endswith(" ok"))
        summary = [line for line in (r.stdout + r.stderr).splitlines() if "ERROR SUMMARY" in line
                   or "RACECHECK SUMMARY" in line]
        good = r.returncode == 0 and ok_cases == chosen
        print(f"{'PASS' if good else 'FAIL'} {tool}: {ok_cases}/{chosen} cases ok, exit {r.returncode}; "
              f"{'; '.join(summary) or 'no summary'}")
        if not good:
            print((r.stdout + r.stderr)[-1500:])
        passed += good
        failed += not good
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
