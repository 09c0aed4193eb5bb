#!/bin/sh
# The layer rule (DESIGN.md "Layers" and "Include rule"), checked on the
# sources, so that a violation fails here and not only when it happens not
# to compile:
#   - no quoted include goes up with "..";
#   - every quoted include names a file relative to the root folder of the
#     including layer or of a layer below it:
#       core (src/core)  core
#       generators       generators, core
#       reference        reference, generators, core
#       kernels          kernels, core; a folder of kernels/ includes only
#                        itself and the shared folders (those no registry
#                        family names: common/), never another family
#       program (src)    src, kernels, reference, generators, core; only
#                        src/schemes/registry.c includes kernel headers,
#                        and src/cmd_probe.c those of the tensor-core probe
#                        (kernels/tc/tc_probe*.h)
#       tests            tests, and every layer
#     (core headers as "gemm.h", never "core/gemm.h");
#   - inside the program, a file of a room (a folder of src/) includes only
#     its own room and the rooms below it (rooms_below), as "room/file.h";
#     the commands (src/*.c) on top include any room;
#   - each layer's meson.build links no layer above it;
#   - every registry `family` is a folder of kernels/.
# Usage: test_layers.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The roots a file of layer $1 may include from, lowest last.
roots_of() {
    case $1 in
    core) echo "src/core" ;;
    generators) echo "generators src/core" ;;
    reference) echo "reference generators src/core" ;;
    kernels) echo "kernels src/core" ;;
    program) echo "src kernels reference generators src/core" ;;
    tests) echo "tests src kernels reference generators src/core" ;;
    esac
}

# The program's rooms, and the rooms each may include besides its own.
program_rooms="schemes case record cli workers grade gate tune hook replay"
rooms_below() {
    case $1 in
    schemes) echo "" ;;
    case) echo "schemes" ;;
    record) echo "case schemes" ;;
    cli) echo "case schemes" ;;
    workers) echo "cli record case schemes" ;;
    grade) echo "workers cli record case schemes" ;;
    gate) echo "cli record case schemes" ;;
    tune) echo "cli record case schemes" ;;
    hook) echo "record case schemes" ;;
    replay) echo "hook record case schemes" ;;
    top) echo "$program_rooms" ;;
    esac
}

# The room of a program file: its folder under src/, or top.
room_of() {
    case $1 in
    src/*/*) r=${1#src/}; echo "${r%%/*}" ;;
    *) echo top ;;
    esac
}

for d in src/*/; do
    d=${d#src/}; d=${d%/}
    [ "$d" = core ] || echo " $program_rooms " | grep -q " $d " || fail "src/$d/ is not a room of program_rooms"
done

layer_of() {
    case $1 in
    src/core/*) echo core ;;
    src/*) echo program ;;
    generators/*) echo generators ;;
    reference/*) echo reference ;;
    kernels/*) echo kernels ;;
    tests/*) echo tests ;;
    esac
}

# Registry families are kernel folders; the other folders of kernels/ are shared.
families=$(sed -n 's/.*\.family = "\([^"]*\)".*/\1/p' src/schemes/registry.c | sort -u)
[ -n "$families" ] || fail "no .family in src/schemes/registry.c"
for fam in $families; do
    [ -d "kernels/$fam" ] || fail "registry family '$fam' is not a folder of kernels/"
done

files=$(find src generators reference kernels tests -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.in' \) | sort)
[ -n "$files" ] || { echo "FAIL: no sources under $(pwd)"; exit 1; }
checked=0
for f in $files; do
    layer=$(layer_of "$f")
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/mpb_layers.$$"
    while read -r line inc; do
        checked=$((checked + 1))
        where="$f:$line: #include \"$inc\""
        case $inc in
        */../* | ../* | */.. | /*) fail "$where goes up or is absolute"; continue ;;
        core/*) fail "$where: core headers are included by name (\"${inc#core/}\")"; continue ;;
        esac
        # The generated build configuration lives in the program's build folder.
        if [ "$inc" = mpb_build_config.h ] && [ "$layer" = program ]; then
            continue
        fi
        found=""
        for r in $(roots_of "$layer"); do
            if [ -f "$r/$inc" ]; then
                found=$r
                break
            fi
        done
        if [ -z "$found" ]; then
            fail "$where: not found under $(roots_of "$layer" | sed 's/ /, /g') (a $layer file)"
            continue
        fi
        if [ "$layer" = kernels ] && [ "$found" = kernels ]; then
            own=$(echo "$f" | cut -d/ -f2)
            dir=${inc%%/*}
            if [ "$dir" != "$own" ] && echo "$families" | grep -qx "$dir"; then
                fail "$where: kernels/$own includes family $dir (what families share belongs in kernels/common)"
            fi
        fi
        if [ "$layer" = program ] && [ "$found" = kernels ] && [ "$f" != src/schemes/registry.c ]; then
            case "$f:$inc" in
            src/cmd_probe.c:tc/tc_probe*.h) ;;
            *) fail "$where: only src/schemes/registry.c names the kernels (and src/cmd_probe.c the probe)" ;;
            esac
        fi
        if [ "$layer" = program ] && [ "$found" = src ]; then
            own=$(room_of "$f")
            to=$(room_of "src/$inc")
            if [ "$to" = top ]; then
                [ "$own" = top ] || fail "$where: a room includes the commands above it"
            elif [ "$to" != "$own" ] && ! echo " $(rooms_below "$own") " | grep -q " $to "; then
                fail "$where: room $own includes room $to, which is not below it"
            fi
        fi
    done <"${TMPDIR:-/tmp}/mpb_layers.$$"
    rm -f "${TMPDIR:-/tmp}/mpb_layers.$$"
done
[ "$checked" -gt 100 ] || fail "only $checked includes seen"

# Each layer's library links only the layers below it.
check_links() {
    file=$1
    shift
    for dep in "$@"; do
        ! grep -q "$dep" "$file" || fail "$file links $dep, a layer above it"
    done
}
check_links src/core/meson.build mpb_generators_dep mpb_reference_dep mpb_kernels_dep mpb_program_dep
check_links generators/meson.build mpb_reference_dep mpb_kernels_dep mpb_program_dep
check_links reference/meson.build mpb_kernels_dep mpb_program_dep
check_links kernels/meson.build mpb_generators_dep mpb_reference_dep mpb_program_dep

[ "$fails" = 0 ] || exit 1
echo "test_layers: $checked includes of $(echo "$files" | wc -l) files follow the layer rule"
