"""What every solver family shares: atomic file writes, digests, run directories, strategy files.

Modules here import no other solver family (``exact``, ``mccfr``, ``policies``,
``belief``); each of those may import this one.
"""
