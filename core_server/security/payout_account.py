"""The payout account number at rest (DESIGN §10.9): sealed with SecretBox under the purpose
"payout-account", the merchant id as authenticated context, so a sealed number copied onto another
merchant's row does not open there. Both repositories that read it (merchants, ledger) go through here."""

from __future__ import annotations

from core_server.kernel.domain.sealed import Sealed
from core_server.security.secret_box import SecretBox

PURPOSE = "payout-account"


class PayoutAccountBox:
    def __init__(self, box: SecretBox) -> None:
        self._box = box

    def seal(self, merchant_id: str, number: str) -> Sealed | None:
        """None for no account (''), which stays NULL: there is nothing to hide."""
        return self._box.seal(number, merchant_id) if number else None

    def open(self, merchant_id: str, sealed: bytes | None, key_id: str | None, clear: str) -> str:
        """The number from a merchants row: its sealed value, or a clear one not sealed yet (written
        before migration 0023 and not yet reached by `seal_clear_accounts`)."""
        if sealed is None:
            return clear
        return self._box.open(Sealed(key_id, bytes(sealed)), merchant_id)
