#!/usr/bin/python3
"""test_bad_input - the guest driver's zoneinfo rule, checked on the host.

tests/guest/bad_input.py compares /proc/zoneinfo before and after each
rejected write.  It must tolerate only what -1 itself does (first use
0 -> 4 * batch, decay toward it) and fail on anything a wrongly applied
write would do.  Exit 0 when it does, 1 (naming the case) otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "guest"))
from bad_input import zoneinfo_same as same  # noqa: E402


def z(high, batch=63):
    return [("Normal", 0, high, batch)]


OK = [(z(252), z(252)), (z(0), z(252)), (z(1000), z(600)), (z(1000), z(252))]
BAD = [(z(252), z(300)), (z(600), z(1000)), (z(1000), z(200)), (z(252), z(0)),
       (z(0), z(100)), (z(252), z(252, 31)), (z(252), z(252) * 2)]


def main():
    errs = [("tolerated", a, b) for a, b in BAD if same(a, b)]
    errs += [("refused", a, b) for a, b in OK if not same(a, b)]
    for e in errs:
        print("%s: %r -> %r" % e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
