"""Loss heads whose gradient is MXNet's own (SoftmaxOutput, Linear/Logistic/MAE RegressionOutput, SVMOutput,
MakeLoss), and CTCLoss.

The heads are ``torch.autograd.Function``s: their backward ignores the incoming head gradient and returns the
gradient MXNet defines (e.g. ``softmax - one_hot(label)``), exactly as MXNet's backward does. The label gets a
zero gradient. The same gradient functions are registered as ``head_grad``: a bound executor seeds backward with
them at the head's input, skipping the Python Function.
"""
import functools

import torch
import torch.nn.functional as F

from .. import kernels
from .._recording import STATE as _STATE
from ..base import MXNetError, MXNetValueError
from .registry import defop

_DL = ('data', 'label')


def _err(op, msg):
    return MXNetValueError('Operator %s: %s' % (op, msg))


def _no_grad_label(ctx, label):
    return torch.zeros_like(label) if ctx.needs_input_grad[1] else None


# ---- SoftmaxOutput ------------------------------------------------------------------------------------------------
def _torch_softmax(data, axis):
    # torch.softmax's own kernel entered directly: the public function's overload parsing cost ~4 us a call
    # (a 64 x 10 batch: 13 us against 9)
    if data.is_floating_point():
        return torch._softmax(data, axis, False)
    return torch.softmax(data, axis)


def _softmax_out_forward(data, multi_output, preserve_shape):
    # MXNet 1.9.1's CPU build runs oneDNN's softmax for inference of float32 data of 1, 2 or 4 dimensions without
    # multi_output, and mshadow's own loop otherwise (training included), whose bits kernels.mxnet_softmax gives
    # (with config.mxnet_softmax_output: it costs a training step's classifier head ~3x torch's softmax)
    if kernels.config.mxnet_softmax_output and (_STATE.training or multi_output or data.dtype != torch.float32
                                                or data.dim() not in (1, 2, 4) or data.numel() == 0):
        softmax = kernels.mxnet_softmax
    else:
        softmax = _torch_softmax
    if multi_output or data.dim() == 2:
        return softmax(data, 1)
    if preserve_shape:
        return softmax(data, -1)
    return softmax(data.reshape(data.shape[0], -1), 1).reshape(data.shape)


def _one_hot(lab, k):
    """One-hot rows for integer labels; labels outside [0, k) give all-zero rows."""
    return F.one_hot(lab.clamp(0, k - 1), k) * ((lab >= 0) & (lab < k)).unsqueeze(-1)


@functools.lru_cache(maxsize=64)
def _minus_ones(n, dtype):
    # the -1 each row's label column gets (read only; one per batch size and dtype)
    with torch.inference_mode(False):
        return torch.full((n, 1), -1.0, dtype=dtype)


def _minus_one_hot(o, lab):
    """``o - one_hot(lab)`` in one kernel when every label is a column of ``o`` (the common case; CPU only, where
    an out-of-range index raises instead of asserting on the device); None otherwise."""
    if o.device.type != 'cpu':
        return None
    try:
        # (a new tensor: no separate clone call; with a tensor of -1s, ~1 us less than scatter's reduce='add')
        return o.scatter_add(1, lab.unsqueeze(1), _minus_ones(o.shape[0], o.dtype))
    except RuntimeError:  # a label outside [0, k): its row subtracts nothing (the slower masked path)
        return None


def _plain_head(out, label, a):
    """Whether the SoftmaxOutput gradient is the plain ``softmax - one_hot(label)`` of a 2-D output and 1-D labels
    (no smoothing, ignore label, normalization, scale or output factor): the usual classifier head."""
    return (out.dim() == 2 and label.dim() == 1 and a['grad_scale'] == 1.0 and not a['smooth_alpha']
            and not a['use_ignore'] and not a['multi_output'] and not a['out_grad'] and a['normalization'] == 'null'
            and label.shape[0] == out.shape[0])


