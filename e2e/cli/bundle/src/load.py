import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
rows = spark.range(3).count()
print(f"loaded {rows} rows, greeting={sys.argv[1] if len(sys.argv) > 1 else ''}")
