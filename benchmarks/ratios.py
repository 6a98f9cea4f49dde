"""Print mxcompat/torch (and mxcompat/MXNet, when present) median ratios from a pytest-benchmark JSON file.

    python -m pytest benchmarks/bench_ndarray.py --benchmark-json=/tmp/b.json && python benchmarks/ratios.py /tmp/b.json
"""
import json
import sys


def side_medians(data):
    """{group: {side: median seconds}} of a pytest-benchmark JSON document (side from extra_info['side'])."""
    groups = {}
    for b in data['benchmarks']:
        side = b.get('extra_info', {}).get('side')
        groups.setdefault(b['group'], {})[side] = b['stats']['median']
    return groups


def ratio(sides, other):
    """mxcompat's median over ``other``'s, or None when either is missing."""
    if sides.get('mxcompat') is None or not sides.get(other):
        return None
    return sides['mxcompat'] / sides[other]


def ratios(path):
    with open(path) as f:
        groups = side_medians(json.load(f))
    rows = []
    for g, sides in sorted(groups.items()):
        if 'mxcompat' in sides and 'torch' in sides:
            rows.append((g, sides['mxcompat'], sides['torch'], sides['mxcompat'] / sides['torch']))
    return rows


def main(argv):
    for path in argv:
        with open(path) as f:
            groups = side_medians(json.load(f))
        with_mxnet = any('mxnet' in s for s in groups.values())
        head = '%-32s %12s %12s %7s' % ('workload', 'mxcompat us', 'torch us', 'ratio')
        print(head + (' %12s %9s' % ('MXNet us', 'vs MXNet') if with_mxnet else ''))
        for g, sides in sorted(groups.items()):
            if 'mxcompat' not in sides or 'torch' not in sides:
                continue
            line = '%-32s %12.2f %12.2f %7.2f' % (g, sides['mxcompat'] * 1e6, sides['torch'] * 1e6,
                                                  ratio(sides, 'torch'))
            if with_mxnet and 'mxnet' in sides:
                line += ' %12.2f %9.2f' % (sides['mxnet'] * 1e6, ratio(sides, 'mxnet'))
            print(line)


if __name__ == '__main__':
    main(sys.argv[1:])
