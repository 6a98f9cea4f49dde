"""The Straight Dope (zackchase/mxnet-the-straight-dope: the MXNet/Gluon book of 2017-2018) under real MXNet 1.9.1
and under mxcompat.

Not part of the pytest run (no file here is named test_*). Each notebook's code cells become one script (a cell's
last expression is displayed, magics dropped, ``!cmd`` lines run through the prelude's shell(): the D2L harness'
convert.py), run under the oracle and under ``python -m mxcompat`` and compared with the D2L harness' run/compare/
report (tests/d2l/harness/run_d2l.py) and the tutorials harness' normalization of NumPy 2 scalars and module names.

    python tests/straight_dope/harness/run_straight_dope.py all --work /tmp/sd --jobs 1
    python tests/straight_dope/harness/run_straight_dope.py run --impl mxcompat --work /tmp/sd --only 'chapter04*'
    python tests/straight_dope/harness/run_straight_dope.py report --work /tmp/sd

Data: small synthetic MNIST/FashionMNIST/CIFAR-10 (tests/tutorials/harness/make_data_tut.py) in WORK/data/small;
the book's own data/ folder (its notebooks read ../data/...) is copied from the repository with the large text
files cut (epochs are capped only through data size). Notebooks that need what this machine lacks are listed in the
report as skipped with the reason.
"""
import json
import os
import re
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(TESTS, 'tutorials', 'harness'))
sys.path.insert(0, os.path.join(TESTS, 'd2l', 'harness'))

import convert  # noqa: E402
import run_d2l  # noqa: E402
import run_tutorials  # noqa: E402

SKIP = {
    'chapter04_convolutional-neural-networks/cnn-batch-norm-scratch.ipynb': 'GPU (ctx = mx.gpu())',
    'chapter04_convolutional-neural-networks/very-deep-nets-vgg.ipynb': 'GPU (ctx = mx.gpu())',
    'chapter05_recurrent-neural-networks/gru-scratch.ipynb': 'GPU (ctx = mx.gpu(0))',
    'chapter05_recurrent-neural-networks/lstm-scratch.ipynb': 'GPU (ctx = mx.gpu(0))',
    'chapter05_recurrent-neural-networks/simple-rnn.ipynb': 'GPU (ctx = mx.gpu(0))',
    'chapter05_recurrent-neural-networks/rnns-gluon.ipynb': 'GPU (context = mx.gpu()); the PTB training file, which '
                                                            'the mirror snapshot lacks',
    'chapter07_distributed-learning/multiple-gpus-gluon.ipynb': 'GPUs (gpu(0), gpu(1))',
    'chapter07_distributed-learning/multiple-gpus-scratch.ipynb': 'GPUs (gpu(0), gpu(1))',
    'chapter07_distributed-learning/training-with-multiple-machines.ipynb': 'several machines and GPUs',
    'chapter08_computer-vision/fine-tuning.ipynb': 'downloads the hotdog data set and model (network); skimage',
    'chapter08_computer-vision/object-detection.ipynb': 'downloads the pikachu RecordIO set and weights (network)',
    'chapter08_computer-vision/visual-question-answer.ipynb': 'downloads the VQA features and texts (network)',
    'chapter09_natural-language-processing/tree-lstm.ipynb': 'downloads SICK and GloVe (network)',
    'chapter11_recommender-systems/intro-recommender-systems.ipynb': 'reads Amazon reviews from snap.stanford.edu '
                                                                     'with urllib (network)',
    'chapter11_recommender-systems/introduction-to-recommender-systems.ipynb': 'reads Amazon reviews from '
                                                                               'snap.stanford.edu (network)',
    'chapter13_unsupervised-learning/vae-gluon.ipynb': 'tqdm (absent on the mxcompat side)',
    'chapter14_generative-adversarial-networks/conditional.ipynb': 'GPU (use_gpu = True)',
    'chapter14_generative-adversarial-networks/dcgan.ipynb': 'GPU (use_gpu = True); matplotlib.image',
    'chapter14_generative-adversarial-networks/pixel2pixel.ipynb': 'downloads the pix2pix facades set (network)',
    'chapter17_deep-reinforcement-learning/DDQN.ipynb': 'gym (absent)',
    'chapter17_deep-reinforcement-learning/DQN.ipynb': 'gym (absent)',
    'chapter18_variational-methods-and-uncertainty/bayes-by-backprop-rnn.ipynb': 'GPU (context = mx.gpu(0)); the PTB '
                                                                                 'training file (absent)',
    'chapter19_graph-neural-networks/Graph-Neural-Networks.ipynb': 'deepchem and sklearn (absent)',
}
# the book's data files, cut to this many bytes (whole lines) so that a notebook's epochs stay short
DATA_CUT = {'nlp/timemachine.txt': 60000, 'nlp/tinyshakespeare.txt': 20000, 'nlp/ptb.train.txt': 30000,
            'nlp/ptb.valid.txt': 10000, 'nlp/ptb.test.txt': 10000, 'adult/a1a.train': 200000}
