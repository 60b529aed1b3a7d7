#!/usr/bin/env bash
# Builds the Spark image of MiniLake's Docker executor (`minilake-spark:local`) without any image registry,
# from what this machine already has: Java 17, the Python of the Spark install's venv, the Spark install
# (`bash packages/engine-spark/install.sh`), and bash plus the few tools spark-submit's scripts call. Every
# file keeps its host path (the engine runs the same command lines inside the container as outside), with
# exactly the shared libraries `ldd` lists for what is copied. Needs a running Docker daemon
# (`eval "$(bash docker/dockerd.sh start)"`).
#   MINILAKE_SPARK_IMAGE=minilake-spark:local   the tag
#   MINILAKE_CACHE=~/.cache/minilake             where the Spark install is, and the staging folder
# Prints the image id on the last line. A second build with unchanged inputs reuses the cached layer.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
image=${MINILAKE_SPARK_IMAGE:-minilake-spark:local}
versions="$here/../versions.json"
install="$cache/spark-$(node -p "require('$versions').pyspark")-delta-$(node -p "require('$versions').deltaSpark")"
work="$cache/spark-image"
t0=$(date +%s)
log() { echo "[spark-image +$(($(date +%s) - t0))s] $*" >&2; }

[ -f "$install/.complete" ] || {
  echo "no Spark install in $install: run 'bash packages/engine-spark/install.sh' first" >&2
  exit 1
}
python=$(readlink -f "$install/venv/bin/python")
pyprefix=$("$python" -c 'import sys; print(sys.base_prefix)')
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
java=$(readlink -f "$(command -v java)")
java_home=$(dirname "$(dirname "$java")")
"$java" -version 2>&1 | grep 'version "17' >/dev/null || {
  echo "$java is not Java 17" >&2
  exit 1
}

rm -rf "$work/context"
rootfs="$work/context/rootfs"
mkdir -p "$rootfs/tmp" "$rootfs/etc" "$rootfs/usr/bin" "$rootfs/usr/lib" "$rootfs/usr/lib64" "$rootfs/usr/sbin"
chmod 1777 "$rootfs/tmp"
# usrmerge layout, as on the host: /bin and /lib are links into /usr.
for l in bin lib lib64 sbin; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$rootfs/$l"; done

copy() { # copy PATH...: a file or tree at the same path (symlinks kept, their targets copied too)
  for p in "$@"; do
    [ -e "$p" ] || continue
    mkdir -p "$rootfs$(dirname "$p")"
    cp -a "$p" "$rootfs$(dirname "$p")/"
    if [ -L "$p" ]; then copy "$(readlink -f "$p")"; fi
  done
}

# 1. Java, with the configuration Debian keeps under /etc and links to.
copy "$java_home"
copy "/etc/java-17-openjdk" /etc/ssl/certs/java
# 2. The interpreter the venv points at, without its own site-packages (the venv has its own).
mkdir -p "$rootfs$pyprefix/bin" "$rootfs$pyprefix/lib"
copy "$pyprefix/bin/python$pyver" "$pyprefix/bin/python3" "$pyprefix/bin/python"
for f in "$pyprefix"/lib/libpython*; do copy "$f"; done
mkdir -p "$rootfs$pyprefix/lib/python$pyver"
(cd "$pyprefix/lib/python$pyver" && tar -c --exclude=./site-packages --exclude=./test --exclude=./idlelib \
  --exclude=./tkinter --exclude=./ensurepip --exclude='__pycache__' .) | tar -x -C "$rootfs$pyprefix/lib/python$pyver"
# 3. The Spark install (venv with PySpark, the Delta jars).
copy "$install"
# 4. What spark-submit's scripts run.
# Hadoop's local file system shells out too (chmod, ls, stat, id, groups...): all of coreutils, then the rest.
tools=""
names=$(dpkg -L coreutils 2>/dev/null | grep -E '^/usr/s?bin/|^/s?bin/' | xargs -r -n 1 basename)
for t in $names bash sh dash find xargs ps grep sed hostname which; do
  p=$(command -v "$t" 2>/dev/null) || continue
  copy "$p"
  tools="$tools $(readlink -f "$p")"
done
# 5. Shared libraries of every binary and native module copied above.
libs=$(
  {
    # shellcheck disable=SC2086
    ldd $tools "$python" 2>/dev/null
    find "$rootfs" -type f \( -name '*.so' -o -name '*.so.*' \) -print0 | xargs -0 -n 50 ldd 2>/dev/null
  } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' | sort -u
  ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ && !found { print $NF; found = 1 }'
)
for lib in $libs; do [ -e "$rootfs$lib" ] || copy "$lib"; done
cat >"$rootfs/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/bin/sh
spark:x:10001:10001:Spark:/tmp:/bin/sh
PASSWD
printf 'root:x:0:\nspark:x:10001:\n' >"$rootfs/etc/group"
find "$work/context" -exec touch -h -d @0 {} +

cp "$here/Dockerfile" "$work/context/Dockerfile"
log "docker build ($(du -sh "$work/context" | cut -f1) context)"
if ! DOCKER_BUILDKIT=0 docker build -q --build-arg "JAVA_HOME=$java_home" --build-arg "SPARK_INSTALL=$install" \
  --label dev.minilake.spark-image=1 -t "$image" "$work/context" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  exit 1
fi
rm -rf "$work/context"
# Smoke test in the image itself (java needs /proc to find its own libraries, so a chroot would not do).
docker run --rm --network none "$image" sh -c "java -version 2>&1 | head -n 1 && $install/venv/bin/python -c 'import pyspark, pyarrow, grpc; print(\"pyspark\", pyspark.__version__)'" >&2 ||
  { echo "the image does not run java or import pyspark (a missing library?)" >&2; exit 1; }
docker image prune -f --filter label=dev.minilake.spark-image=1 >/dev/null 2>&1 || true
log "built $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}'))"
docker image inspect -f '{{.Id}}' "$image"
