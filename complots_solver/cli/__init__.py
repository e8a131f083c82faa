"""Layer 5, the ``complots`` command line."""
