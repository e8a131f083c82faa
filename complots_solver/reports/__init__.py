"""Layer 5: strategy tables, comparisons and HTML/PDF reports built on the browser layer."""
