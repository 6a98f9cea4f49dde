"""Operator dtype rules as MXNet 1.9.1's ``FInferType`` functions apply them, for the AMP graph conversion.

MXNet's conversion asks each operator's own type function which dtypes its other inputs and its outputs take
when only some are known (input 0 in the pass; whatever is known in the type inference that follows it), so the
rules here work on partial information: lists of MXNet type codes, -1 for unknown, filled in place. mxcompat's
``infer_type`` runs ops on meta tensors and needs shapes; the conversion has none, hence this table. Most operators
give every input and output one dtype (``_same``); the table lists those that do not, as the oracle showed them
(tests/fixtures/amp/gen_amp_convert.py records MXNet's answers per operator; tests/contrib/test_amp_convert.py
checks these rules against them). A rule raises ``TypeRuleError`` where MXNet's type function fails.
"""
import numpy as np
import torch

from ...base import BFLOAT16_CODE, DTYPE_MX2NP, MXNetError, dtype_name, to_torch_dtype

UNKNOWN = -1
CODES = dict({np.dtype(t).name: c for c, t in DTYPE_MX2NP.items()}, bfloat16=BFLOAT16_CODE)
F32, F64, F16, U8, I32, I8, I64, BF16 = (CODES[n] for n in ('float32', 'float64', 'float16', 'uint8', 'int32',
                                                             'int8', 'int64', 'bfloat16'))
NAMES = {v: k for k, v in CODES.items()}
_AMP_FLOATS = (F32, F16, BF16)


class TypeRuleError(MXNetError):
    """An operator's type function refused the dtypes it was given (MXNet raises from the conversion then)."""


def code(dtype):
    """MXNet's type code of a dtype in any spelling (None -> -1)."""
    if dtype is None:
        return UNKNOWN
    if isinstance(dtype, int):
        return dtype
    return CODES[dtype_name(dtype if isinstance(dtype, torch.dtype) else to_torch_dtype(dtype))]


def _name(t):
    return NAMES.get(t, str(t))


def _assign(types, i, t, what):
    """Set ``types[i]`` to ``t`` unless ``t`` is unknown; a different known value is MXNet's 'Type inconsistent'."""
    if t == UNKNOWN:
        return
    if types[i] == UNKNOWN:
        types[i] = t
    elif types[i] != t:
        raise TypeRuleError('Type inconsistent, Provided = %s, inferred type = %s (%s)' % (_name(types[i]), _name(t),
                                                                                        what))


def _fill(types, idx, t, what):
    for i in idx:
        if i < len(types):
            _assign(types, i, t, what)


def _first_known(*lists):
    for lst in lists:
        for t in lst:
            if t != UNKNOWN:
                return t
    return UNKNOWN


def _same(node, ins, outs):
    """ElemwiseType (and nnvm's fallback for ops without a type function): one dtype for all inputs and outputs."""
    t = _first_known(ins, outs)
    _fill(ins, range(len(ins)), t, node.name)
    _fill(outs, range(len(outs)), t, node.name)


def _first_and_outputs(node, ins, outs):
    """Input 0 and the outputs share a dtype; the other inputs (labels, indices, lengths) are left alone."""
    t = _first_known(ins[:1], outs)
    _fill(ins, [0], t, node.name)
    _fill(outs, range(len(outs)), t, node.name)


def _like(node, ins, outs):
    """broadcast_like/reshape_like/slice_like: lhs <-> output once rhs's dtype is known (rhs itself is free);
    False (MXNet's type function fails) before."""
    if len(ins) < 2 or ins[1] == UNKNOWN:
        return False
    _first_and_outputs(node, ins, outs)
    return True


def _where(node, ins, outs):
    """x, y and the output share a dtype (the condition's is free); False while none of them is known."""
    t = _first_known(ins[1:], outs)
    if t == UNKNOWN:
        return False
    _fill(ins, [1, 2], t, node.name)
    _fill(outs, [0], t, node.name)
    return True


def _batch_norm(keep_bf16):
    """BatchNorm's parameters and statistics in the data's accumulation type (float32 for float16 data, and for
    bfloat16 data unless ``keep_bf16``: BatchNorm_v1 and SyncBatchNorm keep bfloat16)."""
    def rule(node, ins, outs):
        t = ins[0] if ins[0] != UNKNOWN else (outs[0] if outs else UNKNOWN)
        if t == UNKNOWN:
            return
        if t in (F16, F32) or (t == BF16 and not keep_bf16):
            p = F32
        elif t in (F64, BF16):
            p = t
        else:
            raise TypeRuleError('%s: unsupported data type %s' % (node.op.name, _name(t)))
        _fill(ins, [0], t, node.name)
        _fill(outs, [0], t, node.name)
        _fill(outs, range(1, len(outs)), p, node.name)
        _fill(ins, range(1, len(ins)), p, node.name)
    return rule


def _dtype_attr(node, default=F32):
    d = node.params().get('dtype')
    return default if d is None else code(d)


