"""strata-fuse's parts: the cost model, elementwise merging, epilogue tile-and-fuse."""
