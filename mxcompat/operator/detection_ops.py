"""Detection operators of ``mx.nd.contrib``: box_iou, box_nms, box_encode/box_decode, bipartite_matching,
MultiBoxPrior/Target/Detection (SSD), ROIAlign, RROIAlign, PSROIPooling, DeformablePSROIPooling,
Proposal/MultiProposal.

The matching and suppression steps are sequential greedy algorithms (as in MXNet's CPU kernels); they run on
the host over small per-image tensors. Gradients are MXNet's: box_nms copies the output gradient back to the kept
rows (ignoring an in/out format conversion), ROIAlign and the PS-ROI poolings differentiate their bilinear samples,
box_encode/box_decode give zero gradients, the matching/proposal ops none; RROIAlign's backward raises, as MXNet's.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError
from ..kernels._libm import libm
from .extra_ops import zero_grad
from .registry import defop, REQUIRED

_FORMATS = {'format': ('corner', 'center')}


def _err(op, msg):
    return MXNetError('Operator %s: %s' % (op, msg))


def _to_corner(b):
    x, y, w, h = b.unbind(-1)
    return torch.stack((x - w / 2, y - h / 2, x + w / 2, y + h / 2), -1)


def _to_center(b):
    l, t, r, btm = b.unbind(-1)
    return torch.stack(((l + r) / 2, (t + btm) / 2, r - l, btm - t), -1)


def _iou_matrix(a, b):
    """IoU of corner boxes a (..., N, 4) and b (..., M, 4) -> (..., N, M); widths below 0 count as 0 area."""
    lt = torch.maximum(a[..., :, None, :2], b[..., None, :, :2])
    rb = torch.minimum(a[..., :, None, 2:], b[..., None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)

    def area(x):
        wh = x[..., 2:] - x[..., :2]
        return torch.where((wh < 0).any(-1), torch.zeros_like(wh[..., 0]), wh.prod(-1))
    union = area(a)[..., :, None] + area(b)[..., None, :] - inter
    return torch.where(union > 0, inter / torch.where(union > 0, union, torch.ones_like(union)),
                       torch.zeros_like(union))


# ---- box_iou -------------------------------------------------------------------------------------------------------
def _box_iou(lhs, rhs, format):  # noqa: A002 (MXNet's name)
    if lhs.shape[-1] != 4 or rhs.shape[-1] != 4:
        raise _err('_contrib_box_iou', 'the last axis of lhs and rhs must be 4, got shapes %s and %s'
                   % (tuple(lhs.shape), tuple(rhs.shape)))
    a, b = lhs.reshape(-1, 4), rhs.reshape(-1, 4)
    if format == 'center':
        a, b = _to_corner(a), _to_corner(b)
    return _iou_matrix(a, b).reshape(lhs.shape[:-1] + rhs.shape[:-1])


defop('_contrib_box_iou', ('lhs', 'rhs'), [('format', 'str', 'corner')], zero_grad(_box_iou), choices=_FORMATS,
      doc='Pairwise IoU of boxes: shape lhs.shape[:-1] + rhs.shape[:-1].')


# ---- box_nms -------------------------------------------------------------------------------------------------------
def _greedy_keep(iou, same, thresh):
    """Indices kept by greedy suppression over boxes already in score order."""
    n = iou.shape[0]
    alive = np.ones(n, dtype=bool)
    over = (iou > thresh) & same
    for i in range(n):
        if alive[i]:
            alive[i + 1:] &= ~over[i, i + 1:]
    return np.nonzero(alive)[0]


def _box_nms(data, overlap_thresh, valid_thresh, topk, coord_start, score_index, id_index, background_id,
             force_suppress, in_format, out_format):
    op = '_contrib_box_nms'
    if data.dim() < 2:
        raise _err(op, 'data must have at least 2 dims (..., num_boxes, width), got shape %s' % (tuple(data.shape),))
    width = data.shape[-1]
    if not (0 <= score_index < width and 0 <= coord_start <= width - 4 and id_index < width):
        raise _err(op, 'score_index %d, coord_start %d or id_index %d out of range for width %d'
                   % (score_index, coord_start, id_index, width))
    if data.device.type == 'meta':
        return data.clone()
    x = data.reshape(-1, data.shape[-2], width)
    host = x.detach().cpu().numpy().astype(np.float64)
    rows = []
    for b in range(x.shape[0]):
        rec = host[b]
        score = rec[:, score_index]
        valid = score > valid_thresh
        if id_index >= 0:  # with the default background_id -1, records of class -1 are dropped
            valid &= rec[:, id_index] != background_id
        idx = np.nonzero(valid)[0]
        idx = idx[np.argsort(-score[idx], kind='stable')]
        if topk > 0:
            idx = idx[:topk]
        boxes = torch.from_numpy(rec[idx, coord_start:coord_start + 4])
        if in_format == 'center':
            boxes = _to_corner(boxes)
        iou = _iou_matrix(boxes, boxes).numpy()  # host: from numpy
        if id_index >= 0 and not force_suppress:
            ids = rec[idx, id_index]
            same = ids[:, None] == ids[None, :]
        else:
            same = np.ones(iou.shape, dtype=bool)
        rows.append(idx[_greedy_keep(iou, same, overlap_thresh)])
    n = x.shape[1]
    out = []
    for b, keep in enumerate(rows):
        kept = x[b, torch.as_tensor(keep, dtype=torch.long, device=x.device)]
        if in_format != out_format:
            conv = _to_center if out_format == 'center' else _to_corner
            c = coord_start
            moved = torch.cat((kept[:, :c], conv(kept[:, c:c + 4]), kept[:, c + 4:]), 1)
            kept = kept + (moved - kept).detach()  # MXNet's gradient copies rows back, ignoring the conversion
        pad = torch.full((n - len(keep), width), -1, dtype=x.dtype, device=x.device)
        out.append(torch.cat((kept, pad), 0))
    return torch.stack(out).reshape(data.shape)


defop('_contrib_box_nms', ('data',),
      [('overlap_thresh', 'float', 0.5), ('valid_thresh', 'float', 0.0), ('topk', 'int', -1),
       ('coord_start', 'int', 2), ('score_index', 'int', 1), ('id_index', 'int', -1), ('background_id', 'int', -1),
       ('force_suppress', 'bool', False), ('in_format', 'str', 'corner'), ('out_format', 'str', 'corner')],
      _box_nms, aliases=('_contrib_box_non_maximum_suppression',),
      choices={'in_format': ('corner', 'center'), 'out_format': ('corner', 'center')},
      doc='Non-maximum suppression per batch item: kept records sorted by score first, the rest filled with -1.')


# ---- box_encode / box_decode ---------------------------------------------------------------------------------------
def _box_encode(samples, matches, anchors, refs, means, stds):
    b = torch.arange(refs.shape[0], device=refs.device)[:, None]
    ref = refs[b, matches.long().clamp(0, refs.shape[1] - 1)]
    g, a = _to_center(ref), _to_center(anchors)
    t = torch.cat(((g[..., :2] - a[..., :2]) / a[..., 2:], torch.log(g[..., 2:] / a[..., 2:])), -1)
    t = (t - means) / stds
    mask = (samples > 0.5).to(anchors.dtype)[..., None].expand(t.shape)
    return torch.where(mask > 0, t, torch.zeros_like(t)), mask.clone()


def _box_encode_ng(*tensors):
    return _box_encode(*(t.detach() for t in tensors))  # no gradient, as in MXNet


defop('_contrib_box_encode', ('samples', 'matches', 'anchors', 'refs', 'means', 'stds'), (), _box_encode_ng,
      num_outputs=2, doc='Encode matched reference boxes against anchors: (targets, masks).')


def _box_decode(data, anchors, std0, std1, std2, std3, clip, format):  # noqa: A002
    a = anchors if format == 'center' else _to_center(anchors)
    ctr = data[..., :2] * torch.tensor([std0, std1], dtype=data.dtype, device=data.device) * a[..., 2:] + a[..., :2]
    d = data[..., 2:] * torch.tensor([std2, std3], dtype=data.dtype, device=data.device)
    if clip > 0:
        d = d.clamp(max=clip)
    half = torch.exp(d) * a[..., 2:] * 0.5
    return torch.cat((ctr - half, ctr + half), -1)


defop('_contrib_box_decode', ('data', 'anchors'),
      [('std0', 'float', 1.0), ('std1', 'float', 1.0), ('std2', 'float', 1.0), ('std3', 'float', 1.0),
       ('clip', 'float', -1.0), ('format', 'str', 'center')], zero_grad(_box_decode), choices=_FORMATS,
      doc='Decode box offsets against anchors (given in format) into corner boxes.')


# ---- bipartite_matching --------------------------------------------------------------------------------------------
def _bipartite(data, is_ascend, threshold, topk):
    if data.dim() < 2:
        raise _err('_contrib_bipartite_matching', 'data must have at least 2 dims, got shape %s'
                   % (tuple(data.shape),))
    rows_n, cols_n = data.shape[-2], data.shape[-1]
    if data.device.type == 'meta':
        return data.new_empty(data.shape[:-1]), data.new_empty(data.shape[:-2] + (cols_n,))
    s = data.detach().reshape(-1, rows_n * cols_n).cpu().numpy()
    rmark = np.full((s.shape[0], rows_n), -1.0)
    cmark = np.full((s.shape[0], cols_n), -1.0)
    for b in range(s.shape[0]):
        order = np.argsort(s[b] if is_ascend else -s[b], kind='stable')
        count = 0
        for j in order:
            r, c = divmod(int(j), cols_n)
            if rmark[b, r] != -1 or cmark[b, c] != -1:
                continue
            if not (s[b, j] < threshold if is_ascend else s[b, j] > threshold):
                break
            rmark[b, r], cmark[b, c] = c, r
            count += 1
            if 0 < topk < count:  # MXNet stops only once topk is exceeded
                break
    return (torch.from_numpy(rmark).to(data.device, data.dtype).reshape(data.shape[:-1]),
            torch.from_numpy(cmark).to(data.device, data.dtype).reshape(data.shape[:-2] + (cols_n,)))


defop('_contrib_bipartite_matching', ('data',),
      [('is_ascend', 'bool', False), ('threshold', 'float', REQUIRED), ('topk', 'int', -1)], zero_grad(_bipartite),
      num_outputs=2, doc='Greedy bipartite matching on a score matrix: (row -> column, column -> row), -1 unmatched.')


# ---- SSD: MultiBoxPrior / MultiBoxTarget / MultiBoxDetection -------------------------------------------------------
def _multibox_prior(data, sizes, ratios, clip, steps, offsets):
    if data.dim() != 4:
        raise _err('_contrib_MultiBoxPrior', 'data must be 4D (N, C, H, W), got shape %s' % (tuple(data.shape),))
    h, w = data.shape[2], data.shape[3]
    step_y = steps[0] if steps[0] > 0 else 1.0 / h
    step_x = steps[1] if steps[1] > 0 else 1.0 / w
    cy = (torch.arange(h, dtype=torch.float64) + offsets[0]) * step_y
    cx = (torch.arange(w, dtype=torch.float64) + offsets[1]) * step_x
    # first every size at ratios[0], then sizes[0] at the other ratios
    pairs = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    shapes = [(s * h / w * math.sqrt(r) / 2, s / math.sqrt(r) / 2) for s, r in pairs]
    half = torch.tensor(shapes, dtype=torch.float64)  # (K, 2): half width, half height
    yy, xx = torch.meshgrid(cy, cx, indexing='ij')
    ctr = torch.stack((xx, yy), -1).reshape(-1, 1, 2)
    boxes = torch.cat((ctr - half, ctr + half), -1).reshape(1, -1, 4)
    if clip:
        boxes = boxes.clamp(0, 1)
    return boxes.to(data.dtype).to(data.device)


defop('_contrib_MultiBoxPrior', ('data',),
      [('sizes', 'floats', (1.0,)), ('ratios', 'floats', (1.0,)), ('clip', 'bool', False),
       ('steps', 'floats', (-1.0, -1.0)), ('offsets', 'floats', (0.5, 0.5))], zero_grad(_multibox_prior),
      doc='SSD anchor boxes (1, H*W*(len(sizes)+len(ratios)-1), 4), corner format, normalised.')


def _match_anchors(iou, thresh):
    """SSD matching: greedy best pairs first, then any anchor whose best IoU exceeds thresh.
    Returns (flags: 1 positive / -1 undecided, best gt per anchor, its IoU)."""
    a_n, g_n = iou.shape
    flags = np.full(a_n, -1)
    best_gt = np.full(a_n, -1)
    best_iou = np.full(a_n, -1.0)
    work = iou.copy()
    while True:
        j, k = np.unravel_index(np.argmax(work), work.shape) if work.size else (0, 0)
        if not work.size or work[j, k] <= 1e-6:
            break
        flags[j], best_gt[j], best_iou[j] = 1, k, work[j, k]
        work[j, :] = -1
        work[:, k] = -1
    if thresh > 0:
        rest = flags != 1
        gt = iou.argmax(1)
        m = iou[np.arange(a_n), gt]
        best_gt[rest], best_iou[rest] = gt[rest], m[rest]
        flags[rest & (m > thresh)] = 1
    return flags, best_gt, best_iou


def _encode_np(anchor, gt, var):
    aw, ah = anchor[:, 2] - anchor[:, 0], anchor[:, 3] - anchor[:, 1]
    ax, ay = (anchor[:, 0] + anchor[:, 2]) / 2, (anchor[:, 1] + anchor[:, 3]) / 2
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = (gt[:, 0] + gt[:, 2]) / 2, (gt[:, 1] + gt[:, 3]) / 2
    return np.stack(((gx - ax) / aw / var[0], (gy - ay) / ah / var[1], np.log(gw / aw) / var[2],
                     np.log(gh / ah) / var[3]), 1)


def _background_prob(logits):
    """The score MXNet's CPU MultiBoxTarget sorts negative candidates by: the softmax probability of class 0 of
    ``logits`` (classes x anchors), computed as its kernel does, in the input's float type (the max over classes,
    the sum of exp(x - max) class by class, the C library's expf for float32), then rounded to float as its sort
    keys are. Computed in double, nearly equal scores would order differently, and other negatives be picked."""
    exp = (lambda a: libm().vector('expf', a)) if logits.dtype == np.float32 else np.exp
    top = logits[0]
    for row in logits[1:]:
        top = np.maximum(top, row)
    total = np.zeros_like(top)
    for row in logits:
        total = total + exp(row - top)
    return (exp(logits[0] - top) / total).astype(np.float32)


def _multibox_target(anchor, label, cls_pred, overlap_threshold, ignore_label, negative_mining_ratio,
                     negative_mining_thresh, minimum_negative_samples, variances):
    op = '_contrib_MultiBoxTarget'
    if len(variances) != 4:
        raise _err(op, 'variances must have 4 values, got %s' % (variances,))
    b_n, a_n = label.shape[0], anchor.shape[1]
    if label.dim() != 3 or label.shape[2] < 5 or cls_pred.dim() != 3 or cls_pred.shape[2] != a_n:
        raise _err(op, 'label must be (B, L, >=5) and cls_pred (B, C, %d), got %s and %s'
                   % (a_n, tuple(label.shape), tuple(cls_pred.shape)))
    dev, dt = anchor.device, anchor.dtype
    if dev.type == 'meta':
        return (anchor.new_empty((b_n, a_n * 4)), anchor.new_empty((b_n, a_n * 4)), anchor.new_empty((b_n, a_n)))
    anc = anchor.detach().reshape(-1, 4).cpu().double().numpy()
    lab = label.detach().cpu().double().numpy()
    prd_type = torch.float64 if cls_pred.dtype == torch.float64 else torch.float32
    prd = cls_pred.detach().cpu().to(prd_type).numpy()
    loc_t = np.zeros((b_n, a_n, 4))
    loc_m = np.zeros((b_n, a_n, 4))
    cls_t = np.full((b_n, a_n), float(np.float32(ignore_label)))
    for b in range(b_n):
        stop = np.nonzero(lab[b, :, 0] == -1)[0]
        gts = lab[b, :stop[0] if len(stop) else lab.shape[1]]
        if not len(gts):
            continue
        iou = _iou_matrix(torch.from_numpy(anc), torch.from_numpy(gts[:, 1:5])).numpy()  # host: from numpy
        flags, best_gt, best_iou = _match_anchors(iou, overlap_threshold)
        if negative_mining_ratio > 0:
            n_pos = int((flags == 1).sum())
            n_neg = min(int(n_pos * negative_mining_ratio), a_n - n_pos)
            if n_neg > 0:
                und = flags != 1
                best_iou = np.where(und & (best_iou < 0), iou.max(1), best_iou)
                cand = np.nonzero(und & (best_iou < negative_mining_thresh))[0]
                bg = _background_prob(prd[b][:, cand])
                flags[cand[np.argsort(bg, kind='stable')[:n_neg]]] = 0  # (stable: ties go by anchor, as MXNet's)
        else:
            flags[flags != 1] = 0
        pos = flags == 1
        cls_t[b, pos] = gts[best_gt[pos], 0] + 1
        cls_t[b, flags == 0] = 0
        loc_m[b, pos] = 1
        loc_t[b, pos] = _encode_np(anc[pos], gts[best_gt[pos], 1:5], variances)
    cast = lambda a: torch.from_numpy(a).to(dt).to(dev)  # noqa: E731
    return cast(loc_t.reshape(b_n, -1)), cast(loc_m.reshape(b_n, -1)), cast(cls_t)


defop('_contrib_MultiBoxTarget', ('anchor', 'label', 'cls_pred'),
      [('overlap_threshold', 'float', 0.5), ('ignore_label', 'float', -1.0), ('negative_mining_ratio', 'float', -1.0),
       ('negative_mining_thresh', 'float', 0.5), ('minimum_negative_samples', 'int', 0),
       ('variances', 'floats', (0.1, 0.1, 0.2, 0.2))], zero_grad(_multibox_target), num_outputs=3,
      doc='SSD training targets: (loc_target, loc_mask, cls_target). minimum_negative_samples has no effect, as '
          'in MXNet\'s CPU kernel.')


def _multibox_detection(cls_prob, loc_pred, anchor, clip, threshold, background_id, nms_threshold, force_suppress,
                        variances, nms_topk):
    op = '_contrib_MultiBoxDetection'
    b_n, c_n, a_n = cls_prob.shape
    if loc_pred.shape != (b_n, a_n * 4) or anchor.numel() != a_n * 4:
        raise _err(op, 'loc_pred must be (%d, %d) and anchor (1, %d, 4), got %s and %s'
                   % (b_n, a_n * 4, a_n, tuple(loc_pred.shape), tuple(anchor.shape)))
    if cls_prob.device.type == 'meta':
        return cls_prob.new_empty((b_n, a_n, 6))
    dt, dev = cls_prob.dtype, cls_prob.device
    prob = cls_prob.detach().cpu().double().numpy()
    loc = loc_pred.detach().cpu().double().numpy().reshape(b_n, a_n, 4)
    anc = anchor.detach().cpu().double().numpy().reshape(a_n, 4)
    aw, ah = anc[:, 2] - anc[:, 0], anc[:, 3] - anc[:, 1]
    ax, ay = (anc[:, 0] + anc[:, 2]) / 2, (anc[:, 1] + anc[:, 3]) / 2
    out = np.full((b_n, a_n, 6), -1.0)
    for b in range(b_n):
        fg = prob[b, 1:]
        cid = fg.argmax(0) + 1
        score = fg.max(0)
        cid = np.where(score < threshold, 0, cid)
        ox = loc[b, :, 0] * variances[0] * aw + ax
        oy = loc[b, :, 1] * variances[1] * ah + ay
        ow = np.exp(loc[b, :, 2] * variances[2]) * aw / 2
        oh = np.exp(loc[b, :, 3] * variances[3]) * ah / 2
        boxes = np.stack((ox - ow, oy - oh, ox + ow, oy + oh), 1)
        if clip:
            boxes = boxes.clip(0, 1)
        rec = np.concatenate(((cid - 1)[:, None], score[:, None], boxes), 1)[cid > 0]
        if not len(rec) or nms_threshold <= 0 or nms_threshold > 1:
            out[b, :len(rec)] = rec
            continue
        order = np.argsort(-rec[:, 1], kind='stable')
        nkeep = len(order) if not 0 < nms_topk < len(order) else nms_topk
        # the top nkeep records in score order; MXNet leaves the others in place, marked -1
        rec = np.concatenate((rec[order[:nkeep]], rec[nkeep:]), 0)
        rec[nkeep:, 0] = -1
        iou = _iou_matrix(torch.from_numpy(rec[:nkeep, 2:]), torch.from_numpy(rec[:nkeep, 2:])).numpy()  # host
        same = np.ones(iou.shape, dtype=bool) if force_suppress else rec[:nkeep, 0][:, None] == rec[:nkeep, 0][None]
        alive = np.zeros(nkeep, dtype=bool)
        alive[_greedy_keep_ge(iou, same, nms_threshold)] = True
        rec[:nkeep, 0] = np.where(alive, rec[:nkeep, 0], -1)
        out[b, :len(rec)] = rec
    return torch.from_numpy(out).to(dt).to(dev)


def _greedy_keep_ge(iou, same, thresh):
    n = iou.shape[0]
    alive = np.ones(n, dtype=bool)
    over = (iou >= thresh) & same
    for i in range(n):
        if alive[i]:
            alive[i + 1:] &= ~over[i, i + 1:]
    return np.nonzero(alive)[0]


defop('_contrib_MultiBoxDetection', ('cls_prob', 'loc_pred', 'anchor'),
      [('clip', 'bool', True), ('threshold', 'float', 0.01), ('background_id', 'int', 0),
       ('nms_threshold', 'float', 0.5), ('force_suppress', 'bool', False),
       ('variances', 'floats', (0.1, 0.1, 0.2, 0.2)), ('nms_topk', 'int', -1)], zero_grad(_multibox_detection),
      doc='SSD detections (B, A, 6): [class, score, xmin, ymin, xmax, ymax] sorted by score, -1 class when '
          'suppressed. Class 0 is the background whatever background_id says, as in MXNet\'s kernel.')


# ---- ROIAlign ------------------------------------------------------------------------------------------------------
def _corner_pair(pos, size):
    """The two grid indices either side of each (non-negative) sample coordinate along an axis of ``size`` cells, and
    the fraction towards the upper one: samples at or past the last cell take it twice, with fraction 0 (MXNet's
    bilinear rule). The fraction keeps the dtype of ``pos``."""
    low = np.minimum(np.floor(pos).astype(np.int64), size - 1)
    end = low >= size - 1
    return low, np.where(end, low, low + 1), np.where(end, 0, pos - low).astype(pos.dtype)


def _axis_samples(start, binsz, pooled, grid, limit):
    """Sample coordinates (R, pooled * grid) along one axis for rois starting at ``start`` (R,) with bins of
    ``binsz`` (R,), and their bilinear corners and weights; samples outside [-1, limit] get zero weight."""
    steps = (np.arange(pooled)[:, None] + (np.arange(grid)[None] + 0.5) / grid).reshape(-1)
    pos = start[:, None] + steps[None] * binsz[:, None]
    outside = (pos < -1.0) | (pos > limit)
    low, high, frac = _corner_pair(np.maximum(pos, 0), limit)
    w_hi = np.where(outside, 0.0, frac)
    w_lo = np.where(outside, 0.0, 1 - frac)
    return low, high, w_lo, w_hi


def _roi_group(data, bidx, y, x, ph, pw, gh, gw, chan):
    """ROI Align of rois sharing one sampling grid: (R, Cout, ph, pw)."""
    h, w = data.shape[2], data.shape[3]
    dev, dt = data.device, data.dtype
    yl, yh, wyl, wyh = (torch.from_numpy(a).to(dev) for a in _axis_samples(y[0], y[1], ph, gh, h))
    xl, xh, wxl, wxh = (torch.from_numpy(a).to(dev) for a in _axis_samples(x[0], x[1], pw, gw, w))
    flat = data.reshape(data.shape[0], data.shape[1], h * w)
    b = torch.from_numpy(bidx).to(dev)[:, None, None, None]
    acc = 0
    for yi, wy in ((yl, wyl), (yh, wyh)):
        for xi, wx in ((xl, wxl), (xh, wxh)):
            idx = (yi[:, :, None] * w + xi[:, None, :])[:, None]  # (R, 1, Sy, Sx)
            wt = (wy[:, :, None] * wx[:, None, :]).to(dt)[:, None]
            acc = acc + flat[b, chan[None], idx] * wt
    r, c = acc.shape[:2]
    return acc.reshape(r, c, ph, gh, pw, gw).mean((3, 5))


def _roi_group_fast(data, b, y, x, ph, pw, gh, gw):
    """ROI Align of rois of one image sharing one sampling grid, through grid_sample: 'border' padding clamps
    samples in [-1, 0) and (size-1, size] to the edge, as MXNet does; samples further out are masked to 0."""
    h, w = data.shape[2], data.shape[3]
    dt = data.dtype
    steps_y = (np.arange(ph)[:, None] + (np.arange(gh)[None] + 0.5) / gh).reshape(-1)
    steps_x = (np.arange(pw)[:, None] + (np.arange(gw)[None] + 0.5) / gw).reshape(-1)
    ys = y[0][:, None] + steps_y[None] * y[1][:, None]  # (R, Sy)
    xs = x[0][:, None] + steps_x[None] * x[1][:, None]  # (R, Sx)
    my = ((ys >= -1.0) & (ys <= h)).astype(np.float64)
    mx_ = ((xs >= -1.0) & (xs <= w)).astype(np.float64)
    gy = ys / max(h - 1, 1) * 2 - 1 if h > 1 else np.zeros_like(ys)
    gx = xs / max(w - 1, 1) * 2 - 1 if w > 1 else np.zeros_like(xs)
    r, sy, sx = len(ys), ys.shape[1], xs.shape[1]
    grid = np.stack(np.broadcast_arrays(gx[:, None, :], gy[:, :, None]), -1).reshape(1, r * sy, sx, 2)
    grid = torch.from_numpy(grid).to(device=data.device, dtype=dt)
    out = F.grid_sample(data[b:b + 1], grid, mode='bilinear', padding_mode='border', align_corners=True)
    mask = torch.from_numpy(my[:, :, None] * mx_[:, None, :]).to(device=data.device, dtype=dt)
    out = out.reshape(data.shape[1], r, sy, sx) * mask
    return out.reshape(data.shape[1], r, ph, gh, pw, gw).mean((3, 5)).transpose(0, 1)


def _roi_align(data, rois, pooled_size, spatial_scale, sample_ratio, position_sensitive, aligned):
    op = '_contrib_ROIAlign'
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise _err(op, 'data must be (N, C, H, W) and rois (R, 5), got %s and %s'
                   % (tuple(data.shape), tuple(rois.shape)))
    ph, pw = (tuple(pooled_size) * 2)[:2] if len(pooled_size) == 1 else tuple(pooled_size)
    n, c, h, w = data.shape
    c_out = c // (ph * pw) if position_sensitive else c
    if position_sensitive and c % (ph * pw):
        raise _err(op, 'channels (%d) must be a multiple of pooled_h * pooled_w (%d)' % (c, ph * pw))
    n_roi = rois.shape[0]
    if data.device.type == 'meta':
        return data.new_empty((n_roi, c_out, ph, pw))
    r = rois.detach().cpu().double().numpy()
    off = 0.5 if aligned else 0.0
    x1, y1 = r[:, 1] * spatial_scale - off, r[:, 2] * spatial_scale - off
    rw, rh = r[:, 3] * spatial_scale - off - x1, r[:, 4] * spatial_scale - off - y1
    if not aligned:
        rw, rh = np.maximum(rw, 1.0), np.maximum(rh, 1.0)
    gh = np.full(n_roi, sample_ratio) if sample_ratio > 0 else np.ceil(rh / ph).astype(np.int64)
    gw = np.full(n_roi, sample_ratio) if sample_ratio > 0 else np.ceil(rw / pw).astype(np.int64)
    if position_sensitive:  # output channel o of bin (i, j) reads input channel (o * ph + i) * pw + j
        bins = (np.arange(ph)[:, None] * pw + np.arange(pw)[None])
        chan_of = lambda g_h, g_w: torch.from_numpy(  # noqa: E731
            np.arange(c_out)[:, None, None] * ph * pw + np.repeat(np.repeat(bins, g_h, 0), g_w, 1)[None])
    else:
        chan_of = lambda g_h, g_w: torch.arange(c)[:, None, None]  # noqa: E731
    if aligned and n_roi and (rw.min() <= 0 or rh.min() <= 0):
        raise _err(op, 'roi width and height must be positive with aligned=True')
    out = data.new_zeros((n_roi, c_out, ph, pw))
    bidx = r[:, 0].astype(np.int64)
    keys = (gh * (int(gw.max()) + 1) + gw) * n + bidx if n_roi else np.zeros(0, np.int64)
    for key in np.unique(keys):
        sel = np.nonzero(keys == key)[0]
        g_h, g_w, b = int(gh[sel[0]]), int(gw[sel[0]]), int(bidx[sel[0]])
        for part in np.array_split(sel, max(1, len(sel) // 256)):
            y, x = (y1[part], rh[part] / ph), (x1[part], rw[part] / pw)
            if position_sensitive:
                res = _roi_group(data, bidx[part], y, x, ph, pw, g_h, g_w, chan_of(g_h, g_w).to(data.device))
            else:
                res = _roi_group_fast(data, b, y, x, ph, pw, g_h, g_w)
            out = out.index_put((torch.from_numpy(part).to(data.device),), res)
    return out


defop('_contrib_ROIAlign', ('data', 'rois'),
      [('pooled_size', 'shape', REQUIRED), ('spatial_scale', 'float', REQUIRED), ('sample_ratio', 'int', -1),
       ('position_sensitive', 'bool', False), ('aligned', 'bool', False)], _roi_align,
      doc='ROI Align over rois (R, 5) = [batch_index, x1, y1, x2, y2]: (R, C, pooled_h, pooled_w).')


# ---- RROIAlign -----------------------------------------------------------------------------------------------------
def _rroi_samples(roi, h, w, ph, pw, spatial_scale, sampling_ratio, dt):
    """For one rotated roi [batch, cx, cy, w, h, degrees]: the flat indices (4, S) and weights (4, S) of the
    bilinear corners of its S = ph*gh * pw*gw samples (rows: ph bins of gh, columns: pw bins of gw), and (gh, gw).
    Computed in the data's precision, as MXNet does; samples outside [-1, size] weigh 0."""
    cx, cy, rw, rh = (roi[1:5] * dt(spatial_scale)).astype(dt)
    theta = dt(float(roi[5]) * math.pi / 180.0)
    rw, rh = max(rw, dt(1)), max(rh, dt(1))
    gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh / dt(ph)))
    gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw / dt(pw)))
    bin_h, bin_w = dt(rh / dt(ph)), dt(rw / dt(pw))
    yy = (-rh / dt(2) + (np.arange(ph, dtype=dt)[:, None] * bin_h
                         + (np.arange(gh, dtype=dt)[None] + dt(0.5)) * bin_h / dt(gh))).reshape(-1, 1)
    xx = (-rw / dt(2) + (np.arange(pw, dtype=dt)[:, None] * bin_w
                         + (np.arange(gw, dtype=dt)[None] + dt(0.5)) * bin_w / dt(gw))).reshape(1, -1)
    cos, sin = dt(np.cos(theta)), dt(np.sin(theta))
    x = xx * cos + yy * sin + cx
    y = yy * cos - xx * sin + cy
    outside = (y < -1) | (y > h) | (x < -1) | (x > w)
    yl, yh, ly = _corner_pair(np.maximum(y, 0).astype(dt), h)
    xl, xh, lx = _corner_pair(np.maximum(x, 0).astype(dt), w)
    corners, weights = [], []
    for yi, wy in ((yl, 1 - ly), (yh, ly)):
        for xi, wx in ((xl, 1 - lx), (xh, lx)):
            corners.append((yi * w + xi).reshape(-1))
            weights.append(np.where(outside, dt(0), wy * wx).astype(dt).reshape(-1))
    return np.stack(corners), np.stack(weights), gh, gw


