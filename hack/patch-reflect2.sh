#!/usr/bin/env bash
# Applies reflect2 v1.0.2's Go >= 1.18 fix to a vendored reflect2 v1.0.1 (idempotent):
# reflect.mapiterinit now fills a caller-allocated iterator instead of returning one, so the
# full runtime hiter struct is declared and its address passed in.
set -euo pipefail
dir="$1"
python3 - "$dir" <<'PY'
import re, sys, pathlib
d = pathlib.Path(sys.argv[1])
link = d / "unsafe_link.go"
m = d / "unsafe_map.go"
s = link.read_text()
if "func mapiterinit(rtype unsafe.Pointer, m unsafe.Pointer, it *hiter)" in s:
    print("[control-plane] reflect2 already patched"); sys.exit(0)
s = s.replace("func mapiterinit(rtype unsafe.Pointer, m unsafe.Pointer) *hiter",
              "func mapiterinit(rtype unsafe.Pointer, m unsafe.Pointer, it *hiter)")
s = re.sub(r"type hiter struct \{.*?\n\}", """type hiter struct {
	key         unsafe.Pointer
	value       unsafe.Pointer
	t           unsafe.Pointer
	h           unsafe.Pointer
	buckets     unsafe.Pointer
	bptr        unsafe.Pointer
	overflow    *[]unsafe.Pointer
	oldoverflow *[]unsafe.Pointer
	startBucket uintptr
	offset      uint8
	wrapped     bool
	B           uint8
	i           uint8
	bucket      uintptr
	checkBucket uintptr
}""", s, flags=re.S)
link.write_text(s)
t = m.read_text()
old = """	return &UnsafeMapIterator{
		hiter:      mapiterinit(type2.rtype, *(*unsafe.Pointer)(obj)),"""
new = """	var it hiter
	mapiterinit(type2.rtype, *(*unsafe.Pointer)(obj), &it)
	return &UnsafeMapIterator{
		hiter:      &it,"""
assert old in t, "unexpected reflect2 unsafe_map.go"
m.write_text(t.replace(old, new))
print("[control-plane] patched vendored reflect2 for Go >= 1.18")
PY
