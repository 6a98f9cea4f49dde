#!/usr/bin/env bash
# Installs the real Apache MXNet 1.9.1 (the CPU wheel from PyPI) in a virtual environment of its own: the oracle
# that golden fixtures and `oracle` tests compare against.
#   tools/oracle/setup.sh [DIR]      DIR: $MXNET_ORACLE, else ~/.mxnet-oracle
# Prints that environment's python. The first call takes a minute; later ones only check the environment.
# MXNet 1.9.1 needs numpy < 1.24 (it uses np.bool), which has wheels for CPython 3.8 to 3.11 only: the environment
# is made with the first of $MXNET_ORACLE_PYTHON, python3.11 ... python3.8, python3 that is such a Python.
# Its libmxnet.so brings its own libgfortran.so.3, which loads the system's libquadmath.so.0 (Debian/Ubuntu:
# libquadmath0, RHEL: libquadmath).
set -euo pipefail
dir=${1:-${MXNET_ORACLE:-$HOME/.mxnet-oracle}}
py=$dir/bin/python
# what the oracle tests and tools/upstream.py --oracle import besides mxnet
check='import mxnet, scipy, pytest, pytest_timeout; assert mxnet.__version__ == "1.9.1", mxnet.__version__'
if ! "$py" -c "$check" >/dev/null 2>&1; then
  if [ ! -x "$py" ]; then
    base=
    for c in ${MXNET_ORACLE_PYTHON:-} python3.11 python3.10 python3.9 python3.8 python3; do
      if "$c" -c 'import sys; sys.exit(not (3, 8) <= sys.version_info[:2] <= (3, 11))' >/dev/null 2>&1; then
        base=$c; break
      fi
    done
    [ -n "$base" ] || { echo "setup.sh: MXNet 1.9.1 needs numpy<1.24, so a CPython 3.8 to 3.11; none found" \
                             "(install one, e.g. 'uv python install 3.11', and set MXNET_ORACLE_PYTHON to it)" >&2; exit 1; }
    "$base" -m venv "$dir" >&2
  fi
  "$py" -m pip install -q "mxnet==1.9.1" "numpy==1.23.5" "scipy<1.12" "graphviz<0.9" requests pytest pytest-timeout >&2
  if ! err=$("$py" -c "$check" 2>&1); then
    echo "setup.sh: MXNet 1.9.1 is installed in $dir but does not import:" >&2
    echo "$err" | tail -3 >&2
    case $err in *libquadmath*) echo "install the system's libquadmath.so.0 (apt-get install libquadmath0)" >&2 ;; esac
    exit 1
  fi
fi
echo "$py"
