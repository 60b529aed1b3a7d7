CREATE TABLE sales (id INT, region STRING, customer STRING, amount DECIMAL(10,2), sale_date DATE, tags ARRAY<STRING>, payload STRING) USING DELTA;
INSERT INTO sales VALUES
  (1, 'US', 'ana1', 10.50, DATE '2024-01-15', array('x', 'y'), '{"user":{"name":"ana","age":31}}'),
  (2, 'EU', 'bob22', 8.00, DATE '2024-02-20', array('y', 'x', 'y'), '{"user":{"name":"bob","age":42}}'),
  (3, 'US', NULL, 20.00, DATE '2024-03-05', array(), '{"user":{"name":"cy"}}'),
  (4, 'EU', 'dan4', 3.25, DATE '2024-03-31', array('z'), NULL);
CREATE TABLE employees (id INT, name STRING, dept STRING, salary INT, manager_id INT, hired DATE) USING DELTA;
INSERT INTO employees VALUES
  (1, 'Alice', 'eng', 120, NULL, DATE '2020-01-10'),
  (2, 'Bob', 'eng', 100, 1, DATE '2021-05-01'),
  (3, 'Carol', 'sales', 90, 1, DATE '2019-07-15'),
  (4, 'Dave', 'sales', 85, 3, DATE '2022-02-28'),
  (5, 'Eve', 'hr', 70, 1, DATE '2023-11-30');
