#!/usr/bin/env bash
# Every GPU check of the project in one run on a CUDA machine, within about nine minutes (a lent machine's 10-minute
# command): the project's own device-parametrized tests, MXNet 1.9's GPU test files, and the GPU benchmarks.
#
#   here, once:        MXNET_SRC=DIR tools/gpu_bundle.sh .gpu     # MXNet's GPU test files (optional; keep .gpu
#                                                                 # out of git: .git/info/exclude)
#   on the machine:    OUT=/some/folder bash tools/gpu_check.sh [STEP ...]    from the checkout's root
#
# STEPs (default all, in this order): env, own, bundle, bench. Each runs under its own time limit (seconds, from the
# environment: OWN_S=150, BUNDLE_S=220 for the bundle's parallel part and ALONE_S=120 for its tests that run one at a
# time, BENCH_S=170), so a slow step cannot starve the others; a step stopped at its limit is interrupted, so its
# log keeps what it finished. own runs beside the bundle's parallel part when both are asked for; the benchmarks
# run alone. Writes to $OUT (default /tmp/gpucheck), at most 8 files: env.txt; own.log and own.xml (pytest -m gpu
# over tests/: every test body that the ``ctx`` fixture also runs on gpu(0), and the tests marked gpu); gpu.log,
# gpu.xml and gpu_alone.log (the bundle, see tools/gpu_bundle.sh); bench.txt and bench.json (python -m
# benchmarks.gpu --profile). Needs only python3 with a CUDA build of torch, numpy, pytest, pytest-timeout and Pillow
# (pytest-xdist is used when present); mxcompat is imported from the checkout, not installed. Prints a summary line
# per step.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpucheck}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
steps=${*:-env own bundle bench}
xdist=$(python3 -c 'import os, xdist; print("-n", max(1, min(8, (os.cpu_count() or 2) // 2)))' 2>/dev/null || true)

for step in $steps; do
  case $step in
    env)
      { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
        python3 -c 'import sys, torch, numpy; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "numpy", numpy.__version__,
"devices", torch.cuda.device_count())'
        git log -1 --format='checkout %h %s' 2>/dev/null || true; } > "$out/env.txt" 2>&1
      echo "env: $(head -2 "$out/env.txt" | tr '\n' ' ')" ;;
    own)  # (beside the bundle's parallel part when both run: they share the GPU, the benchmarks run alone)
      run_own() {
        OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} timeout -s INT -k 20 "${OWN_S:-150}" python3 -m pytest -v -m gpu $xdist \
          --timeout=180 --tb=short -rfE -p no:cacheprovider -o console_output_style=classic \
          --continue-on-collection-errors -W ignore --junitxml="$out/own.xml" tests > "$out/own.log" 2>&1
        echo "own (rc $?): $(tail -1 "$out/own.log")"
      }
      if [[ " $steps " == *" bundle "* ]]; then run_own & own_pid=$!; else run_own; fi ;;
    bundle)
      if [ -f .gpu/run.sh ]; then
        OUT=$out GPU_TESTS_S=${BUNDLE_S:-220} ALONE_S=${ALONE_S:-120} bash .gpu/run.sh | grep -E '^(pytest|alone)|passed|failed' \
          | sed 's/^/bundle: /'
      else
        echo "bundle: skipped (no .gpu/run.sh: build it with tools/gpu_bundle.sh and carry .gpu)"
      fi
      [ -n "${own_pid:-}" ] && wait "$own_pid" ;;
    bench)
      timeout -s INT -k 10 "${BENCH_S:-170}" python3 -m benchmarks.gpu --profile --json "$out/bench.json" > "$out/bench.txt" 2>&1
      echo "bench (rc $?): $(grep -c . "$out/bench.txt") lines in bench.txt" ;;
    *)
      echo "unknown step '$step' (env, own, bundle, bench)" >&2; exit 2 ;;
  esac
done
