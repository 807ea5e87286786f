"""The accelerated engine's table (``--engine fast``): version name -> record; a placeholder."""

import scorer

VERSIONS = dict(scorer.VERSIONS)