def _out_from_attr(key=None, default=F32):
    """Output dtype from the op's dtype attribute (``key``, default 'dtype'; None there means ``default``);
    inputs share one dtype among themselves."""
    def rule(node, ins, outs):
        if key is None:
            out = _dtype_attr(node, default)
        else:
            v = node.params().get(key)
            out = code(v) if v is not None else default
        if out == UNKNOWN:  # None: the input's dtype
            _same(node, ins, outs)
            return
        t = _first_known(ins)
        _fill(ins, range(len(ins)), t, node.name)
        _fill(outs, range(len(outs)), out, node.name)
    return rule


def _fixed(*out_types):
    """Outputs of fixed dtypes (a shorter list repeats its last entry); inputs share one dtype."""
    def rule(node, ins, outs):
        t = _first_known(ins)
        _fill(ins, range(len(ins)), t, node.name)
        for i in range(len(outs)):
            _assign(outs, i, out_types[min(i, len(out_types) - 1)], node.name)
    return rule


def _cast(node, ins, outs):
    _assign(outs, 0, _dtype_attr(node), node.name)


def _amp_cast(node, ins, outs):
    target = _dtype_attr(node)
    _assign(outs, 0, target if ins[0] in _AMP_FLOATS else ins[0], node.name)


def _amp_multicast(node, ins, outs):
    narrow = node.params().get('cast_narrow', False)
    widest = F32 if narrow else ins[0]
    for i, t in enumerate(ins):
        o = outs[i] if i < len(outs) else UNKNOWN
        if not narrow and F32 in (t, o):
            widest = F32
        elif narrow and F16 in (t, o):
            widest = F16
        elif narrow and BF16 in (t, o):
            widest = BF16
    for i, t in enumerate(ins):
        _assign(outs, i, widest if t in _AMP_FLOATS else t, node.name)


def _embedding(node, ins, outs):
    t = _dtype_attr(node)
    _fill(ins, [1], t, node.name)
    _fill(outs, [0], t, node.name)


def _topk(node, ins, outs):
    ret = node.params().get('ret_typ', 'indices')
    idx = _dtype_attr(node)
    t = _first_known(ins)
    if ret == 'both':
        if t == UNKNOWN and outs and outs[0] != UNKNOWN:
            t = outs[0]
        _fill(ins, [0], t, node.name)
        _fill(outs, [0], t, node.name)
        _fill(outs, [1], idx, node.name)
    elif ret == 'indices':
        _fill(outs, [0], idx, node.name)
    else:
        _same(node, ins, outs)


def _softmax(node, ins, outs):
    """softmax/log_softmax/softmin: output in ``dtype`` when given; the optional length input is free."""
    d = node.params().get('dtype')
    if d is None:
        _first_and_outputs(node, ins, outs)
    else:
        _fill(outs, [0], code(d), node.name)


def _sample_multinomial(node, ins, outs):
    _fill(outs, [0], _dtype_attr(node, I32), node.name)
    if len(outs) > 1:
        _fill(outs, [1], ins[0], node.name)


def _histogram(node, ins, outs):
    _fill(outs, [0], I64, node.name)
    if len(outs) > 1:
        _fill(outs, [1], ins[0], node.name)


def _index_input(position):
    """take/pick: MXNet refuses to infer until the index input's dtype is known."""
    def rule(node, ins, outs):
        if len(ins) > position and ins[position] == UNKNOWN:
            raise TypeRuleError('Index type must be set for %s operator' % node.op.name)
        _first_and_outputs(node, ins, outs)
    return rule


def _fixed_input(position, t):
    def rule(node, ins, outs):
        _first_and_outputs(node, ins, outs)
        _fill(ins, [position], t, node.name)
    return rule


def _roi(node, ins, outs):
    """ROIPooling/ROIAlign and relatives: MXNet checks the rois' dtype against the data's, unknown included."""
    t = ins[0]
    if t == UNKNOWN:
        return
    if len(ins) > 1 and ins[1] != t:
        raise TypeRuleError('Check failed: dtype == (*in_type)[1] (%d vs. %d)' % (t, ins[1]))
    _fill(ins, range(len(ins)), t, node.name)
    _fill(outs, range(len(outs)), t, node.name)


def _float32_only(node, ins, outs):
    """The legacy operators without a type function of their own: float32 only."""
    for t in ins:
        if t not in (UNKNOWN, F32):
            raise TypeRuleError('Unsupported data type %d' % t)
    _fill(ins, range(len(ins)), F32, node.name)
    _fill(outs, range(len(outs)), F32, node.name)


def _float32_64(node, ins, outs):
    t = _first_known(ins, outs)
    if t not in (UNKNOWN, F32, F64):
        raise TypeRuleError('This operation only supports 32-bit and 64-bit floating point')
    _same(node, ins, outs)


def _needs_input(node, ins, outs):
    """Dropout: MXNet's type function fails outright while its input's dtype is unknown."""
    if ins[0] == UNKNOWN:
        raise TypeRuleError('input type to dropout is not specified.')
    _same(node, ins, outs)


def _creator(node, ins, outs):
    """Operators without inputs: their ``dtype`` (float32 when None)."""
    _fill(outs, range(len(outs)), _dtype_attr(node), node.name)


