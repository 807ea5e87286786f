"""leafscore's own version: a leaf module, imported by whatever prints or records it (the
signature's ``tool`` field, summary.json's ``tool``, ``leafscore --version``) and
re-exported as ``leafscore.__version__``."""

__version__ = "0.1.0"
