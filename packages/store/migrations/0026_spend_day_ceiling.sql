-- S-144: replicas set to different DAILY_SPEND_CEILING_USD each booked against their own, so the fleet could
-- spend up to the highest. The day's row keeps the lowest ceiling any replica has declared when it booked or read
-- the day, and every reservation is checked against it. Null on rows from before (their replicas' own applied).
alter table spend_day add column ceiling_nano bigint check (ceiling_nano > 0);
