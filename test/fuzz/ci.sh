#!/bin/sh
# CI's fuzzing run (make test with CI=true): build/fuzz/fuzz_tkc from a
# fresh corpus of the seeds, a fixed seed and a fixed number of inputs, so
# a result repeats. A finding fails the run and prints its reproducer (save
# it as test/fuzz/NAME.tk with the fix). Last line: "N passed, M failed".
#
#   sh test/fuzz/ci.sh [RUNS]

runs=${1:-60000}
dir=build/fuzz
rm -rf "$dir/ci-corpus" "$dir"/ci-crash-* "$dir"/ci-timeout-* "$dir"/ci-oom-* "$dir"/ci-leak-*
mkdir -p "$dir/ci-corpus"
if (cd "$dir" && ./fuzz_tkc -dict=tk.dict -seed=1 -runs="$runs" -timeout=20 -rss_limit_mb=4096 \
        -max_len=4096 -print_final_stats=1 -artifact_prefix=ci- ci-corpus seeds) >"$dir/ci.log" 2>&1; then
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$dir/ci.log"
    echo "1 passed, 0 failed"
else
    echo "FAIL fuzzing ($runs inputs, seed 1): a finding"
    grep -E "ERROR|SUMMARY|Test unit written" "$dir/ci.log" | head -10
    for f in "$dir"/ci-crash-* "$dir"/ci-timeout-* "$dir"/ci-oom-* "$dir"/ci-leak-*; do
        [ -f "$f" ] || continue
        echo "--- reproducer $f (save it as test/fuzz/NAME.tk):"
        cat -v "$f" | head -60
    done
    echo "0 passed, 1 failed"
    exit 1
fi
