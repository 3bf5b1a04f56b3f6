#!/usr/bin/env bash
# Makes the vendored OpenAPI type validators treat only a missing value as null (idempotent).
#
# Kubernetes 1.20's copies of kube-openapi and go-openapi/validate test null with
#   data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))
# which compares two reflect.Value structs. Since Go 1.19 both sides point at the runtime's
# shared zero value for "", so a built-with-Go-1.19+ apiserver takes "" for null and rejects
# every empty string in a custom resource and every `default: ""` in a CRD schema, which a real
# 1.20 server (built with Go 1.15) accepts. Later kube-openapi tests `data == nil` only.
set -euo pipefail
tree="$1"
for f in vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go \
         vendor/github.com/go-openapi/validate/type.go; do
  path="$tree/$f"
  [ -f "$path" ] || continue
  if grep -q 'reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))' "$path"; then
    sed -i 's/if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/if data == nil {/' "$path"
    if grep -q 'reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))' "$path"; then
      echo "[control-plane] unexpected null check in $f" >&2; exit 1
    fi
    # reflect may now be unused in the file; keep the import alive for the compiler.
    if ! grep -q 'reflect\.' <(grep -v '^import\|^\s*"reflect"' "$path"); then
      printf '\nvar _ = reflect.TypeOf\n' >> "$path"
    fi
    echo "[control-plane] patched the null check in $f" >&2
  else
    echo "[control-plane] $f already patched" >&2
  fi
done