def _softmax_out_grad(out, label, a):
    """MXNet's SoftmaxOutput gradient with respect to data."""
    if _plain_head(out, label, a):
        grad = _minus_one_hot(out, label.to(torch.int64))
        if grad is not None:
            return grad
    if out.shape == label.shape:  # probabilities as labels
        grad = (out - label) * a['grad_scale']
        return grad * out if a['out_grad'] else grad  # MXNet multiplies by the output, not the head gradient
    ignore = int(a['ignore_label'])
    if a['multi_output']:
        n, k = out.shape[0], out.shape[1]
        o = out.reshape(n, k, -1)
        lab = label.reshape(n, -1).to(torch.int64)
        rest = o.shape[2]
        grad = o - _one_hot(lab, k).transpose(1, 2).to(o.dtype)
        if a['use_ignore']:
            grad = grad * (lab != ignore).unsqueeze(1).to(grad.dtype)
        norm = a['normalization']
        if norm == 'batch':
            scale = a['grad_scale'] / rest / n
        elif norm == 'valid':
            scale = a['grad_scale'] / torch.clamp((lab != ignore).sum(), min=1).to(grad.dtype)
        else:
            scale = a['grad_scale'] / rest
        grad = grad * scale
        if a['out_grad']:
            grad = grad * o
        return grad.reshape(out.shape)
    k = out.shape[-1] if a['preserve_shape'] else out.numel() // out.shape[0]
    o = out if out.dim() == 2 else out.reshape(-1, k)
    lab = (label if label.dim() == 1 else label.reshape(-1)).to(torch.int64)
    if lab.shape[0] != o.shape[0]:
        raise _err('SoftmaxOutput', 'label shape %s does not match data shape %s'
                   % (tuple(label.shape), tuple(out.shape)))
    # o - target, where target is the (smoothed) one-hot row of each label: subtract the off-label share from every
    # entry, then scatter the rest of the label's share into its column (rows with out-of-range labels get none).
    alpha = a['smooth_alpha']
    grad = None if alpha else _minus_one_hot(o, lab)
    if grad is None:
        off = alpha / (k - 1) if alpha else 0.0
        grad = o - off if off else o.clone()
        idx = lab.clamp(0, k - 1)
        hit = (lab == idx).to(o.dtype).mul_(off - 1.0 + alpha if alpha else -1.0)
        grad.scatter_add_(1, idx.unsqueeze(1), hit.unsqueeze(1))
    if a['use_ignore']:
        grad.mul_((lab != ignore).unsqueeze(1).to(grad.dtype))
    norm = a['normalization']
    if norm == 'valid':
        grad.mul_(a['grad_scale'] / torch.clamp((lab != ignore).sum(), min=1).to(grad.dtype))
    else:
        scale = a['grad_scale'] / lab.shape[0] if norm == 'batch' else a['grad_scale']
        if scale != 1.0:
            grad.mul_(scale)
    if a['out_grad']:
        grad.mul_(o)
    return grad if o is out else grad.reshape(out.shape)


class _SoftmaxOutputFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, label, attrs):
        out = _softmax_out_forward(data, attrs['multi_output'], attrs['preserve_shape'])
        ctx.save_for_backward(out, label)
        ctx.attrs = attrs
        return out

    @staticmethod
    def backward(ctx, grad):
        out, label = ctx.saved_tensors
        return _softmax_out_grad(out, label, ctx.attrs), _no_grad_label(ctx, label), None


def _softmax_output(data, label, grad_scale, ignore_label, multi_output, use_ignore, preserve_shape,
                    normalization, out_grad, smooth_alpha):
    if data.dim() < 2 and not preserve_shape:
        raise _err('SoftmaxOutput', 'data must have at least 2 dimensions, got shape %s' % (tuple(data.shape),))
    if torch.is_grad_enabled() and data.requires_grad:
        attrs = dict(grad_scale=grad_scale, ignore_label=ignore_label, multi_output=multi_output,
                     use_ignore=use_ignore, preserve_shape=preserve_shape, normalization=normalization,
                     out_grad=out_grad, smooth_alpha=smooth_alpha)
        return _SoftmaxOutputFn.apply(data, label, attrs)
    return _softmax_out_forward(data, multi_output, preserve_shape)


defop('SoftmaxOutput', _DL,
      [('grad_scale', 'float', 1.0), ('ignore_label', 'float', -1.0), ('multi_output', 'bool', False),
       ('use_ignore', 'bool', False), ('preserve_shape', 'bool', False), ('normalization', 'str', 'null'),
       ('out_grad', 'bool', False), ('smooth_alpha', 'float', 0.0)],
      _softmax_output, aliases=('Softmax',), choices={'normalization': ('null', 'batch', 'valid')},
      head_grad=lambda out, data, label, **a: _softmax_out_grad(out, label, a),
      doc='Softmax forward; backward gives the cross-entropy gradient ``softmax - one_hot(label)`` (scaled, '
          'normalised, with ignore_label/smoothing) whatever the head gradient is.')


