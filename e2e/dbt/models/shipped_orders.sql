{{ config(materialized='view') }}
select order_id, customer, amount
from {{ ref('orders') }}
where status = 'shipped'
