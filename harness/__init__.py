"""The test harness: real Redis and server processes, seat drivers, random play, corpora and
fixtures that the test suite, the benchmarks (``bench/``) and the web client's fixture tools
(``web-client/tools/``) share. Never imported by production code (``tests/unit/test_tiers.py``).
"""
