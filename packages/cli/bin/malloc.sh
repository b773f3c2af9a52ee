# The allocator settings bin/wharf gives node before it execs it (POSIX sh, sourced; the bench
# sources it too, so that the node it measures runs as a user's does). A value already in the
# environment wins.
#
# jemalloc, when the system has it (Linux; WHARF_MALLOC=system keeps glibc's): under an hour of
# 1,000 transfers/s glibc's arenas keep the room of every flush's and every read's buffers and a
# chain node's RSS climbs ~70 MB outside V8's heap while what malloc hands out stays flat;
# jemalloc gives pages back once they have been free for 5 s (docs/decisions/0600). It is not an
# npm dependency: Debian's libjemalloc2 (redis-server brings it), Fedora's jemalloc, Alpine's.
#
# glibc's, otherwise: 2 arenas, not 8 a core, whose high-waters each thread keeps (0560), and a
# fixed mmap threshold, so that multi-MB buffers are mapped on their own and do not pin the
# brk heap's top (0570). Both are read only when a process starts, hence a script before node.

case ${WHARF_MALLOC:-jemalloc} in
  jemalloc | system) ;;
  *)
    # A typo (WHARF_MALLOC=jemaloc) would otherwise quietly run on glibc's.
    echo "wharf: WHARF_MALLOC must be jemalloc or system, not '$WHARF_MALLOC'" >&2
    exit 2
    ;;
esac

if [ "${WHARF_MALLOC:-jemalloc}" = jemalloc ] && [ "$(uname -s)" = Linux ]; then
  case ${LD_PRELOAD:-} in
    *jemalloc*) ;;
    *)
      for lib in "/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2" /usr/lib64/libjemalloc.so.2 \
        /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
        if [ -f "$lib" ]; then
          LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
          export LD_PRELOAD
          # background_thread: pages are given back off the loop; muzzy_decay_ms:0: by
          # MADV_DONTNEED (they leave RSS at once), not MADV_FREE (they stay until the kernel
          # needs them).
          MALLOC_CONF=${MALLOC_CONF:-background_thread:true,dirty_decay_ms:5000,muzzy_decay_ms:0}
          export MALLOC_CONF
          break
        fi
      done
      ;;
  esac
fi

MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
export MALLOC_ARENA_MAX
MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-131072}
export MALLOC_MMAP_THRESHOLD_
