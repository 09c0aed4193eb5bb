#!/bin/sh
# Cases too large for the machine: a byte count that overflows
# 64 bits (--size 2^31; --m 2^31 --k 2^31 --n 1) or one beyond the host's
# available memory (--size 46341: 51.5 GB for A, B and C) is a
# not_supported row whose note names the bytes needed and available,
# decided before anything is allocated: no crash, no OOM killer, exit 77
# (nothing ran). A case that fits next to one that does not still runs
# (exit 0). Usage: test_sizes.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)

# refused CASE_ARGS...: one not_supported row with the note, exit 77
refused() {
    "$MPB" run -s dgemm -g phi "$@" --backend host --csv "$TMP/r.csv" --progress never \
        >"$TMP/out" 2>&1
    rc=$?
    if [ $rc -ne 77 ]; then
        echo "FAIL: $*: exit $rc, expected 77 (nothing ran)"; cat "$TMP/out"; fail=1; return
    fi
    awk -F, -v what="$*" '
    NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
    { n++; line = $0 }
    END {
        if (n != 1) { print "FAIL: " what ": " n " rows"; exit 1 }
        if (line !~ /,not_supported,"?too large for this machine: needs [^,]* of host memory/) {
            print "FAIL: " what ": " line; exit 1
        }
    }' "$TMP/r.csv" || fail=1
}

refused --size '2^31'
grep -q '2^64 bytes or more' "$TMP/r.csv" || { echo "FAIL: --size 2^31: no overflow in the note"; fail=1; }
refused --m '2^31' --k '2^31' --n 1
# 46341² doubles ×3 = 51.5 GB: refused wherever less than that is available
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt 50000000 ]; then
    refused --size 46341
    grep -q 'available (MemAvailable)' "$TMP/r.csv" || { echo "FAIL: --size 46341: no MemAvailable"; fail=1; }
fi

# one that fits and one that does not: the first runs, the sweep goes on, exit 0
"$MPB" run -s dgemm -g phi --size '8,2^31' --backend host --csv "$TMP/mix.csv" --progress never \
    >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: --size 8,2^31: exit $rc, expected 0"; cat "$TMP/out"; fail=1; }
awk -F, 'NR > 1 { s = s " " ($0 ~ /,ok,/ ? "ok" : "other") } END { if (s != " ok other") { print "FAIL: mixed sweep:" s; exit 1 } }' \
    "$TMP/mix.csv" || fail=1

[ $fail -eq 0 ] && echo "test_sizes: all checks passed"
exit $fail
