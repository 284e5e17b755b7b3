"""Arrow schemas of every table the store holds, versioned.

These schemas are the contract between the replayer (which produces the derived tables),
the pipeline (which writes them as Parquet), scoring/ratings/dan, the dashboards and the
notebooks. Bump ``TABLES_VERSION`` on any change; ``tests/test_schemas.py`` keeps the
documentation in README.md and the producing code in step with this module.
"""

from __future__ import annotations

import pyarrow as pa

from schemas.vocabulary import SEATS

TABLES_VERSION = 15

_TS = pa.timestamp("us", tz="UTC")

RAW_EVENTS = pa.schema(
    [
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("line_no", pa.int64(), nullable=False),
        pa.field("match_id", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("type", pa.string()),
        pa.field("payload", pa.string(), nullable=False),
        pa.field("content_hash", pa.string(), nullable=False),
        pa.field("parse_error", pa.string()),
        pa.field("ingested_at", _TS, nullable=False),
        pa.field("revision", pa.int32()),
    ],
    metadata={"doc": "every input line exactly as received; malformed lines carry parse_error; revision: "
                     "the correction the line belongs to (match_start.revision of its file, 1 when absent)"},
)

MATCHES = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("event_id", pa.string()),
        pa.field("event_name", pa.string()),
        pa.field("stage", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("table", pa.string()),
        pa.field("rules", pa.string()),
        pa.field("format_kind", pa.string()),
        pa.field("format_deals", pa.int32()),
        pa.field("format_minutes", pa.int32()),
        *(pa.field(f"player_{s}", pa.string()) for s in SEATS),
        pa.field("duplicate_board", pa.string()),
        pa.field("duplicate_room", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        pa.field("revision", pa.int32()),
        pa.field("known_seats", pa.list_(pa.string())),
        pa.field("error_seq", pa.int64()),
        pa.field("error_code", pa.string()),
        pa.field("error_message", pa.string()),
        pa.field("deals_played", pa.int32()),
        pa.field("start_level_EW", pa.string()),
        pa.field("start_level_NS", pa.string()),
        pa.field("final_level_EW", pa.string()),
        pa.field("final_level_NS", pa.string()),
        pa.field("passed_a", pa.string()),
        pa.field("a_failures_EW", pa.int32()),
        pa.field("a_failures_NS", pa.int32()),
        pa.field("winner", pa.string()),
        pa.field("end_reason", pa.string()),
        pa.field("started_at", _TS),
        pa.field("utc_offset_min", pa.int16()),
        pa.field("ended_at", _TS),
        pa.field("duration_s", pa.float64()),
        pa.field("n_events", pa.int64()),
    ],
    metadata={"doc": "one row per match; status valid|partial|invalid; times in UTC, utc_offset_min: the "
                     "UTC offset of match_start's t in minutes, the match's local time (schemas/times.py)"},
)

DEALS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("rules", pa.string()),
        pa.field("level", pa.string()),
        pa.field("declarers", pa.string()),
        pa.field("level_EW_before", pa.string()),
        pa.field("level_NS_before", pa.string()),
        pa.field("level_EW_after", pa.string()),
        pa.field("level_NS_after", pa.string()),
        pa.field("tribute_kind", pa.string()),
        pa.field("leader", pa.string()),
        pa.field("finish_order", pa.list_(pa.string())),
        pa.field("winning_team", pa.string()),
        pa.field("level_gain", pa.int8()),
        pa.field("double_win", pa.bool_()),
        pa.field("a_attempt", pa.bool_()),
        pa.field("a_passed", pa.bool_()),
        pa.field("a_failed", pa.bool_()),
        pa.field("foul", pa.bool_()),
        pa.field("extra_deal", pa.bool_()),
        pa.field("tricks", pa.int32()),
        pa.field("jie_feng", pa.int32()),
        pa.field("bombs_EW", pa.int32()),
        pa.field("bombs_NS", pa.int32()),
        pa.field("plays", pa.int32()),
        pa.field("passes", pa.int32()),
        pa.field("started_at", _TS),
        pa.field("ended_at", _TS),
    ],
    metadata={"doc": "one row per deal of a valid or partial match"},
)

