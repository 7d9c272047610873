"""Stand-in for the Azure SDK repository's devtools_testutils package.

The azure-cosmos tests import it from tests/test_config.py only:
``devtools_testutils.helpers.is_live`` (a flag the tests set) and
``devtools_testutils.azure_recorded_testcase.get_credential`` (an AAD
credential, used only against live accounts, never against an emulator).
The real package is repository tooling and is not published.
"""
