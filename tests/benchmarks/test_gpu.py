"""benchmarks/gpu.py's steps build and run on the CPU (its ``DEVICE`` switched), so a GPU run does not fail on them."""
import os

import pytest
import torch

import mxcompat as mx
from benchmarks import gpu


@pytest.mark.parametrize('model', ['mlp', 'lstm'])
def test_the_steps_run_on_the_cpu(model, monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    before = os.environ.get('MXNET_ENABLE_CUDA_GRAPHS')
    for hybridize, graphs in ((False, False), (True, False), (True, True)):
        step = gpu._gluon_step(mx, model, hybridize, graphs=graphs)
        step()
    assert os.environ.get('MXNET_ENABLE_CUDA_GRAPHS') == before  # (set for hybridize only)
    gpu._torch_step(torch, model)()


def test_the_batch_1_prediction_runs_on_the_cpu(monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    made, net_on = [], gpu._gluon_net_on

    def record(*args, **kwargs):
        made.append(kwargs)
        return net_on(*args, **kwargs)
    monkeypatch.setattr(gpu, '_gluon_net_on', record)
    for graphs in (False, True):
        assert gpu._gluon_infer(mx, graphs=graphs)().shape == (1, 1000)
    assert made == [{'hybridize': True, 'graphs': False}, {'hybridize': True, 'graphs': True}]


def test_the_amp_steps_run_on_the_cpu(tmp_path):
    # (amp.init changes the operators for the whole process: a subprocess, as benchmarks.gpu times them)
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ('import torch, mxcompat as mx\nfrom benchmarks import gpu\ngpu.DEVICE = "cpu"\n'
            'gpu._gluon_amp_step(mx, "mlp")()\ngpu._torch_amp_step(torch, "mlp")()\nprint("ok")')
    r = subprocess.run([sys.executable, '-c', code], cwd=root, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0 and r.stdout.strip().endswith('ok'), r.stderr[-2000:]


def test_the_adam_steps_run_on_the_cpu(monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    gpu._gluon_step(mx, 'mlp', True, adam=True)()
    gpu._torch_step(torch, 'mlp', adam=True)()


def test_the_transformer_and_module_fit_rows_run_on_the_cpu(monkeypatch):
    monkeypatch.setattr(gpu, 'DEVICE', 'cpu')
    monkeypatch.setattr(gpu, 'SIZES', {'transformer': 'tiny'})
    for hybridize in (False, True):
        gpu._gluon_step(mx, 'transformer', hybridize)()
    gpu._torch_step(torch, 'transformer')()
    gpu._module_fit(mx)()
    assert 0 <= gpu._torch_fit(torch)() <= 1


def test_the_transformer_twin_has_the_same_parameters():
    from benchmarks import workloads_gluon as wg
    net = wg.gluon_net(mx, 'transformer', 'small')
    net.initialize()
    x, _ = wg.data('transformer', 'small')
    net(mx.nd.array(x))
    ours = sorted(p.data().size for p in net.collect_params().values())
    twin = sorted(p.numel() for p in wg.torch_net(torch, 'transformer', 'small').parameters())
    assert sum(ours) == sum(twin) and len(ours) == len(twin)


def test_targets_are_the_issues():
    assert gpu.target('resnet50 hybridized static step') == 1.0
    assert gpu.target('resnet50 AMP float16 step, hybridized static (torch: autocast + GradScaler)') == 1.0
    assert gpu.target('resnet50 batch-1 inference, hybridized static + CUDA graphs') == 0.5
    assert gpu.target('mlp hybridized static + CUDA graphs step') == 0.3
    assert gpu.target('lstm hybridized static + CUDA graphs step') == 0.3
    assert gpu.target('resnet18 hybridized static + CUDA graphs step') == 1.05
    assert gpu.target('a + b (8x8)') == 1.05


def test_gpu_rows_read_as_the_cpu_runs_json():
    from benchmarks import runner
    rows = {'device': 'GPU', 'torch': '2', 'rows': [
        {'name': 'mlp imperative step', 'mxcompat_ms': 1.2, 'torch_ms': 1.0, 'ratio': 1.2, 'target': 1.05},
        {'name': 'a + b (8x8)', 'mxcompat_us': 9.0, 'torch_us': 9.0, 'ratio': 1.0, 'target': 1.05},
        {'name': 'lenet imperative step', 'error': 'RuntimeError: boom'}]}
    doc = gpu.to_benchmark_json(rows)
    assert doc['errors'] == [{'group': 'gpu:lenet imperative step', 'side': 'mxcompat', 'error': 'RuntimeError: boom'}]
    worse = gpu.to_benchmark_json(dict(rows, rows=[dict(rows['rows'][0], mxcompat_ms=1.5, ratio=1.5),
                                                   rows['rows'][1]]))
    flagged = [(g, bad) for g, _, _, _, bad in runner.compare(worse, doc)]
    assert flagged == [('gpu:mlp imperative step', True), ('gpu:a + b (8x8)', False)]


def test_device_cuda_without_a_gpu_says_so():
    import subprocess
    import sys
    if torch.cuda.is_available():
        pytest.skip('a GPU is present')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, '-m', 'benchmarks', '--device', 'cuda'], cwd=root, capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 2 and 'no CUDA device' in r.stdout