# ---- regression heads ---------------------------------------------------------------------------------------------
def _regression(name, forward, grad_fn):
    def head_grad(out, data, label, grad_scale):
        num_output = label.numel() // label.shape[0] if label.dim() else 1
        return grad_fn(out - label.reshape(out.shape).to(out.dtype)) * (grad_scale / num_output)

    class _Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, data, label, grad_scale):
            out = forward(data)
            ctx.save_for_backward(out, label)
            ctx.grad_scale = grad_scale
            return out

        @staticmethod
        def backward(ctx, grad):
            out, label = ctx.saved_tensors
            return head_grad(out, None, label, ctx.grad_scale), _no_grad_label(ctx, label), None

    def impl(data, label, grad_scale):
        if label.dim() == 0 or data.dim() == 0 or label.shape[0] != data.shape[0] \
                or label.numel() != data.numel():
            raise _err(name, 'Shape inconsistent, Provided=%s, inferred shape=%s'
                       % (tuple(label.shape), tuple(data.shape)))
        if torch.is_grad_enabled() and data.requires_grad:
            return _Fn.apply(data, label, grad_scale)
        return forward(data)

    defop(name, _DL, [('grad_scale', 'float', 1.0)], impl, head_grad=head_grad,
          doc='Regression head: forward is %s; backward gives ``%s * grad_scale / outputs-per-sample``.'
              % ('sigmoid(data)' if forward is torch.sigmoid else 'data',
                 'sign(out - label)' if grad_fn is torch.sign else 'out - label'))


def _identity(x):
    return x.clone()


_regression('LinearRegressionOutput', _identity, _identity)
_regression('MAERegressionOutput', _identity, torch.sign)
_regression('LogisticRegressionOutput', torch.sigmoid, _identity)


# ---- SVMOutput ----------------------------------------------------------------------------------------------------
def _svm_grad(out, label, margin, coef, use_linear):
    n = out.shape[0]
    o = out.reshape(n, -1)
    k = o.shape[1]
    hot = F.one_hot(label.reshape(-1).to(torch.int64).clamp(0, k - 1), k).to(torch.bool)
    if use_linear:  # L1-SVM
        pos = -(margin > o).to(o.dtype)
        neg = (margin > -o).to(o.dtype)
    else:  # L2-SVM
        pos = -2.0 * torch.clamp(margin - o, min=0)
        neg = 2.0 * torch.clamp(margin + o, min=0)
    return (torch.where(hot, pos, neg) * coef).reshape(out.shape)


class _SVMFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, label, margin, coef, use_linear):
        ctx.save_for_backward(data, label)
        ctx.args = (margin, coef, use_linear)
        return data.clone()

    @staticmethod
    def backward(ctx, grad):
        data, label = ctx.saved_tensors
        return (_svm_grad(data, label, *ctx.args), _no_grad_label(ctx, label), None, None, None)


def _svm_output(data, label, margin, regularization_coefficient, use_linear):
    if data.dim() < 1 or label.numel() != data.shape[0]:
        raise _err('SVMOutput', 'label shape %s does not match data shape %s (one label per sample)'
                   % (tuple(label.shape), tuple(data.shape)))
    if torch.is_grad_enabled() and data.requires_grad:
        return _SVMFn.apply(data, label, margin, regularization_coefficient, use_linear)
    return data.clone()


defop('SVMOutput', _DL, [('margin', 'float', 1.0), ('regularization_coefficient', 'float', 1.0),
                         ('use_linear', 'bool', False)], _svm_output,
      head_grad=lambda out, data, label, margin, regularization_coefficient, use_linear:
      _svm_grad(data, label, margin, regularization_coefficient, use_linear),
      doc='Identity forward; backward gives the L2-SVM (or L1 with ``use_linear``) hinge gradient.')


