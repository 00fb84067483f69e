"""The one exception the command line turns into a one-line error."""


class AnalysisError(Exception):
    """Bad or incomplete input: the message names the file and the problem."""
