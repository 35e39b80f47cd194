#!/usr/bin/env bash
# setup.sh: prepare this checkout for training: what the packages that use
# libtorch (model/torch and everything importing it) need to build.
# Idempotent; a second run takes about a second. Run it from anywhere:
# ./scripts/setup.sh. What only the tests need (a browser, a JDK, MinIO)
# is scripts/test-deps.sh's, which scripts/test.sh runs.
#
# What it does:
#  1. Installs Debian's libtorch-dev and libopenblas0-pthread (apt-get, as root
#     or through sudo) unless already installed, in the background. OpenBLAS
#     replaces the reference BLAS through Debian's alternatives; it makes
#     batch-1 convolutions ~4x faster. Meanwhile it fetches the Go modules and
#     compiles the packages that do not need libtorch (most of the work).
#  2. Fetches github.com/sugarme/gotch v0.9.1 through the Go module proxy,
#     copies it without example/ and gen/ to build/gotch-from-setup.sh (go.mod
#     replaces the module with that directory) and patches it with
#     scripts/gotchpatch: cgo flags for the local libtorch, stubs for the
#     generated wrappers this libtorch cannot compile (found from g++
#     diagnostics), fixes for gotch's Go-side leaks, and leaves out the
#     generated operators zerokit's code cannot reach (135 of 7,459 Go
#     functions kept; it patches again when that code starts using another).
#     It compiles gotch's C++ layer once into a static library the cgo
#     package links (about 25 s, 1.5 GB of memory), so that no Go build (not
#     even -race or -cover ones) recompiles it.
#  3. Builds the zerokit command (gotch's Go packages included) through
#     go run, which caches it: the README's go run then starts at once.
# A stamp (build/gotch-from-setup.sh.stamp) records a hash of every input of
# step 2 (this script from step 2 on, not its comments above or step 1);
# when it matches, step 2 is skipped and step 3 is a cache hit: a re-run
# takes a few seconds. Regeneration is byte-identical and keeps the build
# directory's absolute path, so the Go build cache stays valid.
#
# Times on a fresh 2-core machine are in docs/install.md.
#
# CUDA (or any other libtorch): unpack the libtorch zip from pytorch.org
# somewhere without spaces in its path and run
#     LIBTORCH=/opt/libtorch ./scripts/setup.sh
# The patched gotch then compiles against $LIBTORCH/include, links
# $LIBTORCH/lib (with an rpath, so no LD_LIBRARY_PATH is needed) and adds the
# CUDA libraries when $LIBTORCH/lib/libtorch_cuda.so exists; the pre-C++11 ABI
# define is added when that libtorch was built with it. The Debian packages
# are then not installed. Re-run setup.sh whenever LIBTORCH changes.
#
# Environment: LIBTORCH (above), GOTCH_FULL=1 (keep all of gotch's
# operators, step 2), CXX (C++ compiler, default g++), AR
# (archiver, default ar), SKIP_APT=1 (do not touch Debian packages),
# SKIP_PREBUILD=1 (do not compile any Go package now: steps 1 and 3).
set -euo pipefail

GOTCH_MODULE=github.com/sugarme/gotch
GOTCH_VERSION=v0.9.1
# The module's checksum as recorded by sum.golang.org; a mismatch aborts.
GOTCH_SUM='h1:J6JCE1C2AfPmM1xk0p46LdzWtfNvbvZZnWdkj9v54jo='
APT_PACKAGES=(libtorch-dev libopenblas0-pthread)
# libtorch's recommended packages (video drivers, Qt, ...) are not needed to
# train: 157 packages instead of 184. Unpacking without a sync per file (as
# Debian's container images do) saves more; on an idle machine the install
# took 53 s with both instead of 62 s (docs/install.md).
APT_FLAGS=(--no-install-recommends -o Dpkg::Options::=--force-unsafe-io)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
build="$repo/build"
dest="$build/gotch-from-setup.sh"
stamp="$dest.stamp"
cxx=${CXX:-g++}
libtorch=${LIBTORCH:-}

