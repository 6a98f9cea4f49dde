"""``python -m mxcompat``: what the launcher does around the user's script (the porting side is in tests/porting)."""
import subprocess
import sys

SCRIPT = '''
import atexit, gc, weakref
import mxnet as mx

print('frozen', gc.get_freeze_count() > 100000)


class Node:
    pass


a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made by the script
gone = []
ref = weakref.ref(a, lambda r: gone.append(True))
del a, b
gc.collect()
print('collected', gone == [True])
atexit.register(lambda: print('atexit ran'))
out = open(OUT, 'w')
out.write(str(mx.nd.ones((2, 2)).sum().asscalar()))  # left open: flushed at exit as Python does
'''


def test_the_script_runs_after_the_loaded_objects_are_frozen(tmp_path):
    script, out = tmp_path / 'job.py', tmp_path / 'out.txt'
    script.write_text('OUT = %r\n' % str(out) + SCRIPT)
    r = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], capture_output=True, text=True,
                       timeout=300, check=True)
    assert r.stdout.split('\n')[:3] == ['frozen True', 'collected True', 'atexit ran']
    assert out.read_text() == '4.0'


def test_code_given_with_c_runs_as_the_main_module(tmp_path):
    out = tmp_path / 'out.txt'
    code = ('import sys, atexit, mxnet as mx; out = open(%r, "w"); atexit.register(lambda: None)\n'
            'out.write(str(sys.modules["__main__"].__dict__ is globals()))' % str(out))
    subprocess.run([sys.executable, '-m', 'mxcompat', '-c', code], timeout=300, check=True)
    assert out.read_text() == 'True'


POOL = '''
import multiprocessing as mp
import mxnet as mx


def work(x):
    return type(x).__module__, (x * 2).asnumpy().tolist(), mx.nd.ones(2).sum().asscalar().item()


if __name__ == '__main__':
    for method in ('spawn', 'forkserver'):
        with mp.get_context(method).Pool(1) as pool:
            print(method, pool.map(work, [mx.nd.array([1, 2])]))
'''


def test_processes_started_by_spawn_and_forkserver_import_mxnet_as_mxcompat(tmp_path):
    # a fresh interpreter gets the parent's sys.path, not its import hooks: the worker's module imports mxnet, and
    # unpickling the NDArray names mxnet.ndarray.ndarray (Keras-MXNet's data_utils tests run such pools).
    # MXNet 1.9.1 prints the same two lines.
    script = tmp_path / 'pool.py'
    script.write_text(POOL)
    r = subprocess.run([sys.executable, '-m', 'mxcompat', str(script)], capture_output=True, text=True,
                       timeout=300, check=True)
    assert r.stdout.split('\n')[:2] == [
        "spawn [('mxnet.ndarray.ndarray', [2.0, 4.0], 2.0)]",
        "forkserver [('mxnet.ndarray.ndarray', [2.0, 4.0], 2.0)]"]
