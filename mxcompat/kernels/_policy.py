"""The one switch of the kernel layer: ``config``, its fields, and ``policy()`` to set them for a while."""
import contextlib
import operator
import os

__all__ = ['Config', 'config', 'policy']

# name: (kind, default, what it does). Kinds: bool, or the least int the field takes.
_FIELDS = {
    'cpu_fast_paths': (bool, True, 'master switch of every CPU rule below; off, CPU ops run torch\'s own kernels '
                                   '(MXCOMPAT_CPU_FAST_PATHS=0 in the environment at import turns it off)'),
    'channels_last_min_channels': (0, 64, 'a float32 2-D CPU convolution computes channels-last from this many '
                                          'outputs and half as many inputs (0: never)'),
    'channels_last_stem_max_in': (0, 4, 'an image stem (at most this many input channels) computes channels-last '
                                        'into half channels_last_min_channels outputs'),
    'channels_last_training_divisor': (1, 2, 'where a gradient is wanted, channels_last_min_channels is divided by '
                                             'this (1: one bound for both)'),
    'gemm_conv_max_positions': (0, 0, 'a channels-last convolution with at most this many output positions runs '
                                       'as matrix products over its input patches (0: never)'),
    'packed_conv': (bool, True, 'inference convolutions run on a weight reordered once for oneDNN and kept '
                                '(also the oneDNN subgraph fusion); only where torch has the operators'),
    'scratch_max_bytes': (0, 256 << 20, "the patch matrices of a convolution's products are kept in a per-thread "
                                        "buffer up to this size, allocated for the call above it"),
    'strided_max_pool': (bool, True, 'unpadded 2-D max pooling without a gradient is the maximum of strided views'),
    'channels_last_max_pool': (bool, True, "other 2-D max pooling of plain float data with enough channels runs "
                                           "torch's channels-last kernel (and returns plain data)"),
    'fused_sgd': (bool, True, "SGD with momentum (no decay, no clipping) runs torch's one-pass CPU kernel (its "
                              "fused products move MXNet's last bits; off: the chunked numpy update, MXNet's bits, "
                              "1.7x the time)"),
    'numpy_argsort': (bool, True, "a sparse gradient's rows are sorted by numpy on CPU (torch's sort took ~4x)"),
    'numpy_rows': (bool, True, "a sparse gradient's entries are summed per row, and a lazy update's rows written "
                               "back into a table, by numpy on CPU (torch's forms took ~2x: kernels/rows.py)"),
    'chunked_updates': (bool, True, "float32 SGD, NAG, Signum, Adam, RMSProp, AdaGrad, AdaDelta and Nadam "
                                    "updates run as numpy passes over cache-sized chunks (MXNet's roundings in a "
                                    "fifth of the time of torch's unfused passes)"),
    # MXNet's own softmax loop (kernels.mxnet_softmax) costs numpy passes: float32, one thread, process time, exact /
    # torch.softmax: 64x10 26 / 8.9 us, 256x1000 1.78 / 0.108 ms, 35x64x10000 355 / 43 ms; log_softmax 38 / 7.4 us,
    # 1.89 / 0.10 ms. Up to this size the extra time is at most ~0.1 ms a call (a classifier head of 64 x 10 or
    # 128 x 100); bigger arrays keep torch's kernel, MXNet's values within a few float32 ulps.
    'mxnet_softmax_max_elements': (0, 1 << 14, "float32 CPU softmax, log_softmax and softmin where MXNet runs its own "
                                               "loop rather than oneDNN (softmin, a temperature, another axis than "
                                               "the last, dtype, use_length, over 4 dimensions, SoftmaxActivation, "
                                               "SoftmaxOutput with mxnet_softmax_output) give that loop's bits, "
                                               "forward and backward, up to this many elements (0: never)"),
    'mxnet_softmax_output': (bool, False, "SoftmaxOutput's forward while training (and with multi_output) also takes "
                                          "that loop (off: torch's kernel; on, a bound MLP's training step, "
                                          "symbol:mlp_fwd_bwd, took ~3% longer)"),
    'sequential_sum_sq': (bool, True, "multi_sum_sq (LARS's and multi-tensor LAMB's norms) of float32/float16 CPU "
                                      "arrays adds the squares one after another in float32 as MXNet's CPU loop "
                                      "(0.16% below the exact sum on ResNet-18's 2.4M-value layer); ~3 ns a value "
                                      "against torch's pairwise sum's ~2"),
    'huge_page_min_bytes': (0, 16 << 20, 'CPU parameter, executor and optimizer-state arrays this big and bigger '
                                         'are advised onto transparent huge pages (0: never)'),
    # A recorded 2-D log_softmax is marked for pick's one-pass gradient (operator.indexing._PickLogSoftmax) from
    # this many elements up. Below it torch's own gather and log_softmax backward take less time than the Python
    # Function's overhead: -pick(log_softmax(x)) forward and backward, one CPU thread, fused / native: 64x10
    # 117 / 91 us, 256x100 245 / 200 us, 64x1000 346 / 336 us, 256x1000 993 / 1057 us, 700x1000 2418 / 2862 us
    # (hybridized MLP step, batch 64 x 10 classes: 0.967 -> 0.928 of torch's in six alternating process pairs).
    'fused_pick_min_elements': (0, 1 << 17, "on any device: pick of a recorded 2-D log_softmax this big and bigger "
                                            "differentiates in one pass"),
}