# harness line run first: the notebooks read ../data/... (beside their folder in the book's repository)
SETUP = ("import os as __h_os  # harness setup: the book's data folder at ../data\n"
         "__h_os.path.exists('../data') or __h_os.symlink(__h_os.path.join(__h_os.path.dirname("
         "__h_os.environ['D2L_HARNESS_HUB']), 'sd_data'), '../data')\n")


# timing lines the book prints without a unit ('time: 2.640801' per GAN epoch): skipped like run_d2l's 'sec' lines
run_d2l.TIMING = re.compile(run_d2l.TIMING.pattern + r'|^time: ')


def name_of(path):
    return path[:-len('.ipynb')].replace('/', '__')


def script_of(notebook):
    """One notebook's script: its code cells (convert.py's cleaning and display), or None without code."""
    parts = []
    for i, cell in enumerate(json.loads(notebook)['cells']):
        if cell['cell_type'] != 'code':
            continue
        src = cell['source']
        lines = run_tutorials._join_percent_lines(''.join(src) if isinstance(src, list) else src).split('\n')
        body = '\n'.join(convert.clean(lines)).strip('\n')
        if body.strip():
            parts.append('# ---- cell %d ----\n%s\n' % (i, convert.add_display(body)))
    if not parts:
        return None
    script = convert.PRELUDE + '\n'.join(parts)
    future = run_tutorials.FUTURE.findall(script)
    return ''.join(line + '\n' for line in dict.fromkeys(future)) + SETUP + run_tutorials.FUTURE.sub('', script)


def book_data(src, dest):
    """The book's data/ folder, large files cut at a line end."""
    for path in src.list():
        if not path.startswith('data/'):
            continue
        rel = path[len('data/'):]
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            data = src.read_bytes(path)
        except subprocess.CalledProcessError:  # a file the snapshot lacks (the mirror leaves its largest out)
            print('book data: %s is absent' % path)
            continue
        if rel in DATA_CUT and len(data) > DATA_CUT[rel]:
            data = data[:data.rindex(b'\n', 0, DATA_CUT[rel]) + 1]
        with open(target, 'wb') as f:
            f.write(data)


def _pages(src):
    for path in src.list():
        if path.endswith('.ipynb'):
            script = None if path in SKIP else script_of(src.read(path))
            yield name_of(path), script, SKIP.get(path, 'no code cells')


def prepare(args):
    src = convert.Source(args.source)
    run_tutorials.write_scripts(args.work, _pages(src), 'notebook')
    base = os.path.join(args.work, 'data', 'small')
    book_data(src, os.path.join(base, 'sd_data'))
    import make_data_tut
    make_data_tut.write(base, models=False)
    cifar_archive(os.path.join(base, 'mxnet_home', 'datasets', 'cifar10'), os.path.join(base, 'hub'))


def cifar_archive(folder, hub):
    """hub/cifar-10-binary.tar.gz: the synthetic CIFAR-10 batches as MXNet's Gluon repository packs them (flat),
    for CIFAR10(root) with a root of the notebook's own (it downloads the archive there)."""
    with tarfile.open(os.path.join(hub, 'cifar-10-binary.tar.gz'), 'w:gz') as tar:
        for name in sorted(os.listdir(folder)):
            tar.add(os.path.join(folder, name), arcname=name)


def main(argv=None):
    p = run_d2l.arguments(__doc__, '/tmp/sd', 'notebook name globs (e.g. chapter04*)',
                          "the book's checkout directory or GITDIR@REV",
                          source='/work/.mirror/zackchase+mxnet-the-straight-dope/repo@HEAD', timeout=240)
    p.add_argument('--oracle-deps', default='', help='a folder of extra packages for the oracle (pandas)')
    p.add_argument('--mxcompat-deps', default='', help='a folder of extra packages for mxcompat (pandas)')
    args = p.parse_args(argv)
    args.release = 'v1.0.3'  # run_d2l's chapter order: none of the book's folders is in it, names sort
    if args.command in ('prepare', 'all'):
        prepare(args)
    if args.command in ('run', 'all'):
        run_d2l.run(args)
    if args.command in ('report', 'all', 'run'):
        run_tutorials.report(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