def _split_update(n_low, out_type=None, low_only=None):
    """Optimizer updates keeping their first ``n_low`` inputs (and the outputs, unless ``out_type``) in the
    weight's dtype and the others in float32; ``low_only``: the weight must be of that dtype."""
    def rule(node, ins, outs):
        t = _first_known(ins[:1], outs if out_type is None else [])
        if low_only is not None and t not in (UNKNOWN, low_only):
            raise TypeRuleError('Type inconsistent, Provided = %s, inferred type = %s' % (_name(t), _name(low_only)))
        _fill(ins, range(n_low), t, node.name)
        _fill(outs, range(len(outs)), t if out_type is None else out_type, node.name)
        _fill(ins, range(n_low, len(ins)), F32, node.name)
    return rule


def _last_float32(node, ins, outs):
    """_adamw_update: as _same, but its last input (rescale_grad) is float32."""
    t = _first_known(ins[:-1], outs)
    _fill(ins, range(len(ins) - 1), t, node.name)
    _fill(outs, range(len(outs)), t, node.name)
    _fill(ins, [len(ins) - 1], F32, node.name)


def _allclose(node, ins, outs):
    """Output uint8; the inputs are free."""
    _fill(outs, [0], U8, node.name)


def _hawkes(node, ins, outs):
    """_contrib_hawkesll: one dtype but for ``marks`` (input 5), int32."""
    t = _first_known(ins[:1], outs)
    _fill(ins, [i for i in range(len(ins)) if i != 5], t, node.name)
    _fill(ins, [5], I32, node.name)
    _fill(outs, range(len(outs)), t, node.name)


RULES = {
    'Cast': _cast, 'amp_cast': _amp_cast, 'amp_multicast': _amp_multicast,
    'BatchNorm': _batch_norm(False), '_contrib_BatchNormWithReLU': _batch_norm(False),
    'BatchNorm_v1': _batch_norm(True), '_contrib_SyncBatchNorm': _batch_norm(True),
    'Embedding': _embedding, '_contrib_SparseEmbedding': _embedding,
    'one_hot': _out_from_attr(), 'argsort': _out_from_attr(), 'topk': _topk,
    'softmax': _softmax, 'log_softmax': _softmax, 'softmin': _softmax,
    'norm': _out_from_attr('out_dtype', UNKNOWN), '_np_cumsum': _out_from_attr(default=UNKNOWN),
    '_sample_exponential': _out_from_attr(), '_sample_gamma': _out_from_attr(),
    '_sample_generalized_negative_binomial': _out_from_attr(), '_sample_negative_binomial': _out_from_attr(),
    '_sample_normal': _out_from_attr(), '_sample_poisson': _out_from_attr(), '_sample_uniform': _out_from_attr(),
    '_sample_multinomial': _sample_multinomial, '_histogram': _histogram,
    'shape_array': _fixed(I64), 'size_array': _fixed(I64), '_contrib_index_array': _fixed(I64),
    'all_finite': _fixed(F32), 'multi_all_finite': _fixed(F32), '_image_to_tensor': _fixed(F32),
    '_contrib_allclose': _allclose, '_contrib_hawkesll': _hawkes,
    'CTCLoss': _first_and_outputs, 'gather_nd': _first_and_outputs, 'scatter_nd': _first_and_outputs,
    '_contrib_edge_id': _first_and_outputs, '_contrib_index_copy': _first_and_outputs,
    'broadcast_like': _like, 'reshape_like': _like, 'slice_like': _like, 'where': _where,
    'take': _index_input(1), 'pick': _index_input(1),
    'batch_take': _fixed_input(1, I32),
    'ROIPooling': _roi, '_contrib_ROIAlign': _roi, '_contrib_RROIAlign': _roi, '_contrib_PSROIPooling': _roi,
    '_contrib_DeformablePSROIPooling': _roi,
    'Crop': _float32_only, 'InstanceNorm': _float32_only, 'IdentityAttachKLSparseReg': _float32_only,
    '_contrib_MultiBoxDetection': _float32_only, '_contrib_MultiBoxPrior': _float32_only,
    '_contrib_MultiBoxTarget': _float32_only, '_contrib_MultiProposal': _float32_only,
    '_contrib_Proposal': _float32_only,
    '_linalg_det': _float32_64, '_linalg_slogdet': _float32_64,
    'Dropout': _needs_input,
    'mp_sgd_update': _split_update(2), 'mp_sgd_mom_update': _split_update(2), 'mp_nag_mom_update': _split_update(2),
    '_mp_adamw_update': _split_update(2), 'mp_lamb_update_phase1': _split_update(2, F32, F16),
    'mp_lamb_update_phase2': _split_update(1), '_adamw_update': _last_float32,
}


def infer_node(node, ins, outs):
    """Apply ``node``'s rule to the type lists ``ins``/``outs`` (changed in place); False where MXNet's type function
    reports failure without raising."""
    if node.op is not None and not node.op.inputs and not node.op.variadic:
        return _creator(node, ins, outs)
    return RULES.get(node.op.name, _same)(node, ins, outs)
