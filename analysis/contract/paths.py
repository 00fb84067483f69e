"""The project's folders and the trace reader, whatever the caller's working directory.

BUILD follows the BUILD environment variable as the shell scripts do (host-lib.sh);
READER follows EAS_TRACE_READER, for a reader built elsewhere.
"""
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
READER = os.environ.get("EAS_TRACE_READER", os.path.join(BUILD, "analysis", "eas-trace-reader"))


def module_env(base=None):
    """base (default: this process's environment) with analysis/ first on PYTHONPATH:
    what a child `python3 -m contract...|easan...|easlab...` needs."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(TOP, "analysis")] + [p for p in [env.get("PYTHONPATH")] if p])
    return env
