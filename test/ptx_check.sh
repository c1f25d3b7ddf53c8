#!/bin/sh
# ptx_check.sh CHECKFILE PTXFILE [NAME]: checks PTX against a hand-written
# check file, in FileCheck's habit, with POSIX sh and awk only (no python,
# no LLVM tools). NAME names the PTX in messages (default: PTXFILE). Exit
# status 0 when every check holds; 1 with a message per failed check; 2
# when the check file is malformed or a file cannot be read. test/run.sh
# runs it on each test/golden/{ops,kernels}/NAME.ptx-check, and on
# test/ptx_check/selftest*.
#
# A check file has one directive a line; blank lines and lines starting
# with ; or # are comments (say there why a check is there):
#
#   CHECK-LABEL: TEXT   starts a section: the first PTX line containing TEXT
#                       after the previous label's line (labels match in
#                       order). The section runs from that line to the line
#                       before the next function (a line starting .entry,
#                       .func, .visible .entry, ...) or the next label's
#                       line, whichever comes first. One a kernel:
#                       `CHECK-LABEL: .entry NAME(` (the "(" ends the name,
#                       so NAME_d16 is another kernel).
#   CHECK-LABEL-RE: ERE like CHECK-LABEL, with an extended regular
#                       expression: `CHECK-LABEL-RE: ^\$L__BB[0-9]+_2:`
#                       names a kernel's loop without the function index
#                       in its label, which changes with the way kernels
#                       are split among LLVM modules.
#   CHECK: TEXT         TEXT must appear on a line of the section after the
#                       line the previous CHECK of the section matched (or
#                       after the label's line): the CHECKs of a section
#                       match in order, each on a later line.
#   CHECK-NOT: TEXT     TEXT must appear on no line of the whole section,
#                       wherever the CHECK-NOT stands in it. (FileCheck's
#                       covers only the lines between the CHECKs around it;
#                       here one CHECK-NOT: ld.local under a label forbids
#                       spills anywhere in that kernel.)
#   CHECK-COUNT-N: TEXT TEXT appears on exactly N lines of the whole
#                       section, wherever the directive stands (say, the
#                       barriers a kernel needs: no more, no fewer). Unlike
#                       FileCheck's CHECK-COUNT it does not move the CHECK
#                       position, and more than N fail.
#   CHECK-RE: ERE       like CHECK, with ERE a POSIX extended regular
#                       expression (awk's) instead of a substring
#   CHECK-NOT-RE: ERE   like CHECK-NOT, with an extended regular expression
#   CHECK-LOOP-ADDRESS: TEXT  in each loop of the section (a label and a
#                       later branch back to it), every line containing
#                       TEXT reads its last 64-bit address operand
#                       ([%rdN...]: cp.async's global source) from a
#                       register the loop advances in place
#                       (add.s64 %rdN, %rdN, ...), or adds once to a
#                       register from before the loop an offset that at
#                       least one other such address adds too
#                       (add.s64 %rdN, %rdBASE, %rdOFFSET): one add an
#                       address, not a base plus an offset of its own
#                       that the loop also advances, as LLVM's loop
#                       strength reduction writes. At least one such line
#                       must be in a loop.
#
# Directives before the first CHECK-LABEL form a section of the whole PTX:
# a CHECK-NOT there forbids TEXT in every kernel.
#
# Matching: TEXT is a substring of the line (case matters). Before matching,
# PTX comments (// to the end of the line) are removed from each line, and
# in both the line and TEXT every run of spaces and tabs becomes one space,
# with none at either end: `CHECK: st.global.v4.b32 [` matches the PTX
# line "\t@%p1 st.global.v4.b32 \t[ %rd5 + 0 ], ...". An ERE matches the
# line so normalized. Never match register numbers (%r17): they change with
# any change; a regular expression such as %r[0-9]+ stands for them.
#
# A check file needs at least one CHECK, CHECK-RE, CHECK-LABEL or
# CHECK-COUNT-N with N > 0 (CHECK-NOTs alone would pass on empty PTX), and
# a line that is none of these nor a comment is an error (a misspelt
# directive must not pass unseen). A failure names the check file and its
# line, the directive, the section (with its PTX line numbers) and the PTX
# lines concerned:
#
#   test/golden/ops/reduce.ptx-check:23: CHECK-COUNT-2: bar.sync
#     expected on exactly 2 lines of section "CHECK-LABEL: .entry sum_max_min_1d("
#     (lines 12-127 of the PTX of test/golden/ops/reduce.tk), found on 3:
#         63: bar.sync 0;
#         87: bar.sync 0;
#         112: bar.sync 0;

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: sh test/ptx_check.sh CHECKFILE PTXFILE [NAME]" >&2
    exit 2
