#!/usr/bin/env bash
# Builds the real Databricks CLI, Terraform and the Databricks Terraform provider from their public Go modules,
# once per machine, into $MINILAKE_CACHE/tools/<tool>-<version> (default ~/.cache/minilake). A second run finds
# them and returns at once. Cold, on 2 cores: CLI about 9.5 min, Terraform about 7 min, provider about 4 min.
# `go install M@V` is refused for the CLI and the provider (the proxy will not list their versions), so each is
# `go mod download M@V` and `go build` inside that module's directory in the module cache. One at a time: each
# build already uses both cores.
# Prints the tools folder last; e2e/tools/env.sh turns it into the variables the suites read.
set -euo pipefail
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
# shellcheck source=versions.sh
. "$(dirname "$0")/versions.sh"
dir="$cache/tools"; mkdir -p "$dir"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPATH=${GOPATH:-$cache/go} GOCACHE=${GOCACHE:-$cache/go-build}

build() { # module version output [ldflags]
  local module=$1 version=$2 out=$3 ldflags=${4:-}
  [ -x "$out" ] && return 0
  local start=$SECONDS src
  echo "== building $module@v$version (once per machine)" >&2
  src=$(go mod download -json "$module@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$src" ] || { echo "go mod download $module@v$version failed" >&2; return 1; }
  mkdir -p "$(dirname "$out")"
  (cd "$src" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" .)
  mv "$out.tmp" "$out"
  echo "== built $module@v$version in $((SECONDS - start)) s" >&2
}

build github.com/databricks/cli "$CLI_VERSION" "$dir/databricks-$CLI_VERSION" \
  "-X github.com/databricks/cli/internal/build.buildVersion=$CLI_VERSION"
build github.com/hashicorp/terraform "$TF_VERSION" "$dir/terraform-$TF_VERSION"
mirror="$dir/tfplugins-$PROVIDER_VERSION"
build github.com/databricks/terraform-provider-databricks "$PROVIDER_VERSION" \
  "$mirror/registry.terraform.io/databricks/databricks/$PROVIDER_VERSION/linux_amd64/terraform-provider-databricks_v$PROVIDER_VERSION"
# Terraform finds the provider through a filesystem mirror named in a CLI config file; nothing is downloaded.
cat > "$dir/tfrc-$PROVIDER_VERSION" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/databricks/databricks"]
  }
  direct { exclude = ["registry.terraform.io/databricks/databricks"] }
}
RC
echo "$dir"
