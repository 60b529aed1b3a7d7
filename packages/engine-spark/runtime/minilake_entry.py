"""The script MiniLake's Spark engine runs for every task (spark-submit's primary resource, or plain python
for Spark Connect tasks). Everything it does lives in the minilake_runtime package next to it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from minilake_runtime.main import main  # noqa: E402

if __name__ == "__main__":
    main()
