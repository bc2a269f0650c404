-- Invoice charges (DESIGN §9): each payment attempt of an invoice is a charge that names its invoice and
-- attempt number. The unique index makes "one charge per (invoice, attempt)" hold against retries, crashes
-- and two cores attempting at once; checkout charges (both NULL) are outside it.
ALTER TABLE charges
    ADD COLUMN invoice_id      text,
    ADD COLUMN invoice_attempt integer,
    ADD CONSTRAINT charges_invoice_attempt_pair CHECK ((invoice_id IS NULL) = (invoice_attempt IS NULL));
CREATE UNIQUE INDEX charges_invoice_attempt ON charges (invoice_id, invoice_attempt) WHERE invoice_id IS NOT NULL;
