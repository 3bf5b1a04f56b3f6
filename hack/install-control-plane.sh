#!/usr/bin/env bash
# Provides etcd, kube-apiserver and kube-controller-manager for the local control plane
# (tests and `npm run dev`). Binaries already present win: $KUBEBUILDER_ASSETS, then PATH,
# then the cache. Otherwise kube-apiserver and kube-controller-manager are built once from
# Debian's `kubernetes` source package (Kubernetes 1.20.2) and cached outside the repo.
#
# Prints the directory holding the three binaries on its last line of stdout.
# Progress goes to stderr.
set -euo pipefail

CACHE_DIR="${SKIFF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/skiff}"
HACK_DIR="$(cd "$(dirname "$0")" && pwd)"
# The cache is keyed by the build recipe (this script and the source patches it applies), not
# only by the Kubernetes version: binaries built by an older recipe are rebuilt once.
RECIPE="$(cat "$HACK_DIR/install-control-plane.sh" "$HACK_DIR"/patch-*.sh | sha256sum | cut -c1-12)"
BIN_DIR="$CACHE_DIR/k8s-1.20.2-$RECIPE/bin"
log() { printf '[control-plane] %s\n' "$*" >&2; }

have_all() { [ -x "$1/etcd" ] && [ -x "$1/kube-apiserver" ] && [ -x "$1/kube-controller-manager" ]; }

if [ -n "${KUBEBUILDER_ASSETS:-}" ] && have_all "$KUBEBUILDER_ASSETS"; then
  log "using binaries from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"; echo "$KUBEBUILDER_ASSETS"; exit 0
fi
if command -v kube-apiserver >/dev/null && command -v kube-controller-manager >/dev/null && command -v etcd >/dev/null; then
  d="$(mktemp -d)"; for b in etcd kube-apiserver kube-controller-manager; do ln -s "$(command -v $b)" "$d/$b"; done
  log "using binaries from PATH"; echo "$d"; exit 0
fi
if have_all "$BIN_DIR"; then echo "$BIN_DIR"; exit 0; fi

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
mkdir -p "$BIN_DIR"
exec 9>"$CACHE_DIR/.build.lock"
flock 9
if have_all "$BIN_DIR"; then echo "$BIN_DIR"; exit 0; fi

start=$(date +%s)
need_pkgs=()
command -v etcd >/dev/null || [ -x /usr/bin/etcd ] || need_pkgs+=(etcd-server)
command -v go >/dev/null || need_pkgs+=(golang-go)
for p in rsync jq dpkg-dev; do dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p"); done
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need_pkgs[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
fi
# etcd-server installs a systemd unit; we only need the binary.
ln -sf "$(command -v etcd || echo /usr/bin/etcd)" "$BIN_DIR/etcd"

if [ ! -x "$BIN_DIR/kube-apiserver" ] || [ ! -x "$BIN_DIR/kube-controller-manager" ]; then
  SRC_ROOT="$CACHE_DIR/src"
  mkdir -p "$SRC_ROOT"
  if ! ls -d "$SRC_ROOT"/kubernetes-*/ >/dev/null 2>&1; then
    if ! grep -rqs '^Types: deb deb-src\|^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      log "adding a deb-src line for the configured Debian mirror"
      src="/etc/apt/sources.list.d/skiff-deb-src.sources"
      if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src" >/dev/null
      else
        grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/skiff-deb-src.list >/dev/null
      fi
      $SUDO apt-get update -qq >&2
    fi
    log "downloading Debian's kubernetes source package (about 30 MB)"
    (cd "$SRC_ROOT" && apt-get source -qq --download-only kubernetes >&2 && dpkg-source -x --skip-patches kubernetes_*.dsc >&2 || true)
    (cd "$SRC_ROOT" && ls -d kubernetes-*/ >/dev/null)
  fi
  TREE="$(ls -d "$SRC_ROOT"/kubernetes-*/ | head -1)"; TREE="${TREE%/}"
  # Go >= 1.18 changed reflect.mapiterinit to take a caller-allocated iterator; reflect2 v1.0.1
  # still uses the old form and crashes the apiserver on its first custom-resource write.
  # Apply the v1.0.2 fix (full hiter struct, pass &it) to the vendored copy.
  "$HACK_DIR/patch-reflect2.sh" "$TREE/vendor/github.com/modern-go/reflect2" >&2
  # Built with Go >= 1.19, the vendored OpenAPI validators take "" for null: the apiserver would
  # reject empty strings in custom resources and `default: ""` in CRDs, unlike a real server.
  "$HACK_DIR/patch-openapi-null.sh" "$TREE" >&2
  GOPATH_DIR="$CACHE_DIR/gopath"
  mkdir -p "$GOPATH_DIR/src/k8s.io"
  ln -sfn "$TREE" "$GOPATH_DIR/src/k8s.io/kubernetes"
  log "building kube-apiserver and kube-controller-manager (about 8 minutes on 2 cores, once)"
  (
    cd "$GOPATH_DIR/src/k8s.io/kubernetes"
    export GOPATH="$GOPATH_DIR" GO111MODULE=off GOFLAGS=-mod=vendor GOCACHE="$CACHE_DIR/gocache"
    export KUBE_GIT_VERSION=v1.20.2 KUBE_GIT_TREE_STATE=clean KUBE_GIT_COMMIT=debian
    make WHAT="cmd/kube-apiserver cmd/kube-controller-manager" >&2
  )
  out="$GOPATH_DIR/src/k8s.io/kubernetes/_output/bin"
  [ -x "$out/kube-apiserver" ] || out="$(dirname "$(find "$TREE/_output" -name kube-apiserver -type f | head -1)")"
  cp "$out/kube-apiserver" "$out/kube-controller-manager" "$BIN_DIR/"
  log "built in $(( $(date +%s) - start ))s; cached in $BIN_DIR"
  # Binaries of earlier recipes are never used again.
  for old in "$CACHE_DIR"/k8s-1.20.2*/; do
    [ "${old%/}" = "${BIN_DIR%/bin}" ] || rm -rf "$old"
  done
fi
echo "$BIN_DIR"
