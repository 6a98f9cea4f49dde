#!/usr/bin/env bash
# Builds a folder that runs MXNet 1.9's own GPU test files (tests/python/gpu) against this checkout on a CUDA
# machine. Make it directly inside the checkout and take the checkout there:
#   MXNET_SRC=~/src/mxnet tools/gpu_bundle.sh .gpu     # an apache/mxnet work tree or git directory (read at v1.9.x,
#                                                      # or $MXNET_REF); keep .gpu out of git (.git/info/exclude)
#   on the CUDA machine:  bash .gpu/run.sh [PYTEST ARGS]       # results in $OUT (default /tmp/gpuout)
# There the tests import the checkout (the folder above the bundle, or $MXCOMPAT_ROOT) as `mxnet`, and `nose` from
# tools/stubs. Left out: test_operator_gpu.py's imports of the mx.np, TVM and MKLDNN-subgraph test files (it
# becomes test_operator_gpu_trim.py), and the files for features mxcompat does not have (NVRTC, TVM, C++ extensions,
# the predictor API) or that download pretrained models. The rest is MXNet's, unchanged.
# Results: $OUT/gpu.log (pytest -v, a line per test), $OUT/gpu.xml (JUnit) and $OUT/gpu_alone.log (the tests that
# run one at a time, see run.sh). What passes on the CPU
# (tools/upstream.py) should pass on the GPU too.
set -euo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: MXNET_SRC=DIR tools/gpu_bundle.sh DEST}
src=${MXNET_SRC:?set MXNET_SRC to an apache/mxnet work tree or git directory (github.com/apache/mxnet, v1.9.x)}
parts="tests/python/unittest tests/python/gpu tests/python/common tests/python/train"
rm -rf "$dest" && mkdir -p "$dest"
if [ -d "$src/tests/python/gpu" ]; then
  (cd "$src" && tar -c $parts) | tar -x -C "$dest"
else
  git -C "$src" archive "${MXNET_REF:-v1.9.x}" $parts | tar -x -C "$dest"
fi
cp -r "$tools/stubs" "$dest/stubs" && find "$dest/stubs" -name __pycache__ -prune -exec rm -rf {} +
for d in gpu unittest; do
  cat > "$dest/tests/python/$d/conftest.py" <<'PY'
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', '..', 'stubs'))
sys.path.append(os.path.join(here, '..', 'train'))
import mxcompat
mxcompat.install_alias(force=True)
PY
done
g=$dest/tests/python/gpu
sed -E 's/^from (test_numpy_|test_tvm_op|test_subgraph_op)/# &/' "$g/test_operator_gpu.py" > "$g/test_operator_gpu_trim.py"
rm -f "$g/test_operator_gpu.py" "$g"/test_tvm_*.py "$g"/test_numpy_*.py "$g/test_rtc.py" "$g/test_extensions_gpu.py" \
      "$g/test_predictor.py" "$g/test_deferred_compute_gpu.py" "$g/test_gluon_model_zoo_gpu.py"
cat > "$dest/run.sh" <<'SH'
#!/usr/bin/env bash
# Runs MXNet 1.9's GPU test files against the checkout this folder sits in; arguments go to pytest (then the run is
# one pytest call over them). Without arguments: every file in parallel processes (pytest-xdist where present),
# less the tests below, which then run one at a time: each waits on the device tens of thousands of times (a host
# read per numeric-gradient step or per shuffle), and beside other processes on the same GPU every wait lasts a
# time slice of the others (an H200 shared by 8 to 16 processes: 0.6 to 1 ms a wait instead of tens of us).
b=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=${MXCOMPAT_ROOT:-$(dirname "$b")}${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} MXNET_TEST_SEED=${MXNET_TEST_SEED:-42} MXNET_MODULE_SEED=${MXNET_MODULE_SEED:-42}
out=${OUT:-/tmp/gpuout}; mkdir -p "$out"
cd "$b/tests/python/gpu"
workers=$(python3 -c 'import os, xdist; print("-n", max(1, min(8, (os.cpu_count() or 2) // 2)))' 2>/dev/null || true)
alone="test_shuffle test_image_normalize test_deformable_convolution test_cast_storage_ex test_layer_norm test_random
       test_multilamb test_elemwise_binary_ops"
if [ $# -gt 0 ]; then args=("$@"); else args=(.); for t in $alone; do args+=(--deselect "test_operator_gpu_trim.py::$t"); done; fi
timeout -s INT -k 20 "${GPU_TESTS_S:-420}" python3 -m pytest -v -p no:cacheprovider --rootdir . $workers \
    --timeout="${PER_TEST_TIMEOUT:-120}" --tb=short -W ignore -o console_output_style=classic --junitxml="$out/gpu.xml" \
    "${args[@]}" > "$out/gpu.log" 2>&1
echo "pytest rc $?"; grep -E '^(FAILED|ERROR) ' "$out/gpu.log" | cut -c1-200; tail -1 "$out/gpu.log"
if [ $# -eq 0 ]; then
  timeout -s INT -k 20 "${ALONE_S:-300}" python3 -m pytest -v -p no:cacheprovider -p no:xdist --rootdir . --durations=0 \
      --timeout="${PER_TEST_TIMEOUT:-120}" --tb=short -W ignore -o console_output_style=classic \
      $(for t in $alone; do echo "test_operator_gpu_trim.py::$t"; done) > "$out/gpu_alone.log" 2>&1
  echo "alone: pytest rc $?"; grep -E '^(FAILED|ERROR) ' "$out/gpu_alone.log" | cut -c1-200; tail -1 "$out/gpu_alone.log"
fi
SH
chmod +x "$dest/run.sh"
echo "bundle at $dest: $(ls "$g"/test_*.py | wc -l) GPU test files; run it with: bash $dest/run.sh"
