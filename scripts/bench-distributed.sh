#!/usr/bin/env bash
# bench-distributed.sh: measure a distributed run on this machine: one store
# trainer (zerokit train -store) and N self-play workers (zerokit worker),
# all local processes sharing a file store, for M minutes; then print each
# worker's positions per second and the trainer's samples per second, the
# share of its time spent waiting for games, and the store's size.
#
#   ./scripts/bench-distributed.sh WORKERS MINUTES [CONFIG]
#
# CONFIG defaults to configs/wyb-store.yaml; evaluation matches are turned
# off (eval.every: 0) so that the trainer's figure is training alone. Needs
# a zerokit binary built with libtorch: ZEROKIT=path (default: go build).
set -euo pipefail
workers=${1:?usage: bench-distributed.sh WORKERS MINUTES [CONFIG]}
minutes=${2:?usage: bench-distributed.sh WORKERS MINUTES [CONFIG]}
config=${3:-configs/wyb-store.yaml}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/zerokit-bench-distributed.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
zk=${ZEROKIT:-$work/zerokit}
[ -n "${ZEROKIT:-}" ] || go build -o "$zk" ./cmd/zerokit
{ cat "$config"; printf '\neval:\n  every: 0\n'; } > "$work/config.yaml"
store="file://$work/store"
"$zk" train -store "$store" -config "$work/config.yaml" -run "$work/trainer" -quiet \
	-max-minutes "$minutes" >"$work/trainer.out" 2>"$work/trainer.err" &
trainer=$!
pids=()
for i in $(seq 1 "$workers"); do
	"$zk" worker -store "$store" -seed "$i" -poll 5s -max-minutes "$minutes" \
		>"$work/worker$i.out" 2>"$work/worker$i.err" &
	pids+=($!)
done
wait "$trainer" "${pids[@]}"
echo "machine: $(nproc) cores; $workers worker(s), $minutes min, $config (eval off); files in $work"
cat "$work"/worker*.out
python3 - "$work/trainer/metrics.jsonl" <<'PY'
import json, sys
steps = samples = train_s = waited = elapsed = positions = 0
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("kind") != "iteration":
        continue
    train_s += m.get("train_s", 0)
    waited += m.get("waited_s", 0)
    positions += m.get("positions", 0)
    steps += m.get("train_steps", 0)
    samples += m.get("samples_per_s", 0) * m.get("train_s", 0)
    elapsed = m.get("elapsed_s", elapsed)
print(f"trainer: {steps} steps in {train_s:.0f}s of training ({samples/max(train_s,1e-9):.0f} samples/s), "
      f"{positions} positions ingested ({positions/max(elapsed,1e-9):.0f}/s), waited for games {waited:.0f}s of {elapsed:.0f}s")
PY
echo "store: $(find "$work/store/games" -name '*.zk' | wc -l) shards, $(du -sh "$work/store/games" | cut -f1)"
