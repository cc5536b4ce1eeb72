"""``python -m rook_analyze.cli``: the same as the ``rook-analyze`` command."""

from rook_analyze.cli import run

if __name__ == "__main__":
    run()
