# SPDX-License-Identifier: GPL-2.0
"""make mutate's parts that outgrew mutate.py.

verdicts: the committed verdict table (kunit/mutate-verdicts.tsv) and the
content key each verdict is kept under.
"""
