"""Speed and scaling measurements (not tests): run them as ``python -m benchmarks.<name>``."""