DEAL_HANDS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        pa.field("team", pa.string()),
        pa.field("hand", pa.list_(pa.string())),
        pa.field("jokers", pa.int8()),
        pa.field("big_jokers", pa.int8()),
        pa.field("wilds", pa.int8()),
        pa.field("level_cards", pa.int8()),
        pa.field("natural_bombs", pa.int8()),
        pa.field("straight_flush_chances", pa.int8()),
        pa.field("finish_position", pa.int8()),
        pa.field("bombs_played", pa.int8()),
    ],
    metadata={"doc": "one row per seat per deal: starting-hand features (hand after tribute/return is not "
                     "stored; features describe the dealt hand); null features when the hand is unknown"},
)

PLAYS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("trick_no", pa.int32(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("pos_in_trick", pa.int16(), nullable=False),
        pa.field("is_lead", pa.bool_(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        pa.field("team", pa.string()),
        pa.field("action", pa.string(), nullable=False),
        pa.field("cards", pa.list_(pa.string())),
        pa.field("combo_type", pa.string()),
        pa.field("combo_rank", pa.string()),
        pa.field("combo_size", pa.int16()),
        pa.field("bomb_class", pa.string()),
        pa.field("wilds_used", pa.int8()),
        pa.field("reading_inferred", pa.bool_()),
        pa.field("table_combo_type", pa.string()),
        pa.field("table_combo_rank", pa.string()),
        pa.field("table_seat", pa.string()),
        *(pa.field(f"left_{s}", pa.int8()) for s in SEATS),
        pa.field("left_after", pa.int8()),
        pa.field("opp_min_left", pa.int8()),
        pa.field("overtook_partner", pa.bool_()),
        pa.field("could_beat", pa.bool_()),
        pa.field("went_out", pa.bool_()),
        pa.field("t", _TS),
    ],
    metadata={"doc": "one row per play or pass; left_X = cards held before this action; "
                     "bomb_class in bomb4|bomb5|straight_flush|bomb6plus|joker_bomb; "
                     "could_beat only for passes with a known hand"},
)

TRIBUTES = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("giver", pa.string()),
        pa.field("receiver", pa.string()),
        pa.field("giver_player", pa.string()),
        pa.field("receiver_player", pa.string()),
        pa.field("card", pa.string()),
        pa.field("return_card", pa.string()),
        pa.field("equal_double", pa.bool_()),
        pa.field("anti_seats", pa.list_(pa.string())),
        pa.field("level", pa.string()),
    ],
    metadata={"doc": "one row per tribute paid (kind single|double) or per resisted tribute "
                     "(kind anti: giver is the would-be tributer, card and return null)"},
)

PLAYER_MATCHES = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("team", pa.string(), nullable=False),
        pa.field("partner_id", pa.string()),
        pa.field("opponent_ids", pa.list_(pa.string())),
        pa.field("event_id", pa.string()),
        pa.field("round", pa.int32()),
        pa.field("rules", pa.string()),
        pa.field("status", pa.string()),
        pa.field("result", pa.string()),
        pa.field("final_level", pa.string()),
        pa.field("opp_final_level", pa.string()),
        pa.field("levels_gained", pa.int32()),
        pa.field("deals_played", pa.int32()),
        pa.field("deals_won", pa.int32()),
        pa.field("first_places", pa.int32()),
        pa.field("second_places", pa.int32()),
        pa.field("third_places", pa.int32()),
        pa.field("fourth_places", pa.int32()),
        pa.field("a_failures", pa.int32()),
        pa.field("started_at", _TS),
    ],
    metadata={"doc": "one row per player per valid or partial match; result win|draw|loss"},
)

RULINGS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("deal_no", pa.int32()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("seat", pa.string()),
        pa.field("team", pa.string()),
        pa.field("player_id", pa.string()),
        pa.field("level_points", pa.float64()),
        pa.field("match_points", pa.float64()),
        pa.field("level_EW", pa.string()),
        pa.field("level_NS", pa.string()),
        pa.field("note", pa.string()),
        pa.field("t", _TS),
    ],
    metadata={"doc": "one row per referee ruling of a valid or partial match (events.md ruling): kind "
                     "warning|violation|foul|yellow_card|red_card|deduction|level_adjust|forfeit_match|"
                     "rank_last (the seat ranked last in its deal); "
                     "team = the team ruled against (the seat's team when a seat is named); deduction "
                     "points as given (negative = taken off); level_EW/NS = levels set by level_adjust"},
)