# ---- MakeLoss -----------------------------------------------------------------------------------------------------
class _MakeLossFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, grad_scale, normalization, valid_thresh):
        ctx.save_for_backward(data)
        ctx.args = (grad_scale, normalization, valid_thresh)
        return data.clone()

    @staticmethod
    def backward(ctx, grad):
        data, = ctx.saved_tensors
        scale, norm, thresh = ctx.args
        return _make_loss_grad(None, data, scale, thresh, norm), None, None, None


def _make_loss_grad(out, data, grad_scale, valid_thresh, normalization):
    if normalization == 'batch':
        grad_scale = grad_scale / data.shape[0]
    elif normalization == 'valid':
        grad_scale = grad_scale / torch.clamp((data > valid_thresh).sum().to(data.dtype), min=1.0)
    return torch.ones_like(data) * grad_scale


def _make_loss(data, grad_scale, valid_thresh, normalization):
    if torch.is_grad_enabled() and data.requires_grad:
        return _MakeLossFn.apply(data, grad_scale, normalization, valid_thresh)
    return data.clone()


defop('MakeLoss', ('data',), [('grad_scale', 'float', 1.0), ('valid_thresh', 'float', 0.0),
                              ('normalization', 'str', 'null')],
      _make_loss, choices={'normalization': ('null', 'batch', 'valid')}, head_grad=_make_loss_grad,
      doc='Identity forward marking a loss: its gradient is ``grad_scale`` (divided by the batch size or by the '
          'count of elements above ``valid_thresh``), whatever the head gradient is.')


# ---- CTCLoss ------------------------------------------------------------------------------------------------------
def _ctc_loss(data, label, data_lengths=None, label_lengths=None, *, use_data_lengths, use_label_lengths, blank_label):
    if data.dim() != 3 or label.dim() != 2 or data.shape[1] != label.shape[0]:
        raise _err('CTCLoss', 'data must be (seq_len, batch, alphabet) and label (batch, max_label_len) with '
                   'the same batch size, got %s and %s' % (tuple(data.shape), tuple(label.shape)))
    t, n, k = data.shape
    lab = label.to(torch.int64)
    if use_label_lengths:
        if label_lengths is None:
            raise MXNetError('Operator CTCLoss: use_label_lengths=True needs the input label_lengths')
        llen = label_lengths.to(torch.int64)
    else:  # a label ends at its first padding value: 0 with blank_label='first', -1 with 'last'
        is_pad = lab == (0 if blank_label == 'first' else -1)
        llen = torch.where(is_pad.any(1), is_pad.to(torch.int8).argmax(1), lab.shape[1])
    if use_data_lengths:
        if data_lengths is None:
            raise MXNetError('Operator CTCLoss: use_data_lengths=True needs the input data_lengths')
        dlen = data_lengths.to(torch.int64)
        # steps past a sequence's length take no part (they may hold NaN): keep them out of the softmax too
        steps = torch.arange(t, device=data.device).reshape(t, 1, 1)
        data = torch.where(steps < dlen.reshape(1, n, 1), data, data.new_zeros(()))
    else:
        dlen = torch.full((n,), t, dtype=torch.int64, device=data.device)
    blank = 0 if blank_label == 'first' else k - 1
    logp = torch.log_softmax(data, 2)
    return F.ctc_loss(logp, lab.clamp(min=0), dlen, llen, blank, 'none', False)


def _ctc_infer(shapes, dtypes, attrs):
    d, lab = shapes[0], shapes[1]
    if len(d) != 3 or len(lab) != 2 or d[1] != lab[0]:
        raise _err('CTCLoss', 'data must be (seq_len, batch, alphabet) and label (batch, max_label_len) with '
                   'the same batch size, got %s and %s' % (tuple(d), tuple(lab)))
    return [(d[1],)], [dtypes[0]]


defop('CTCLoss', ('data', 'label', 'data_lengths', 'label_lengths'),
      [('use_data_lengths', 'bool', False), ('use_label_lengths', 'bool', False), ('blank_label', 'str', 'first')],
      _ctc_loss, optional=('data_lengths', 'label_lengths'), infer=_ctc_infer,
      aliases=('ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss'), choices={'blank_label': ('first', 'last')},
      input_names=lambda a: ['data', 'label'] + (['data_lengths'] if a['use_data_lengths'] else [])
      + (['label_lengths'] if a['use_label_lengths'] else []),
      doc='Connectionist temporal classification loss per sample (softmax applied to data internally).')
