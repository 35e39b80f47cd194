#!/usr/bin/env bash
# The test command: sets up libtorch/gotch (scripts/setup.sh) and what only
# the tests need, chromium, a JDK and MinIO (scripts/test-deps.sh), each
# fast when done, then runs every package's tests, including a tiny
# end-to-end training run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
./scripts/setup.sh
./scripts/test-deps.sh
# With s3:// (behind the build tag s3, as gs:// and azblob:// are behind
# theirs: runstore/drivers.go), which the store tests use.
go test -count=1 -timeout 20m -tags s3 ./...
# The other drivers behind build tags, and s3:// missing.
go test -count=1 -tags gcs,azure -run 'TestOptionalDrivers|TestOpenErrors|TestHasDriver' ./runstore
# The play-only build: no libtorch and no cgo at all (pure-Go network).
CGO_ENABLED=0 go test -count=1 -tags nonet ./agent/... ./agents ./model/arch ./model/ckpt ./model/gonet
# zerokit web serves from the play-only build too (its browser tests ran
# above already: the page is the same).
CGO_ENABLED=0 go test -count=1 -tags nonet -skip TestBrowser ./web ./env/...
# The Kubernetes manifests render and keep their promises (kustomize
# in-process; deploy/ is a module of its own, so kubectl is not needed).
(cd deploy && go test -count=1 ./...)
# A game in a module of its own (docs/games.md): the example module builds
# its zerokit for Nim out of this module's tree and trains it a few steps.
(cd examples/nim && go test -count=1 ./...)
