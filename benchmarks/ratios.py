"""Print mxcompat/torch median ratios from a pytest-benchmark JSON file.

    python -m pytest benchmarks/bench_ndarray.py --benchmark-json=/tmp/b.json && python benchmarks/ratios.py /tmp/b.json
"""
import json
import sys


def ratios(path):
    data = json.load(open(path))
    groups = {}
    for b in data['benchmarks']:
        side = b.get('extra_info', {}).get('side')
        groups.setdefault(b['group'], {})[side] = b['stats']['median']
    rows = []
    for g, sides in sorted(groups.items()):
        if 'mxcompat' in sides and 'torch' in sides:
            rows.append((g, sides['mxcompat'], sides['torch'], sides['mxcompat'] / sides['torch']))
    return rows


def main(argv):
    for path in argv:
        print('%-32s %12s %12s %7s' % ('workload', 'mxcompat us', 'torch us', 'ratio'))
        for g, m, t, r in ratios(path):
            print('%-32s %12.2f %12.2f %7.2f' % (g, m * 1e6, t * 1e6, r))


if __name__ == '__main__':
    main(sys.argv[1:])