say() { printf 'setup: %3ds %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=apt.sh
source "$repo/scripts/apt.sh"

command -v go >/dev/null || die "go is not on PATH"

# --- 1. Debian packages, in the background -----------------------------------
# Their download and unpacking leave the CPU mostly idle: the Go packages that
# do not need libtorch are compiled meanwhile (prebuild_pure below).
apt_pid=
apt_log="$build/apt.log"
if [[ -n $libtorch ]]; then
	[[ -d $libtorch ]] || die "LIBTORCH=$libtorch is not a directory"
	libtorch=$(cd "$libtorch" && pwd -P)
	say "using libtorch at $libtorch (LIBTORCH); Debian's libtorch packages not installed"
elif [[ ${SKIP_APT:-} != 1 ]] && ! command -v dpkg-query >/dev/null; then
	die "not a Debian system: install libtorch yourself and set LIBTORCH"
elif [[ ${SKIP_APT:-} != 1 && -n $(apt_missing "${APT_PACKAGES[@]}") ]]; then
	if ((EUID != 0)); then
		# sudo asks for its password here, not in the background.
		command -v sudo >/dev/null || die "need root (or sudo) to install: ${APT_PACKAGES[*]}"
		sudo -v || die "sudo failed"
	fi
	mkdir -p "$build"
	say "installing Debian packages in the background (log: $apt_log)"
	apt_install "${APT_PACKAGES[@]}" >"$apt_log" 2>&1 &
	apt_pid=$!
else
	apt_install "${APT_PACKAGES[@]}"
fi

# prebuild_pure compiles, into the Go build cache, every package the zerokit
# command needs that does not depend on gotch (the standard library, gonum,
# the S3 client, zerokit's own: three quarters of the work), after fetching
# the modules. It reads a copy of go.mod without gotch's replace line, since
# the patched copy may not exist yet; that changes none of these packages'
# cache entries, so the build at the end finds them.
prebuild_pure() {
	local tmp rc=0 pkgs
	tmp=$(mktemp -d)
	grep -v '^replace github.com/sugarme/gotch ' "$repo/go.mod" >"$tmp/go.mod"
	cp "$repo/go.sum" "$tmp/go.sum"
	pkgs=$(cd "$repo" && GOFLAGS=-mod=mod go list -modfile="$tmp/go.mod" -deps \
		-f '{{.ImportPath}} {{join .Deps " "}}' ./cmd/zerokit | awk '!/github\.com\/sugarme\/gotch/ {print $1}') || rc=$?
	if ((rc == 0)); then
		# shellcheck disable=SC2086 # one argument per package
		(cd "$repo" && GOFLAGS=-mod=mod nice -n 10 go build -modfile="$tmp/go.mod" $pkgs) || rc=$?
	fi
	rm -rf "$tmp"
	return "$rc"
}
prebuild_pid=
if [[ ${SKIP_PREBUILD:-} != 1 ]]; then
	say "compiling the Go packages that do not need libtorch (in the background)"
	prebuild_pure &
	prebuild_pid=$!
fi
# The patch program, compiled meanwhile too (step 2 runs it if needed).
patcher_pid=
(cd "$repo" && go build -o /dev/null ./scripts/gotchpatch) &
patcher_pid=$!
# Whatever this script leaves running when it stops is stopped with it.
cleanup=()
trap 'for p in $apt_pid $prebuild_pid $patcher_pid ${gotch_pid:-}; do kill "$p" 2>/dev/null || true; done; rm -rf "${cleanup[@]}"' EXIT

if [[ -n $apt_pid ]]; then
	if ! wait "$apt_pid"; then
		apt_pid=
		tail -n 30 "$apt_log" >&2
		die "installing the Debian packages failed (log: $apt_log)"
	fi
	apt_pid=
	say "Debian packages installed"
fi

# --- 2. patched gotch ---------------------------------------------------------
command -v "$cxx" >/dev/null || die "C++ compiler $cxx not found (apt-get install g++)"
command -v "${AR:-ar}" >/dev/null || die "archiver ${AR:-ar} not found (apt-get install binutils)"

# Everything the generated directory depends on goes into the stamp.
libtorch_fingerprint() {
	if [[ -z $libtorch ]]; then
		dpkg-query -W -f='${Package} ${Version}\n' libtorch-dev 2>/dev/null || echo "libtorch-dev: not from dpkg"
		sha256sum /usr/include/torch/csrc/api/include/torch/version.h 2>/dev/null || true
	else
		sha256sum "$libtorch/include/torch/csrc/api/include/torch/version.h" 2>/dev/null || true
		ls -l "$libtorch/lib" 2>/dev/null | sha256sum
	fi
}
inputs_hash() {
	{
		echo "$GOTCH_MODULE@$GOTCH_VERSION $GOTCH_SUM"
		echo "LIBTORCH=$libtorch GOTCH_FULL=${GOTCH_FULL:-}"
		libtorch_fingerprint
		"$cxx" --version | head -n1
		"${AR:-ar}" --version | head -n1
		go version
		# This script from step 2 on: its comments and step 1 do not
		# change the patched copy.
		sed -n '/^# --- 2\. patched gotch/,$p' "$repo/scripts/setup.sh"
		# The patch program's sources, in a stable order.
		find "$repo/scripts/gotchpatch" -type f \( -name '*.go' ! -name '*_test.go' -o -name '*.txt' \) | LC_ALL=C sort | xargs cat
	} | sha256sum | cut -d' ' -f1
}

# uses_pruned reports whether zerokit's Go code mentioning gotch now uses a
# name the patch removed (gotchpatch -prune-for keeps only what that code
# reaches; scripts/gotchpatch/prune.go takes the same words).
uses_pruned() {
	local files
	[[ -f $dest/ZEROKIT_PRUNED ]] || return 1
	mapfile -t files < <(grep -rl --include='*.go' --exclude-dir=build --exclude-dir='.*' --exclude-dir=testdata \
		--exclude-dir=node_modules -F "$GOTCH_MODULE" "$repo" | grep -v '/scripts/gotchpatch/' || true)
	((${#files[@]})) || return 1
	[[ -n $(grep -ohE '[A-Za-z_][A-Za-z0-9_]*' "${files[@]}" | LC_ALL=C sort -u |
		LC_ALL=C comm -12 - <(LC_ALL=C sort -u "$dest/ZEROKIT_PRUNED")) ]]
}

# GOTCH_FULL=1 keeps every generated operator (for code of your own that
# calls gotch directly; a few minutes more).
prune=(-prune-for "$repo")
[[ ${GOTCH_FULL:-} == 1 ]] && prune=()

want=$(inputs_hash)
if [[ -d $dest && -f $stamp && $(cat "$stamp") == "$want" ]] && uses_pruned; then
	say "zerokit now uses gotch operators the patched copy left out: patching again"
	rm -f "$stamp"
fi
if [[ -d $dest && -f $stamp && $(cat "$stamp") == "$want" ]]; then
	say "patched gotch is up to date ($dest)"
else
	say "fetching $GOTCH_MODULE@$GOTCH_VERSION through the Go module proxy"
	tmpmod=$(mktemp -d)
	cleanup+=("$tmpmod")
	# Outside this module, so that go.mod's replace line is not consulted.
	json=$(cd "$tmpmod" && GOFLAGS=-mod=mod go mod download -json "$GOTCH_MODULE@$GOTCH_VERSION") ||
		die "go mod download failed: $json"
	src=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
	sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$json")
	[[ -n $src && -d $src ]] || die "go mod download gave no module directory: $json"
	[[ $sum == "$GOTCH_SUM" ]] || die "$GOTCH_MODULE@$GOTCH_VERSION checksum $sum, expected $GOTCH_SUM"

	mkdir -p "$build"
	work=$(mktemp -d "$build/.gotch-work.XXXXXX")
	cleanup+=("$work")
	say "copying to a work directory and patching"
	# The copy gets the same files, names and bytes on every run; its own
	# module cache copy is read-only, hence the chmod.
	tar -C "$src" --exclude=./example --exclude=./gen -cf - . | tar -C "$work" -xf -
	chmod -R u+w "$work"
	# Patch from the repository root: the patch program is part of this module.
	wait "$patcher_pid" || true # go run below says what failed
	patcher_pid=
	(cd "$repo" && go run ./scripts/gotchpatch -dir "$work" -libtorch "$libtorch" -cxx "$cxx" -ar "${AR:-ar}" "${prune[@]}") ||
		die "patching gotch failed (see above)"
	# Normalise modes so the result does not depend on the module cache's.
	find "$work" -type d -exec chmod 755 {} +
	find "$work" -type f -exec chmod 644 {} +

	# Swap in the new copy under the stable path.
	rm -f "$stamp"
	if [[ -d $dest ]]; then
		old=$(mktemp -d "$build/.gotch-old.XXXXXX")
		mv "$dest" "$old/"
		mv "$work" "$dest"
		rm -rf "$old"
	else
		mv "$work" "$dest"
	fi
	printf '%s\n' "$want" >"$stamp.tmp"
	mv "$stamp.tmp" "$stamp"
	say "patched gotch written to $dest"
fi

# --- 3. the zerokit command ---------------------------------------------------
# Built (with gotch's Go packages) and cached by go run, so that the README's
# "go run ./cmd/zerokit train ..." starts at once. gotch's packages (a minute,
# mostly on one core) start while the packages of step 1 may still compile.
if [[ ${SKIP_PREBUILD:-} == 1 ]]; then
	say "SKIP_PREBUILD=1: not building zerokit now"
else
	say "building gotch's Go packages and the zerokit command (about a minute the first time)"
	(cd "$repo" && go build "$GOTCH_MODULE/libtch" "$GOTCH_MODULE/ts") &
	gotch_pid=$!
	if [[ -n $prebuild_pid ]]; then
		wait "$prebuild_pid" || say "warning: compiling the packages without libtorch failed; the build below says why"
		prebuild_pid=
	fi
	wait "$gotch_pid" || die "building gotch failed (see above)"
	gotch_pid=
	out=$(mktemp)
	cleanup+=("$out")
	# zerokit's usage goes to stderr; shown only if something fails.
	(cd "$repo" && go run ./cmd/zerokit help >"$out" 2>&1) || { cat "$out" >&2; die "building zerokit failed"; }
	say "done"
fi