def _from_environment():
    return os.environ.get('MXCOMPAT_CPU_FAST_PATHS', '1').strip() != '0'


class Config:
    """Which kernel computes an operator on which device; process-wide, as torch's ``torch.backends`` flags.

    A field changes speed and memory layout, never values beyond floating-point rounding. Set one directly
    (``mxcompat.kernels.config.packed_conv = False``) or for a block of code (``with mxcompat.kernels.policy(
    cpu_fast_paths=False): ...``). ``reset()`` restores the defaults. Fields:
    """
    __slots__ = tuple(_FIELDS)

    def __init__(self):
        self.reset()

    def reset(self):
        """Every field back to its default (``cpu_fast_paths`` as the environment says)."""
        for name, (_, default, _) in _FIELDS.items():
            setattr(self, name, default)
        self.cpu_fast_paths = _from_environment()

    def __setattr__(self, name, value):
        object.__setattr__(self, name, _checked(name, value))

    def as_dict(self):
        """The fields and their values."""
        return {name: getattr(self, name) for name in _FIELDS}

    def __repr__(self):
        return 'kernels.Config(%s)' % ', '.join('%s=%r' % kv for kv in self.as_dict().items())


Config.__doc__ += ''.join('\n    - ``%s`` (default %r): %s.' % (name, default, doc)
                          for name, (_, default, doc) in _FIELDS.items())


def _checked(name, value):
    if name not in _FIELDS:
        raise AttributeError('mxcompat.kernels.config has no field %r; its fields are %s'
                             % (name, ', '.join(_FIELDS)))
    kind = _FIELDS[name][0]
    if kind is bool:
        if not isinstance(value, (bool, int)) or value not in (0, 1):
            raise TypeError('mxcompat.kernels.config.%s takes True or False, got %r' % (name, value))
        return bool(value)
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError('mxcompat.kernels.config.%s takes an integer, got %r' % (name, value)) from None
    if value < kind:
        raise ValueError('mxcompat.kernels.config.%s takes an integer >= %d, got %d' % (name, kind, value))
    return value


config = Config()


@contextlib.contextmanager
def policy(**fields):
    """Set ``config`` fields for the ``with`` block, restoring their values after it (also on an exception):
    ``with mxcompat.kernels.policy(cpu_fast_paths=False): ...``. Process-wide, not per thread."""
    checked = {name: _checked(name, value) for name, value in fields.items()}
    before = {name: getattr(config, name) for name in checked}
    try:
        for name, value in checked.items():
            setattr(config, name, value)
        yield config
    finally:
        for name, value in before.items():
            setattr(config, name, value)