fi
for f in "$1" "$2"; do
    if [ ! -f "$f" ] || [ ! -r "$f" ]; then
        echo "ptx_check: cannot read $f" >&2
        exit 2
    fi
done

# the file names go through the environment: awk -v would expand backslashes
PTX_CHECK_FILE=$1 PTX_CHECK_NAME=${3:-$2} exec awk '
function norm(s) {
    gsub(/[ \t\r]+/, " ", s)
    sub(/^ /, "", s)
    sub(/ $/, "", s)
    return s
}
function matches(line, kind, text) {
    if (kind == "CHECK-RE" || kind == "CHECK-NOT-RE" || kind == "CHECK-LABEL-RE")
        return line ~ text
    return index(line, text) > 0
}
function shown(i) { # one PTX line, for a message
    if (i < 1 || i > n) return ""
    return "      " i ": " norm(raw[i]) "\n"
}
function report(j, msg) {
    printf "%s:%d: %s: %s\n  %s", cf, ln[j], kind[j] (kind[j] == "CHECK-COUNT" ? "-" count[j] : ""), text[j], msg
    failed++
}
function secdesc() {
    return "section " secname " (lines " s "-" e " of " what ")"
}
function defined_in(reg, lo, hi,    k) { # a line of lo..hi writes reg
    for (k = lo; k <= hi; k++)
        if (index(ptx[k], reg ",") && ptx[k] ~ ("^(@!?%p[0-9]+ )?[a-z][a-z0-9._]* " reg ","))
            return 1
    return 0
}
function address_reg(line,    rest, reg) { # the last [%rdN...] operand
    rest = line
    reg = ""
    while (match(rest, /\[ ?%rd[0-9]+/)) {
        reg = substr(rest, RSTART, RLENGTH)
        sub(/^\[ ?/, "", reg)
        rest = substr(rest, RSTART + RLENGTH)
    }
    return reg
}
function check_loop_address(j,    i, b, k, q, target, lo, uses, reg, f, why, nreg, addr, at_line, def_x, def_y, users) {
    split("", label_line)
    for (i = s; i <= e; i++)
        if (ptx[i] ~ /^\$L__[A-Za-z0-9_]+:$/) label_line[substr(ptx[i], 1, length(ptx[i]) - 1)] = i
    uses = 0
    for (b = s; b <= e; b++) {
        if (!match(ptx[b], /bra(\.uni)? \$L__[A-Za-z0-9_]+;$/)) continue
        target = substr(ptx[b], RSTART, RLENGTH - 1)
        sub(/^bra(\.uni)? /, "", target)
        if (!(target in label_line) || label_line[target] > b) continue
        lo = label_line[target]
        # the address registers of the matching lines of the loop, and how the
        # loop writes each: in place, or invariant + offset (def_x, def_y)
        nreg = 0
        split("", users)
        for (i = lo; i <= b; i++) {
            if (!index(ptx[i], text[j])) continue
            uses++
            reg = address_reg(ptx[i])
            if (reg == "") continue
            nreg++
            addr[nreg] = reg
            at_line[nreg] = i
            def_x[nreg] = def_y[nreg] = ""
            for (k = lo; k <= b; k++) {
                if (index(ptx[k], "add.s64 " reg ", " reg ", ") == 1) { def_x[nreg] = "in place"; break }
                if (index(ptx[k], "add.s64 " reg ", ") == 1 && split(substr(ptx[k], length("add.s64 " reg ", ") + 1), f, /, |;/) >= 2) {
                    def_x[nreg] = f[1]
                    def_y[nreg] = f[2]
                    users[f[1]]++
                    if (f[2] != f[1]) users[f[2]]++
                }
            }
        }
        for (q = 1; q <= nreg; q++) {
            if (def_x[q] == "in place") continue
            reg = addr[q]
            why = ""
            if (def_x[q] == "")
                why = reg " is neither advanced in place (add.s64 " reg ", " reg ", ...) nor an add.s64 in the loop"
            else if (!((!defined_in(def_x[q], lo, b) && users[def_y[q]] >= 2) || (!defined_in(def_y[q], lo, b) && users[def_x[q]] >= 2)))
                why = reg " = " def_x[q] " + " def_y[q] " is not a register from before the loop plus an offset other addresses share"
            if (why != "") {
                report(j, "in the loop of lines " lo "-" b " of " secdesc() ", " why ":\n" shown(at_line[q]))
                return
            }
        }
    }
    if (!uses) report(j, "no line in a loop of " secdesc() " has it\n")
}
{
    raw[NR] = $0
    line = $0
    sub(/\/\/.*/, "", line)
    ptx[NR] = norm(line)
    # a function begins: the end of the section before it
    fn[NR] = (ptx[NR] ~ /^(\.(visible|weak|extern) )*\.(entry|func)( |\(|$)/)
}
END {
    n = NR
    cf = ENVIRON["PTX_CHECK_FILE"]
    what = ENVIRON["PTX_CHECK_NAME"]
    m = 0
    positive = 0
    bad = 0
    lineno = 0
    while ((rc = (getline l < cf)) > 0) {
        lineno++
        t = norm(l)
        if (t == "" || t ~ /^[;#]/) continue
        if (match(t, /^CHECK(-LABEL|-LABEL-RE|-NOT|-RE|-NOT-RE|-COUNT-[0-9]+|-LOOP-ADDRESS)?:/)) {
            k = substr(t, 1, RLENGTH - 1)
            v = norm(substr(t, RLENGTH + 1))
            times = ""
            if (k ~ /^CHECK-COUNT-/) { times = substr(k, 13) + 0; k = "CHECK-COUNT" }
            if (v == "") {
                printf "%s:%d: %s: nothing to match\n", cf, lineno, k
                bad++
                continue
            }
            m++
            kind[m] = k
            text[m] = v
            ln[m] = lineno
            count[m] = times
            label[m] = k == "CHECK-LABEL" || k == "CHECK-LABEL-RE"
            if (k == "CHECK" || k == "CHECK-RE" || label[m] || k == "CHECK-LOOP-ADDRESS" || times > 0) positive++
        } else {
            printf "%s:%d: not a directive (CHECK:, CHECK-NOT:, CHECK-COUNT-N:, CHECK-RE:, CHECK-NOT-RE:, CHECK-LABEL:, CHECK-LABEL-RE:, CHECK-LOOP-ADDRESS:) nor a comment (; or #): %s\n", cf, lineno, t
            bad++
        }
    }
    if (rc < 0) { printf "ptx_check: cannot read %s\n", cf; exit 2 }
    if (!bad && positive == 0) {
        printf "%s: no CHECK, CHECK-RE, CHECK-COUNT-N (N > 0) or CHECK-LABEL (CHECK-NOTs alone pass on empty PTX)\n", cf
        bad++
    }
    if (bad) exit 2

    # the labels first: each section ends at the next label found
    last = 0
    for (j = 1; j <= m; j++) {
        if (!label[j]) continue
        at[j] = 0
        for (i = last + 1; i <= n; i++)
            if (kind[j] == "CHECK-LABEL" ? index(ptx[i], text[j]) : ptx[i] ~ text[j]) { at[j] = i; break }
        if (at[j]) last = at[j]
    }

    failed = 0
    secname = "before the first CHECK-LABEL (the whole PTX)"
    s = 1; e = n; pos = 0; skip = 0; labelline = 0
    for (j = 1; j <= m; j++) {
        if (label[j]) {
            if (!at[j]) {
                report(j, "not found in " what \
                    (labelline ? " after line " labelline " (the previous label)" : "") \
                    "; the checks up to the next CHECK-LABEL are skipped\n")
                skip = 1
                continue
            }
            skip = 0
            labelline = at[j]
            secname = "\"" kind[j] ": " text[j] "\""
            s = at[j]; pos = s; posby = "the label"; e = n
            for (i = s + 1; i <= n; i++) if (fn[i]) { e = i - 1; break }
            for (jj = j + 1; jj <= m; jj++)
                if (label[jj] && at[jj]) {
                    if (at[jj] - 1 < e) e = at[jj] - 1
                    break
                }
            continue
        }
        if (skip) continue
        if (kind[j] == "CHECK" || kind[j] == "CHECK-RE") {
            found = 0
            for (i = pos + 1; i <= e; i++)
                if (matches(ptx[i], kind[j], text[j])) { found = i; break }
            if (found) { pos = found; posby = "the previous CHECK"; continue }
            if (pos > 0)
                report(j, "not found in " secdesc() ", searched after line " pos " (" posby "):\n" shown(pos))
            else
                report(j, "not found in " secdesc() "\n")
        } else if (kind[j] == "CHECK-COUNT") {
            found = 0
            where = ""
            for (i = s; i <= e; i++)
                if (matches(ptx[i], kind[j], text[j])) {
                    found++
                    if (found <= 6) where = where shown(i)
                }
            if (found != count[j])
                report(j, "expected on exactly " count[j] " line" (count[j] == 1 ? "" : "s") " of " secdesc() \
                    ", found on " found (found ? (found > 6 ? " (the first 6):\n" : ":\n") where : "\n"))
        } else if (kind[j] == "CHECK-LOOP-ADDRESS") {
            check_loop_address(j)
        } else {
            for (i = s; i <= e; i++)
                if (matches(ptx[i], kind[j], text[j])) {
                    report(j, "must not appear in " secdesc() ", but line " i " has it:\n" shown(i))
                    break
                }
        }
    }
    exit failed ? 1 : 0
}' "$2"
