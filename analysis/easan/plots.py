"""What the report's figures share: matplotlib set up for files, colours, saving.

Each metric module draws its own figures (metric.Figure) and imports this module
inside its drawing functions: matplotlib takes about a second to load, which a
report without plots (--no-plots, the benchmark) does not pay.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  pylint: disable=wrong-import-position

from .causes import ORDER  # noqa: E402  pylint: disable=wrong-import-position

TYPE_COLOURS = {"p": "#d95f02", "e": "#1b9e77", "lpe": "#7570b3"}
TYPE_NAMES = {"p": "P-core", "e": "E-core", "lpe": "LP E-core"}


def cause_colour(cause):
    """A cause's colour in every figure, from its place in ORDER: one colour each."""
    return (plt.cm.tab10 if len(ORDER) <= 10 else plt.cm.tab20)(ORDER.index(cause))


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
