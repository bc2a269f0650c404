"""Every column that holds a value sealed with SecretBox, for scripts/rotate_keys.py.

A new sealed column is one more SealedColumn here: its purpose (the SecretBox derivation of
sealing.sealers), the statement that reads a batch of rows not yet under the current key, the
compare-and-set statement that writes one re-sealed row, and how a row's authenticated context is formed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core_server.kernel.application.idempotency import answer_context
from core_server.kernel.application.ports import IdempotencyRequest

Row = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SealedColumn:
    """`select_batch` takes %(k1)s/%(k2)s (the cursor: the last row's keys, '' to start), %(current)s
    (the current key id), %(blob_prefix)s (a blob under the current key starts with it) and %(limit)s, and
    returns k1, k2, sealed, key_id in cursor order. `update` takes k1, k2, old, new, key_id and changes
    the row only while it still holds `old`, so a concurrent write or rotation is never overwritten.
    `in_blob`: the key id travels inside the sealed value (SecretBox.seal_blob), not in a column."""

    name: str
    purpose: str
    select_batch: str
    update: str
    context: Callable[[Row], str]
    in_blob: bool = False


# Webhook signing secrets, sealed with the endpoint id as context (webhooks/application/webhooks.py).
WEBHOOK_SECRETS_BATCH = """
SELECT id AS k1, '' AS k2, secret_sealed AS sealed, secret_key_id AS key_id
  FROM webhook_endpoints
 WHERE id > %(k1)s AND secret_key_id IS DISTINCT FROM %(current)s
 ORDER BY id
 LIMIT %(limit)s
"""
WEBHOOK_SECRET_SWAP = """
UPDATE webhook_endpoints SET secret_sealed = %(new)s, secret_key_id = %(key_id)s
 WHERE id = %(k1)s AND secret_sealed = %(old)s
"""

# Stored answers sealed by the idempotency runner (kernel/application/idempotency.py): API key creations
# in the dashboard scope, portal sessions in the merchant's API scope. Any scope: they are told apart by
# their first byte (1 or 2, SecretBox's versions; a protobuf answer never starts so, field number 0 being
# invalid). Under the current key they start with
# %(blob_prefix)s.
IDEMPOTENT_ANSWERS_BATCH = """
SELECT scope AS k1, key AS k2, response AS sealed, NULL::text AS key_id
  FROM idempotency_keys
 WHERE (scope, key) > (%(k1)s, %(k2)s)
   AND state = 'completed'
   AND substring(response FROM 1 FOR 1) IN ('\\x01'::bytea, '\\x02'::bytea)
   AND substring(response FROM 1 FOR 9) <> %(blob_prefix)s
 ORDER BY scope, key
 LIMIT %(limit)s
"""
IDEMPOTENT_ANSWER_SWAP = """
UPDATE idempotency_keys SET response = %(new)s
 WHERE scope = %(k1)s AND key = %(k2)s AND response = %(old)s
"""


# Gateway tokens of the payment-method vault (migration 0008), sealed under the purpose
# "payment-method-token" with the payment method id as context.
PAYMENT_METHOD_TOKENS_BATCH = """
SELECT id AS k1, '' AS k2, token_sealed AS sealed, key_id
  FROM payment_methods
 WHERE id > %(k1)s AND key_id IS DISTINCT FROM %(current)s
 ORDER BY id
 LIMIT %(limit)s
"""
PAYMENT_METHOD_TOKEN_SWAP = """
UPDATE payment_methods SET token_sealed = %(new)s, key_id = %(key_id)s
 WHERE id = %(k1)s AND token_sealed = %(old)s
"""


# Payout account numbers (migration 0023), sealed under "payout-account" with the merchant id as context.
PAYOUT_ACCOUNTS_BATCH = """
SELECT id AS k1, '' AS k2, payout_account_sealed AS sealed, payout_account_key_id AS key_id
  FROM merchants
 WHERE id > %(k1)s AND payout_account_sealed IS NOT NULL
   AND payout_account_key_id IS DISTINCT FROM %(current)s
 ORDER BY id
 LIMIT %(limit)s
"""
PAYOUT_ACCOUNT_SWAP = """
UPDATE merchants SET payout_account_sealed = %(new)s, payout_account_key_id = %(key_id)s
 WHERE id = %(k1)s AND payout_account_sealed = %(old)s
"""


def _answer_context(row: Row) -> str:
    return answer_context(IdempotencyRequest(scope=row["k1"], key=row["k2"], fingerprint=""))


SEALED_COLUMNS: tuple[SealedColumn, ...] = (
    SealedColumn(
        "webhook_endpoints.secret_sealed",
        "webhook-secret",
        WEBHOOK_SECRETS_BATCH,
        WEBHOOK_SECRET_SWAP,
        lambda row: str(row["k1"]),
    ),
    SealedColumn(
        "idempotency_keys.response",
        "idempotent-answer",
        IDEMPOTENT_ANSWERS_BATCH,
        IDEMPOTENT_ANSWER_SWAP,
        _answer_context,
        in_blob=True,
    ),
    SealedColumn(
        "payment_methods.token_sealed",
        "payment-method-token",
        PAYMENT_METHOD_TOKENS_BATCH,
        PAYMENT_METHOD_TOKEN_SWAP,
        lambda row: str(row["k1"]),
    ),
    SealedColumn(
        "merchants.payout_account_sealed",
        "payout-account",
        PAYOUT_ACCOUNTS_BATCH,
        PAYOUT_ACCOUNT_SWAP,
        lambda row: str(row["k1"]),
    ),
)
