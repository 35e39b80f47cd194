#!/usr/bin/env bash
# build-torch-wrapper.sh: rebuild gotch's C++ layer, as patched by
# scripts/setup.sh, into a shared library against another libtorch, on a
# machine that need not have Go (a GPU machine with PyTorch).
#
#   scripts/build-torch-wrapper.sh LIBTORCH OUTDIR [LIBTCH]
#
# LIBTORCH is an unpacked libtorch (include/, lib/, share/cmake/Torch): the
# zip from pytorch.org, or the torch package of a pip installation,
#   $(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
# LIBTCH is the patched libtch directory (default
# build/gotch-from-setup.sh/libtch of this checkout; setup.sh made it).
# OUTDIR receives libzerokit_torch_api.so. Binaries built with
# scripts/gpu-bundle.sh load it when run with
# LD_LIBRARY_PATH=OUTDIR; they contain no libtorch of their own.
#
# The flags are those of scripts/gotchpatch (toolchain.go: cxxFlags,
# ldFlags); TestWrapperScriptFlags checks that the two agree. Environment:
# CXX (default g++), OPT (optimisation flag, default -O2).
set -euo pipefail
die() { printf 'build-torch-wrapper: error: %s\n' "$*" >&2; exit 1; }
(($# == 2 || $# == 3)) || die "usage: $0 LIBTORCH OUTDIR [LIBTCH]"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
lt=$1 out=$2 libtch=${3:-$repo/build/gotch-from-setup.sh/libtch}
cxx=${CXX:-g++}

[[ -f $lt/include/torch/csrc/api/include/torch/torch.h ]] || die "$lt is not an unpacked libtorch (no include/torch/csrc/api/include/torch/torch.h)"
[[ -f $lt/lib/libtorch_cpu.so ]] || die "$lt is not an unpacked libtorch (no lib/libtorch_cpu.so)"
[[ -f $libtch/cxx/torch_api.cpp && -f $libtch/torch_api.h ]] || die "$libtch is not a patched libtch directory (run scripts/setup.sh)"
lt=$(cd "$lt" && pwd -P)
libtch=$(cd "$libtch" && pwd -P)
mkdir -p "$out"
out=$(cd "$out" && pwd -P)

cxxflags=(-std=c++17 "-I$lt/include" "-I$lt/include/torch/csrc/api/include")
if grep -q '_GLIBCXX_USE_CXX11_ABI=0' "$lt/share/cmake/Torch/TorchConfig.cmake" 2>/dev/null; then
	cxxflags+=(-D_GLIBCXX_USE_CXX11_ABI=0)
fi
ldflags=("-L$lt/lib" "-Wl,-rpath,$lt/lib" -lstdc++ -ltorch -lc10 -ltorch_cpu)
if [[ -f $lt/lib/libtorch_cuda.so ]]; then
	# Nothing references libtorch_cuda directly: without --no-as-needed the
	# linker drops it and CUDA devices are never registered.
	ldflags+=(-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed)
fi
ldflags+=(-lm)

printf 'build-torch-wrapper: compiling against %s\n' "$lt" >&2
start=$SECONDS
"$cxx" ${OPT:--O2} -fPIC -shared -w "-I$libtch" "${cxxflags[@]}" "$libtch/cxx/torch_api.cpp" \
	-o "$out/libzerokit_torch_api.so.tmp" -Wl,-soname,libzerokit_torch_api.so "${ldflags[@]}"
mv "$out/libzerokit_torch_api.so.tmp" "$out/libzerokit_torch_api.so"
printf 'build-torch-wrapper: wrote %s in %d s\n' "$out/libzerokit_torch_api.so" $((SECONDS - start)) >&2
