#!/usr/bin/env python3
"""Where Crate's search time goes: the SQL of the tracks group, and cheaper variants, timed per query class.

  search_sql.py DB QUERIES [--runs N]

DB is a Crate library.sqlite (search.sh runs this on the library it imported), QUERIES one query a line.
The database is copied to a temporary file, where a copy of track_fts is added as track_copy: with an FTS5
prefix index (prefix='2 3') when track_fts has none, without one when it has. Each statement runs every
query once to warm up, then --runs times (default 3); prints a Markdown table of p50 / p99 milliseconds.
Queries are plain words, so each word becomes "word"* as SearchExpression makes it. Uses the system
SQLite through Python's sqlite3 (the library GRDB links).
"""
import argparse
import math
import os
import sqlite3
import tempfile
import time

JOINS = ("track JOIN album ON album.id = track.album_id JOIN artist AS album_artist ON album_artist.id = album.artist_id "
         "LEFT JOIN track_override AS o ON o.track_id = track.id JOIN {t} ON {t}.rowid = track.id")
SQL = {
    "count_join": "SELECT COUNT(*) FROM " + JOINS + " WHERE {t} MATCH ?",
    "page_rank_join": "SELECT track.id FROM " + JOINS + " WHERE {t} MATCH ? ORDER BY {t}.rank, track.id LIMIT 5",
    "count_fts": "SELECT COUNT(*) FROM {t} WHERE {t} MATCH ?",
    "page_rank_fts": "SELECT rowid FROM {t} WHERE {t} MATCH ? ORDER BY rank LIMIT 5",
    "page_rowid": "SELECT rowid FROM {t} WHERE {t} MATCH ? ORDER BY rowid LIMIT 5",
}
LABELS = {
    "joined": "joined COUNT(*) + first 5 by bm25 (the tracks group before 748353a)",
    "count_join": "COUNT(*) over the joined tables",
    "count_fts": "COUNT(*) over the FTS table alone",
    "page_rank_join": "first 5 by bm25, joined",
    "page_rank_fts": "first 5 by bm25, FTS table alone",
    "page_rowid": "first 5 in rowid order, FTS table alone",
    "capped": "FTS COUNT(*), then bm25 if at most 1,000 matches, else rowid order (since 748353a)",
}


def percentile(values, p):
    s = sorted(values)
    return s[max(0, math.ceil(p * len(s) - 1e-9) - 1)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("db")
    p.add_argument("queries")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    queries = [line.strip() for line in open(args.queries, encoding="utf-8") if line.strip()]
    with tempfile.TemporaryDirectory(prefix="crate-search-sql.") as tmp:
        db = os.path.join(tmp, "library.sqlite")
        src = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        dst = sqlite3.connect(db)
        src.backup(dst)
        src.close()
        has_prefix = "prefix" in dst.execute("SELECT sql FROM sqlite_master WHERE name = 'track_fts'").fetchone()[0]
        names = {"track_fts": "track_fts" + (" (prefix '2 3')" if has_prefix else " (no prefix index)"),
                 "track_copy": "copy " + ("without a prefix index" if has_prefix else "with prefix '2 3'")}
        dst.executescript(f"""
            CREATE VIRTUAL TABLE track_copy USING fts5(title, artist, album, source UNINDEXED,
                tokenize = 'unicode61 remove_diacritics 2'{"" if has_prefix else ", prefix = '2 3'"});
            INSERT INTO track_copy (rowid, title, artist, album, source) SELECT rowid, title, artist, album, source FROM track_fts;
            INSERT INTO track_copy (track_copy) VALUES ('optimize');""")
        sizes = dict(dst.execute("SELECT name, SUM(pgsize) FROM dbstat WHERE name IN ('track_fts_data', 'track_copy_data') "
                                 "GROUP BY name").fetchall()) if has_dbstat(dst) else {}
        dst.close()
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        print(f"{len(queries)} queries, {args.runs} runs"
              + (f"; index data: {names['track_fts']} {sizes.get('track_fts_data', 0) / 2**20:.1f} MiB, "
                 f"{names['track_copy']} {sizes.get('track_copy_data', 0) / 2**20:.1f} MiB" if sizes else ""))
        print()
        print("| statement | FTS table | 1 word p50 / p99 ms | 2 words | 3 words |")
        print("|---|---|---:|---:|---:|")
        for table in ("track_fts", "track_copy"):
            sql = {k: v.format(t=table) for k, v in SQL.items()}

            def run_sql(name):
                return lambda e: con.execute(sql[name], (e,)).fetchall()

            def joined(e):
                con.execute(sql["count_join"], (e,)).fetchall()
                con.execute(sql["page_rank_join"], (e,)).fetchall()

            def capped(e):
                n = con.execute(sql["count_fts"], (e,)).fetchone()[0]
                con.execute(sql["page_rank_fts" if n <= 1000 else "page_rowid"], (e,)).fetchall()
            runs = {"joined": joined, **{k: run_sql(k) for k in SQL}, "capped": capped}
            for name, run in runs.items():
                times = {}
                for q in queries:
                    run(" AND ".join(f'"{w}"*' for w in q.split()))
                for _ in range(args.runs):
                    for q in queries:
                        e = " AND ".join(f'"{w}"*' for w in q.split())
                        t = time.perf_counter()
                        run(e)
                        times.setdefault(len(q.split()), []).append((time.perf_counter() - t) * 1000)
                cells = [f"{percentile(times[n], .5):.2f} / {percentile(times[n], .99):.2f}" if n in times else "-"
                         for n in (1, 2, 3)]
                print(f"| {LABELS[name]} | {names[table]} | " + " | ".join(cells) + " |")


def has_dbstat(con):
    try:
        con.execute("SELECT 1 FROM dbstat LIMIT 1")
        return True
    except sqlite3.Error:
        return False


if __name__ == "__main__":
    main()
