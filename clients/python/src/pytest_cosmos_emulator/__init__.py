"""Start cosmos-emulator (Azure Cosmos DB for NoSQL over PostgreSQL) for a pytest session.

The pytest plugin (`pytest_cosmos_emulator.plugin`, registered through the `pytest11` entry
point) provides the fixtures `cosmos_emulator`, `cosmos_endpoint`, `cosmos_key` and
`cosmos_client`. `start_emulator` and `Emulator` can be used without pytest.
"""

from .emulator import EMULATOR_KEY, Emulator, EmulatorError, start_emulator

__all__ = ["EMULATOR_KEY", "Emulator", "EmulatorError", "start_emulator"]