class _ForwardOnly(torch.autograd.Function):
    """``compute(data)`` recorded with a backward that raises: MXNet's RROIAlign has a gradient node that fails
    when run."""

    @staticmethod
    def forward(ctx, data, compute):
        return compute(data)

    @staticmethod
    def backward(ctx, grad):
        raise MXNetError('RROIAlign: Backward is not supported.')


def _rroi_align(data, rois, pooled_size, spatial_scale, sampling_ratio):
    op = '_contrib_RROIAlign'
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 6:
        raise _err(op, 'data must be (N, C, H, W) and rois (R, 6) = [batch_index, cx, cy, w, h, degrees], got %s and %s'
                   % (tuple(data.shape), tuple(rois.shape)))
    if len(pooled_size) != 2 or min(pooled_size) <= 0:
        raise _err(op, 'pooled_size must be two positive sizes (h, w), got %s' % (tuple(pooled_size),))
    ph, pw = pooled_size
    n, c, h, w = data.shape
    if data.device.type == 'meta':
        return data.new_empty((rois.shape[0], c, ph, pw))
    dt = np.float64 if data.dtype is torch.float64 else np.float32
    r = rois.detach().cpu().numpy().astype(dt)
    bad = [int(b) for b in r[:, 0] if not 0 <= int(b) < n]
    if bad:
        raise _err(op, 'roi batch index %d is outside the %d images of data' % (bad[0], n))

    def compute(x):
        flat = x.detach().reshape(n, c, h * w)
        outs = []
        for roi in r:
            idx, wt, gh, gw = _rroi_samples(roi, h, w, ph, pw, spatial_scale, sampling_ratio, dt)
            vals = (flat[int(roi[0])][:, torch.from_numpy(idx).to(x.device)]
                    * torch.from_numpy(wt).to(device=x.device, dtype=x.dtype)).sum(1)
            outs.append(vals.reshape(c, ph, gh, pw, gw).mean((2, 4)))
        return torch.stack(outs) if outs else x.new_zeros((0, c, ph, pw))
    return _ForwardOnly.apply(data, compute) if data.requires_grad and torch.is_grad_enabled() else compute(data)


