# Helpers for assembling an image's root file system from this machine (sourced by docker/build.sh and
# docker/spark-layer.sh): no base image, no registry, exactly the files and shared libraries that are needed.
# The caller sets $rootfs.

# rootfs_usrmerge: /bin, /lib, /lib64 and /sbin as links into /usr when the host has them so (Debian 12), so
# layers copied on top of each other agree on where a library lives.
rootfs_usrmerge() {
  local l
  mkdir -p "$rootfs/usr/bin" "$rootfs/usr/lib" "$rootfs/usr/lib64" "$rootfs/usr/sbin"
  for l in bin lib lib64 sbin; do
    if [ -L "/$l" ] && [ ! -e "$rootfs/$l" ]; then ln -s "$(readlink "/$l")" "$rootfs/$l"; fi
  done
}

# rootfs_copy PATH...: each file or tree at the same path (symlinks kept, and their targets copied too).
rootfs_copy() {
  local p
  for p in "$@"; do
    [ -e "$p" ] || continue
    mkdir -p "$rootfs$(dirname "$p")"
    cp -a "$p" "$rootfs$(dirname "$p")/"
    if [ -L "$p" ]; then rootfs_copy "$(readlink -f "$p")"; fi
  done
}

# rootfs_tools NAME...: the commands (from PATH) at their host paths; prints their real paths (for ldd).
rootfs_tools() {
  local t p
  for t in "$@"; do
    p=$(command -v "$t" 2>/dev/null) || continue
    [ "${p:0:1}" = / ] || continue # a shell builtin
    rootfs_copy "$p"
    readlink -f "$p"
  done
}

# rootfs_libs ELF...: the shared libraries `ldd` lists for the given files and for every shared object already
# in the root fs, plus libgcc_s (glibc loads it when a thread exits, so ldd does not always list it); each at
# its host path unless the root fs has it already.
rootfs_libs() {
  local libs lib
  libs=$(
    {
      [ $# -gt 0 ] && ldd "$@" 2>/dev/null
      find "$rootfs" -type f \( -name '*.so' -o -name '*.so.*' -o -name '*.node' \) -print0 | xargs -0 -r -n 50 ldd 2>/dev/null
    } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' | grep -v "^$rootfs/" | sort -u
    # No `awk ... exit` under pipefail: an early-exiting reader would fail the writer with SIGPIPE.
    ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ && !found { print $NF; found = 1 }'
  )
  for lib in $libs; do [ -e "$rootfs$lib" ] || rootfs_copy "$lib"; done
}

# rootfs_users: /etc/passwd and /etc/group with root and the image's user (uid/gid 10001, home /data).
rootfs_users() {
  mkdir -p "$rootfs/etc"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nminilake:x:10001:10001:MiniLake:/data:/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nminilake:x:10001:\n' >"$rootfs/etc/group"
}

# rootfs_fix_times DIR: every timestamp fixed, so equal inputs give equal layers (and cached ones).
rootfs_fix_times() { find "$1" -exec touch -h -d @0 {} +; }
