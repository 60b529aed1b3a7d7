{{ config(materialized='incremental', incremental_strategy='merge', unique_key='customer') }}
-- The totals per customer over the orders seen so far; a later run merges changed customers only.
select
  customer,
  sum(amount) as total,
  count(*) as orders,
  max(updated_at) as last_order
from {{ ref('orders') }}
{% if is_incremental() %}
where customer in (
  select customer from {{ ref('orders') }}
  where updated_at > (select max(last_order) from {{ this }})
)
{% endif %}
group by customer
