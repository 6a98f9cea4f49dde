"""The process and the machine: environment variables, stderr, platform and build checks."""
import os
import platform
import sys
from contextlib import contextmanager

import mxcompat as mx
from ..base import unsupported as _unsupported
from ..runtime import Features
from ..util import setenv

__all__ = ['discard_stderr', 'environment', 'is_aarch64_run', 'is_cd_run', 'list_gpus', 'has_tvm_ops',
           'is_op_runnable', 'get_im2rec_path']


@contextmanager
def discard_stderr():
    """Silence file descriptor 2 (C-level stderr too) inside a ``with`` block."""
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # no real descriptor (e.g. a replaced stream)
        fileno = None
    if fileno is None:
        yield
        return
    saved = os.dup(fileno)
    try:
        with open(os.devnull, 'w') as bit_bucket:
            sys.stderr.flush()
            os.dup2(bit_bucket.fileno(), fileno)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, fileno)
    finally:
        os.close(saved)


@contextmanager
def environment(*args):
    """Set environment variables for a ``with`` block: ``environment(name, value)`` or ``environment({...})``;
    a value of None unsets. The previous values come back afterwards, also on error."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = dict(args[0])
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise AssertionError('Expecting one dict arg or two args: env var name and value')

    def swap(values):
        """Install ``values``; returns what they replaced."""
        replaced = {name: os.environ.get(name) for name in values}
        for name, value in values.items():
            setenv(name, value)
        return replaced

    restore = swap(env_vars)
    try:
        yield
    finally:
        mx.nd.waitall()  # queued work may still read the variables we changed
        swap(restore)


def is_aarch64_run():
    """Whether the machine is aarch64."""
    return platform.machine() == 'aarch64'


def is_cd_run():
    """Whether this is a Continuous Delivery run (``CD_JOB=1``)."""
    return os.environ.get('CD_JOB') == '1'


def list_gpus():
    """``range`` over the GPU ids torch sees (empty without CUDA)."""
    return range(mx.util.get_gpu_count())


_features = Features()


def has_tvm_ops():
    """False: mxcompat has no TVM-generated operators."""
    return _features.is_enabled('TVM_OP')


def is_op_runnable():
    """True: without TVM operators every operator runs on every context."""
    return True


def get_im2rec_path(home_env='MXNET_HOME'):
    """``$MXNET_HOME/tools/im2rec.py`` if that file exists; mxcompat ships no im2rec.py."""
    if home_env in os.environ:
        path = os.path.join(os.environ[home_env], 'tools', 'im2rec.py')
        if os.path.isfile(path):
            return path
    raise _unsupported('mx.test_utils.get_im2rec_path', 'tools/im2rec.py',
                       'mxcompat does not ship the im2rec tool; set $%s to an MXNet checkout that has it' % home_env)