QUARANTINE = pa.schema(
    [
        pa.field("source_file", pa.string()),
        pa.field("line_no", pa.int64()),
        pa.field("match_id", pa.string()),
        pa.field("seq", pa.int64()),
        pa.field("code", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("payload", pa.string()),
    ],
    metadata={"doc": "invalid or malformed input: one row per malformed line and one per invalid "
                     "match (at its first offending event)"},
)

DERIVED: dict[str, pa.Schema] = {
    "matches": MATCHES,
    "deals": DEALS,
    "deal_hands": DEAL_HANDS,
    "plays": PLAYS,
    "tributes": TRIBUTES,
    "player_matches": PLAYER_MATCHES,
    "rulings": RULINGS,
    "quarantine": QUARANTINE,
}
"""The tables ``replay.replay_batch`` returns, by name."""

PLAY_REVIEWS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        pa.field("team", pa.string(), nullable=False),
        pa.field("action", pa.string(), nullable=False),
        pa.field("cards", pa.list_(pa.string())),
        pa.field("cards_left", pa.int16(), nullable=False),
        *(pa.field(f"left_{s}", pa.int8(), nullable=False) for s in SEATS),
        pa.field("value_before", pa.int8(), nullable=False),
        pa.field("best_value", pa.int8(), nullable=False),
        pa.field("value_after", pa.int8(), nullable=False),
        pa.field("loss", pa.int8(), nullable=False),
        pa.field("best_moves", pa.string(), nullable=False),
        pa.field("nodes", pa.int64(), nullable=False),
        pa.field("hand", pa.list_(pa.string()), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("choice", pa.string(), nullable=False),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("win_best", pa.float32()),
        pa.field("win_after", pa.float32()),
        pa.field("match_loss", pa.float32()),
        pa.field("severity", pa.string(), nullable=False),
    ],
    metadata={"doc": "one row per play or pass reviewed by the exact endgame solver (kind "
                     "double_dummy: all four hands visible): the longest solvable tail of each deal of a "
                     "valid match showing all four hands, within the review window; values in levels "
                     "for the deciding team; choice real, forced (no legal play) or all_equal (every "
                     "action equal; only real choices are scored); phase lead, follow, pass, bomb, "
                     "jie_feng; win_best/win_after: the team's chance to win the match after the deal "
                     "(replay.match_value), match_loss their difference; severity best, inaccuracy, "
                     "mistake, blunder by match_loss"},
)

REVIEWED: dict[str, pa.Schema] = {"play_reviews": PLAY_REVIEWS}
"""Tables the replay step appends besides ``DERIVED``, computed in the same worker tasks
(``pipelines.steps.reviews``)."""

CANDIDATE = pa.struct(
    [
        pa.field("action", pa.string(), nullable=False),
        pa.field("mean", pa.float64(), nullable=False),
        pa.field("low", pa.float64(), nullable=False),
        pa.field("high", pa.float64(), nullable=False),
        pa.field("win", pa.float64(), nullable=False),
    ]
)
"""One candidate of a single-dummy verdict: the action as text, its mean value over the layouts, the
95 % interval of that mean, and the deciding team's mean chance to win the match after it."""

SINGLE_DUMMY_REVIEWS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("cards_left", pa.int16(), nullable=False),
        pa.field("hand", pa.list_(pa.string()), nullable=False),
        pa.field("action", pa.string(), nullable=False),
        pa.field("best_action", pa.string(), nullable=False),
        pa.field("played_mean", pa.float64(), nullable=False),
        pa.field("played_low", pa.float64(), nullable=False),
        pa.field("played_high", pa.float64(), nullable=False),
        pa.field("best_mean", pa.float64(), nullable=False),
        pa.field("loss", pa.float64(), nullable=False),
        pa.field("win_best", pa.float64(), nullable=False),
        pa.field("win_played", pa.float64(), nullable=False),
        pa.field("match_loss", pa.float64(), nullable=False),
        pa.field("worse_in", pa.int16(), nullable=False),
        pa.field("layouts", pa.int16(), nullable=False),
        pa.field("exact_layouts", pa.int16(), nullable=False),
        pa.field("classes", pa.int32(), nullable=False),
        pa.field("candidates", pa.list_(CANDIDATE), nullable=False),
        pa.field("label", pa.string(), nullable=False),
    ],
    metadata={"doc": "one row per real decision (a play, pass or return card with at least two action "
                     "classes) of the deals the opt-in single-dummy job reviewed, with the decider's hand: "
                     "candidates valued over layouts of the unseen cards sampled from the player's view, "
                     "each with its mean and 95 % interval; values in levels for the deciding team, "
                     "and in match terms (its mean match-winning chance)"},
)

