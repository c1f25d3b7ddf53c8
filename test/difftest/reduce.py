"""Shrinks a failing difftest program while its failure persists.

Needs: Python 3.11+ standard library; tkc (TKC or --tkc) for compile
crashes. Two ways in:

* a program from gen.py (its statement tree): `reduce_program(prog, oracle)`
  tries, greedily and within a budget of oracle calls, to delete statements
  (a deleted definition becomes a constant of its dtype and shape, or
  disappears when nothing reads it), to take a simpler right-hand side of
  the same type, to inline the body of an `if` or a `for`, and fewer warps.
  run_gpu.py uses it with an oracle that recompiles and reruns both sides,
  so "the same failure" is the same kind (still differs, still crashes tkc
  with the same status);
* a `.tk` file that makes tkc crash (a signal) or exit 3:

      python3 test/difftest/reduce.py --crash FILE.tk [--tkc PATH]

  shrinks the text (a statement and its block at a time, `if`/`for` bodies
  inlined, right-hand sides replaced by their arguments) while tkc still
  fails the same way (same status, same first message line with positions
  left out), and writes FILE.min.tk. No GPU needed.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def default_tkc():
    for p in (ROOT / "build" / "static" / "tkc", ROOT / "build" / "tkc"):
        if p.exists():
            return str(p)
    return "tkc"

# ---------------------------------------------------------------------------
# tkc crash signature (shared with run_gpu.py)


def tkc_signature(tkc, source, timeout=20.0):
    """Compiles source; returns None when tkc succeeds, else a signature of
    the failure: (kind, status, first message line without positions), kind
    'ice' (status 3 or a signal), 'hang', 'unsupported' or 'error'."""
    with tempfile.TemporaryDirectory(prefix="tkred-") as tmp:
        src = Path(tmp) / "k.tk"
        src.write_text(source)
        try:
            r = subprocess.run([tkc, str(src), "-o", tmp + "/"], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("hang", None, "")
        if r.returncode == 0:
            return None
        msg = (r.stderr + r.stdout).strip().splitlines()
        first = next((ln for ln in msg if "error" in ln or "internal" in ln), msg[0] if msg else "")
        first = re.sub(r"\S*\.tk:\d+:\d+:?\s*", "", first)
        first = re.sub(r"0x[0-9a-f]+|\d+", "#", first)
        kind = ("ice" if r.returncode == 3 or r.returncode < 0 else
                "unsupported" if re.search(r"not supported( by [a-z ]+)? yet", "\n".join(msg)) else "error")
        return (kind, r.returncode, first.strip())

# ---------------------------------------------------------------------------
# the statement-tree reducer


def _names(text):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _all_lists(stmts):
    """Every statement list of the tree (bodies of if/for included)."""
    yield stmts
    for s in stmts:
        if s.kind in ("if", "for"):
            yield from _all_lists(s.body)
            yield from _all_lists(s.orelse)


def _used_names(prog):
    text = prog.tk_source()
    counts = {}
    for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        counts[name] = counts.get(name, 0) + 1
    return counts


def _candidates(prog):
    """Simpler variants of prog, the biggest simplifications first."""
    lists = list(_all_lists(prog.body))
    for li, stmts in enumerate(lists):
        for si in range(len(stmts) - 1, -1, -1):
            s = stmts[si]
            if s.kind in ("if", "for"):
                yield ("inline", li, si)
            if not s.deletable:
                continue
            yield ("delete", li, si)
            for ai in range(len(s.alts)):
                yield ("alt", li, si, ai)
    if prog.num_warps > 1:
        yield ("warps",)


def _apply(prog, cand):
    """prog with one candidate change applied (a copy), or None when it does not apply."""
    p = copy.deepcopy(prog)
    if cand[0] == "warps":
        p.num_warps //= 2
        return p
    lists = list(_all_lists(p.body))
    li, si = cand[1], cand[2]
    if li >= len(lists) or si >= len(lists[li]):
        return None
    stmts = lists[li]
    s = stmts[si]
    if cand[0] == "alt":
        s.text = s.alts[cand[3]]
        s.alts = []
        return p
    if cand[0] == "inline":
        if s.kind == "if":
            stmts[si:si + 1] = s.body or s.orelse
        else:
            var = s.text.split()[1]
            zero = gen.Value(var, "i32", (), 0, 0)
            stmts[si:si + 1] = [gen.Stmt("assign", "pid * 0", [zero], deletable=False)] + s.body
        return p
    # delete
    if s.kind in ("effect", "if", "for"):
        del stmts[si]
        return p
    used = _used_names(p)
    if all(used.get(t.name, 0) <= 1 for t in s.targets):
        del stmts[si]
        return p
    if len(s.targets) == 1:
        const = gen.const_of(s.targets[0])
        if s.text == const:
            return None
        s.text = const
        s.alts = []
        return p
    t = s.targets[0]
    s.text = f"tl.split(tl.full({gen.shape_text(t.shape + (2,))}, 1, {t.d.tl}))"
    return p


def reduce_program(prog, still_fails, budget=200, log=None):
    """Greedy reduction: applies every candidate change that keeps
    still_fails(prog) true, until a whole pass changes nothing or budget
    oracle calls are spent. Returns the smallest failing program found."""
    calls = 0
    changed = True
    while changed and calls < budget:
        changed = False
        for cand in list(_candidates(prog)):
            if calls >= budget:
                break
            smaller = _apply(prog, cand)
            if smaller is None:
                continue
            calls += 1
            if still_fails(smaller):
                prog = smaller
                changed = True
                if log:
                    log(f"  reduced ({cand[0]}): {len(prog.tk_source().splitlines())} lines")
                break       # indices moved: enumerate the candidates again
    return prog

# ---------------------------------------------------------------------------
# the text reducer (for a .tk file that crashes tkc)


def _blocks(lines, start, end, indent):
    """(first, last) line ranges of the statements at `indent` in lines[start:end]."""
    out = []
    i = start
    while i < end:
        ln = lines[i]
        if not ln.strip() or _indent(ln) != indent:
            i += 1
            continue
        j = i + 1
        while j < end and (not lines[j].strip() or _indent(lines[j]) > indent):
            j += 1
        out.append((i, j))
        i = j
    return out


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _text_candidates(lines):
    """Variants of the program text, big deletions first."""
    n = len(lines)
    blocks_by_indent = {}
    for i, ln in enumerate(lines):
        if ln.strip() and not ln.lstrip().startswith(("#", "@", "def ")):
            blocks_by_indent.setdefault(_indent(ln), None)
    stmts = []
    for ind in sorted(blocks_by_indent):
        if ind == 0:
            continue
        stmts += _blocks(lines, 0, n, ind)
    stmts.sort(key=lambda b: -(b[1] - b[0]))
    for a, b in stmts:
        head = lines[a].strip()
        if head.startswith("def ") or head.startswith("return"):
            continue
        yield lines[:a] + lines[b:]
        ind = _indent(lines[a])
        if head.startswith(("if ", "else:", "for ")) and b > a + 1:
            body = [ln[4:] if ln.startswith(" " * (ind + 4)) else ln for ln in lines[a + 1:b]]
            if head.startswith("for "):
                var = head.split()[1]
                body = [" " * ind + f"{var} = 0"] + body
            if head.startswith("else:"):
                continue
            yield lines[:a] + body + lines[b:]
        m = re.match(r"(\s*)([A-Za-z_][A-Za-z0-9_, ]*) = (.+)$", lines[a])
        if m and b == a + 1:
            for arg in _call_args(m.group(3)):
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.T)?", arg) or arg.startswith("tl."):
                    yield lines[:a] + [f"{m.group(1)}{m.group(2)} = {arg}"] + lines[b:]


def _call_args(expr):
    """Top-level arguments of a call or operands of a binary expression."""
    out, depth, cur = [], 0, ""
    inner = expr
    m = re.match(r"^[A-Za-z_.]+\((.*)\)$", expr)
    if m:
        inner = m.group(1)
    for ch in inner:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if depth == 0 and ch == ",":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    parts = []
    for a in out:
        if "=" in a.split("(")[0]:
            continue
        parts += [a] + [p.strip() for p in re.split(r" [-+*/%&|^<>]=? ", a) if p.strip()]
    return [p for p in dict.fromkeys(parts) if p != expr]


def reduce_text(source, still_fails, budget=3000, log=None):
    lines = source.splitlines()
    calls = 0
    changed = True
    while changed and calls < budget:
        changed = False
        for cand in _text_candidates(lines):
            if calls >= budget:
                break
            calls += 1
            if still_fails("\n".join(cand) + "\n"):
                lines = cand
                changed = True
                if log:
                    log(f"  {len(lines)} lines")
                break
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crash", metavar="FILE.tk", required=True,
                    help="a .tk file that makes tkc crash or exit 3; writes FILE.min.tk")
    ap.add_argument("--tkc", default=os.environ.get("TKC", default_tkc()))
    ap.add_argument("--budget", type=int, default=3000, help="most tkc runs")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    path = Path(args.crash)
    source = path.read_text()
    want = tkc_signature(args.tkc, source)
    if want is None or want[0] not in ("ice", "hang"):
        print(f"{path}: tkc does not crash on it ({want}); nothing to reduce", file=sys.stderr)
        return 2
    print(f"{path}: {want[0]} (status {want[1]}): {want[2]}")
    small = reduce_text(source, lambda s: tkc_signature(args.tkc, s) == want, args.budget,
                        log=print if args.verbose else None)
    out = path.with_suffix(".min.tk")
    out.write_text(small)
    print(f"{out}: {len(source.splitlines())} -> {len(small.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
