import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tools_fixtures import api, cli, server, terraform_factory, w  # noqa: E402,F401  (pytest fixtures)
