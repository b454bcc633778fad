-- A row whose products are not an object of product name to plan name
-- (a plan that is a number, an empty name, no product at all) cannot be
-- a key: the gateway skips it at load and logs it. Refuse such rows when
-- they are written instead. NOT VALID: rows already in the table are not
-- checked, so that this migration never fails on them (the gateway still
-- skips and logs them); every insert and update is.
ALTER TABLE gateway_keys ADD CONSTRAINT gateway_keys_products_plans CHECK (
    products <> '{}'::jsonb
    AND NOT jsonb_path_exists(products, '$.* ? (@.type() != "string" || @ like_regex "^\\s*$")')
    AND NOT jsonb_path_exists(products, '$.keyvalue() ? (@.key like_regex "^\\s*$")')
) NOT VALID;
