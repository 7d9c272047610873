"""get_credential: an AAD credential for live accounts."""


def get_credential(is_async=False, **kwargs):
    """test_config.py asks for a credential only when ACCOUNT_HOST is not
    the local emulator; these runs always target an emulator, so reaching
    this is a setup error."""
    raise RuntimeError(
        "devtools_testutils stand-in: get_credential() is for live accounts; "
        "ACCOUNT_HOST must be the emulator (run.sh patches test_config.py so)"
    )
