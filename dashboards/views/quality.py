"""Data quality: quarantined input with error codes, files and lines, malformed lines, replayed
matches that are partial or invalid, matches repeating another's deals under a new id, inbox
files that need attention, revisions superseded by a correction, and matches still waiting for
their ``match_end`` with their age (incomplete; events.md "Validation")."""

from __future__ import annotations

import streamlit as st

from dashboards import charts
from dashboards.i18n import LABELS
from dashboards.naming import end_reason_name, error_name, ruleset_name
from dashboards.queries.overview import overview_totals, status_counts
from dashboards.queries.quality import (
    duplicate_matches,
    file_problems,
    incomplete_matches,
    parse_error_count,
    problem_matches,
    quarantine_by_code,
    quarantine_rows,
    submissions,
    superseded_revisions,
)
from dashboards.ui import choice, lang, no_data, run, show_chart, show_table, tr

st.title(tr("page_quality"))

totals = run(overview_totals).iloc[0]
if totals["matches"] == 0 and totals["raw_events"] == 0:
    no_data()
    st.stop()

incomplete = run(incomplete_matches)

codes = run(quarantine_by_code)
status = run(status_counts)
counts = dict(zip(status["status"], status["n"], strict=True))
cols = st.columns(5)
cols[0].metric(tr("quarantine"), f"{int(codes['n'].sum()):,}")
cols[1].metric(tr("parse_errors"), f"{int(run(parse_error_count)['n'].iloc[0]):,}")
cols[2].metric(tr("status_partial"), f"{int(counts.get('partial', 0)):,}")
cols[3].metric(tr("status_invalid"), f"{int(counts.get('invalid', 0)):,}")
cols[4].metric(tr("status_incomplete"), f"{len(incomplete):,}")

st.subheader(tr("quarantine"))
if codes.empty:
    st.success(tr("nothing_quarantined"), icon=":material/check_circle:")
else:
    show_chart(charts.quarantine_codes(codes, lang()), "quarantine_codes")
    language = lang()
    code = choice("code", codes["code"].tolist(), "dq_code", name=lambda c: error_name(c, language))
    rows = run(quarantine_rows, code=code)
    show_table(
        rows.assign(code=[error_name(c, lang()) for c in rows["code"]]),
        "quarantine",
        column_config={"source_file": tr("source_file"), "match_id": tr("match_id"), "code": tr("code")},
    )

st.subheader(tr("problem_matches"))
problems = run(problem_matches)
show_table(
    problems.assign(
        status=[tr(f"status_{s}") if f"status_{s}" in LABELS else s for s in problems["status"]],
        end_reason=[end_reason_name(r, lang()) for r in problems["end_reason"]],
        rules=[ruleset_name(r, lang()) for r in problems["rules"]],
        error_code=[error_name(c, lang()) if isinstance(c, str) else c for c in problems["error_code"]],
    ),
    "problem_matches",
    column_config={"match_id": tr("match_id"), "rules": tr("ruleset")},
)

st.subheader(tr("duplicate_matches"))
duplicates = run(duplicate_matches)
if duplicates.empty:
    st.success(tr("no_duplicates"), icon=":material/check_circle:")
else:
    show_table(
        duplicates.assign(
            excluded=[tr("yes") if e else tr("no") for e in duplicates["excluded"]],
            reason=[
                tr("duplicate_all" if e else "duplicate_some").format(n=int(n), m=int(m), of=of)
                for n, m, of, e in zip(
                    duplicates["deals"],
                    duplicates["match_deals"],
                    duplicates["duplicate_of"],
                    duplicates["excluded"],
                    strict=True,
                )
            ],
        ),
        "duplicate_matches",
        column_config={
            "match_id": tr("choose_match"),
            "duplicate_of": tr("duplicate_of"),
            "deals": tr("repeated_deals"),
            "match_deals": tr("compared_deals"),
            "excluded": tr("excluded"),
            "reason": tr("reason"),
        },
    )

st.subheader(tr("file_problems"))
files = run(file_problems)
if files.empty:
    st.success(tr("no_file_problems"), icon=":material/check_circle:")
else:
    show_table(
        files.assign(
            problem=[tr(f"problem_{p}") if f"problem_{p}" in LABELS else p for p in files["problem"]]
        ),
        "file_problems",
        column_config={
            "source_file": tr("source_file"),
            "problem": tr("problem"),
            "message": tr("message"),
            "rows": tr("rows"),
            "malformed": tr("parse_errors"),
            "pending_bytes": tr("pending_bytes"),
            "ingested_at": tr("last_ingested_at"),
        },
    )

st.subheader(tr("superseded"), help=tr("superseded_help"))
superseded = run(superseded_revisions)
if superseded.empty:
    st.success(tr("no_superseded"), icon=":material/check_circle:")
else:
    show_table(
        superseded,
        "superseded",
        column_config={
            "match_id": tr("choose_match"),
            "revision": tr("revision"),
            "superseded_by": tr("superseded_by"),
            "source_files": tr("source_files"),
            "ingested_at": tr("ingested_at"),
            "events": tr("rows"),
        },
    )

st.subheader(tr("audit_submissions"), help=tr("audit_submissions_help"))
entered = run(submissions)
if entered.empty:
    st.caption(tr("audit_none"))
else:
    show_table(
        entered,
        "submissions",
        column_config={
            "entered_at": st.column_config.DatetimeColumn(tr("audit_entered_at"), timezone="UTC"),
            "event_id": tr("event"),
            "round": tr("round"),
            "table": tr("table"),
            "match_id": tr("choose_match"),
            "revision": tr("revision"),
            "entered_by": tr("audit_entered_by_column"),
            "entered_via": tr("audit_entered_via"),
            "replaces_revision": tr("audit_replaces_column"),
            "source_file": tr("source_file"),
        },
    )

st.subheader(tr("incomplete"))
show_table(
    incomplete,
    "incomplete_matches",
    column_config={
        "match_id": tr("choose_match"),
        "started": tr("started_local"),
        "first_ingested_at": tr("first_ingested_local"),
        "last_ingested_at": tr("last_ingested_local"),
        "events": tr("rows"),
        "age_hours": st.column_config.NumberColumn(tr("age_hours"), format="%.1f"),
    },
)
