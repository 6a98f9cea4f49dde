"""Stand-in for matplotlib.pylab: pyplot's no-op names (``from matplotlib.pylab import imshow``)."""
from matplotlib.pyplot import *  # noqa: F401,F403
from matplotlib.pyplot import __getattr__  # noqa: F401