SAMPLED: dict[str, pa.Schema] = {"single_dummy_reviews": SINGLE_DUMMY_REVIEWS}
"""Tables of the opt-in jobs, never written by a default run (``pipelines.steps.single_dummy``)."""

INCOMPLETE_MATCHES = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("events", pa.int64(), nullable=False),
        pa.field("first_seq", pa.int64()),
        pa.field("last_seq", pa.int64()),
        pa.field("last_type", pa.string()),
        pa.field("source_files", pa.list_(pa.string())),
        pa.field("first_ingested_at", _TS),
        pa.field("last_ingested_at", _TS),
        pa.field("started_at", _TS),
        pa.field("utc_offset_min", pa.int16()),
    ],
    metadata={"doc": "one row per ingested match whose match_end has not arrived (events.md \"Validation\": "
                     "incomplete); rewritten on every pipeline run, a row leaves when the match completes; "
                     "started_at and utc_offset_min: match_start's t, as in matches"},
)

_PATTERN_COUNTS = [
    pa.field(name, pa.int64(), nullable=False)
    for name in (
        "pass_beat",
        "able_to_beat",
        "overtakes",
        "facing_partner",
        "bombs",
        "bomb_opp_left_sum",
        "bomb_opp_left_n",
        "jie_feng",
    )
]
"""The play-pattern counts of a seat-deal (``seat_patterns``) and their sums per player
(``player_patterns``): one list, so the two tables cannot drift apart."""

SEAT_PATTERNS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("seat", pa.string(), nullable=False),
        pa.field("player_id", pa.string()),
        *_PATTERN_COUNTS,
    ],
    metadata={"doc": "one row per seat per deal with at least one play or pass, sorted by match and deal: "
                     "the play-pattern counts of that seat-deal (player_patterns sums them per player)"},
)

PLAYER_PATTERNS = pa.schema(
    [
        pa.field("player_id", pa.string()),
        pa.field("deals", pa.int64(), nullable=False),
        *_PATTERN_COUNTS,
        pa.field("returns", pa.int64(), nullable=False),
        pa.field("return_rank_sum", pa.int64(), nullable=False),
        pa.field("return_rank_n", pa.int64(), nullable=False),
    ],
    metadata={"doc": "one row per player (null player_id: seats of unknown players) with the counts behind "
                     "the Player page's play-pattern rates; population figures are the column sums"},
)

PLAYER_LEADS = pa.schema(
    [
        pa.field("player_id", pa.string()),
        pa.field("combo_type", pa.string(), nullable=False),
        pa.field("leads", pa.int64(), nullable=False),
    ],
    metadata={"doc": "leads (first play of a trick) per player and combination type ('?' when unread); "
                     "population = sum per combo_type"},
)

PLAYERS = pa.schema(
    [
        pa.field("player_id", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("club", pa.string()),
        pa.field("declared_in", pa.string(), nullable=False),
        pa.field("matches", pa.int64(), nullable=False),
        pa.field("first_seen", _TS),
        pa.field("last_seen", _TS),
    ],
    metadata={"doc": "one row per player declared in a match_start.players (events.md): name and club "
                     "as declared by the latest such match (start time, null earliest; ties by match id)"},
)

PLAYER_REVIEWS = pa.schema(
    [
        pa.field("player_id", pa.string()),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("decisions", pa.int64(), nullable=False),
        pa.field("deals", pa.int64(), nullable=False),
        pa.field("forced", pa.int64(), nullable=False),
        pa.field("all_equal", pa.int64(), nullable=False),
        pa.field("real", pa.int64(), nullable=False),
        pa.field("real_best", pa.int64(), nullable=False),
        pa.field("loss_1", pa.int64(), nullable=False),
        pa.field("loss_2", pa.int64(), nullable=False),
        pa.field("loss_3plus", pa.int64(), nullable=False),
        pa.field("loss_sum", pa.int64(), nullable=False),
        pa.field("match_loss_sum", pa.float64(), nullable=False),
    ],
    metadata={"doc": "one row per player (null player_id: seats of unknown players) and phase: decisions "
                     "in play_reviews, how many were forced or all-equal (counted, not scored), real "
                     "choices and how many of them were best, how many lost 1, 2 and 3 or more levels, "
                     "and the match-winning chance lost; population = column sums"},
)

SUMMARIES: dict[str, pa.Schema] = {
    "incomplete_matches": INCOMPLETE_MATCHES,
    "player_patterns": PLAYER_PATTERNS,
    "player_leads": PLAYER_LEADS,
    "player_reviews": PLAYER_REVIEWS,
    "players": PLAYERS,
}
"""Small tables the pipeline computes after replay (not returned by ``replay.replay_batch``)."""

DEAL_FINGERPRINTS = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("deal_no", pa.int32(), nullable=False),
        pa.field("fingerprint", pa.string(), nullable=False),
    ],
    metadata={"doc": "one row per deal with at least one play or pass: the md5 of its dealt hands and its "
                     "actions, which duplicate_matches compares (internal)"},
)

