import os

CHECK_ROUTING = os.environ.get("ENGINE_CHECK_ROUTING", "0") == "1"
