"""The event types the subscription aggregate emits (spec: Events), in a module of their own because the
billing run, storage and the benchmark name them too and need none of the aggregate to do so."""

from __future__ import annotations

SUBSCRIPTION_CREATED = "subscription.created"
SUBSCRIPTION_UPDATED = "subscription.updated"
SUBSCRIPTION_CANCELED = "subscription.canceled"
ITEM_CREATED = "subscription_item.created"
ITEM_UPDATED = "subscription_item.updated"
ITEM_DELETED = "subscription_item.deleted"
INVOICE_CREATED = "invoice.created"
INVOICE_PAID = "invoice.paid"
INVOICE_PAYMENT_FAILED = "invoice.payment_failed"
INVOICE_VOIDED = "invoice.voided"
INVOICE_UPCOMING = "invoice.upcoming"
TRIAL_WILL_END = "subscription.trial_will_end"
