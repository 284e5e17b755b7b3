"""Data quality: quarantined input with error codes, files and lines, malformed lines, replayed
matches that are partial or invalid, and matches still waiting for their ``match_end``
(incomplete; events.md "Validation", issue 7 §9)."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, queries
from dashboards.ui import choice, lang, no_data, run, show_chart, show_table, tr

st.title(tr("page_quality"))

totals = run(queries.overview_totals).iloc[0]
if totals["matches"] == 0 and totals["raw_events"] == 0:
    no_data()
    st.stop()

incomplete = run(queries.incomplete_matches)

codes = run(queries.quarantine_by_code)
status = run(queries.status_counts)
counts = dict(zip(status["status"], status["n"], strict=True))
cols = st.columns(5)
cols[0].metric(tr("quarantine"), f"{int(codes['n'].sum()):,}")
cols[1].metric(tr("parse_errors"), f"{int(run(queries.parse_error_count)['n'].iloc[0]):,}")
cols[2].metric(tr("status_partial"), f"{int(counts.get('partial', 0)):,}")
cols[3].metric(tr("status_invalid"), f"{int(counts.get('invalid', 0)):,}")
cols[4].metric(tr("status_incomplete"), f"{len(incomplete):,}")

st.subheader(tr("quarantine"))
if codes.empty:
    no_data("no_data_table")
else:
    show_chart(charts.quarantine_codes(codes, lang()), "quarantine_codes")
    code = choice("code", codes["code"].tolist(), "dq_code")
    show_table(
        run(queries.quarantine_rows, code=code),
        "quarantine",
        column_config={
            "source_file": "file",
            "line_no": "line",
            "code": tr("code"),
        },
    )

st.subheader(tr("problem_matches"))
show_table(run(queries.problem_matches), "problem_matches")

st.subheader(tr("incomplete"))
show_table(incomplete, "incomplete_matches", column_config={"events": tr("rows")})
