"""Loading a golden generator script from tests/fixtures as a module (its functions run here on mxcompat)."""
import importlib.util
import os

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


def load_generator(directory, filename):
    """The module ``tests/fixtures/<directory>/<filename>``, executed (its ``__main__`` part not run)."""
    spec = importlib.util.spec_from_file_location(os.path.splitext(filename)[0],
                                                  os.path.join(FIXTURES, directory, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
