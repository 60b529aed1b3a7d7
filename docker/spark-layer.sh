#!/usr/bin/env bash
# Builds the Spark layer of the full MiniLake image as an image of its own, `minilake-spark-layer:<key>`, from
# what this machine has (no registry, no base image): Java 17 (a JRE's worth of the host's JDK), the Python the
# Spark install's venv was made from (moved to /opt/python), the Spark install itself (`bash
# packages/engine-spark/install.sh`: PySpark with the Spark Connect server, the Delta jars, MiniLake's Unity
# Catalog plugin and file systems, and whatever else install.sh puts there) moved to
# /var/cache/minilake/spark-<pyspark>-delta-<delta> (the image's MINILAKE_CACHE, so the engine finds it by
# itself), and bash plus the tools spark-submit's scripts and Hadoop's local file system call.
#
# The key hashes every input (this script, the pinned versions, the install's files outside the venv, the
# venv's package list, the Java and Python versions): an unchanged Spark layer is never built twice, and the
# daemon's data root (docker/dockerd.sh: under $MINILAKE_CACHE) keeps it between runs. docker/build.sh builds
# the MiniLake layer on top. Prints the image tag on the last line.
#
#   MINILAKE_CACHE=~/.cache/minilake   where the Spark install is, and the staging folder
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
versions="$repo/packages/engine-spark/versions.json"
pyspark=$(node -p "require('$versions').pyspark")
delta=$(node -p "require('$versions').deltaSpark")
install="$cache/spark-$pyspark-delta-$delta"
# Where the image keeps it: its MINILAKE_CACHE is /var/cache/minilake.
image_cache=/var/cache/minilake
target="$image_cache/spark-$pyspark-delta-$delta"
work="$cache/docker-spark-layer"
t0=$(date +%s)
log() { echo "[docker/spark-layer.sh +$(($(date +%s) - t0))s] $*" >&2; }
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

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

key=$(
  {
    cat "$here/spark-layer.sh" "$here/rootfs-lib.sh" "$versions" "$install/.complete"
    (cd "$install" && find . -path ./venv -prune -o -type f -print | LC_ALL=C sort | xargs -r sha256sum)
    ls "$install/venv/lib/python$pyver/site-packages" | LC_ALL=C sort
    "$java" -version 2>&1
    "$python" --version
    echo "$java_home $pyprefix"
  } | sha256sum | cut -c1-16
)
tag="minilake-spark-layer:$key"
if docker image inspect "$tag" >/dev/null 2>&1; then
  log "reused $tag (same Spark install, Java and Python)"
  echo "$tag"
  exit 0
fi

rm -rf "$work"
rootfs="$work/rootfs"
mkdir -p "$rootfs/tmp" "$rootfs$image_cache"
chmod 1777 "$rootfs/tmp"
# Any uid the container runs as (docker run --user) writes the task venvs and the certificate here.
chmod 1777 "$rootfs$image_cache"
rootfs_usrmerge

# 1. Java: the runtime part of the JDK (no jmods, headers, sources or javac's symbol table), and the
#    configuration Debian keeps under /etc and links to.
mkdir -p "$rootfs$java_home"
(cd "$java_home" && tar -c --exclude=./jmods --exclude=./include --exclude=./man --exclude=./lib/src.zip \
  --exclude=./lib/ct.sym --exclude=./docs .) | tar -x -C "$rootfs$java_home"
rootfs_copy /etc/java-17-openjdk /etc/ssl/certs/java
# 2. Python at /opt/python, without its site-packages (the venv has its own). Its libpython goes where the
#    loader looks by default: the binary's run path names the host's prefix, which the image does not have.
mkdir -p "$rootfs/opt/python/bin" "$rootfs/opt/python/lib/python$pyver"
cp -L "$pyprefix/bin/python$pyver" "$rootfs/opt/python/bin/python$pyver"
ln -s "python$pyver" "$rootfs/opt/python/bin/python3"
ln -s "python$pyver" "$rootfs/opt/python/bin/python"
(cd "$pyprefix/lib/python$pyver" && tar -c --exclude=./site-packages --exclude=./test --exclude=./idlelib \
  --exclude=./tkinter --exclude=./ensurepip --exclude=./turtledemo .) | tar -x -C "$rootfs/opt/python/lib/python$pyver"
libdir=$(dirname "$(ldd "$(command -v bash)" | awk '$1 == "libc.so.6" { print $3 }')")
for f in "$pyprefix"/lib/libpython"$pyver"*.so*; do
  [ -e "$f" ] || continue
  mkdir -p "$rootfs$libdir"
  cp -L "$f" "$rootfs$libdir/$(basename "$f")"
done
# 3. The Spark install, its venv pointed at /opt/python.
mkdir -p "$rootfs$target"
cp -a "$install/." "$rootfs$target/"
venv="$rootfs$target/venv"
ln -sfn "/opt/python/bin/python$pyver" "$venv/bin/python3"
cat >"$venv/pyvenv.cfg" <<CFG
home = /opt/python/bin
include-system-site-packages = false
version = $("$python" -c 'import platform; print(platform.python_version())')
executable = /opt/python/bin/python$pyver
CFG
# Scripts that name the venv by its old path (pip's launchers and the like).
grep -rlI --null "$install" "$venv/bin" 2>/dev/null | xargs -0 -r sed -i "s#$install#$target#g"
# 4. What spark-submit's scripts and Hadoop's local file system run: all of coreutils, then the rest.
names=$(dpkg -L coreutils 2>/dev/null | grep -E '^/usr/s?bin/|^/s?bin/' | xargs -r -n 1 basename)
# shellcheck disable=SC2086
tools=$(rootfs_tools $names bash sh dash find xargs ps grep sed hostname which)
# 5. Shared libraries of every binary and native module above.
# shellcheck disable=SC2086
rootfs_libs $tools "$rootfs/opt/python/bin/python$pyver" "$rootfs$java_home/bin/java"
rootfs_users
rootfs_fix_times "$work"

# The layer, smoke-tested in the image itself (java needs /proc, so a chroot would not do).
printf 'FROM scratch\nCOPY rootfs/ /\n' >"$work/Dockerfile"
log "docker build ($(du -sh "$work" | cut -f1) context)"
if ! DOCKER_BUILDKIT=0 docker build -q --label dev.minilake.spark-layer=1 -t "$tag" "$work" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  exit 1
fi
rm -rf "$work"
# (No `| head` under pipefail: java's SIGPIPE would fail a good image.)
if ! jv=$(docker run --rm --network none --user 10001:10001 "$tag" "$java_home/bin/java" -version 2>&1) ||
  ! py=$(docker run --rm --network none --user 10001:10001 "$tag" "$target/venv/bin/python" -c \
    'import pyspark, delta, pyarrow, grpc; print("pyspark", pyspark.__version__)' 2>&1); then
  echo "the Spark layer does not run java or import pyspark (a missing library?): ${jv:-} ${py:-}" >&2
  docker rmi "$tag" >/dev/null 2>&1
  exit 1
fi
log "in the layer: ${jv%%$'\n'*}; $py"
# Older Spark layers only take disk space (an image built on one of them keeps it alive).
for old in $(docker images --filter label=dev.minilake.spark-layer=1 --format '{{.Repository}}:{{.Tag}}'); do
  [ "$old" = "$tag" ] || docker rmi "$old" >/dev/null 2>&1 || true
done
log "built $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%d MB", $1/1e6}'))"
echo "$tag"
