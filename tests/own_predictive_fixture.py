#!/usr/bin/python3
"""A user's own predictive for the scripted tests, as `correct` reads one:
DIR/ox.csv (two features, the first uniform on [-2, 2]), DIR/op.csv (P: a logistic in
the first feature, steeper than the truth's, so that P is over-confident) and DIR/oy.csv
(labels drawn from the truth's logistic, named NEGATIVE and POSITIVE).

    own_predictive_fixture.py DIR SEED ROWS NEGATIVE POSITIVE
"""
import math
import random
import sys

folder, seed, rows, negative, positive = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
random.seed(seed)
with open(folder + "/ox.csv", "w") as x, open(folder + "/op.csv", "w") as p, open(folder + "/oy.csv", "w") as y:
    for _ in range(rows):
        a = random.uniform(-2, 2)
        p1 = 1 / (1 + math.exp(-3 * a))
        x.write(f"{a},{random.uniform(-1, 1)}\n")
        p.write(f"{1 - p1},{p1}\n")
        y.write((positive if random.random() < 1 / (1 + math.exp(-1.5 * a)) else negative) + "\n")
