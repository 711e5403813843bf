"""Transform-dialect strategies and helpers for code generation."""
