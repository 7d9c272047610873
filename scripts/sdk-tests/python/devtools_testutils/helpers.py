"""is_live: whether the tests run against a live account (never, here)."""


def is_live():
    """Answers the value test_config.py stores in is_live._cache (False
    for an emulator), as the repository's helper does once it has cached
    its answer."""
    return bool(getattr(is_live, "_cache", False))
