#!/usr/bin/env bash
# web-static.sh: build the static site of zerokit's page, which plays the
# shipped agents entirely in the browser (zerokit compiled to WebAssembly,
# weights inside). Any static host serves OUT_DIR; e.g.
#     scripts/web-static.sh /tmp/site && python3 -m http.server -d /tmp/site
# See docs/web.md for its speed.
set -euo pipefail
out=${1:?usage: scripts/web-static.sh OUT_DIR}
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$out"
GOOS=js GOARCH=wasm CGO_ENABLED=0 go build -tags nonet -trimpath -ldflags=-s -o "$out/zerokit.wasm.tmp" ./cmd/zerokit-wasm
mv "$out/zerokit.wasm.tmp" "$out/zerokit.wasm"
cp web/static/*.html web/static/*.js web/static/*.css "$out/"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$out/"
sed -i 's|<meta name="zerokit-mode" content="server">|<meta name="zerokit-mode" content="wasm">|' "$out/index.html"
grep -q 'content="wasm"' "$out/index.html" || { echo "web-static.sh: index.html has no zerokit-mode meta" >&2; exit 1; }
echo "web-static.sh: site in $out ($(du -sh "$out" | cut -f1))"
