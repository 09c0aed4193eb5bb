#!/bin/sh
# libmpbench_hook.so without a GPU: it exports every cuBLAS entry point it
# intercepts beside the host BLAS ones and nothing of mpbench's own, and
# with MPBENCH_HOOK unset a program that loads no cuBLAS runs as without it
# (nothing on stderr, no CUDA initialised: the cuBLAS half is only reached
# through its entry points).
# Usage: test_hook_exports.sh HOOK_PROG LIBMPBENCH_HOOK
set -u
PROG=$1
HOOK=$2
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
case $HOOK in /*) ;; *) HOOK=$PWD/$HOOK ;; esac
MPB=$PROG
. "$(dirname "$0")/hook_preload.sh"
. "$(dirname "$0")/../test_lib.sh"

want="cblas_dgemm cblas_sgemm cublasCgemmBatched cublasCgemmStridedBatched cublasCgemm_v2 cublasDgemmBatched
cublasDgemmStridedBatched cublasDgemm_v2 cublasGemmBatchedEx cublasGemmEx cublasGemmStridedBatchedEx
cublasSgemmBatched cublasSgemmStridedBatched cublasSgemm_v2 cublasZgemmBatched cublasZgemmStridedBatched
cublasZgemm_v2 dgemm_ sgemm_"
got=$(nm -D --defined-only "$HOOK" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort | tr '\n' ' ')
[ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] || fail "exported functions: $got"

"$PROG" > native.out || fail "hook_prog alone failed"
env -u MPBENCH_HOOK LD_PRELOAD="$PRELOAD" "$PROG" > off.out 2> off.err || fail "MPBENCH_HOOK unset: exit $?"
cmp -s native.out off.out || fail "MPBENCH_HOOK unset changed the output"
[ -s off.err ] && fail "MPBENCH_HOOK unset wrote to stderr: $(cat off.err)"

echo "test_hook_exports: $fails failure(s)"
[ "$fails" = 0 ]
