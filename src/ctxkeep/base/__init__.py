"""The bottom layer: what every other part of ctxkeep may use, and which uses none of them.

``messages`` (what a chat message means in each API dialect), ``tokens`` (token counts and
their bounds), ``findings`` (the finding type and its fingerprint), ``paths`` (the one
place that knows ``CTXKEEP_HOME``, the harness folders, the path walker and the
appenders), ``secrets`` (secrets masked in every output), ``user_regex`` (users' regexes
run on RE2) and ``_gc`` (the cyclic-GC pause around large reads). Nothing here imports
from the rest of the package; ``tests/test_layers.py`` checks it against the layer table of
docs/design.md.
"""
