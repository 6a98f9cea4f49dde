"""``mx.registry``: the register / alias / create trio each MXNet component family (initializers, metrics,
optimizers ...) uses to look classes up by name."""
import json
import warnings

from .base import MXNetAssertionError, MXNetTypeError, string_types

__all__ = ['get_registry', 'get_register_func', 'get_alias_func', 'get_create_func', 'make_registry']

_FAMILIES = {}


def _check(cond, msg):
    if not cond:
        raise MXNetAssertionError(msg)


def add_class(table, klass, kind):
    """Store ``klass`` in ``table`` under its lower-cased class name, warning (as MXNet does) when that replaces
    another class; returns ``klass`` (for class decorators such as ``Optimizer.register``)."""
    name = klass.__name__.lower()
    old = table.get(name)
    if old is not None:
        warnings.warn('WARNING: New %s %s.%s is overriding existing %s %s.%s'
                      % (kind, klass.__module__, klass.__name__, kind, old.__module__, old.__name__))
    table[name] = klass
    return klass


def make_registry(base_class, nickname):
    """MXNet's ``mx.registry`` trio for ``base_class``: ``(table, register, alias, create)``.

    ``create`` accepts an instance (returned as is), a name (any case), ``'["name", {kwargs}]'``,
    ``'{"<nickname>": name, ...}'`` or a dict of keyword arguments naming the class under ``nickname``.
    """
    table = {}

    def register(klass, name=None):
        _check(isinstance(klass, type) and issubclass(klass, base_class),
               'Can only register subclass of %s' % base_class.__name__)
        key = (klass.__name__ if name is None else name).lower()
        old = table.get(key)
        if old is not None:
            warnings.warn('New %s %s.%s registered with name %s is overriding existing %s %s.%s'
                          % (nickname, klass.__module__, klass.__name__, key, nickname, old.__module__,
                             old.__name__), UserWarning, stacklevel=2)
        table[key] = klass
        return klass

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        elif nickname in kwargs:
            name = kwargs.pop(nickname)
        else:
            raise MXNetTypeError('create(): missing the %s to create' % nickname)
        if isinstance(name, base_class):
            _check(not args and not kwargs,
                   '%s is already an instance. Additional arguments are invalid' % nickname)
            return name
        if isinstance(name, dict):
            return create(**name)
        _check(isinstance(name, string_types), '%s must be of string type' % nickname)
        if name.startswith('[') or name.startswith('{'):
            _check(not args and not kwargs, 'create(%r): no extra arguments are allowed with a JSON spec' % name)
            spec = json.loads(name)
            if isinstance(spec, dict):
                return create(**spec)
            return create(spec[0], **spec[1])
        key = name.lower()
        _check(key in table, '%s is not registered. Please register with %s.register first' % (key, nickname))
        return table[key](*args, **kwargs)

    create.__doc__ = 'Create a %s from a name, a JSON spec, a config dict or an instance.' % nickname
    return table, register, alias, create


def _family(base_class, nickname):
    fam = _FAMILIES.get(base_class)
    if fam is None:
        fam = _FAMILIES[base_class] = make_registry(base_class, nickname)
    return fam


def get_registry(base_class):
    """A copy of the ``{name: class}`` table registered for ``base_class`` (empty when nothing is)."""
    fam = _FAMILIES.get(base_class)
    return dict(fam[0]) if fam is not None else {}


def get_register_func(base_class, nickname):
    """``register(klass, name=None)`` for subclasses of ``base_class``."""
    return _family(base_class, nickname)[1]


def get_alias_func(base_class, nickname):
    """``alias(*names)`` class decorator for subclasses of ``base_class``."""
    return _family(base_class, nickname)[2]


def get_create_func(base_class, nickname):
    """``create(name_or_spec, *args, **kwargs)`` for subclasses of ``base_class``."""
    return _family(base_class, nickname)[3]