defop('_contrib_RROIAlign', ('data', 'rois'),
      [('pooled_size', 'shape', REQUIRED), ('spatial_scale', 'float', REQUIRED), ('sampling_ratio', 'int', -1)],
      _rroi_align,
      doc='Rotated ROI Align over rois (R, 6) = [batch_index, center_x, center_y, width, height, degrees]: (R, C, '
          'pooled_h, pooled_w). Forward only, as in MXNet (its backward raises).')


# ---- PSROIPooling ----------------------------------------------------------------------------------------------
def _round_away(v):
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


def _bin_mask(start, size, pooled, limit, dtype, device):
    """(pooled, limit) 0/1 mask of the integer cells each bin covers (floor/ceil bounds clipped to [0, limit))."""
    binsz = size / pooled
    lo = [min(max(math.floor(p * binsz + start), 0), limit) for p in range(pooled)]
    hi = [min(max(math.ceil((p + 1) * binsz + start), 0), limit) for p in range(pooled)]
    cells = torch.arange(limit)
    mask = (cells[None] >= torch.tensor(lo)[:, None]) & (cells[None] < torch.tensor(hi)[:, None])
    return mask.to(dtype=dtype, device=device)


def _psroi_pooling(data, rois, spatial_scale, output_dim, pooled_size, group_size):
    op = '_contrib_PSROIPooling'
    group = group_size or pooled_size
    p = pooled_size
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise _err(op, 'data must be (N, C, H, W) and rois (R, 5), got %s and %s'
                   % (tuple(data.shape), tuple(rois.shape)))
    if data.shape[1] != output_dim * group * group:
        raise _err(op, 'data has %d channels; output_dim * group_size^2 = %d'
                   % (data.shape[1], output_dim * group * group))
    if data.device.type == 'meta':
        return data.new_empty((rois.shape[0], output_dim, p, p))
    h, w = data.shape[2], data.shape[3]
    g_of = [min(max(int(math.floor(i * group / p)), 0), group - 1) for i in range(p)]
    gidx = torch.tensor(g_of, device=data.device)
    chan = (torch.arange(output_dim, device=data.device)[:, None, None] * group + gidx[:, None]) * group + gidx[None]
    outs = []
    for r in rois.detach().cpu().double().tolist():
        x1, y1 = _round_away(r[1]) * spatial_scale, _round_away(r[2]) * spatial_scale
        x2, y2 = (_round_away(r[3]) + 1) * spatial_scale, (_round_away(r[4]) + 1) * spatial_scale
        mh = _bin_mask(y1, max(y2 - y1, 0.1), p, h, data.dtype, data.device)
        mw = _bin_mask(x1, max(x2 - x1, 0.1), p, w, data.dtype, data.device)
        x = data[int(r[0])][chan]  # (output_dim, p, p, H, W): the channel each bin reads
        total = torch.einsum('cpqhw,ph,qw->cpq', x, mh, mw)
        area = mh.sum(1)[:, None] * mw.sum(1)[None]
        outs.append(torch.where(area > 0, total / area.clamp(min=1), torch.zeros_like(total)))
    if not outs:
        return data.new_zeros((0, output_dim, p, p))
    return torch.stack(outs)


