"""Garbage-collector settings for a long-running server: fewer, shorter stop-the-world pauses.

Why: CPython's cycle collector stops the event loop, and every RPC in flight waits for it. Under load the
default gen-0 threshold (700 allocations) fires every few hundred microseconds, so the objects of the
requests in flight at that moment survive into the older generations and die there; they pile up until a
full (gen-2) collection walks the whole heap, the module-level objects imported at start included. Under
load that came to a 25-250 ms pause every 2-5 s (measured with `gc.callbacks` in the core during the
benchmark), enough on its own to put a request's p99 above twice its median.

Raising the gen-0 threshold lets a request's objects die young, in the cheap collection; freezing the
objects that exist once the server has started (modules, protobuf descriptors, the wiring) moves them out
of every later collection's walk. Cycles are still collected: this changes when, not whether.

What is left in the core is grpc.aio's own garbage: its server leaves ~7 objects in a reference cycle per
call (`_find_method_handler`'s scope and closure, the call details, the metadata), so at this threshold
a young collection of ~45,000 of them pauses the loop 20-33 ms every ~7,000 calls. A tenth of the
threshold made each pause a tenth as long but create's p99 ÷ p50 worse (BENCHMARKS.md, "Speed, round 8").

Every serving process takes these settings — the core, its webhook dispatcher and each gateway worker —
so they live here, in the package all of them share.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000
"""Allocations (net of deallocations) between gen-0 collections; the default is 700."""
OLDER_THRESHOLDS = (20, 10)
"""Gen-0 collections per gen-1 collection and gen-1 collections per gen-2 candidate (defaults 10, 10)."""


def tune_for_serving() -> None:
    """Set the thresholds; call once before the server starts taking requests."""
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)


def freeze_startup_objects() -> None:
    """Collect once, then leave everything alive now out of every later collection's walk.

    Call once everything is wired and before traffic: what was built at start lives as long as the
    process, so walking it again in each full collection is pure pause. Objects frozen here are never
    freed, which is what they would be anyway.
    """
    gc.collect()
    gc.freeze()
