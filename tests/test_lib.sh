# The shared start of the shell tests that work in a folder of their own:
# MPB made absolute, a temporary folder as the working directory (removed
# at exit), fails=0 and fail MESSAGE (counts it), and rewrite_params.
# Usage, after setting MPB: . "$(dirname "$0")/test_lib.sh"
case $MPB in /*) ;; *) MPB=$PWD/$MPB ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# rewrite_params SRC DST SCHEME FROM TO: CSV SRC as an mpbench that spelled
# SCHEME's parameters otherwise would have written it (FROM replaced by TO
# in params and, in its -a form, in case; case_id the FNV-1a-64 of that
# case), into DST with SRC's sidecar: rows of a sweep from before a
# parameter was added, or of another one.
rewrite_params() {
    python3 - "$1" "$2" "$3" "$4" "$5" <<'PY'
import csv, sys
src, dst, scheme, old, new = sys.argv[1:]
rows = list(csv.reader(open(src, newline="")))
h = rows[0]
for r in rows[1:]:
    if r[h.index("scheme")] == scheme:
        r[h.index("params")] = r[h.index("params")].replace(old, new)
        case = r[h.index("case")].replace(old.replace(" ", " -a "), new.replace(" ", " -a "))
        r[h.index("case")] = case
        x = 0xcbf29ce484222325
        for c in case.encode():
            x = ((x ^ c) * 0x100000001b3) % 2**64
        r[h.index("case_id")] = "%016x" % x
csv.writer(open(dst, "w", newline=""), lineterminator="\n").writerows(rows)
PY
    cp "$1.meta.json" "$2.meta.json"
}
