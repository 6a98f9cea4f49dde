"""MXNet's float32 attribute parser (dmlc-core's strtof on ``str(value)``), for the attributes MXNet declares as
float32 (``real_t``): it computes in float32 step by step rather than rounding the decimal once, so
'3.4028235e+38' (what Keras-MXNet passes, as does str() of float32's largest value) comes out as +inf, '1e38' as
1.0000000694e38 and '16777217.5' as 16777216; its errors are MXNet's."""
import math
import re
import struct

__all__ = ['parse_float32']


def _f32(x):
    """``x`` rounded to float32 (to nearest even; inf beyond its range)."""
    try:
        return struct.unpack('f', struct.pack('f', x))[0]
    except OverflowError:  # (older Pythons refuse to pack an overflowing value)
        return math.copysign(math.inf, x)


def _uint_to_f32(n):
    # an unsigned integer rounded once, straight to float32 (through a double would round twice past 2**53)
    if n < 1 << 53:
        return _f32(float(n))
    shift = n.bit_length() - 24
    q, r = divmod(n, 1 << shift)
    if r > 1 << (shift - 1) or r == 1 << (shift - 1) and q & 1:
        q += 1
    return float(q << shift)


_F32_TOP = _f32(3.402823466)      # the largest significand the parser lets through with exponent 38
_F32_BOTTOM = _f32(1.175494351)   # the smallest with exponent -38
_F32_OVERFLOW = 3.4028235677973366e+38  # a decimal value this large rounds to inf in float32
_DECIMAL = re.compile(r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?')


def _digits(text, i):
    j = i
    while j < len(text) and '0' <= text[j] <= '9':
        j += 1
    return text[i:j], j


def _strtof(text):
    """(value, characters read, out of range, overflowed) as MXNet's float parser reads ``text``; ``overflowed``:
    the float32 steps took a finite decimal to inf."""
    i = len(text) - len(text.lstrip(' \t\r\n\f'))
    negative = text[i:i + 1] == '-'
    i += text[i:i + 1] in ('-', '+')
    word = ''.join(chr(ord(c) | 32) for c in text[i:i + 8])
    matched = next((k for k in range(8, -1, -1) if word[:k] == 'infinity'[:k]), 0)
    if matched in (3, 8):
        return (-math.inf if negative else math.inf), i + matched, False, False
    if word[:3] == 'nan':
        i += 3
        if text[i:i + 1] == '(':
            close = text.find(')', i)
            if close < 0 or not all(c.isalnum() and c.isascii() or c == '_' for c in text[i + 1:close]):
                raise ValueError('invalid NAN literal')
            i = close + 1
        return math.nan, i, False, False
    whole, i = _digits(text, i)
    value = _uint_to_f32(int(whole or '0') % (1 << 64))  # (a uint64 that wraps around)
    if text[i:i + 1] == '.':
        frac, i = _digits(text, i + 1)
        frac = frac[:19]  # digits past 19 are ignored
        value = _f32(value + _f32(float(int(frac or '0')) / float(10 ** len(frac))))
    overflowed = False
    if text[i:i + 1] in ('e', 'E'):
        i += 1
        shrink = text[i:i + 1] == '-'
        i += text[i:i + 1] in ('-', '+')
        exp, i = _digits(text, i)
        exp = int(exp or '0') % (1 << 32)
        if exp > 38 or exp == 38 and (value < _F32_BOTTOM if shrink else value > _F32_TOP):
            return math.inf, i, True, False
        scale = 1.0
        for step, count in ((1e8, exp // 8), (10.0, exp % 8)):
            for _ in range(count):
                scale = _f32(scale * step)
        value = _f32(value / scale if shrink else value * scale)
        overflowed = math.isinf(value)
    i += text[i:i + 1] in ('f', 'F')
    return (-value if negative else value), i, False, overflowed


def parse_float32(v):
    """A float32 (``real_t``) attribute as MXNet parses it (clip's a_min/a_max), with MXNet's errors and quirks (an
    integer part past 2**64 wraps, ' ' reads as 0)."""
    # A value its float32 steps take to +inf is out of range in MXNet when the C library's range flag (errno) is
    # set, which MXNet leaves to earlier calls in the thread; in a fresh state it is set exactly when the decimal
    # value itself is beyond float32's range, what this follows: '99e37' is refused, '3.4028235e+38' gives +inf
    # and '-99e37' -inf.
    text = str(v)
    value, end, out_of_range, overflowed = _strtof(text)
    if overflowed and value > 0:
        out_of_range = abs(float(_DECIMAL.match(text.lstrip(' \t\r\n\f')).group(0))) >= _F32_OVERFLOW
    if out_of_range:
        raise ValueError("out of range value for float32, value='%s'" % text)
    if end == 0:
        raise ValueError("expected a float but value='%s'" % text)
    if end < len(text):
        raise ValueError("some trailing characters could not be parsed: '%s'" % text[end:])
    return value
