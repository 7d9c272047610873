-- Containers are listed in creation order. Their numbers no longer give
-- it: a spare items table (migration 0016) carries a number drawn when the
-- spare was made, so a container created later may have a lower number.
-- Existing rows are numbered in their current order.
ALTER TABLE cosmos.containers ADD COLUMN IF NOT EXISTS created bigserial;
