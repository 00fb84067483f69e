"""JSON that other tools can read: no NaN tokens (json writes float('nan') as NaN, which
is not JSON, and never asks a default= hook about floats), numpy scalars as numbers."""
import json
import math


def ready(x):
    """x with every NaN float turned into None and numpy scalars into Python ones,
    through dicts, lists and tuples."""
    if hasattr(x, "item") and not isinstance(x, (dict, list, tuple, str)):
        x = x.item()
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, dict):
        return {k: ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [ready(v) for v in x]
    return x


def dumps(x, **kw):
    """json.dumps of ready(x); a value JSON cannot hold still fails loudly."""
    return json.dumps(ready(x), allow_nan=False, **kw)
