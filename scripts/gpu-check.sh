#!/usr/bin/env bash
# gpu-check.sh: zerokit's check on a machine with an NVIDIA GPU and PyTorch
# (no Go needed). It prints every figure it measures.
#
#   scripts/gpu-bundle.sh                  # on a machine with Go: dist/gpu/bundle.tar.gz
#   scripts/gpu-check.sh [STEP ...]        # on the GPU machine, from the checkout
#
# Steps (default: all of them, in this order; about 9 minutes on an H200):
#   wrapper  rebuild gotch's C++ layer against this machine's libtorch
#            (PyTorch's, or LIBTORCH=dir) into WORK/lib (about a minute);
#            the other steps need it, and build it when it is missing
#   test     the CUDA tests of model/torch: CPU and CUDA forwards agree,
#            training on CUDA lowers the loss, a CUDA checkpoint loads on the
#            CPU and in the pure-Go backend, nothing leaks; the device tests
#   host     the CPU side of self-play alone (configs/wyb-gpu.yaml's games
#            and search, a stand-in network that sleeps instead of a GPU) on
#            1 to all cores: how the search scales with cores
#   bench    "zerokit bench" on CUDA with configs/wyb-gpu.yaml and with
#            configs/wyb.yaml (the 2-core machine's configuration), and
#            PyTorch's own figures for the same network (torch_reference.py)
#   train    a short from-scratch run of configs/wyb-gpu.yaml (TRAIN_MINUTES,
#            default 3; RESUME=1 continues WORK/run instead; RESULTS/run.tgz
#            holds its agent, metrics and last checkpoint), then its
#            agent against alphabeta:depth=3 (EVAL_GAMES, default 20, in the
#            play-only binary, on the CPU)
#
# Environment: BUNDLE (default dist/gpu/bundle.tar.gz), WORK (default
# /tmp/zerokit-gpu), RESULTS (default $OUT when set, else WORK/results: the
# logs and run.tgz), LIBTORCH, TRAIN_MINUTES, EVAL_GAMES, DEVICE (the
# -device of bench and train, default cuda), OPT (build-torch-wrapper.sh).
#
# CI rehearses the route on its CPU (.ci/run): the bundle, the wrapper
# rebuilt against Debian's libtorch, and the test step with DEVICE=cpu.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"
bundle=${BUNDLE:-dist/gpu/bundle.tar.gz}
work=${WORK:-/tmp/zerokit-gpu}
results=${RESULTS:-${OUT:-$work/results}}
device=${DEVICE:-cuda}
steps=("$@")
((${#steps[@]})) || steps=(wrapper test host bench train)
say() { printf '\n== gpu-check: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
die() { printf 'gpu-check: error: %s\n' "$*" >&2; exit 1; }
failed=()

[[ -f $bundle ]] || die "$bundle not found: run scripts/gpu-bundle.sh on a machine with Go and bring dist/gpu along"
mkdir -p "$work" "$results"
if [[ ! -x $work/zerokit || $bundle -nt $work/zerokit ]]; then
	tar -C "$work" -xzf "$bundle" || die "unpacking $bundle"
	touch "$work/zerokit"
fi
printf 'gpu-check: bundle of revision %s\n' "$(cat "$work/REVISION")"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "gpu-check: nvidia-smi failed"
printf 'cores: %s\n' "$(nproc)"

libtorch=${LIBTORCH:-$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)}
[[ -n $libtorch ]] || die "no libtorch: install PyTorch (python3 -c 'import torch' fails) or set LIBTORCH"
export LD_LIBRARY_PATH=$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

wrapper() {
	say "wrapper: building libzerokit_torch_api.so against $libtorch"
	local start=$SECONDS
	scripts/build-torch-wrapper.sh "$libtorch" "$work/lib" "$work/libtch" || return 1
	echo "wrapper built in $((SECONDS - start)) s"
	# The binaries must take this library, not the build machine's.
	local resolved
	resolved=$(ldd "$work/zerokit" | awk '/libzerokit_torch_api/ {print $3}')
	[[ $resolved == "$work/lib/libzerokit_torch_api.so" ]] ||
		{ echo "gpu-check: zerokit loads libzerokit_torch_api.so from '$resolved', not $work/lib"; return 1; }
	echo "zerokit loads $resolved"
}
# Every step but host runs the libtorch binaries.
[[ -f $work/lib/libzerokit_torch_api.so || " ${steps[*]} " == *" wrapper "* || " ${steps[*]} " == " host " ]] ||
	wrapper || die "building the wrapper failed"

run_step() {
	case $1 in
	wrapper) wrapper ;;
	test)
		say "test: model/torch's device and CUDA tests"
		(cd model/torch && timeout 300 "$work/torch.test" -test.run 'Device|CUDA|DoesNotLeak|Gonet' -test.v 2>&1 |
			grep -E '^(--- |PASS|FAIL|ok)|device_test|leak_test' ; exit "${PIPESTATUS[0]}")
		;;
	host)
		say "host: self-play's CPU side on 1 to $(nproc) cores (stand-in network)"
		local cpus=1 n
		for ((n = 2; n <= $(nproc); n *= 2)); do cpus+=",$n"; done
		(cd selfplay && timeout 300 "$work/selfplay.test" -test.run '^$' -test.bench HostSelfPlay \
			-test.benchtime 30000x -test.cpu "$cpus")
		;;
	bench)
		say "bench: configs/wyb-gpu.yaml on $device"
		timeout 240 "$work/zerokit" bench -device "$device" -config configs/wyb-gpu.yaml -seconds 15 \
			-cpuprofile "$results/bench-gpu.prof" || return 1
		say "bench: configs/wyb.yaml (the 2-core machine's configuration) on $device"
		timeout 240 "$work/zerokit" bench -device "$device" -config configs/wyb.yaml -seconds 10 || return 1
		say "bench: PyTorch on the same machine"
		timeout 120 python3 scripts/torch_reference.py --device "${device%%:*}" --seconds 3 || return 1
		;;
	train)
		local minutes=${TRAIN_MINUTES:-3}
		say "train: configs/wyb-gpu.yaml from scratch for $minutes minutes"
		local run=$work/run
		[[ ${RESUME:-0} == 1 ]] || rm -rf "$run"
		timeout $((minutes * 60 + 120)) "$work/zerokit" train -config configs/wyb-gpu.yaml -run "$run" \
			-max-minutes "$minutes" -device "$device" -quiet 2>&1 | tee "$results/train.log" | grep -vE '^\s*$' | tail -40
		((PIPESTATUS[0] == 0)) || return 1
		grep -h '"device"' "$run/meta.json"
		# What a later chunk or an evaluation elsewhere needs, small enough to
		# carry (the games and older checkpoints stay in WORK/run).
		local last
		last=$(ls "$run"/checkpoints/step-*.ckpt | tail -1)
		tar -C "$run" -czf "$results/run.tgz" agent metrics.jsonl meta.json config.yaml checkpoints/latest.json \
			"checkpoints/$(basename "$last")" "checkpoints/$(basename "${last%.ckpt}").json" &&
			echo "gpu-check: the run's agent, metrics and last checkpoint: $results/run.tgz"
		say "train: the run's agent against alphabeta:depth=3 (play-only binary, CPU)"
		timeout 600 "$work/zerokit-play" eval -game wyb -a "net:path=$run/agent" -b alphabeta:depth=3 \
			-games "${EVAL_GAMES:-20}" -parallel "$(nproc)" -seed 1
		;;
	*) die "unknown step $1 (want wrapper, test, host, bench or train)" ;;
	esac
}
for s in "${steps[@]}"; do
	run_step "$s" || failed+=("$s")
done
if ((${#failed[@]})); then
	printf '\ngpu-check: FAILED: %s\n' "${failed[*]}"
	exit 1
fi
printf '\ngpu-check: all steps passed: %s\n' "${steps[*]}"
