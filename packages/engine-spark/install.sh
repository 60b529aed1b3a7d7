#!/usr/bin/env bash
# Installs MiniLake's Spark once: a venv with PySpark + delta-spark (and the Spark Connect client) and the
# Delta jars, under ${MINILAKE_CACHE:-~/.cache/minilake}/spark-<pyspark>-delta-<delta>/. The versions come
# from versions.json next to this script, the one place they are pinned (the TypeScript side reads it too,
# so both agree on the folder). Re-running is a no-op once the folder is complete. Prints the venv's python.
#
#   bash packages/engine-spark/install.sh            # install (or check) the cached Spark
#   bash packages/engine-spark/install.sh --print    # print the install folder and exit
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
py=${PYTHON:-python3}
ver() { "$py" -c 'import json,sys; v=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"v": v}))' "$here/versions.json" "$1"; }
pyspark=$(ver 'v["pyspark"]')
delta=$(ver 'v["deltaSpark"]')
dir="$cache/spark-$pyspark-delta-$delta"
if [ "${1:-}" = "--print" ]; then
  echo "$dir"
  exit 0
fi
# MiniLake's Java for Spark, compiled with javac against the pinned Spark and Delta jars, kept apart from
# jars/ so the Delta install itself never changes: the Unity Catalog plugin (catalog/src ->
# $dir/uc-catalog/minilake-uc-spark.jar) and the file systems that map dbfs:/ and /Volumes for tasks (fs/src
# -> $dir/fs/minilake-fs.jar). Each jar is built once per version of its sources, into a folder named by
# their hash (<out>/<hash>/<jar>, what the engine looks for first: src/plugin-jars.ts), so checkouts with
# different plugin sources sharing this cache never run each other's; the plain <out>/<jar> is the last one
# built (the hash of its sources kept next to it), for a server without the sources.
build_jar() {
  local src="$here/$1" out="$dir/$2" jar="$3" sum tmp own
  [ -d "$src" ] || return 0
  sum=$(cd "$src" && find . -name '*.java' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
  own="$out/${sum:0:16}"
  if [ -f "$own/$jar" ]; then
    if [ "$(cat "$out/.sources" 2>/dev/null)" != "$sum" ]; then
      cp "$own/$jar" "$out/$jar.tmp" && mv "$out/$jar.tmp" "$out/$jar" && echo "$sum" >"$out/.sources"
    fi
    return 0
  fi
  command -v javac >/dev/null || { echo "install.sh: $1 needs javac (Debian: apt-get install openjdk-17-jdk-headless)" >&2; exit 1; }
  local sparkjars
  sparkjars=$("$dir/venv/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
  echo "install.sh: compiling $1 into $own/$jar" >&2
  tmp=$(mktemp -d)
  javac -nowarn -encoding UTF-8 --release 17 -d "$tmp" -cp "$sparkjars/*:$dir/jars/*" $(find "$src" -name '*.java') >&2
  mkdir -p "$own"
  jar cf "$own/$jar.tmp" -C "$tmp" .
  mv "$own/$jar.tmp" "$own/$jar"
  cp "$own/$jar" "$out/$jar.tmp" && mv "$out/$jar.tmp" "$out/$jar"
  echo "$sum" >"$out/.sources"
  rm -rf "$tmp"
}
build_catalog() {
  build_jar catalog/src uc-catalog minilake-uc-spark.jar
  build_jar fs/src fs minilake-fs.jar
}
# The marker holds versions.json: a changed pin list (e.g. a new Python dependency) re-runs the install.
if [ -f "$dir/.complete" ] && cmp -s "$dir/.complete" "$here/versions.json"; then
  build_catalog
  echo "$dir/venv/bin/python"
  exit 0
fi
command -v java >/dev/null || { echo "install.sh: Spark needs Java 17 on PATH (Debian: apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "install.sh: fetching the Delta jars needs Maven (Debian: apt-get install maven)" >&2; exit 1; }
mkdir -p "$dir/jars"
if [ ! -x "$dir/venv/bin/python" ]; then
  "$py" -m venv "$dir/venv"
fi
pipargs=(-q --disable-pip-version-check)
# A pre-downloaded wheel/sdist folder only saves a download; the registry is still used for the rest.
[ -d /tmp/pipwarm ] && pipargs+=(--find-links /tmp/pipwarm)
mapfile -t reqs < <(ver '"\n".join(v["python"])')
echo "install.sh: pip install ${reqs[*]} into $dir/venv" >&2
"$dir/venv/bin/pip" install "${pipargs[@]}" "${reqs[@]}" >&2
# Jars through Maven's own resolver (the standard repository, no host written here), into a local
# repository inside the cache so ~/.m2 is left alone.
mapfile -t jars < <(ver '"\n".join(v["jars"])')
for coord in "${jars[@]}"; do
  IFS=: read -r g a v <<<"$coord"
  if [ ! -f "$dir/jars/$a-$v.jar" ]; then
    echo "install.sh: fetching $coord" >&2
    # Maven's output is shown only when it fails (its quiet mode still prints colour codes).
    if ! out=$(mvn -B -q -Dstyle.color=never -Dmaven.repo.local="$cache/m2" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="$coord:jar" -DoutputDirectory="$dir/jars" -Dmdep.overWriteIfNewer=true 2>&1); then
      echo "$out" >&2
      echo "install.sh: Maven could not fetch $coord" >&2
      exit 1
    fi
  fi
done
# A quick proof that the install imports (no JVM started here: that is what the tests do).
"$dir/venv/bin/python" -c 'import pyspark, delta, pyspark.sql.connect.session' >&2
cp "$here/versions.json" "$dir/.complete"
build_catalog
echo "$dir/venv/bin/python"
