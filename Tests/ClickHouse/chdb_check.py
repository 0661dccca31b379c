#!/usr/bin/env python3
"""Runs SQL statements on chDB (the current ClickHouse release, in-process) and fails on any error.

Usage: chdb_check.py STATEMENTS.json

STATEMENTS.json is a JSON array of {"label": "...", "sql": "..."} objects (or of plain strings),
an object may also give "expect", the TSV text the statement must return, and "data", the rows
(base64) of an `INSERT … FORMAT RowBinary`, which it reads `FROM INFILE` (a file of those bytes),
and "external", a table of rows the statement reads by name ({"name", "structure", "data": base64
RowBinary}; ClickHouse's external data, made here as a Memory table for that one statement). They are run in order in
one chDB session: first the schema (local tables only: a single in-process node
has no cluster for Distributed tables), then every report query against those tables. Prints one
line per statement with the rows it returned; exits 1 naming every statement that failed (or
returned other rows than expected), 2 when
chDB is not installed or the file cannot be read. The Swift ClickHouse tests write the file from
the store's SQL and call this script, proving that the SQL the store sends to ClickHouse 18.16
also runs on a current release.
"""
import base64
import json
import os
import sys
import tempfile


def main(arguments):
    if len(arguments) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(arguments[1], encoding="utf-8") as handle:
            entries = json.load(handle)
    except (OSError, ValueError) as error:
        print(f"chdb_check: cannot read {arguments[1]}: {error}", file=sys.stderr)
        return 2
    if not isinstance(entries, list) or not entries:
        print("chdb_check: expected a non-empty JSON array of statements", file=sys.stderr)
        return 2
    try:
        from chdb import session
    except ImportError as error:
        print(f"chdb_check: chDB is not installed ({error}); make test-deps installs it", file=sys.stderr)
        return 2

    failures = []
    with tempfile.TemporaryDirectory(prefix="footprint-chdb-") as folder:
        connection = session.Session(folder)
        version = connection.query("SELECT version()", "TSV").bytes().decode().strip()
        print(f"chDB {version}: {len(entries)} statements")
        for number, entry in enumerate(entries, start=1):
            expected = None
            if isinstance(entry, str):
                label, sql = f"statement {number}", entry
            else:
                label, sql = entry.get("label", f"statement {number}"), entry.get("sql", "")
                expected = entry.get("expect")
                if "data" in entry:
                    path = os.path.join(folder, f"rows-{number}.bin")
                    with open(path, "wb") as rows:
                        rows.write(base64.b64decode(entry["data"]))
                    sql = sql.replace(" FORMAT RowBinary", f" FROM INFILE '{path}' FORMAT RowBinary", 1)
            # The tables of rows a read is sent along.
            tables = entry.get("external", []) if isinstance(entry, dict) else []
            try:
                for index, table in enumerate(tables):
                    path = os.path.join(folder, f"external-{number}-{index}.bin")
                    with open(path, "wb") as rows:
                        rows.write(base64.b64decode(table["data"]))
                    connection.query(f"CREATE TABLE {table['name']} ({table['structure']}) ENGINE = Memory")
                    connection.query(f"INSERT INTO {table['name']} FROM INFILE '{path}' FORMAT RowBinary")
                text = connection.query(sql, "TSV").bytes().decode(errors="replace")
                if expected is not None and text.strip() != expected.strip():
                    print(f"FAIL  {label}: returned {text.strip()[:300]!r}, expected {expected.strip()[:300]!r}")
                    failures.append(label)
                    continue
                print(f"ok    {label} ({text.count(chr(10))} rows)")
            except Exception as error:  # chDB raises its own error type for every server error
                message = " ".join(str(error).split())[:600]
                print(f"FAIL  {label}: {message}")
                failures.append(label)
            finally:
                for table in tables:
                    connection.query(f"DROP TABLE IF EXISTS {table['name']}")
        connection.close()
    if failures:
        print(f"chdb_check: {len(failures)} of {len(entries)} statements failed: {', '.join(failures)}")
        return 1
    print(f"chdb_check: all {len(entries)} statements ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
