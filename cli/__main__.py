"""``python -m rook_analyze.cli``: the same as the ``rook-analyze`` command."""

from rook_analyze.cli.main import main

if __name__ == "__main__":
    main(prog_name="rook-analyze")
