"""Result buffers recycled across calls, so a warm call does not page-fault through fresh memory.

A compiled function returns its results as numpy arrays. Allocated with ``np.empty``
per call, a large result is a fresh ``mmap`` (glibc serves big allocations that way)
and the kernel first-touches every page of it: for a 64 MiB softmax output that costs
as much as the kernel. Instead, results of at least ``MIN_BYTES`` come from this pool:

    buffer (a uint8 array starting on a page, kept mapped)
      <- _Owner (exposes __array_interface__ over it; its __del__ gives the buffer back)
        <- the result ndarray (its .base is the owner), and every view of it

Each buffer starts on a page (``PLACEMENT``), not just on a 64-byte line. A numpy
input of that size is an ``mmap`` 16 bytes past a page; had the result started a line
or two further into its page, every load of the input a few elements ahead of the
store just issued would match that store's address in the low 12 bits, and the core
holds such a load back as if it depended on the store ("4K aliasing"): ``tanh`` on
4096x4096, 2 threads, ran 4.9 ms with the result 64 bytes past a page and 2.5 ms with
it on the page. From a page, a result is behind every such input, and level with any
earlier result it is given.

A buffer goes back to the pool only when its owner dies, i.e. when the result and
every view taken of it (``y[1:]``, ``y.T``, ``torch.from_numpy(y)``...) are gone, so a
result never aliases a live array. Buffers are kept per byte size; idle (pooled)
bytes are capped by ``STRATA_OUTPUT_POOL_BYTES`` (bytes, with an optional K/M/G
suffix; default 1 GiB; ``0`` turns the pool off): past the cap the least recently
used sizes are freed first. The pool is shared by every function and thread of the
process: ``take`` holds a lock; an owner dying while the lock is held (another
thread, or a garbage collection inside ``take``) queues its buffer instead, and
the next ``take`` or return files it.
"""

from __future__ import annotations

import collections
import functools
import os
import threading

import numpy as np

__all__ = ["OutputPool", "process_pool", "MIN_BYTES", "ALIGNMENT", "PLACEMENT", "pool_cap",
           "result_maker", "page_buffer"]

MIN_BYTES = 1 << 17  # smaller results: np.empty (glibc's heap reuses them, no fresh pages)
ALIGNMENT = 64     # what a result's address promises (the compiled code's vector stores)
PLACEMENT = 4096   # where a pooled buffer starts: a page (see above)


def pool_cap(text: str | None = None) -> int:
    """The pool's cap on idle bytes: ``STRATA_OUTPUT_POOL_BYTES`` (``0``: no pool)."""
    from .. import settings

    if text is None:
        return settings.get("STRATA_OUTPUT_POOL_BYTES")
    return settings.SETTINGS.parse("STRATA_OUTPUT_POOL_BYTES", text)


def page_buffer(nbytes: int) -> tuple:
    """``(buffer, address)``: a fresh uint8 array of ``nbytes`` starting on a page."""
    buffer = np.empty(nbytes + PLACEMENT, np.uint8)
    address = buffer.ctypes.data
    start = (-address) % PLACEMENT
    return buffer[start:start + nbytes], address + start


class _Owner:
    """The base of a pooled result: owns one pool buffer while any view of it lives."""

    __slots__ = ("__array_interface__", "buffer", "pool", "__weakref__")

    def __del__(self):
        try:
            self.pool.give_back(self.buffer)
        except Exception:  # noqa: BLE001 - at interpreter exit the pool may be half gone
            pass


class OutputPool:
    """Recycled, page-placed result buffers, per byte size, idle bytes capped."""

    def __init__(self, cap: int | None = None):
        self.cap = pool_cap() if cap is None else cap
        self._free: collections.OrderedDict[int, list] = collections.OrderedDict()
        self._idle = 0      # bytes held in _free
        self._queued: collections.deque = collections.deque()  # returned under contention
        self._lock = threading.Lock()
        self.allocated = 0  # buffers made (fresh memory), for tests and benchmarks
        self.reused = 0     # buffers handed out again

    def take(self, nbytes: int) -> tuple:
        """``(buffer, address)``: an idle buffer of ``nbytes``, else a new one."""
        with self._lock:
            if self._queued:
                self._drain()
            free = self._free.get(nbytes)
            if free:
                buffer = free.pop()
                self._idle -= nbytes
                self.reused += 1
                return buffer
            self.allocated += 1
        return page_buffer(nbytes)

    def give_back(self, buffer) -> None:
        """Files ``buffer`` (a ``take`` result) as idle (an owner died), or frees it past
        the cap."""
        if not self._lock.acquire(blocking=False):
            self._queued.append(buffer)  # atomic; filed by the next take
            return
        try:
            self._file(buffer)
            if self._queued:
                self._drain()
        finally:
            self._lock.release()

    def _drain(self) -> None:
        queued = self._queued
        while queued:
            self._file(queued.popleft())

    def _file(self, buffer) -> None:
        nbytes = buffer[0].nbytes
        if nbytes > self.cap:
            return
        free = self._free
        while self._idle + nbytes > self.cap and free:
            size, buffers = next(iter(free.items()))  # least recently used size first
            buffers.pop()
            self._idle -= size
            if not buffers:
                del free[size]
        buffers = free.get(nbytes)
        if buffers is None:
            buffers = free[nbytes] = []
        else:
            free.move_to_end(nbytes)
        buffers.append(buffer)
        self._idle += nbytes

    @property
    def idle_bytes(self) -> int:
        return self._idle

    def clear(self) -> None:
        """Frees every idle buffer (live results keep theirs, and return them later)."""
        with self._lock:
            self._drain()
            self._free.clear()
            self._idle = 0

    def _after_fork(self) -> None:
        self._lock = threading.Lock()


_POOL: list = []  # the process's pool, made on first use (its cap read from the environment)
_MAKING = threading.Lock()


def process_pool() -> OutputPool:
    """The pool every compiled function of this process takes its results from."""
    if not _POOL:
        with _MAKING:
            if not _POOL:
                pool = OutputPool()
                if hasattr(os, "register_at_fork"):
                    os.register_at_fork(after_in_child=pool._after_fork)
                _POOL.append(pool)
    return _POOL[0]


def result_maker(shape: tuple, dtype: np.dtype, pool: OutputPool | None = None):
    """A function of no arguments making one fresh result array of ``shape``/``dtype``:
    from ``pool`` (default: the process's) when it is big enough and the pool is on,
    else ``np.empty``."""
    pool = process_pool() if pool is None else pool
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    count = 1
    for d in shape:
        count *= d
    nbytes = count * dtype.itemsize
    if nbytes < MIN_BYTES or pool.cap < nbytes:
        return functools.partial(np.empty, shape, dtype)
    direct = dtype.kind != "V" and np.dtype(dtype.str) == dtype  # no typestr for bf16 &c.
    typestr = dtype.str if direct else "|u1"
    ishape = shape if direct else (nbytes,)
    take = pool.take
    asarray = np.asarray

    def make():
        buffer = take(nbytes)
        owner = _Owner()
        owner.buffer = buffer
        owner.pool = pool
        owner.__array_interface__ = {"data": (buffer[1], False), "shape": ishape,
                                     "typestr": typestr, "version": 3}
        array = asarray(owner)
        return array if direct else array.view(dtype).reshape(shape)

    return make
