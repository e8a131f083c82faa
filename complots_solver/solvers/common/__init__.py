"""What every solver family shares: atomic files, digests, run directories, strategy files.

Also the protocols a family implements (``protocols``: ``Solver``, ``Policy``).
Modules here import no other solver family (``exact``, ``mccfr``,
``policies``, ``belief``); each of those may import this one.
"""
