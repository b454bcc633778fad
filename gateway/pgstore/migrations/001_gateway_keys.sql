-- The gateway's API keys: a SHA-256 hash of each key, never the key.
CREATE TABLE gateway_keys (
    -- "C" collation: ids sort and compare by bytes, as the keys file's do.
    id         text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    hash       text NOT NULL UNIQUE CHECK (hash ~ '^sha256:[0-9a-f]{64}$'),
    products   jsonb NOT NULL CHECK (jsonb_typeof(products) = 'object'),
    disabled   boolean NOT NULL DEFAULT false,
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every change, however made (the gateway, psql), tells the listening
-- gateways to reload; notifications of one transaction arrive as one.
CREATE FUNCTION gateway_keys_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_TABLE_SCHEMA || '.gateway_keys', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER gateway_keys_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON gateway_keys
    FOR EACH STATEMENT EXECUTE FUNCTION gateway_keys_notify();
