"""strata's passes, one per module; ``registry`` maps pass flags to them lazily."""
