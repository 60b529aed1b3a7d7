# Sourced by scripts/test-all.sh and .ci/run: the environment every test tier runs in.
#
# The tests start hundreds of short-lived Spark JVMs (spark-submit, PySpark sessions, Spark Connect servers),
# each on a few rows. C1 alone and the serial collector spend about a third less CPU on them than the JVM's
# defaults (tiered C2 compiler threads, G1's parallel threads) on 2 cores: measured on
# packages/delta/test/dml.test.ts, 98 s → 78 s and 157 s → 110 s. The few long Spark runs pay for it (a
# pipeline test with several updates: 248 s → 292 s), far less than the many short ones gain. Spark's launcher adds SPARK_SUBMIT_OPTS to every driver it
# starts, MiniLake's included (their environment is the server's); nothing else reads it, and what the tests
# check (rows, plans, errors) does not depend on the JIT.
case " ${SPARK_SUBMIT_OPTS:-} " in
  *" -XX:TieredStopAtLevel=1 "*) ;;
  *) export SPARK_SUBMIT_OPTS="${SPARK_SUBMIT_OPTS:+$SPARK_SUBMIT_OPTS }-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" ;;
esac
