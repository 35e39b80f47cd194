#!/usr/bin/env bash
# gpu-bundle.sh: build here (Go, Debian's CPU libtorch) what scripts/gpu-check.sh
# runs on a GPU machine that has PyTorch but no Go:
#
#   scripts/gpu-bundle.sh [OUT]          # default OUT: dist/gpu
#
# OUT/bundle.tar.gz holds the zerokit binary and the model/torch test binary,
# both linked against gotch's C++ layer as a shared library
# (libzerokit_torch_api.so, derived from setup.sh's build with
# "gotchpatch -shared-from": nothing is recompiled), the play-only binary
# (pure Go), and the patched C++ sources that scripts/build-torch-wrapper.sh
# compiles against the GPU machine's libtorch. The binaries contain no
# libtorch: on the GPU machine they load the rebuilt library through
# LD_LIBRARY_PATH (docs/gpu.md).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
export PATH="$PATH:/usr/local/go/bin"
out=${1:-dist/gpu}
say() { printf 'gpu-bundle: %s\n' "$*" >&2; }

./scripts/setup.sh
shared=$repo/build/gotch-shared
# The resolved path: in a worktree, build/gotch-from-setup.sh may be a link
# to the main checkout's build, which the patch program will not walk.
go run ./scripts/gotchpatch -shared-from "$(cd build/gotch-from-setup.sh && pwd -P)" -dir "$shared" -libtorch "${LIBTORCH:-}" -cxx "${CXX:-g++}"

# The same module with gotch replaced by the shared copy.
moddir=$repo/build/gpu-mod
mkdir -p "$moddir"
sed "s#=> ./build/gotch-from-setup.sh\$#=> $shared#" go.mod >"$moddir/go.mod"
grep -q "=> $shared\$" "$moddir/go.mod" || { echo "gpu-bundle: go.mod has no gotch replace line to redirect" >&2; exit 1; }
cp go.sum "$moddir/go.sum"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
say "building the binaries"
# -buildvcs=auto stamps the revision into the binaries (a run's agent names
# the commit that trained it) where GOFLAGS says -buildvcs=false.
go build -buildvcs=auto -modfile "$moddir/go.mod" -trimpath -ldflags='-s -w' -o "$stage/zerokit" ./cmd/zerokit
go test -c -modfile "$moddir/go.mod" -trimpath -ldflags='-s -w' -o "$stage/torch.test" ./model/torch
CGO_ENABLED=0 go build -buildvcs=auto -tags nonet -trimpath -ldflags='-s -w' -o "$stage/zerokit-play" ./cmd/zerokit
# The CPU side of self-play alone (BenchmarkHostSelfPlay), pure Go.
CGO_ENABLED=0 go test -c -trimpath -o "$stage/selfplay.test" ./selfplay
# The binaries' only libtorch-side dependency is the wrapper library.
for b in zerokit torch.test; do
	needed=$(readelf -d "$stage/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	if [[ $needed != *libzerokit_torch_api.so* || $needed == *libtorch* || $needed == *libc10* ]]; then
		echo "gpu-bundle: $b needs [$needed]: it must reach libtorch only through libzerokit_torch_api.so" >&2
		exit 1
	fi
done
mkdir -p "$stage/libtch/cxx"
cp build/gotch-from-setup.sh/libtch/*.h "$stage/libtch/"
cp build/gotch-from-setup.sh/libtch/cxx/torch_api.cpp "$stage/libtch/cxx/"
git rev-parse HEAD >"$stage/REVISION" 2>/dev/null || echo unknown >"$stage/REVISION"
mkdir -p "$out"
tar -C "$stage" -czf "$out/bundle.tar.gz.tmp" .
mv "$out/bundle.tar.gz.tmp" "$out/bundle.tar.gz"
say "wrote $out/bundle.tar.gz ($(du -h "$out/bundle.tar.gz" | cut -f1)); on the GPU machine: scripts/gpu-check.sh"
