"""``python -m mxcompat convert model-symbol.json model-0000.params -o model.pt``: MXNet model files to a standalone
PyTorch module (mxcompat only).

Writes ``torch.save`` of :func:`mxcompat.to_torch`'s module (load it with ``torch.load(path, weights_only=False)``;
mxcompat is not needed there), or with ``--export`` a ``torch.export`` program (``torch.export.save``), or with
``--onnx`` an ONNX file (needs the ``onnx`` and ``onnxscript`` packages). Input shapes come from ``--shape
data=1,3,224,224`` (repeatable), else from the symbol's ``__shape__`` attributes; the module accepts those shapes,
or any batch size with ``--dynamic-batch``.
"""
import argparse
import importlib.util
import sys

import torch

from ..base import MXNetError, MXNetValueError, parse_tuple
from .. import symbol as _sym
from ..ndarray import load as _nd_load
from ..interop import to_torch

__all__ = ['load_model', 'convert', 'export_onnx', 'main']


def load_model(symbol_file, param_file=None):
    """(Symbol, arg_params, aux_params) from MXNet's files (``arg:``/``aux:`` keys, or bare names)."""
    sym = _sym.load(symbol_file)
    arg_params, aux_params = {}, {}
    if param_file is not None:
        loaded = _nd_load(param_file)
        if not isinstance(loaded, dict):
            raise MXNetValueError('convert: %s holds a list of arrays, not named parameters' % param_file)
        auxs = set(sym.list_auxiliary_states())
        for key, arr in loaded.items():
            kind, _, name = key.partition(':')
            if not name:
                kind, name = ('aux' if key in auxs else 'arg'), key
            (aux_params if kind == 'aux' else arg_params)[name] = arr
    return sym, arg_params, aux_params


def _parse_shapes(items):
    shapes = {}
    for item in items or ():
        name, eq, shape = item.partition('=')
        if not eq:
            raise MXNetValueError("convert: --shape takes NAME=D1,D2,..., got %r" % item)
        shapes[name.strip()] = parse_tuple('(%s,)' % shape.strip().strip('()').rstrip(','))
    return shapes


def convert(symbol_file, param_file=None, shapes=None, data_names=None, dynamic_batch=False):
    """The standalone ``torch.fx.GraphModule`` of the model in these files, and its example inputs."""
    sym, arg_params, aux_params = load_model(symbol_file, param_file)
    examples = {n: torch.zeros(s) for n, s in (shapes or {}).items()}
    if data_names is None:  # every argument the parameter file does not hold
        data_names = [n for n in sym.list_arguments() if n not in arg_params]
    module = to_torch(sym, examples, data_names=data_names, arg_params=arg_params, aux_params=aux_params,
                      dynamic_batch=dynamic_batch)
    return module, tuple(torch.zeros(shape) for shape in module.mxnet_input_shapes)


def _require(*packages):
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        raise MXNetError('ONNX export needs the %s package%s (pip install %s)'
                         % (' and '.join(missing), 's' if len(missing) > 1 else '', ' '.join(missing)))


def export_onnx(module, example_inputs, path, dynamic_shapes=None):
    """``torch.onnx.export`` of ``module`` (needs ``onnx`` and ``onnxscript``; raises naming a missing one)."""
    _require('onnx', 'onnxscript')
    torch.onnx.export(module, tuple(example_inputs), path, input_names=list(module.mxnet_inputs),
                      output_names=list(module.mxnet_outputs), dynamic_shapes=dynamic_shapes)


def main(argv):
    ap = argparse.ArgumentParser(prog='python -m mxcompat convert',
                                 description='Convert MXNet model files to a standalone PyTorch module.')
    ap.add_argument('symbol', help='model-symbol.json')
    ap.add_argument('params', nargs='?', help='model-0000.params')
    ap.add_argument('-o', '--output', required=True, help='the file to write')
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument('--onnx', action='store_true', help='write ONNX (needs onnx and onnxscript)')
    fmt.add_argument('--export', action='store_true', help='write a torch.export program (torch.export.save)')
    ap.add_argument('--shape', action='append', metavar='NAME=D1,D2,...', help='an input shape (repeatable)')
    ap.add_argument('--inputs', help='comma-separated input names (default: arguments without a saved value)')
    ap.add_argument('--dynamic-batch', action='store_true', help='accept any batch size (first axis)')
    ap.add_argument('--train', action='store_true', help='save in training mode (default: eval)')
    args = ap.parse_args(argv)
    try:
        if args.onnx:
            _require('onnx', 'onnxscript')
        names = [n.strip() for n in args.inputs.split(',')] if args.inputs else None
        module, examples = convert(args.symbol, args.params, _parse_shapes(args.shape), names, args.dynamic_batch)
        module.train(args.train)
        dims = None
        if args.dynamic_batch:
            batch = torch.export.Dim('batch')
            dims = tuple({0: batch} for _ in examples)
        if args.onnx:
            export_onnx(module, examples, args.output, dims)
        elif args.export:
            torch.export.save(torch.export.export(module, examples, dynamic_shapes=dims), args.output)
        else:
            torch.save(module, args.output)
    except MXNetError as e:
        print('mxcompat convert: %s' % e, file=sys.stderr)
        return 1
    print('wrote %s: inputs %s, outputs %s, %d parameters'
          % (args.output, ', '.join('%s%s' % (n, tuple(x.shape)) for n, x in zip(module.mxnet_inputs, examples)),
             ', '.join(module.mxnet_outputs), sum(p.numel() for p in module.parameters())))
    return 0
