"""`import mxnet` resolves to mxcompat's very modules; `python -m mxcompat script.py args` runs unchanged scripts."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, cwd=None, env_extra=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    env.update(env_extra or {})
    return subprocess.run([sys.executable] + args, cwd=cwd or ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_script_sees_mxnet_modules_identical_to_mxcompat(tmp_path):
    script = tmp_path / 'legacy.py'
    script.write_text(textwrap.dedent('''
        import sys
        import mxnet as mx
        import mxnet.ndarray
        from mxnet import nd, autograd
        import mxcompat
        assert mx is mxcompat and mx.nd is mxcompat.nd and nd is mxcompat.ndarray
        assert mxnet.ndarray is mxcompat.ndarray and autograd is mxcompat.autograd
        assert sys.modules['mxnet.ndarray'] is mxcompat.ndarray
        print('argv', sys.argv[1:], __name__)
        print((mx.nd.ones((2,)) * 3).asnumpy().tolist())
    '''))
    r = run(['-m', 'mxcompat', str(script), '--epochs', '3'])
    assert r.returncode == 0, r.stderr
    assert "argv ['--epochs', '3'] __main__" in r.stdout and '[3.0, 3.0]' in r.stdout


def test_scripts_print_mxnets_class_paths(tmp_path):
    # what MXNet 1.9.1 prints for the same lines (D2L prints type(x) and type(param)); a pickle round trip still
    # finds the class
    script = tmp_path / 'types.py'
    script.write_text(textwrap.dedent('''
        import pickle
        from mxnet import np, npx, nd
        from mxnet.gluon import nn
        npx.set_np()
        net = nn.Dense(2)
        net.initialize()
        net(np.ones((1, 3)))
        print(type(np.arange(3)), type(nd.ones((1,))))
        print(type(net.bias), type(net))
        print(type(pickle.loads(pickle.dumps(np.arange(3)))))
    '''))
    r = run(['-m', 'mxcompat', str(script)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "<class 'mxnet.numpy.ndarray'> <class 'mxnet.ndarray.ndarray.NDArray'>",
        "<class 'mxnet.gluon.parameter.Parameter'> <class 'mxnet.gluon.nn.basic_layers.Dense'>",
        "<class 'mxnet.numpy.ndarray'>"]


def test_missing_script_and_usage():
    r = run(['-m', 'mxcompat', 'no_such_script.py'])
    assert r.returncode == 2 and 'no such file' in r.stderr
    r = run(['-m', 'mxcompat'])
    assert r.returncode == 2 and 'usage' in r.stdout


def test_dash_c():
    r = run(['-m', 'mxcompat', '-c', 'import mxnet as mx; print(mx.nd.arange(3).sum().asscalar())'])
    assert r.returncode == 0 and r.stdout.strip() == '3.0', r.stderr


def test_dash_m_runs_a_module_with_the_alias(tmp_path):
    # `python -m mxcompat -m pytest` runs a library's own test suite on mxcompat: the module is __main__, gets the
    # remaining arguments, and finds modules of the working directory, as with `python -m`
    (tmp_path / 'show_args.py').write_text(textwrap.dedent('''
        import sys, mxnet, mxcompat
        print(__name__, mxnet is mxcompat, sys.argv[1:])
    '''))
    r = run(['-m', 'mxcompat', '-m', 'show_args', 'a', '--b'], cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['__main__', 'True', "['a',", "'--b']"]
    (tmp_path / 'test_uses_mxnet.py').write_text(textwrap.dedent('''
        import mxnet as mx
        def test_sum():
            assert mx.nd.arange(4).sum().asscalar() == 6.0
        def test_fails():
            assert mx.nd.ones(2).shape == (3,)
    '''))
    r = run(['-m', 'mxcompat', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_uses_mxnet.py'],
            cwd=str(tmp_path))
    assert r.returncode == 1 and '1 failed, 1 passed' in r.stdout, r.stdout + r.stderr  # pytest's exit status


def test_real_mxnet_is_not_shadowed_unless_forced(tmp_path):
    fake = tmp_path / 'site' / 'mxnet'
    fake.mkdir(parents=True)
    (fake / '__init__.py').write_text('REAL = True\n')
    code = textwrap.dedent('''
        import mxcompat
        print(mxcompat.install_alias())
        import mxnet
        print(getattr(mxnet, 'REAL', False))
    ''')
    r = run(['-c', code], env_extra={'PYTHONPATH': ROOT + os.pathsep + str(tmp_path / 'site')})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['False', 'True']
    code_forced = 'import mxcompat; mxcompat.install_alias(force=True); import mxnet; print(mxnet is mxcompat)'
    r = run(['-c', code_forced], env_extra={'PYTHONPATH': ROOT + os.pathsep + str(tmp_path / 'site')})
    assert r.stdout.strip() == 'True', r.stderr


def test_import_does_not_pull_graphviz():
    r = run(['-c', 'import sys, mxcompat; print("graphviz" in sys.modules)'])
    assert r.returncode == 0 and r.stdout.strip() == 'False', r.stderr


def test_planned_namespace_fails_loudly():
    import pytest
    import mxcompat as mx
    from mxcompat.base import MXNetNotImplementedError
    if 'kvstore' not in dir(mx):
        with pytest.raises(MXNetNotImplementedError, match=r'mx\.kv'):
            mx.kv.create('local')
    with pytest.raises(AttributeError):
        mx.no_such_thing


def test_gluoncv_torch_check_answers_import_error_under_the_alias(tmp_path):
    # a stand-in for GluonCV 0.10's check: with torch>=2 its PyTorch check raises RuntimeError, which its
    # __init__ (catching ImportError only) lets through; under the alias the check raises ImportError instead
    pkg = tmp_path / 'gluoncv'
    pkg.mkdir()
    (pkg / 'check.py').write_text(textwrap.dedent('''
        def _require_pytorch_version(lo, hi):
            import torch
            raise RuntimeError('Legacy torch==%s detected' % torch.__version__)
    '''))
    (pkg / '__init__.py').write_text(textwrap.dedent('''
        from .check import _require_pytorch_version
        try:
            _require_pytorch_version('1.4.0', '2.0.0')
            found_pytorch = True
        except ImportError as e:
            found_pytorch = False
            why = str(e)
    '''))
    script = tmp_path / 'use_gcv.py'
    script.write_text('import torch, gluoncv\nprint(gluoncv.found_pytorch, torch.__version__ in gluoncv.why)\n')
    r = run(['-m', 'mxcompat', str(script)], env_extra={'PYTHONPATH': str(tmp_path) + os.pathsep + ROOT})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['False', 'True']
    r = run([str(script)], env_extra={'PYTHONPATH': str(tmp_path) + os.pathsep + ROOT})  # no alias: untouched
    assert r.returncode != 0 and 'RuntimeError: Legacy torch' in r.stderr


def test_extension_library_and_rtc_namespaces_fail_loudly():
    # example/extensions calls mx.library.load, example/numpy-ops/custom_softmax_rtc.py mx.rtc.CudaModule
    import pytest
    import mxcompat as mx
    from mxcompat.base import MXNetNotImplementedError
    with pytest.raises(MXNetNotImplementedError, match=r'mx\.library: .*lib_api\.h'):
        mx.library.load('/tmp/libgemm_lib.so')
    with pytest.raises(MXNetNotImplementedError, match=r'mx\.rtc: .*CudaModule'):
        mx.rtc.CudaModule('')
