"""nose.tools: unittest's assertions under pep8 names (``assert_raises`` for ``assertRaises``, as nose made them),
``ok_``, ``eq_``, ``raises`` and ``make_decorator``."""
import functools
import re
import unittest


class _Case(unittest.TestCase):
    def runTest(self):
        pass


_case = _Case()
__all__ = ['ok_', 'eq_', 'raises', 'make_decorator']
for _name in dir(_case):
    if re.fullmatch('assert[A-Z][A-Za-z]*', _name):
        _pep8 = re.sub('([A-Z])', lambda m: '_' + m.group(1).lower(), _name)
        globals()[_pep8] = getattr(_case, _name)
        __all__.append(_pep8)


def ok_(expr, msg=None):
    if not expr:
        raise AssertionError(msg)


def eq_(a, b, msg=None):
    if not a == b:
        raise AssertionError(msg or '%r != %r' % (a, b))


def make_decorator(func):
    """Wraps the decorated function so that it keeps ``func``'s name and attributes."""
    return lambda newfunc: functools.wraps(func)(newfunc)


def raises(*exceptions):
    """The test passes only if it raises one of ``exceptions``."""
    def decorate(func):
        @functools.wraps(func)
        def test(*args, **kwargs):
            try:
                func(*args, **kwargs)
            except exceptions:
                return
            raise AssertionError('%s did not raise %s' % (func.__name__, ' or '.join(e.__name__ for e in exceptions)))
        return test
    return decorate
