"""Explain and inspect: pictures of a function at a level (show), and the tools built on them."""
