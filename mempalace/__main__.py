"""`python -m mempalace`: the command line, for environments without the `mempalace` script on PATH."""

from .cli import run

if __name__ == "__main__":
    run()
