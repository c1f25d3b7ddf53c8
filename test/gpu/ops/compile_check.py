"""make test's part of the op-family tests: every case's kernel compiled by
tkc (PTX, cubin when a toolkit is here, header) without a GPU. Prints a
FAIL line per case that does not compile, then "N passed, M failed"."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402
import regressions as R  # noqa: E402
import dot_cases  # noqa: E402,F401  (adds its cases to R.CASES)
import atomic_cases  # noqa: E402,F401  (adds its cases to R.CASES)

TKC = os.environ.get("TKC", "build/tkc")


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        sources = [(case[0], C.source(case)) for case in C.cases()] + [(name, src) for name, src, _ in R.CASES]
        for name, text in sources:
            src = Path(work) / "op.tk"
            src.write_text(text)
            r = subprocess.run([TKC, str(src), "-o", work], capture_output=True, text=True)
            if r.returncode == 0 and (Path(work) / "op.h").exists():
                passed += 1
            else:
                failed += 1
                print(f"FAIL op case '{name}': {r.stderr.strip()[:300]}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
