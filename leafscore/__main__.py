"""``python -m leafscore``: the same command as the ``leafscore`` console script."""

from leafscore.cli import main

if __name__ == "__main__":
    main()