PLAYER_MATCH_PATTERNS = pa.schema(
    [pa.field("match_id", pa.string(), nullable=False), *PLAYER_PATTERNS],
    metadata={"doc": "one row per player per match: the player_patterns counts of that match, which "
                     "player_patterns sums (internal)"},
)

PLAYER_MATCH_LEADS = pa.schema(
    [pa.field("match_id", pa.string(), nullable=False), *PLAYER_LEADS],
    metadata={"doc": "leads per player, match and combination type, which player_leads sums (internal)"},
)

CHUNK_SUMMARIES: dict[str, pa.Schema] = {
    "seat_patterns": SEAT_PATTERNS,
    "deal_fingerprints": DEAL_FINGERPRINTS,
    "player_match_patterns": PLAYER_MATCH_PATTERNS,
    "player_match_leads": PLAYER_MATCH_LEADS,
}
"""Per-deal and per-match summaries of the replayed tables, computed from each replayed chunk and
appended with it (``pipelines.steps.chunk_summaries``), so a run's summary steps read these small tables
instead of every play; a corrected match's rows leave them with its other rows."""

INGESTED_FILES = pa.schema(
    [
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("sha256", pa.string(), nullable=False),
        pa.field("batch", pa.string(), nullable=False),
        pa.field("first_line", pa.int64(), nullable=False),
        pa.field("last_line", pa.int64()),
        pa.field("rows", pa.int64(), nullable=False),
        pa.field("malformed", pa.int64(), nullable=False),
        pa.field("bytes_read", pa.int64()),
        pa.field("pending_bytes", pa.int64(), nullable=False),
        pa.field("resumed", pa.bool_(), nullable=False),
        pa.field("problem", pa.string()),
        pa.field("message", pa.string()),
        pa.field("ingested_at", _TS, nullable=False),
    ],
    metadata={"doc": "the ingested-file log: one row per read of an inbox file (a file that grows is read "
                     "on where the last read stopped); problem empty|damaged|unfinished_line with a message"},
)

DUPLICATE_MATCHES = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("duplicate_of", pa.string(), nullable=False),
        pa.field("deals", pa.int32(), nullable=False),
        pa.field("match_deals", pa.int32(), nullable=False),
        pa.field("excluded", pa.bool_(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
    ],
    metadata={"doc": "replayed matches whose deals (hands and plays) repeat those of an earlier match under "
                     "another id; excluded ones (every deal a copy) are left out of scoring"},
)

SUPERSEDED = pa.schema(
    [
        pa.field("match_id", pa.string(), nullable=False),
        pa.field("revision", pa.int32(), nullable=False),
        pa.field("superseded_by", pa.int32(), nullable=False),
        pa.field("source_files", pa.list_(pa.string()), nullable=False),
        pa.field("ingested_at", _TS, nullable=False),
        pa.field("events", pa.int64(), nullable=False),
    ],
    metadata={"doc": "one row per superseded revision of a match (corrections, docs/event-extensions.md): "
                     "its events stay in raw_events and are not replayed; superseded_by is the revision "
                     "in force"},
)

QUALITY: dict[str, pa.Schema] = {
    "ingested_files": INGESTED_FILES,
    "duplicate_matches": DUPLICATE_MATCHES,
    "superseded": SUPERSEDED,
}
"""Data-quality tables: the ingested-file log (appended by ingest), duplicate matches and superseded
revisions (recomputed)."""
