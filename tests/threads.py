"""Running test code in threads: each target in its own thread, its exceptions collected."""

import threading


def in_threads(*targets, timeout=120):
    """Run each target in its own thread and wait (``timeout`` seconds each); the exceptions they
    raised, for the test to report."""
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as e:      # noqa: BLE001  (reported by the test)
                errors.append(e)
        return run

    threads = [threading.Thread(target=guarded(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread did not finish in time"
    return errors
