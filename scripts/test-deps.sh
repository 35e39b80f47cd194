#!/usr/bin/env bash
# test-deps.sh: install what the tests need beyond what training needs
# (scripts/setup.sh). scripts/test.sh runs it; it is idempotent, and a
# second run takes about a second.
#
#  1. Debian's chromium, which the browser tests of package web drive
#     headless through chromedp (no browser is downloaded), and
#     default-jdk-headless, which builds the Java player of the 2015
#     Squatter referee and runs that referee (javaadapter/,
#     arena/refbench/javareferee, cmd/zerokit). About 100 packages on a
#     fresh Debian 12 besides setup.sh's (docs/install.md).
#  2. scripts/minio.sh: MinIO, the S3 server of the object-store
#     integration test, built from its Go module into build/minio (about
#     3 minutes of an idle 2-core machine, the first time only).
#
# Without them the tests that need them skip and say why.
# Environment: SKIP_APT=1 (do not touch Debian packages), SKIP_MINIO=1 (do
# not build MinIO).
set -euo pipefail

TEST_PACKAGES=(chromium default-jdk-headless)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
say() { printf 'test-deps: %s\n' "$*" >&2; }
die() { printf 'test-deps: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=apt.sh
source "$repo/scripts/apt.sh"

if [[ ${SKIP_APT:-} != 1 ]] && ! command -v dpkg-query >/dev/null; then
	say "not a Debian system: install chromium and a JDK yourself (the tests that need them skip without)"
else
	apt_install "${TEST_PACKAGES[@]}"
fi
"$repo/scripts/minio.sh"
