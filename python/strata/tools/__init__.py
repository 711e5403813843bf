"""Command-line tools: strata-opt and strata."""
