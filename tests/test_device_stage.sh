#!/bin/sh
# scripts/device-stage refuses a build whose CUDA objects may be stale (a
# header CUDA code can include is newer than the oldest .cu.o: Meson < 1.4
# tracks no .cu header dependencies), naming the object, and stages one
# whose objects are newer than every header.
# Usage: test_device_stage.sh path/to/scripts/device-stage
set -u
stage=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$tmp/build/tests/kernels" "$tmp/build/tests/hook" "$tmp/build/kernels/x.p"
printf '#!/bin/sh\n' >"$tmp/build/mpbench"
chmod +x "$tmp/build/mpbench"
: >"$tmp/build/libmpbench_hook.so"
for p in tests/kernels/test_x_cuda tests/hook/hook_cuprog tests/kernels/test_x_host; do
    printf '#!/bin/sh\n' >"$tmp/build/$p"
    chmod +x "$tmp/build/$p"
done
obj="$tmp/build/kernels/x.p/x.cu.o"
: >"$obj"
touch -d '2000-01-01 00:00:00' "$obj"
BUILD="$tmp/build" sh "$stage" "$tmp/dest" >"$tmp/out" 2>&1 && fail "a stale CUDA object was staged"
grep -q "x.cu.o is older than" "$tmp/out" || fail "the refusal does not name the object: $(cat "$tmp/out")"
[ -e "$tmp/dest" ] && fail "a refused stage left $tmp/dest"
touch "$obj"
BUILD="$tmp/build" sh "$stage" "$tmp/dest" >"$tmp/out" 2>&1 || fail "a fresh build was refused: $(cat "$tmp/out")"
[ -x "$tmp/dest/mpbench" ] || fail "mpbench was not staged"
[ -f "$tmp/dest/libmpbench_hook.so" ] || fail "libmpbench_hook.so was not staged beside mpbench"
for p in tests/kernels/test_x_cuda tests/hook/hook_cuprog; do
    [ -x "$tmp/dest/$p" ] || fail "$p was not staged"
done
[ -e "$tmp/dest/tests/kernels/test_x_host" ] && fail "a CPU test program was staged"

[ "$fails" = 0 ] || exit 1
echo "test_device_stage: ok"
