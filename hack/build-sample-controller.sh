#!/usr/bin/env bash
# Builds client-go's sample-controller (the Go peer of `npm run bench`) from the Debian
# kubernetes source tree that hack/install-control-plane.sh downloaded, once, and prints the
# binary's path on its last line. Needs the control-plane build to have run first (same tree,
# same Go build cache).
set -euo pipefail
CACHE_DIR="${SKIFF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/skiff}"
OUT="$CACHE_DIR/sample-controller/sample-controller"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
TREE="$(ls -d "$CACHE_DIR"/src/kubernetes-*/ 2>/dev/null | head -1)"; TREE="${TREE%/}"
[ -n "$TREE" ] || { echo "no kubernetes source tree in $CACHE_DIR/src: run hack/install-control-plane.sh first" >&2; exit 1; }
GOPATH_DIR="$CACHE_DIR/gopath"
mkdir -p "$(dirname "$OUT")"
echo "[bench] building client-go's sample-controller (once)" >&2
(
  cd "$GOPATH_DIR/src/k8s.io/kubernetes"
  export GOPATH="$GOPATH_DIR" GO111MODULE=off GOFLAGS=-mod=vendor GOCACHE="$CACHE_DIR/gocache"
  go build -o "$OUT" ./vendor/k8s.io/sample-controller
)
echo "$OUT"
