-- Asynchronous authorizations (the PayPal pending sandbox account): when the outstanding one falls due.
ALTER TABLE charges ADD COLUMN authorization_due_at timestamptz;
CREATE INDEX charges_authorization_due ON charges (authorization_due_at)
    WHERE status = 'pending' AND authorization_due_at IS NOT NULL;