defop('_contrib_PSROIPooling', ('data', 'rois'),
      [('spatial_scale', 'float', REQUIRED), ('output_dim', 'int', REQUIRED), ('pooled_size', 'int', REQUIRED),
       ('group_size', 'int', 0)], _psroi_pooling,
      doc='Position-sensitive ROI average pooling (R-FCN): (R, output_dim, pooled_size, pooled_size).')


# ---- Proposal / MultiProposal (Faster R-CNN RPN) ---------------------------------------------------------------
def _rpn_anchors(stride, ratios, scales):
    """py-faster-rcnn anchors around the base box [0, 0, stride-1, stride-1]: every ratio, then every scale."""
    size = float(stride * stride)
    ctr = 0.5 * (stride - 1.0)
    out = []
    for r in ratios:
        for s in scales:
            w = math.floor(math.sqrt(math.floor(size / r)) + 0.5) * s
            h = math.floor(w / s * r + 0.5) * s
            out.append((ctr - 0.5 * (w - 1), ctr - 0.5 * (h - 1), ctr + 0.5 * (w - 1), ctr + 0.5 * (h - 1)))
    return np.array(out, dtype=np.float32)


def _rpn_one(fg, deltas, info, p):
    """Proposals of one image: fg (A, H, W) scores, deltas (4A, H, W), info (height, width, scale)."""
    a_n, h, w = fg.shape
    base = _rpn_anchors(p['feature_stride'], p['ratios'], p['scales'])
    if len(base) != a_n:
        raise _err(p['op'], 'cls_prob has %d anchors per position; ratios x scales gives %d' % (a_n, len(base)))
    sy, sx = np.meshgrid(np.arange(h) * p['feature_stride'], np.arange(w) * p['feature_stride'], indexing='ij')
    shift = np.stack((sx, sy, sx, sy), -1).astype(np.float32)  # (H, W, 4)
    boxes = (shift[:, :, None, :] + base[None, None]).reshape(-1, 4)  # order (H, W, A)
    score = fg.transpose(1, 2, 0).reshape(-1).copy()
    d = deltas.reshape(a_n, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
    im_h, im_w = np.float32(info[0]), np.float32(info[1])
    if p['iou_loss']:
        pred = boxes + d
    else:
        bw, bh = boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1
        cx, cy = boxes[:, 0] + 0.5 * (bw - 1), boxes[:, 1] + 0.5 * (bh - 1)
        pcx, pcy = d[:, 0] * bw + cx, d[:, 1] * bh + cy
        pw, ph = np.exp(d[:, 2]) * bw, np.exp(d[:, 3]) * bh
        pred = np.stack((pcx - 0.5 * (pw - 1), pcy - 0.5 * (ph - 1), pcx + 0.5 * (pw - 1), pcy + 0.5 * (ph - 1)), 1)
    pred = np.stack((pred[:, 0].clip(0, im_w - 1), pred[:, 1].clip(0, im_h - 1), pred[:, 2].clip(0, im_w - 1),
                     pred[:, 3].clip(0, im_h - 1)), 1).astype(np.float32)
    # positions past the real (unpadded) image get score -1
    real_h, real_w = int(info[0] / p['feature_stride']), int(info[1] / p['feature_stride'])
    hh, ww = np.meshgrid(np.arange(h), np.arange(w), indexing='ij')
    pad = np.repeat(((hh >= real_h) | (ww >= real_w)).reshape(-1), a_n)
    score[pad] = -1
    # boxes under the minimum size are widened by min_size / 2 each side and scored -1
    min_size = np.float32(p['rpn_min_size'] * info[2])
    small = (pred[:, 2] - pred[:, 0] + 1 < min_size) | (pred[:, 3] - pred[:, 1] + 1 < min_size)
    pred[small] += np.array([-1, -1, 1, 1], np.float32) * (min_size / 2)
    score[small] = -1
    count = len(score)
    pre = min(p['rpn_pre_nms_top_n'] if p['rpn_pre_nms_top_n'] > 0 else count, count)
    post = min(p['rpn_post_nms_top_n'], pre)
    order = np.argsort(-score, kind='stable')[:pre]
    dets, sc = pred[order], score[order]
    area = (dets[:, 2] - dets[:, 0] + 1) * (dets[:, 3] - dets[:, 1] + 1)
    keep, dead = [], np.zeros(len(dets), dtype=bool)
    for i in range(len(dets)):
        if len(keep) >= post:
            break
        if dead[i]:
            continue
        keep.append(i)
        iw = np.maximum(0, np.minimum(dets[i, 2], dets[i + 1:, 2]) - np.maximum(dets[i, 0], dets[i + 1:, 0]) + 1)
        ih = np.maximum(0, np.minimum(dets[i, 3], dets[i + 1:, 3]) - np.maximum(dets[i, 1], dets[i + 1:, 1]) + 1)
        inter = iw * ih
        dead[i + 1:] |= inter / (area[i] + area[i + 1:] - inter) > p['threshold']
    picks = [keep[i % len(keep)] for i in range(p['rpn_post_nms_top_n'])]  # too few: repeat from the start
    return dets[picks], sc[picks]


def _proposal_impl(op, multi):
    def impl(cls_prob, bbox_pred, im_info, **p):
        n, c2, h, w = cls_prob.shape
        post = p['rpn_post_nms_top_n']
        if not multi and n != 1:
            raise _err(op, 'only one image per call is supported (as in MXNet), got batch %d' % n)
        if tuple(bbox_pred.shape) != (n, 2 * c2, h, w) or tuple(im_info.shape) != (n, 3):
            raise _err(op, 'bbox_pred must be %s and im_info (%d, 3), got %s and %s'
                       % ((n, 2 * c2, h, w), n, tuple(bbox_pred.shape), tuple(im_info.shape)))
        rows = n * post
        if cls_prob.device.type == 'meta':
            rois = cls_prob.new_empty((rows, 5))
            return (rois, cls_prob.new_empty((rows, 1))) if p['output_score'] else rois
        fg = cls_prob.detach().float().cpu().numpy()[:, c2 // 2:]
        deltas = bbox_pred.detach().float().cpu().numpy()
        info = im_info.detach().float().cpu().numpy()
        boxes, scores = [], []
        for b in range(n):
            bx, sc = _rpn_one(fg[b], deltas[b], info[b], dict(p, op=op))
            boxes.append(np.concatenate((np.full((post, 1), b, np.float32), bx), 1))
            scores.append(sc[:, None])
        rois = torch.from_numpy(np.concatenate(boxes)).to(cls_prob.dtype).to(cls_prob.device)
        if p['output_score']:
            return rois, torch.from_numpy(np.concatenate(scores)).to(cls_prob.dtype).to(cls_prob.device)
        return rois
    return impl


_PROPOSAL = [('rpn_pre_nms_top_n', 'int', 6000), ('rpn_post_nms_top_n', 'int', 300), ('threshold', 'float', 0.7),
             ('rpn_min_size', 'int', 16), ('scales', 'floats', (4.0, 8.0, 16.0, 32.0)),
             ('ratios', 'floats', (0.5, 1.0, 2.0)), ('feature_stride', 'int', 16), ('output_score', 'bool', False),
             ('iou_loss', 'bool', False)]
for _name, _multi in (('_contrib_Proposal', False), ('_contrib_MultiProposal', True)):
    defop(_name, ('cls_prob', 'bbox_pred', 'im_info'), _PROPOSAL, zero_grad(_proposal_impl(_name, _multi)),
          num_outputs=lambda a: 2 if a['output_score'] else 1,
          doc='Region proposals (rows [batch_index, x1, y1, x2, y2], rpn_post_nms_top_n per image, repeating '
              'when NMS keeps fewer) from RPN scores and box deltas%s.'
          % ('' if _multi else '; one image per call, as in MXNet'))


# ---- DeformablePSROIPooling ------------------------------------------------------------------------------------
def _deformable_psroi(data, rois, trans=None, *, spatial_scale, output_dim, group_size, pooled_size, part_size,
                      sample_per_part, trans_std, no_trans):
    op = '_contrib_DeformablePSROIPooling'
    p, g, spp = pooled_size, group_size, sample_per_part
    part = part_size or p
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise _err(op, 'data must be (N, C, H, W) and rois (R, 5), got %s and %s'
                   % (tuple(data.shape), tuple(rois.shape)))
    if not no_trans and (trans is None or trans.dim() != 4):
        raise _err(op, 'trans must be a 4D array (R, 2 * classes, part, part) unless no_trans is set')
    if data.device.type == 'meta':
        return data.new_empty((rois.shape[0], output_dim, p, p))
    n_cls = 1 if no_trans else trans.shape[1] // 2
    per_cls = output_dim if no_trans else output_dim // n_cls
    h, w = data.shape[2], data.shape[3]
    dt, dev = data.dtype, data.device
    ar = torch.arange(p, dtype=dt, device=dev)
    ctop = torch.arange(output_dim, device=dev)
    gidx = torch.clamp(torch.floor(torch.arange(p, dtype=torch.float64) * g / p).long(), 0, g - 1).to(dev)
    chan = (ctop[:, None, None] * g + gidx[:, None]) * g + gidx[None]  # (D, P, P)
    parts = torch.floor(torch.arange(p, dtype=torch.float64) / p * part).long().to(dev)
    sub = (torch.arange(spp, dtype=dt, device=dev))
    outs = []
    for i, r in enumerate(rois.detach().cpu().double().tolist()):
        x1 = _round_away(r[1]) * spatial_scale - 0.5
        y1 = _round_away(r[2]) * spatial_scale - 0.5
        rw = max((_round_away(r[3]) + 1) * spatial_scale - 0.5 - x1, 0.1)
        rh = max((_round_away(r[4]) + 1) * spatial_scale - 0.5 - y1, 0.1)
        bw, bh = rw / p, rh / p
        if no_trans:
            tx = ty = torch.zeros((output_dim, p, p), dtype=dt, device=dev)
        else:
            t = trans[i].reshape(n_cls, 2, part, part)[ctop // per_cls]  # (D, 2, part, part)
            t = t[:, :, parts][:, :, :, parts] * trans_std  # (D, 2, P, P)
            tx, ty = t[:, 0], t[:, 1]
        # sample positions (D, P, P, spp, spp): rows vary with ph/ih, columns with pw/iw
        xs = (ar[None, None, :, None, None] * bw + x1 + tx[..., None, None] * rw +
              sub[None, None, None, None, :] * (bw / spp))
        ys = (ar[None, :, None, None, None] * bh + y1 + ty[..., None, None] * rh +
              sub[None, None, None, :, None] * (bh / spp))
        xs, ys = torch.broadcast_tensors(xs, ys)
        ok = (xs >= -0.5) & (xs <= w - 0.5) & (ys >= -0.5) & (ys <= h - 0.5)
        xs, ys = xs.clamp(0, w - 1), ys.clamp(0, h - 1)
        xf, yf = xs.detach().floor(), ys.detach().floor()
        x0, x1i, y0, y1i = xf.long(), xs.detach().ceil().long(), yf.long(), ys.detach().ceil().long()
        dx, dy = xs - xf, ys - yf
        img = data[int(r[0])].reshape(data.shape[1], h * w)
        cidx = chan[..., None, None].expand(xs.shape)

        def at(yy, xx):
            return img[cidx, yy * w + xx]
        val = ((1 - dx) * (1 - dy) * at(y0, x0) + (1 - dx) * dy * at(y1i, x0) + dx * (1 - dy) * at(y0, x1i) +
               dx * dy * at(y1i, x1i))
        val = val * ok.to(dt)
        cnt = ok.to(dt).sum((-1, -2))
        outs.append(torch.where(cnt > 0, val.sum((-1, -2)) / cnt.clamp(min=1), torch.zeros_like(cnt)))
    if not outs:
        return data.new_zeros((0, output_dim, p, p))
    return torch.stack(outs)


defop('_contrib_DeformablePSROIPooling', ('data', 'rois', 'trans'),
      [('spatial_scale', 'float', REQUIRED), ('output_dim', 'int', REQUIRED), ('group_size', 'int', REQUIRED),
       ('pooled_size', 'int', REQUIRED), ('part_size', 'int', 0), ('sample_per_part', 'int', 1),
       ('trans_std', 'float', 0.0), ('no_trans', 'bool', False)], _deformable_psroi, optional=('trans',),
      input_names=lambda a: ['data', 'rois'] + ([] if a['no_trans'] else ['trans']),
      doc='Deformable position-sensitive ROI pooling: bins shifted by trans * trans_std * roi size, averaged over '
          'sample_per_part^2 bilinear samples.')
