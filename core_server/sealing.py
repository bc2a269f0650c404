"""How the core seals secrets at rest: one SecretBox per purpose, all under the one keyring of
DATA_ENCRYPTION_KEY(S). The core's wiring, its webhook dispatcher process and scripts/rotate_keys.py all
derive their boxes here, so a rotation always derives what the core reads."""

from __future__ import annotations

from core_server.config import Settings
from core_server.security.keyring import Keyring
from core_server.security.payout_account import PURPOSE as PAYOUT_ACCOUNT_PURPOSE
from core_server.security.payout_account import PayoutAccountBox
from core_server.security.secret_box import SecretBox

# The payment-method vault seals gateway tokens with sealers(settings)["payment-method-token"], the payment
# method id as context (core_server/sealed_columns.py rotates them on that contract).
SEALING_PURPOSES = ("webhook-secret", "idempotent-answer", "payment-method-token", PAYOUT_ACCOUNT_PURPOSE)


def sealers(settings: Settings) -> dict[str, SecretBox]:
    """One SecretBox per sealing purpose, each under the same keyring (scripts/rotate_keys.py uses
    these too, so the core and a rotation always derive alike)."""
    keyring = Keyring(settings.data_encryption_key, settings.data_encryption_keys)
    return {purpose: SecretBox(keyring, purpose) for purpose in SEALING_PURPOSES}


def payout_accounts(settings: Settings) -> PayoutAccountBox:
    """How both repositories that read the payout account number open and seal it (DESIGN §10.9)."""
    return PayoutAccountBox(sealers(settings)[PAYOUT_ACCOUNT_PURPOSE])
