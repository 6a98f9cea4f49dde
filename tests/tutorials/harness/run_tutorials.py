"""MXNet 1.9.1's own Python tutorials (docs/python_docs/python/tutorials) under real MXNet and under mxcompat.

Not part of the pytest run (no file here is named test_*). Each tutorial's code cells (```` ```{.python .input} ````
and ```` ```python ```` blocks, both executed when MXNet's docs were built) become one script, run under the oracle
and under ``python -m mxcompat``; the outputs are compared with the D2L harness' logic (tests/d2l/harness/run_d2l.py:
running, comparison, first error, report; convert.py: cells, magics, a cell's last expression displayed), with its
stubs (plotting is a no-op; downloads are served from WORK/data/small/hub by the requests stand-in) and prelude.

    python tests/tutorials/harness/run_tutorials.py all --work /tmp/tut --jobs 1
    python tests/tutorials/harness/run_tutorials.py run --impl mxcompat --work /tmp/tut --only 'packages__gluon__*'
    python tests/tutorials/harness/run_tutorials.py report --work /tmp/tut

Data: make_data_tut.py (small synthetic MNIST/FashionMNIST/CIFAR-10, pictures, ImageNet label files, model-zoo
weights made by the oracle). Tutorials that need what this machine lacks are not run; they are listed in the report
as skipped with the reason (SKIP).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
D2L = os.path.join(HERE, '..', '..', 'd2l', 'harness')
sys.path.insert(0, HERE)
sys.path.insert(0, D2L)

import convert  # noqa: E402
import run_d2l  # noqa: E402

ROOT = 'docs/python_docs/python/tutorials/'
SKIP = {
    'deploy/export/onnx.md': 'ONNX export: needs the onnx package',
    'deploy/inference/image_classification_jetson.md': 'NVIDIA Jetson board and GPU',
    'deploy/inference/wine_detector.md': 'Raspberry Pi camera; Python 2 code',
    'deploy/run-on-aws/cloud.md': 'AWS (no code cells)',
    'getting-started/crash-course/6-use_gpus.md': 'GPUs (gpu(0), gpu(1))',
    'getting-started/gluon_from_experiment_to_deployment.md': 'downloads the Oxford 102 Flowers set with a script '
                                                              'of its own (network)',
    'packages/onnx/fine_tuning_gluon.md': 'ONNX model zoo files and the onnx package',
    'packages/onnx/inference_on_onnx_model.md': 'ONNX model zoo files and the onnx package',
    'packages/onnx/super_resolution.md': 'an ONNX model file and the onnx package',
    'getting-started/to-mxnet/pytorch.md': 'its PyTorch cells need torch and torchvision (the oracle has neither)',
    'performance/backend/amp.md': 'GPU (AMP on mx.gpu(0)) and gluoncv',
    'performance/backend/tensorrt/tensorrt.md': 'TensorRT and a GPU',
    'performance/backend/mkldnn/mkldnn_quantization.md': 'the ImageNet validation RecordIO file (val_256_q90.rec) '
                                                         'and MKL-DNN quantization',
}
# harness lines run before a tutorial's cells: what its reader is told to fetch by hand, or another tutorial made
SETUP = {
    'getting-started/crash-course/5-predict.md':
        "shutil.copyfile('../../getting-started__crash-course__4-train/work/net.params', 'net.params')",
    'packages/gluon/loss/custom-loss.md':
        "tarfile.open(os.path.join(os.environ['D2L_HARNESS_HUB'], 'images_background.tar.gz')).extractall('.')",
}
# tutorials whose code runs longer than --timeout on two CPU cores, whatever the data size (their loops count
# iterations, not epochs): seconds
TIMEOUT_RULES = [('packages__gluon__training__learning_rates__learning_rate_finder', 1500),
                 ('packages__ndarray__sparse__train_gluon', 1500)]
PY_FENCE = re.compile(r'^```python\s*$', re.M)
MAGIC = re.compile(r'^%%?[A-Za-z]')
FUTURE = re.compile(r'^from __future__ import .*$', re.M)


def _join_percent_lines(markdown):
    """A line that starts with '%' but is no magic (the '% (a, b)' continuation of a string format) is joined to
    the line before it, so that convert.clean, which drops '%' lines, keeps it."""
    out = []
    for line in markdown.split('\n'):
        s = line.strip()
        if s.startswith('%') and not MAGIC.match(s) and out:
            out[-1] = out[-1].rstrip() + ' ' + s
        else:
            out.append(line)
    return '\n'.join(out)


def script_of(markdown, rel=None):
    """The tutorial's script (convert.convert_section after ```python fences are made .input cells), or None.
    ``from __future__`` imports move to the top, where Python requires them."""
    script = convert.convert_section(_join_percent_lines(PY_FENCE.sub('```{.python .input}', markdown)))
    if script is None:
        return None
    future = FUTURE.findall(script)
    setup = ('import os as __h_os, shutil as __h_shutil, tarfile as __h_tarfile  # harness setup\n'
             '(lambda os, shutil, tarfile: %s)(__h_os, __h_shutil, __h_tarfile)\n' % SETUP[rel]) if rel in SETUP else ''
    return ''.join(line + '\n' for line in dict.fromkeys(future)) + setup + FUTURE.sub('', script)


def name_of(path):
    return path[len(ROOT):-3].replace('/', '__')


def write_scripts(work, pages, what):
    """Write WORK/scripts/NAME.py for each (name, script or None, reason) of ``pages`` (a page without a script is
    listed in WORK/skipped.txt with its reason; an earlier run's script of it is removed)."""
    scripts = os.path.join(work, 'scripts')
    os.makedirs(scripts, exist_ok=True)
    skipped, n = {}, 0
    for name, script, reason in pages:
        target = os.path.join(scripts, name + '.py')
        if os.path.exists(target):
            os.remove(target)
        if script is None:
            skipped[name] = reason
            continue
        with open(target, 'w', encoding='utf-8') as f:
            f.write(script)
        n += 1
    with open(os.path.join(work, 'skipped.txt'), 'w') as f:
        f.writelines('%s\t%s\n' % kv for kv in sorted(skipped.items()))
    print('%d %s scripts in %s, %d skipped' % (n, what, scripts, len(skipped)))


def _pages(src):
    for path in src.list():
        if path.startswith(ROOT) and path.endswith('.md'):
            rel = path[len(ROOT):]
            script = None if rel in SKIP else script_of(src.read(path), rel)
            yield name_of(path), script, SKIP.get(rel, 'no Python code cells')


def prepare(args):
    write_scripts(args.work, _pages(convert.Source(args.source)), 'tutorial')
    import make_data_tut
    make_data_tut.write(os.path.join(args.work, 'data', 'small'))


def report(args):
    run_d2l.report(args)
    path = os.path.join(args.work, 'skipped.txt')
    rows = [line.rstrip('\n').split('\t') for line in open(path)] if os.path.exists(path) else []
    text = '\n## skipped (%d)\n' % len(rows) + ''.join('- %s: %s\n' % (n, why) for n, why in rows)
    with open(os.path.join(args.work, 'report.md'), 'a') as f:
        f.write(text)
    print(text)


def main(argv=None):
    p = run_d2l.arguments(__doc__, '/tmp/tut', 'tutorial name globs (e.g. packages__gluon__*)',
                          'an MXNet checkout directory or GITDIR@REV', source='/work/.mirror/apache+mxnet/repo@1.9.1')
    args = p.parse_args(argv)
    # what run_d2l's run/report read: a release whose chapter order does not matter here, no d2l package, no deps
    args.release, args.oracle_deps, args.mxcompat_deps = 'v1.0.3', '', ''
    run_d2l.TIMEOUT_RULES = TIMEOUT_RULES  # read by run_d2l.timeout_of
    if args.command in ('prepare', 'all'):
        prepare(args)
    if args.command in ('run', 'all'):
        run_d2l.run(args)
    if args.command in ('report', 'all', 'run'):
        report(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
