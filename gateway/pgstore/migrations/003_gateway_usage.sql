-- Usage metering (gateway/usage) when the keys are in PostgreSQL and no
-- Redis is configured: every replica adds its buffered counts here about
-- once a second, in one statement. Not referenced by gateway_keys: a
-- key's counts outlive it for the retention, as they do in Redis.

-- Requests per key, UTC day, product and status class.
CREATE TABLE gateway_usage (
    key_id  text COLLATE "C" NOT NULL,
    day     date NOT NULL,
    product text NOT NULL,
    class   text NOT NULL CHECK (class IN ('2xx', '3xx', '4xx', '5xx')),
    n       bigint NOT NULL CHECK (n >= 0),
    PRIMARY KEY (key_id, day, product, class)
);

-- Days past the retention are deleted by day.
CREATE INDEX gateway_usage_day ON gateway_usage (day);

-- Each key's last use, to the minute; only ever raised.
CREATE TABLE gateway_usage_last (
    key_id  text COLLATE "C" PRIMARY KEY,
    used_at timestamptz NOT NULL
);
