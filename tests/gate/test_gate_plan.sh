#!/bin/sh
# scripts/gate-plan: a relative OUT (and MPBENCH) are taken from where it
# is run, not from the repository root; --host runs the plan on the host
# models, and a fresh host run passes the gate against the committed host
# baseline (results/host/gate/baseline.csv) on an unchanged tree: gate
# judges speed only between impl=cuda rows, so only accuracy is gated, and
# a host model's output does not depend on timing.
# Usage: test_gate_plan.sh path/to/mpbench SOURCE_ROOT
set -u
mpb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir "$tmp/work"

# The GPU plan through a stand-in mpbench, relative to a cwd other than
# the root: it records the cwd and the --csv it was given.
cat >"$tmp/work/standin" <<EOS
#!/bin/sh
if [ "\$1" = list ]; then exec "$mpb" "\$@"; fi
csv=
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && csv=\$2; shift; done
case \$csv in /*) ;; *) csv=\$PWD/\$csv ;; esac
echo "\$csv" >"$tmp/csv-path"
EOS
chmod +x "$tmp/work/standin"
for standin in "$tmp/work/standin" ./standin; do
    rm -f "$tmp/csv-path"
    (cd "$tmp/work" && MPBENCH=$standin "$root/scripts/gate-plan" plan.csv) ||
        fail "gate-plan with a relative OUT, MPBENCH=$standin: exit $?"
    [ "$(cat "$tmp/csv-path" 2>/dev/null)" = "$tmp/work/plan.csv" ] ||
        fail "gate-plan plan.csv run in $tmp/work with MPBENCH=$standin writes '$(cat "$tmp/csv-path" 2>/dev/null)', not $tmp/work/plan.csv"
done

# The host plan, from elsewhere, against the committed host baseline.
(cd "$tmp/work" && MPBENCH="$mpb" "$root/scripts/gate-plan" --host fresh.csv --progress never >/dev/null 2>"$tmp/err") ||
    { fail "gate-plan --host: exit $?"; tail -n 5 "$tmp/err"; }
[ -s "$tmp/work/fresh.csv" ] && [ -s "$tmp/work/fresh.csv.meta.json" ] || fail "gate-plan --host fresh.csv wrote no fresh.csv in the cwd"
[ ! -e "$root/fresh.csv" ] || fail "gate-plan --host fresh.csv wrote into the repository root"
grep -q '"argv": \["run", .*"--backend", "host"' "$tmp/work/fresh.csv.meta.json" || fail "the host plan is not --backend host"
"$mpb" gate --baseline "$root/results/host/gate/baseline.csv" --candidate "$tmp/work/fresh.csv" >"$tmp/gate" 2>&1 ||
    { fail "a fresh host plan does not pass the gate against results/host/gate/baseline.csv"; grep -v '| SAME |' "$tmp/gate" | tail -n 20; }
grep -q '^accuracy: [0-9]* SAME, [0-9]* CHANGED, 0 WORSE, 0 MISSING, [0-9]* NEW, 0 INCOMPARABLE$' "$tmp/gate" ||
    fail "host gate counts: $(grep '^accuracy' "$tmp/gate")"
grep -q '^performance: 0 SAME, 0 FAST, 0 SLOW, 0 AMBIGUOUS, ' "$tmp/gate" || fail "the host gate judged speed"
[ "$fails" = 0 ] || exit 1
echo "test_gate_plan: all checks passed"
