#!/usr/bin/env python3
"""Turns a table's `SHOW CREATE TABLE DATABASE.TABLE` answer (TabSeparated, on stdin) into the
`ATTACH` statement ClickHouse keeps in metadata/DATABASE/TABLE.sql, on stdout.

scripts/cluster.sh uses it to give a replica whose data folder was lost its tables' definitions
back from a twin (`start-replica` after `wipe-replica`). The {shard} and {replica} macros stay as
they are: each server expands them itself.

    python3 scripts/attach-definition.py DATABASE TABLE < show-create.tsv > TABLE.sql
"""
import sys


def unescape(field):
    """A TabSeparated field's text: \\n, \\t, \\', \\\\ and the like read back."""
    escapes = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "'": "'", "\\": "\\", "b": "\b", "f": "\f"}
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 1 < len(field):
            out.append(escapes.get(field[i + 1], field[i + 1]))
            i += 2
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def main():
    database, table = sys.argv[1], sys.argv[2]
    text = unescape(sys.stdin.read().rstrip("\n"))
    for kind in ("CREATE TABLE ", "CREATE MATERIALIZED VIEW ", "CREATE VIEW "):
        name = kind + database + "." + table
        if text.startswith(name):
            sys.stdout.write(kind.replace("CREATE", "ATTACH") + table + text[len(name):] + "\n")
            return
    sys.exit("attach-definition.py: not a CREATE statement of %s.%s" % (database, table))


if __name__ == "__main__":
    main()
