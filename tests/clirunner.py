"""click's ``CliRunner`` with standard error kept apart from standard
output on every click the project allows, so that ``result.stdout`` is the
data alone and ``result.stderr`` the messages. click 8.2 and later always
keep them apart (and took ``mix_stderr`` away); click 8.1 mixes standard
error into standard output unless told not to, and its ``result.stderr``
then raises. ``result.output`` is standard output and standard error
together on click 8.2 and later but standard output alone on 8.1: a test
about standard error reads ``result.stderr``."""

import inspect

from click import testing

_MIXES = "mix_stderr" in inspect.signature(testing.CliRunner.__init__).parameters


class CliRunner(testing.CliRunner):
    def __init__(self, **kwargs):
        if _MIXES:
            kwargs.setdefault("mix_stderr", False)
        super().__init__(**kwargs)
