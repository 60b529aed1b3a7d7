{{ config(materialized='table') }}
select
  order_id,
  customer,
  cast(amount as decimal(10, 2)) as amount,
  status,
  cast(updated_at as date) as updated_at
from {{ ref('raw_orders') }}
