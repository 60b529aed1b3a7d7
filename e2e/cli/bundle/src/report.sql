SELECT 40 + 2 AS answer
