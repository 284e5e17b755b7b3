"""Every rule path of rules.md §5–§8 on hand-written logs: tribute kinds, jie feng, endings, A, formats,
rulings. Each test writes the expected outcome into the log (levels, leader, winner), so the replay
must derive the same values or report the difference."""

from __future__ import annotations

import pytest
from replay_builder import PARTNER, TEAM, Log

from replay import single_order


def first_deal(log: Log, order: list[str], levels: dict[str, str], **deal: object) -> None:
    log.deal(leader=deal.pop("leader", "E"), **deal)  # type: ignore[arg-type]
    log.play_out(order, leader=log.events[-1]["leader"])
    log.end_deal(levels=levels)


@pytest.mark.parametrize(
    ("order", "levels", "gain", "double"),
    [
        (["E", "W"], {"EW": "5", "NS": "2"}, 3, True),  # §5.8 partner 2nd: +3 (double win, §5.7)
        (["E", "N", "W"], {"EW": "4", "NS": "2"}, 2, False),  # partner 3rd: +2
        (["E", "N", "S"], {"EW": "3", "NS": "2"}, 1, False),  # partner 4th: +1
        (["N", "S"], {"EW": "2", "NS": "5"}, 3, True),
    ],
)
def test_endings_level_up(order: list[str], levels: dict[str, str], gain: int, double: bool) -> None:
    """rules.md §5.5–§5.8: finishing order, double win and level gain."""
    log = Log()
    first_deal(log, order, levels)
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    deal = r.rows["deals"][0]
    assert deal["level_gain"] == gain
    assert deal["double_win"] is double
    assert deal["winning_team"] == TEAM[order[0]]
    assert deal["finish_order"][: len(order)] == order
    assert deal["tribute_kind"] == "none" and deal["leader"] == "E"


