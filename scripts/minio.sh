#!/usr/bin/env bash
# minio.sh: build MinIO, the S3 server that TestDistributedMinIO (package
# cmd/zerokit) starts, into build/minio. scripts/test-deps.sh runs it; it is
# idempotent (a stamp, build/minio.stamp, records what was built, and a
# second run takes a second).
#
# MinIO is built from its Go module at a pinned version through the Go
# module proxy (the only network this needs), with CGO_ENABLED=0.
# Measured on the 2-core reference machine (shared, load average about 15):
# 295 s user + 32 s system CPU, 17 min wall (31% of the CPU), peak
# resident memory 1.5 GB (one compile or link process); the binary is
# 150 MB. That is 327 s of CPU: about 3 minutes on an idle 2-core machine
# (derived, not measured).
#
# Environment: SKIP_MINIO=1 builds nothing (the integration test then skips
# and says why).
set -euo pipefail

# MinIO has no semantic-version tags: its module versions are pseudo-versions
# of commits (this one is of 2026-02-12). The checksum is sum.golang.org's.
MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_SUM='h1:/qdoYujxF5MBLDMVLeiYJ/7fBa1HikX39Dvzb9Ji8pA='

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
build="$repo/build"
minio="$build/minio"

say() { printf 'minio: %s\n' "$*" >&2; }
die() { printf 'minio: error: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null || die "go is not on PATH"
if [[ ${SKIP_MINIO:-} == 1 ]]; then
	say "SKIP_MINIO=1: not building MinIO (TestDistributedMinIO will skip)"
	exit 0
fi
want="$MINIO_MODULE@$MINIO_VERSION $MINIO_SUM $(go version)"
if [[ -x $minio && -f $minio.stamp && $(cat "$minio.stamp") == "$want" ]]; then
	say "up to date ($minio)"
	exit 0
fi

say "building $MINIO_MODULE@$MINIO_VERSION into $minio (the first time only)"
tmp=$(mktemp -d)
mkdir -p "$build"
gobin=$(mktemp -d "$build/.minio-work.XXXXXX")
trap 'rm -rf "$tmp" "$gobin"' EXIT
# Outside this module, so that its go.mod is neither consulted nor changed.
json=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$MINIO_MODULE@$MINIO_VERSION") ||
	die "go mod download failed: $json"
sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$json")
[[ $sum == "$MINIO_SUM" ]] || die "$MINIO_MODULE@$MINIO_VERSION checksum $sum, expected $MINIO_SUM"
(cd "$tmp" && GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath "$MINIO_MODULE@$MINIO_VERSION") ||
	die "building MinIO failed (SKIP_MINIO=1 skips it)"
rm -f "$minio.stamp"
mv "$gobin/minio" "$minio"
printf '%s\n' "$want" >"$minio.stamp.tmp"
mv "$minio.stamp.tmp" "$minio.stamp"
say "written to $minio"
