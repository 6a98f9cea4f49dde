"""Measures how far the C library's ``logf`` strays from the correctly rounded logarithm, over every positive float,
by binade of the result: the table ``mxcompat/kernels/_libm.py`` keeps as ``_LOGF_DOUBT``.

    python tools/logf_bounds.py          # needs a C compiler (cc); about two minutes

For each exponent e (|log x| in [2**(e-1), 2**e)) it prints how many results there are, how many differ from the
correctly rounded value, and the largest distance between the exact logarithm and the rounding boundary that such
a result crossed. A result whose exact value lies further than that from a boundary is the correctly rounded one,
so _libm.logf computes those in double precision and asks the C library only for the others (it keeps twice the
measured distance). Measured on glibc 2.36 (x86-64, FMA variant); glibc's logf has been the same since 2.28.
"""
import os
import subprocess
import sys
import tempfile

SOURCE = r'''
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
int main(void) {
  double worst[400] = {0};
  unsigned long long count[400] = {0}, wrong[400] = {0};
  for (uint32_t b = 1; b < 0x7f800000u; ++b) {
    if (b == 0x3f800000u) continue;                 /* log 1 = 0 */
    float x, r;
    memcpy(&x, &b, 4);
    r = logf(x);
    long double exact = logl((long double)x);
    int e;
    frexpl(exact, &e);
    e += 200;
    count[e]++;
    float nearest = (float)exact;
    if (nearest != r) {
      long double boundary = ((long double)nearest + (long double)r) / 2;
      double d = (double)fabsl(exact - boundary);
      if (d > worst[e]) worst[e] = d;
      wrong[e]++;
    }
  }
  for (int e = 0; e < 400; ++e)
    if (count[e]) printf("%d %llu %llu %.6e\n", e - 200, count[e], wrong[e], worst[e]);
  return 0;
}
'''


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, 'bounds.c'), os.path.join(tmp, 'bounds')
        with open(src, 'w') as f:
            f.write(SOURCE)
        subprocess.run([os.environ.get('CC', 'cc'), '-O2', src, '-o', exe, '-lm'], check=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    print('%6s %12s %10s %12s' % ('exp', 'results', 'differ', 'crossed by'))
    for line in out.split('\n'):
        if line:
            e, n, bad, worst = line.split()
            print('%6s %12s %10s %12s' % (e, n, bad, worst))


if __name__ == '__main__':
    sys.exit(main())
