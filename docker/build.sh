#!/usr/bin/env bash
# Builds the MiniLake image without any image registry:
#
#   bash docker/build.sh            the full image: MiniLake on top of the Spark layer (Java 17, PySpark with
#                                   the Spark Connect server, the Delta jars, MiniLake's Spark plugins) ->
#                                   minilake:local and minilake:<version>
#   bash docker/build.sh --slim     REST and SQL only (no Spark: jobs' Spark tasks fail saying so) ->
#                                   minilake:slim and minilake:<version>-slim
#
#   1. pack the server package (pnpm pack, like apps/server/test/packaging.e2e.test.ts; the server bundle
#      already contains every @minilake/* workspace package, so its tarball is all that must be installed),
#   2. `npm install` the tarball into a staging dir (npm cache under $MINILAKE_CACHE/npm),
#   3. assemble a minimal root file system: the host's node binary, exactly the shared libraries that node and
#      the DuckDB native binding need (from ldd), /etc/passwd with a non-root user, /tmp (and for the full
#      image the Spark task runtime),
#   4. full: the Spark layer, an image of its own built by docker/spark-layer.sh and reused while its inputs
#      are unchanged (the daemon's data root is under $MINILAKE_CACHE);
#   5. `docker build` docker/Dockerfile (slim: FROM scratch) or docker/Dockerfile.full (FROM the Spark layer).
#
# Needs `pnpm build` first (apps/server/dist/cli.js), or MINILAKE_SERVER_DIST=<dir> pointing at another build
# of the server bundle (e.g. the private copy from scripts/dev-build.sh), a running Docker daemon
# (docker/dockerd.sh start), and for the full image the Spark install (bash packages/engine-spark/install.sh).
# Options (environment):
#   MINILAKE_IMAGE=minilake        image name
#   MINILAKE_SERVER_DIST=<dir>     use this server bundle instead of apps/server/dist
#   MINILAKE_NODE=<path>           node binary to put in the image (default: the one on PATH)
# Prints the image id on the last line.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
image=${MINILAKE_IMAGE:-minilake}
variant=full
case "${1:-}" in
  "" | --full) ;;
  --slim) variant=slim ;;
  *)
    echo "usage: bash docker/build.sh [--slim]" >&2
    exit 2
    ;;
esac
export npm_config_cache="$cache/npm"
work="$cache/docker-build"
node_bin=$(readlink -f "${MINILAKE_NODE:-$(command -v node)}")
t0=$(date +%s)
log() { echo "[docker/build.sh +$(($(date +%s) - t0))s] $*" >&2; }

version=$(node -p "require('$repo/apps/server/package.json').version")
dist=$(readlink -f "${MINILAKE_SERVER_DIST:-$repo/apps/server/dist}")
[ -f "$dist/cli.js" ] || {
  echo "no server bundle at $dist/cli.js: run 'pnpm build' first (or set MINILAKE_SERVER_DIST)" >&2
  exit 1
}

mkdir -p "$work"
# One build at a time per cache (they share the staging folders and the Spark layer).
exec 9>"$work/.lock"
flock 9
rm -rf "$work/tgz" "$work/context"
mkdir -p "$work/tgz" "$work/context/rootfs" "$npm_config_cache"

# 1. The server tarball.
if [ -z "${MINILAKE_SERVER_DIST:-}" ]; then
  (cd "$repo/apps/server" && pnpm pack --pack-destination "$work/tgz" >/dev/null)
else
  # Another bundle: stage the package as pnpm pack would publish it (publishConfig applied, no devDependencies).
  pkg="$work/tgz/pkg"
  mkdir -p "$pkg"
  cp -r "$dist" "$pkg/dist"
  cp "$repo/apps/server/README.md" "$pkg/" 2>/dev/null || true
  node -e "
    const p = require('$repo/apps/server/package.json');
    Object.assign(p, p.publishConfig || {});
    delete p.publishConfig; delete p.devDependencies; delete p.scripts;
    require('fs').writeFileSync('$pkg/package.json', JSON.stringify(p, null, 2));"
  (cd "$work/tgz" && npm pack --silent ./pkg >/dev/null)
