"""make test's part of the differential tester: random programs from gen.py
compiled by tkc (full build: PTX, a cubin when a CUDA toolkit is here, the
header), no GPU and no Triton needed.

Needs: Python 3.11+ standard library, TKC (default build/tkc).
Environment: DIFFTEST_SEED (default 1), DIFFTEST_COMPILE_COUNT (default
800: about 50 s on 2 cores), DIFFTEST_TIMEOUT (seconds per tkc run, default 20), DIFFTEST_JOBS
(default 2), DIFFTEST_WEIGHTS (e.g. "atomic=30,store=2": gen.WEIGHTS
overrides), DIFFTEST_OUT (where failing programs go, default
build/difftest/failures).

Each tkc run must exit 0 within the time limit. A signal, exit status 3
(internal compiler error), a hang or any other nonzero status is a failure,
except status 1 with "not supported yet" in the message, which is counted
apart and listed (such refusals are fine but should be rare). Prints a FAIL
line per failure (seed, index, first error line), saves each failing
program, and ends with exactly "N passed, M failed".
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# tkc's refusals of valid programs: "tl.sort is not supported yet", "... is
# not supported by code generation yet"
UNSUPPORTED = re.compile(r"not supported( by [a-z ]+)? yet")


def first_error_line(text):
    for line in text.splitlines():
        if "error" in line or "internal" in line:
            return line.strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[0].strip() if lines else "(no message)"


def compile_tk(tkc, source, work, timeout):
    """Runs tkc on one program; returns (outcome, message) with outcome
    'ok', 'unsupported', 'ice' (status 3 or a signal), 'hang' or 'error'."""
    work.mkdir(parents=True, exist_ok=True)
    src = work / "k.tk"
    src.write_text(source)
    try:
        r = subprocess.run([tkc, str(src), "-o", str(work) + "/"], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", f"no exit within {timeout} s"
    msg = r.stderr + r.stdout
    if r.returncode == 0 and (work / "k.h").exists():
        return "ok", ""
    if r.returncode == 1 and UNSUPPORTED.search(msg):
        return "unsupported", first_error_line(msg)
    if r.returncode < 0:
        return "ice", f"killed by signal {-r.returncode}: {first_error_line(msg)}"
    if r.returncode == 3:
        return "ice", f"internal compiler error (status 3): {first_error_line(msg)}"
    return "error", f"status {r.returncode}: {first_error_line(msg)}"


def save_failure(out_dir, prog, outcome, message):
    d = Path(out_dir) / prog.name
    prog.save(d)
    (d / "failure.txt").write_text(f"{outcome}: {message}\n")
    return d


def main():
    tkc = os.environ.get("TKC", str(ROOT / "build" / "tkc"))
    seed = int(os.environ.get("DIFFTEST_SEED", "1"))
    count = int(os.environ.get("DIFFTEST_COMPILE_COUNT", "800"))
    timeout = float(os.environ.get("DIFFTEST_TIMEOUT", "20"))
    jobs = int(os.environ.get("DIFFTEST_JOBS", "2"))
    weights = gen.parse_weights(os.environ.get("DIFFTEST_WEIGHTS", ""))
    out_dir = os.environ.get("DIFFTEST_OUT", str(ROOT / "build" / "difftest" / "failures"))
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="tkdiff-") as tmp:
        def one(index):
            prog = gen.generate(seed, index, weights)
            outcome, msg = compile_tk(tkc, prog.tk_source(), Path(tmp) / str(index), timeout)
            return index, prog, outcome, msg

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, range(count)))
    passed = failed = 0
    unsupported = []
    for index, prog, outcome, msg in results:
        if outcome == "ok":
            passed += 1
        elif outcome == "unsupported":
            unsupported.append((index, msg))
        else:
            failed += 1
            where = save_failure(out_dir, prog, outcome, msg)
            print(f"FAIL difftest seed={seed} index={index}: {msg} ({where}/k.tk)")
    if unsupported:
        print(f"note: {len(unsupported)} programs refused as not supported yet:")
        for index, msg in unsupported:
            print(f"  seed={seed} index={index}: {msg}")
    print(f"difftest compile check: {count} programs of seed {seed} in {time.time() - start:.1f} s",
          file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
