"""The runtime: compile(), jit, specialization with guards, the JIT engine and caching."""
