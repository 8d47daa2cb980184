"""ktap - the KTAP lines of the host tests written in Python (one helper).

    from ktap import Ktap
    k = Ktap()
    k.result(ok, "what was checked", "why it failed")
    sys.exit(k.finish())
"""


class Ktap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, name, why=""):
        """One "ok N NAME" or "not ok N NAME" line; WHY's first lines as
        diagnostics after a failure."""
        self.n += 1
        print("%sok %d %s" % ("" if ok else "not ", self.n, name))
        if not ok:
            self.failed += 1
            for line in str(why).splitlines()[:20]:
                print("# " + line)

    def finish(self):
        """The plan line; the exit status (1 when anything failed)."""
        print("1..%d" % self.n)
        return 1 if self.failed else 0
