#!/bin/sh
# Issue 28, defect 6: `mpbench merge OUT ...` writes OUT.tmp and renames it
# over OUT (and so OUT.meta.json), which puts a regular file in place of
# whatever OUT was: as root, a device node, a FIFO or a symbolic link would
# be replaced. OUT and OUT.meta.json must each be a regular file or a new
# path; anything else, a symbolic link to a regular file included, is refused
# (exit 2) and left as it was. The character device needs mknod (root):
# without it the other checks run and the test exits 77.
# Usage: test_merge_outputs.sh MPBENCH
set -u
MPB=${1:?usage: test_merge_outputs.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

"$MPB" run -s dgemm -g randn --size 4,5 --backend host --csv part.csv >/dev/null 2>&1 || { fail "the part's run exited $?"; exit 1; }

# refused OUT NEEDLE: merge into OUT exits 2 naming NEEDLE, leaves no OUT.tmp.
refused() {
    "$MPB" merge "$1" part.csv >out 2>&1
    rc=$?
    [ "$rc" = 2 ] || fail "merge into $1: exit $rc, expected 2 ($(head -c 300 out))"
    grep -qF -- "$2" out || fail "merge into $1: output lacks '$2': $(head -c 300 out)"
    [ -L "$1.tmp" ] || [ ! -e "$1.tmp" ] || fail "merge into $1 left $1.tmp"
}

mkfifo fifo.csv
refused fifo.csv "cannot write fifo.csv: it is a FIFO"
[ -p fifo.csv ] || fail "the FIFO fifo.csv was replaced"

echo target >target.csv
ln -s target.csv link.csv
refused link.csv "cannot write link.csv: it is a symbolic link"
{ [ -L link.csv ] && [ "$(cat target.csv)" = target ]; } || fail "the link or its target changed"
ln -s /nonexistent/x.csv dangling.csv
refused dangling.csv "it is a symbolic link"
[ -L dangling.csv ] || fail "the dangling link was replaced"

mkdir folder.csv
refused folder.csv "cannot write folder.csv: it is a folder"

# The sidecar is renamed over too.
mkfifo side.csv.meta.json
refused side.csv "cannot write side.csv.meta.json: it is a FIFO"
{ [ ! -e side.csv ] && [ -p side.csv.meta.json ]; } || fail "a refused merge wrote side.csv or replaced its sidecar"
ln -s target.csv tmp.csv.tmp
refused tmp.csv "cannot write tmp.csv.tmp: it is a symbolic link"
{ [ -L tmp.csv.tmp ] && [ "$(cat target.csv)" = target ]; } || fail "the temporary file's link or its target changed"

# A regular file or a new path is written.
echo old >regular.csv
"$MPB" merge regular.csv part.csv >out 2>&1 || fail "merge into a regular file exited $?: $(cat out)"
cmp -s regular.csv part.csv || fail "merge into a regular file: not the part's rows"
"$MPB" merge new.csv part.csv >out 2>&1 || fail "merge into a new path exited $?: $(cat out)"

skipped=0
if mknod null.csv c 1 3 2>/dev/null; then
    refused null.csv "cannot write null.csv: it is a character device"
    [ -c null.csv ] || fail "the character device null.csv was replaced"
else
    echo "test_merge_outputs: mknod is not allowed here (not root): the character device is not checked"
    skipped=1
fi

[ "$fails" = 0 ] || exit 1
echo "ok: test_merge_outputs"
[ "$skipped" = 0 ] || exit 77