fi
tgz=$(ls "$work"/tgz/*.tgz)
log "packed $(basename "$tgz")"

# 2. Install it (third-party dependencies only; reused while the tarball and node are unchanged).
app="$work/app"
stamp="$(sha256sum "$tgz" | cut -c1-64) $("$node_bin" --version)"
if [ "$(cat "$app/.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$app"
  mkdir -p "$app"
  cp "$tgz" "$app/minilake-server.tgz"
  echo '{"name":"minilake-image","private":true,"type":"module"}' >"$app/package.json"
  (cd "$app" && npm install --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error ./minilake-server.tgz)
  rm -f "$app/minilake-server.tgz"
  echo "$stamp" >"$app/.stamp"
  log "npm install done"
else
  log "npm install reused (same tarball and node)"
fi

# 3. The root file system.
rootfs="$work/context/rootfs"
# shellcheck source=rootfs-lib.sh
. "$repo/docker/rootfs-lib.sh"
rootfs_usrmerge
mkdir -p "$rootfs/usr/local/bin" "$rootfs/opt" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
cp "$node_bin" "$rootfs/usr/local/bin/node"
cp -a "$app" "$rootfs/opt/minilake"
rm -f "$rootfs/opt/minilake/.stamp"
# Native addons built for other platforms or libcs are never loaded here.
find "$rootfs/opt/minilake/node_modules" -type d -name 'node-bindings-*' \
  ! -name "node-bindings-linux-x64" -prune -exec rm -rf {} + 2>/dev/null || true
if [ "$variant" = full ]; then
  # The Python side of Spark tasks (the server package does not carry it): MINILAKE_SPARK_RUNTIME names it.
  cp -a "$repo/packages/engine-spark/runtime" "$rootfs/opt/minilake/spark-runtime"
  find "$rootfs/opt/minilake/spark-runtime" -name __pycache__ -prune -exec rm -rf {} +
fi
# Shared libraries: what ldd lists for node and every native addon (rootfs-lib.sh).
rootfs_libs "$node_bin"
rootfs_users
mkdir -p "$work/context/data"
rootfs_fix_times "$work/context"

# Smoke test the root fs the way the image will run it: no loader, library or file from the host.
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null; then
  env -i "$(command -v chroot)" "$rootfs" /usr/local/bin/node -e \
    "require('/opt/minilake/node_modules/@duckdb/node-bindings'); require('/opt/minilake/node_modules/@minilake/server/package.json')" ||
    { echo "the root fs does not run node with the DuckDB binding (missing library?)" >&2; exit 1; }
  log "root fs runs node and loads the DuckDB binding (chroot)"
fi

# 4. The Spark layer (full image only), reused while its inputs are unchanged.
build_args=()
dockerfile="$repo/docker/Dockerfile"
tags=(-t "$image:$([ $variant = full ] && echo local || echo slim)" -t "$image:$version$([ $variant = full ] || echo -slim)")
if [ "$variant" = full ]; then
  layer=$(bash "$repo/docker/spark-layer.sh" | tail -n 1)
  java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  build_args=(--build-arg "SPARK_LAYER=$layer" --build-arg "JAVA_HOME=$java_home")
  dockerfile="$repo/docker/Dockerfile.full"
  log "Spark layer $layer"
fi

# 5. The image.
log "docker build ${variant} ($(du -sh "$work/context" | cut -f1) context)"
# The legacy builder (buildx is not packaged with docker.io); its deprecation notice is noise here.
if ! DOCKER_BUILDKIT=0 docker build -q -f "$dockerfile" "${build_args[@]}" \
  --label "org.opencontainers.image.version=$version" --label dev.minilake.image=1 \
  --label "dev.minilake.image.variant=$variant" "${tags[@]}" "$work/context" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  exit 1
fi
# Earlier builds this one replaced (untagged now) only take disk space.
docker image prune -f --filter label=dev.minilake.image=1 >/dev/null 2>&1 || true
main_tag=${tags[1]}
id=$(docker image inspect -f '{{.Id}}' "$main_tag")
log "built ${tags[1]} and ${tags[3]} ($(docker image inspect -f '{{.Size}}' "$main_tag" | awk '{printf "%d MB", $1/1e6}'))"
echo "$id"
