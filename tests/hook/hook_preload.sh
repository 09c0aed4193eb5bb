# Sourced by the hook's tests after HOOK (libmpbench_hook.so's absolute path)
# is set: PRELOAD, what LD_PRELOAD loads for it, the hook alone or, for an
# AddressSanitizer build's hook, the ASan runtime first (asan: its path, or
# empty).
PRELOAD=$HOOK
asan=$(ldd "$HOOK" | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && PRELOAD="$asan $HOOK"
