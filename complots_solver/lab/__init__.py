"""The lab: experiments, benchmarks and measurements run from scripts/, above every library layer (nothing imports it)."""
