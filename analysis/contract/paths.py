"""The project's folders and the trace reader, whatever the caller's working directory.

BUILD follows the BUILD environment variable as the shell scripts do (host-lib.sh);
READER follows EAS_TRACE_READER, for a reader built elsewhere.
"""
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
READER = os.environ.get("EAS_TRACE_READER", os.path.join(BUILD, "analysis", "eas-trace-reader"))
