# The shared start of the shell tests that work in a folder of their own:
# MPB made absolute, a temporary folder as the working directory (removed
# at exit), fails=0 and fail MESSAGE (counts it).
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
