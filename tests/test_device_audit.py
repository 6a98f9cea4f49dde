"""A scan of the package for host reads that break on CUDA tensors: every ``.numpy()`` goes through ``.cpu()``
(a no-op for CPU tensors), or its line says why the tensor is on the host (``# host: ...``)."""
import os
import re

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'mxcompat')


def test_numpy_reads_go_through_the_host():
    bad = []
    for root, _, files in os.walk(PKG):
        for f in files:
            if not f.endswith('.py'):
                continue
            path = os.path.join(root, f)
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    code = line.split('#', 1)[0]
                    # (a .cpu() earlier in the chain: .cpu().double().numpy() is fine)
                    if re.search(r'\.numpy\(\)', code) and not re.search(r'\.cpu\(\)[\w.()]*\.numpy\(\)', code) \
                            and '# host' not in line:
                        bad.append('%s:%d: %s' % (os.path.relpath(path, PKG), n, line.strip()))
    assert not bad, 'a .numpy() of a tensor that may live on CUDA:\n' + '\n'.join(bad)


def test_factories_put_their_tensors_on_the_device_they_are_for():
    # torch.arange(n).to(x.device) makes the tensor on the host, then copies it and waits for the device: make it
    # there (device=x.device), or say on the line why not (# host: ...)
    pattern = re.compile(r'torch\.(tensor|as_tensor|arange|zeros|ones|full|empty|linspace|eye)\([^#]*\)\.to\('
                         r'[a-z_]+\.device')
    bad = []
    for root, _, files in os.walk(PKG):
        for f in files:
            if f.endswith('.py'):
                path = os.path.join(root, f)
                with open(path) as fh:
                    for n, line in enumerate(fh, 1):
                        if pattern.search(line.split('#', 1)[0]) and '# host' not in line:
                            bad.append('%s:%d: %s' % (os.path.relpath(path, PKG), n, line.strip()))
    assert not bad, 'a tensor made on the host and then moved to a device:\n' + '\n'.join(bad)