def test_jie_feng_partner_leads_after_going_out() -> None:
    """rules.md §5.6: everyone passes on the last play of a player going out → the partner leads."""
    log = Log()
    first_deal(log, ["E", "W"], {"EW": "5", "NS": "2"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["deals"][0]["jie_feng"] == 1
    w_lead = next(p for p in r.rows["plays"] if p["seat"] == "W" and p["action"] == "play")
    assert w_lead["is_lead"] and w_lead["pos_in_trick"] == 0


def test_single_tribute_and_return() -> None:
    """rules.md §6 single tribute: 4th → 1st their highest card, return ≤ 10, the tributer leads."""
    log = Log()
    first_deal(log, ["E", "N", "W"], {"EW": "4", "NS": "2"})
    log.deal("4", "EW", seed=5)
    card = log.tribute("S", "E")
    back = log.give_back("E", "S")
    log.play_out(["S", "N"], leader="S")
    log.end_deal(levels={"EW": "4", "NS": "5"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    deal = r.rows["deals"][1]
    assert deal["tribute_kind"] == "single" and deal["leader"] == "S"
    (t,) = r.rows["tributes"]
    assert (t["giver"], t["receiver"], t["card"], t["return_card"]) == ("S", "E", card, back)
    assert t["giver_player"] == "pS" and t["kind"] == "single" and t["level"] == "4"


def _double_first(log: Log) -> None:
    first_deal(log, ["E", "W"], {"EW": "5", "NS": "2"})


def test_double_tribute_higher_to_first() -> None:
    """rules.md §6 double tribute: the 1st takes the higher card; national: the giver to the 1st leads."""
    log = Log()
    _double_first(log)
    log.deal("5", "EW", give={"N": ["HR"], "S": ["SB", "SB"], "E": ["HR"]}, seed=3)
    log.tribute("N", "E")
    log.tribute("S", "W")
    log.give_back("E", "N")
    log.give_back("W", "S")
    log.play_out(["N", "S"], leader="N")
    log.end_deal(levels={"EW": "5", "NS": "5"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["deals"][1]["tribute_kind"] == "double"
    assert {t["card"] for t in r.rows["tributes"]} == {"HR", "SB"}
    assert all(t["equal_double"] is False for t in r.rows["tributes"])


def test_double_tribute_equal_goes_to_shangjia() -> None:
    """rules.md §6: equal tributes go each to the giver's 上家 (N → E, S → W); the 1st's 下家 leads."""
    log = Log()
    _double_first(log)
    jokers = {"E": ["HR", "SB"], "W": ["HR", "SB"], "N": ["S5"], "S": ["C5"]}
    log.deal("5", "EW", give=jokers, seed=4)
    assert single_order(log.highest("N"), "5") == single_order(log.highest("S"), "5")
    log.tribute("N", "E")
    log.tribute("S", "W")
    log.give_back("E", "N")
    log.give_back("W", "S")
    log.play_out(["N", "S"], leader="N")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    assert all(t["equal_double"] for t in r.rows["tributes"])
    assert r.rows["deals"][1]["leader"] == "N"


@pytest.mark.parametrize(("rules", "leader"), [("national", "N"), ("huaian", "S")])
def test_double_tribute_leader_by_ruleset(rules: str, leader: str) -> None:
    """rules.md §10: national → the giver to the 1st leads; huaian → the giver of the higher card."""
    log = Log(rules)
    _double_first(log)
    # S pays the big joker (to E, the 1st), N the small joker (to W)
    log.deal("5", "EW", give={"S": ["HR"], "N": ["SB", "SB"], "E": ["HR"]}, seed=3)
    log.tribute("N", "W")
    log.tribute("S", "E")
    log.give_back("E", "S")
    log.give_back("W", "N")
    log.play_out([leader, PARTNER[leader]], leader=leader)
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    if rules == "national":
        # the giver to the 1st is S, not N
        assert r.status == "invalid" and r.error is not None and r.error.code == "wrong_leader"
    else:
        assert r.status == "valid", r.error
        assert r.rows["deals"][1]["leader"] == "S"


def test_njupt_double_tribute_always_to_shangjia() -> None:
    """rules.md §10 NJUPT: each loser pays his 上家 whatever the cards; the higher card's giver leads."""
    log = Log("njupt")
    _double_first(log)
    log.deal("5", "EW", give={"S": ["HR"], "N": ["SB", "SB"], "E": ["HR"]}, seed=3)
    log.tribute("N", "E")  # N's 上家 is E although S pays the higher card
    log.tribute("S", "W")
    log.give_back("E", "N")
    log.give_back("W", "S")
    log.play_out(["S", "N"], leader="S")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error


@pytest.mark.parametrize("double", [False, True])
def test_anti_tribute(double: bool) -> None:
    """rules.md §6 resistance: the tributer(s) hold both big jokers → no tribute, the previous 1st leads."""
    log = Log()
    if double:
        _double_first(log)
        log.deal("5", "EW", give={"N": ["HR"], "S": ["HR"]}, seed=6)
        log.anti("N", "S")
    else:
        first_deal(log, ["E", "N", "W"], {"EW": "4", "NS": "2"})
        log.deal("4", "EW", give={"S": ["HR", "HR"]}, seed=6)
        log.anti("S")
    log.play_out(["E", "W"], leader="E")
    log.end_deal()
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["deals"][1]["tribute_kind"] == "anti"
    assert r.rows["deals"][1]["leader"] == "E"
    assert {t["kind"] for t in r.rows["tributes"]} == {"anti"}


def _tribute_for(log: Log, prev: list[str]) -> str:
    """Pay the due single or double tribute (rules.md §6) and return the leader."""
    if TEAM[prev[0]] == TEAM[prev[1]]:
        givers = [s for s in ("E", "N", "W", "S") if TEAM[s] != TEAM[prev[0]]]
        hi = {g: single_order(log.highest(g), log.level) for g in givers}
        a, b = givers
        if hi[a] == hi[b]:
            pairs = [(g, {"E": "S", "N": "E", "W": "N", "S": "W"}[g]) for g in givers]
            lead = {"E": "N", "N": "W", "W": "S", "S": "E"}[prev[0]]
        else:
            top, low = (a, b) if hi[a] > hi[b] else (b, a)
            pairs = [(top, prev[0]), (low, prev[1])]
            lead = top
        for g, rcv in pairs:
            log.tribute(g, rcv)
        for g, rcv in pairs:
            log.give_back(rcv, g)
        return lead
    fourth = next(s for s in ("E", "N", "W", "S") if s not in prev[:3])
    log.tribute(fourth, prev[0])
    log.give_back(prev[0], fourth)
    return fourth


def test_passing_a_ends_until_a() -> None:
    """rules.md §7: declarers at A pass with 1st and partner not 4th; until_a ends (reason passed_a)."""
    log = Log(start_levels={"EW": "A", "NS": "2"})
    first_deal(log, ["E", "N", "S"], {"EW": "A", "NS": "2"}, level="A")
    log.deal("A", "EW", seed=7)
    lead = _tribute_for(log, ["E", "N", "S"])
    log.play_out(["W", "S", "E"], leader=lead)
    log.end_deal(levels={"EW": "A", "NS": "2"})
    log.end("passed_a", "EW", levels={"EW": "A", "NS": "2"})
    r = log.replay()
    assert r.status == "valid", r.error
    deal = r.rows["deals"][1]
    assert deal["a_attempt"] and deal["a_passed"] and not deal["a_failed"]
    m = r.rows["matches"][0]
    assert (m["winner"], m["end_reason"], m["passed_a"]) == ("EW", "passed_a", "EW")
    pm = {p["seat"]: p for p in r.rows["player_matches"]}
    assert pm["E"]["result"] == "win" and pm["N"]["result"] == "loss"


def test_a_needs_partner_not_last() -> None:
    """rules.md §7: 1st but partner 4th at A is no pass: a failure, the match goes on."""
    log = Log(start_levels={"EW": "A", "NS": "2"})
    first_deal(log, ["E", "N", "S"], {"EW": "A", "NS": "2"}, level="A")
    log.deal("A", "EW", seed=7)
    lead = _tribute_for(log, ["E", "N", "S"])
    log.play_out(["W", "N", "S"], leader=lead)
    log.end_deal(levels={"EW": "A", "NS": "2"})
    log.end("passed_a", "EW")
    r = log.replay()
    assert r.error is not None and r.error.code == "match_not_over" and r.error.seq == len(log.events) - 1


def test_bcta_three_a_failures_lose_the_round() -> None:
    """rules.md §7 bcta: the 3rd failure at A loses the round for the team at A."""
    log = Log("bcta", start_levels={"EW": "A", "NS": "2"})
    first_deal(log, ["E", "N", "S"], {"EW": "A", "NS": "2"}, level="A")
    prev, ns = ["E", "N", "S"], 2
    for i in range(3):
        # EW at A fails: N goes out first, S last (NS +1)
        log.deal("A", "EW", seed=10 + i)
        lead = _tribute_for(log, prev)
        prev = ["N", "E", "W"]
        log.play_out(prev, leader=lead)
        ns += 1
        log.end_deal(levels={"EW": "A", "NS": str(ns)})
        if i == 2:
            break
        # EW wins back the right to declare (stays at A)
        log.deal(str(ns), "NS", seed=20 + i)
        lead = _tribute_for(log, prev)
        prev = ["E", "N", "S"]
        log.play_out(prev, leader=lead)
        log.end_deal(levels={"EW": "A", "NS": str(ns)})
    log.end("a_failures", "NS")
    r = log.replay()
    assert r.status == "valid", r.error
    m = r.rows["matches"][0]
    assert m["a_failures_EW"] == 3 and m["winner"] == "NS" and m["end_reason"] == "a_failures"
    assert sum(d["a_failed"] for d in r.rows["deals"]) == 3


def test_deals_format_ends_after_n_deals() -> None:
    """rules.md §7 deals: ends after N deals; the higher level wins; a further deal is refused."""
    log = Log(format={"kind": "deals", "deals": 1})
    first_deal(log, ["N", "E", "S"], {"EW": "2", "NS": "4"})
    log.end("deals", "NS")
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["winner"] == "NS"


@pytest.mark.parametrize("kind", ["timed", "timed_deals"])
def test_timed_formats_finish_the_started_deal(kind: str) -> None:
    """rules.md §7 timed: a deal started before the limit is finished; the match ends on time."""
    log = Log(format={"kind": kind, "minutes": 10, "deals": 9}, minute=0)
    first_deal(log, ["N", "E", "S"], {"EW": "2", "NS": "4"})
    log.minute = 9
    log.deal("4", "NS", seed=2)
    lead = _tribute_for(log, ["N", "E", "S"])
    log.minute = 14
    log.play_out(["E", "N", "W"], leader=lead)
    log.end_deal(levels={"EW": "4", "NS": "4"})
    log.end("time", None)
    r = log.replay()
    assert r.status == "valid", r.error
    m = r.rows["matches"][0]
    assert m["winner"] is None and m["duration_s"] == 14 * 60 and m["deals_played"] == 2


def test_bcta_draw_goes_to_declarers() -> None:
    """rules.md §7 bcta: a draw at the end goes to the declarers of the last deal."""
    log = Log("bcta", format={"kind": "timed_deals", "minutes": 60, "deals": 2})
    first_deal(log, ["N", "E", "S"], {"EW": "2", "NS": "4"})
    log.deal("4", "NS", seed=2)
    lead = _tribute_for(log, ["N", "E", "S"])
    log.play_out(["E", "N", "W"], leader=lead)
    log.end_deal(levels={"EW": "4", "NS": "4"})
    log.end("deals", "NS")
    r = log.replay()
    assert r.status == "valid", r.error


def test_foul_forfeits_deal_as_double_win_and_skips_tribute() -> None:
    """rules.md §8: a foul forfeits the deal as a double win for the other team; no tribute next deal."""
    log = Log()
    log.deal(leader="E", seed=1)
    log.play(log.events[-1]["leader"], [log.highest("E")])
    log.ruling("foul", seat="E", note="wrong card count")
    log.end_deal(["N", "S"], levels={"EW": "2", "NS": "5"})
    log.deal("5", "NS", seed=2, leader="N")
    log.play_out(["N", "S"], leader="N")
    log.end_deal(levels={"EW": "2", "NS": "8"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    d1, d2 = r.rows["deals"]
    assert d1["foul"] and d1["double_win"] and d1["winning_team"] == "NS"
    assert d2["tribute_kind"] == "none"
    assert r.rows["rulings"][0]["kind"] == "foul" and r.rows["rulings"][0]["team"] == "EW"


def test_deduction_and_warning_are_recorded() -> None:
    """events.md ruling: deductions are recorded in ``rulings`` for scoring; warnings too."""
    log = Log()
    log.ruling("warning", seat="N")
    log.ruling("deduction", team="NS", points={"match_points": -0.5})
    first_deal(log, ["E", "W"], {"EW": "5", "NS": "2"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error
    ded = [x for x in r.rows["rulings"] if x["kind"] == "deduction"]
    assert ded == [{**ded[0], "team": "NS", "match_points": -0.5, "level_points": None, "seq": 2}]


def test_level_adjust_sets_levels() -> None:
    """rules.md §8 lateness: a ruling may set a team's level; the next deal is played at it."""
    log = Log()
    first_deal(log, ["E", "W"], {"EW": "5", "NS": "2"})
    log.ruling("level_adjust", team="EW", levels={"EW": "7"})
    log.deal("7", "EW", seed=8, give={"N": ["HR"], "S": ["HR"]})
    log.anti("N", "S")
    log.play_out(["E", "N", "W"], leader="E")
    log.end_deal(levels={"EW": "9", "NS": "2"})
    log.end("abandoned")
    r = log.replay()
    assert r.status == "valid", r.error


def test_forfeit_loses_the_round() -> None:
    """rules.md §8: a forfeit ends the match for the other team, mid-deal too (red cards:
    ``test_card_penalties.py``)."""
    log = Log("bcta")
    log.deal(leader="E", seed=1)
    log.play("E", [log.highest("E")])
    log.ruling("forfeit_match", seat="N")
    log.end("forfeit", "EW")
    r = log.replay()
    assert r.status == "valid", r.error
    assert r.rows["matches"][0]["winner"] == "EW" and r.rows["deals"] == []


def test_partial_match_without_a_hand() -> None:
    """events.md: a missing hand → checks that need it are skipped, the match is ``partial``."""
    log = Log()
    first_deal(log, ["E", "N", "W"], {"EW": "4", "NS": "2"}, hide=("S",))
    log.end("abandoned")
    r = log.replay()
    assert r.status == "partial", r.error
    assert r.rows["matches"][0]["known_seats"] == ["E", "N", "W"]
    hands = {h["seat"]: h for h in r.rows["deal_hands"]}
    assert hands["S"]["hand"] is None and hands["S"]["jokers"] is None
    s_passes = [p for p in r.rows["plays"] if p["seat"] == "S" and p["action"] == "pass"]
    assert s_passes and all(p["could_beat"] is None for p in s_passes)
