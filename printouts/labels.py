"""The printed words of the printouts in English and Chinese (terms as in the rule books and the
dashboards: 场分, 级差分, 段位, 轮空 …).

A text is looked up by its English wording, a template with ``{named}`` fields; :func:`translator`
gives the function that fills it in for one language. Every text must be listed here, in English
as well, so a printout cannot carry an untranslated line: an unknown one is a ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, get_args

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = get_args(Lang)

ZH: dict[str, str] = {
    # headers and footers
    "printed {day}{times} · Guandan Lens": "打印于 {day}{times} · 掼蛋透镜",
    " · times in each match's local time ({zones})": " · 时间为各场比赛的当地时间（{zones}）",
    "{event} · rules {rules} · {printed}": "{event} · 规则 {rules} · {printed}",
    "{event} · rules {rules} · ranked by {ranked} · {printed}": (
        "{event} · 规则 {rules} · 排名依据 {ranked} · {printed}"
    ),
    # standings
    "{title} — standings after round {after} of {of}": "{title} — 第 {after} 轮后排名（共 {of} 轮）",
    "Standings after round {after}": "第 {after} 轮后排名",
    "rank": "名次",
    "team": "队伍",
    "players": "选手",
    "club": "俱乐部",
    "rounds": "轮数",
    "W": "胜",
    "D": "平",
    "L": "负",
    "byes": "轮空",
    "MP": "场分",
    # duplicate (複式) standings, scoring.md §S9
    "matches": "场次",
    "results compared": "比较副数",
    "matchpoints": "比赛分 MP",
    "MP available": "MP 满分",
    "MP score rate": "MP 得分率",
    "boards 1st · 2nd · …": "名次副数 第1 · 第2 · …",
    "more boards placed {k}": "第{k}名副数更多",
    "shared rank": "并列",
    "MP score rate, then boards placed 1st, 2nd, … (duplicate, seed 004)": (
        "MP 得分率，其次第1、第2……名副数（复式）"
    ),
    "LP": "级差分",
    "BCTA score": "BCTA 局分",
    "H2H": "胜负关系",
    "level diff": "级差",
    "opp score": "对手分",
    "prev rank": "上轮名次",
    "LP among tied": "并列者间级差分",
    "opp LP": "对手级差分",
    "levels gained": "升级数",
    "MP deducted": "扣除场分",
    "LP deducted": "扣除级差分",
    "decided by": "决定因素",
    # a round's results
    "{title} — round {round} results": "{title} — 第 {round} 轮成绩",
    "Round {round} results": "第 {round} 轮成绩",
    "table": "桌号",
    "E–W": "东西",
    "N–S": "南北",
    "club E–W": "东西俱乐部",
    "club N–S": "南北俱乐部",
    "levels": "级数",
    "winner": "胜方",
    "{points} E–W": "东西{points}",
    "{points} N–S": "南北{points}",
    "LP E–W": "东西级差分",
    "LP N–S": "南北级差分",
    "deals": "副数",
    "draw": "平局",
    " (passed A)": "（过 A）",
    "bye": "轮空",
    # dan ledgers
    "Amateur dan ledger (BCTA, scoring.md §S5)": "业余段位记录（BCTA，scoring.md §S5）",
    "date": "日期",
    "event": "赛事",
    "round": "轮次",
    "opponents' dans": "对手段位",
    "counted": "计入",
    "round points": "本轮得分",
    "earned": "获得积分",
    "dan": "段位",
    "total": "累计积分",
    "window": "窗口",
    "note": "备注",
    "yes": "是",
    "no": "否",
    "promoted": "升段",
    "window_reset": "窗口清零",
    "player: {name} ({id})": "选手：{name}（{id}）",
    "club: {club}": "俱乐部：{club}",
    "{points} points to dan {dan} ({progress}), {left} rounds left in the window": (
        "距 {dan} 段还差 {points} 分（{progress}），窗口内还剩 {left} 轮"
    ),
    "highest dan": "已达最高段位",
    "amateur dan: {dan} · points: {points}": "业余段位：{dan} · 积分：{points}",
    "none": "无",
    "next: {next}": "下一段：{next}",
    "rounds: {played} played, {counted} counted": "轮次：已打 {played} 轮，计入 {counted} 轮",
    "no bcta rounds: no amateur dan points (§S5)": "没有 BCTA 轮次：无业余段位积分（§S5）",
    # player sheets
    "Player record": "选手记录",
    "Player record · {event}": "选手记录 · {event}",
    "seat": "座位",
    "partner": "搭档",
    "opponents": "对手",
    "result": "结果",
    "deals won": "胜副数",
    "1st places": "上游次数",
    "win": "胜",
    "loss": "负",
    "amateur dan: {dan} ({points} points)": "业余段位：{dan}（{points} 分）",
    "rating: {rating}{provisional}": "等级分：{rating}{provisional}",
    " (provisional)": "（暂定）",
    "matches: {matches} · won {wins}": "比赛：{matches} 场 · 胜 {wins} 场",
    # table slips
    "Table slip": "计分单",
    "{event} · round {round}": "{event} · 第 {round} 轮",
    "{event} · {stage} · round {round}": "{event} · {stage} · 第 {round} 轮",
    "Table {table}": "第 {table} 桌",
    # event stages (``matches.stage``): the usual ids; any other name is printed as written
    "Swiss": "瑞士移位",
    "knockout": "淘汰赛",
    "round robin": "循环赛",
    "league": "联赛",
    "duplicate": "复式",
    "Board {board} · {room}": "牌组 {board} · {room}",
    "board": "牌组",
    "room": "房间",
    "open room": "开室",
    "closed room": "闭室",
    "deal": "副",
    "went out 1st": "上游",
    "partner's place": "搭档名次",
    "levels after (E–W : N–S)": "打完后级数（东西 : 南北）",
    "Scan to enter the results of this table": "扫码录入本桌成绩",
    "PIN: {pin}": "验证码：{pin}",
    "signatures (E–W, N–S, referee)": "签名（东西、南北、裁判）",
}
"""Chinese by English text; the English text is the template itself."""


def translator(lang: Lang) -> Callable[..., str]:
    """``t(text, **fields)``: ``text`` (an English template listed in :data:`ZH`) in ``lang``."""
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")

    def t(text: str, /, **fields: Any) -> str:
        chinese = ZH[text]  # a KeyError names a text missing from the list
        template = chinese if lang == "zh" else text
        return template.format(**fields) if fields else template

    return t


STAGE_WORDS: dict[str, str] = {
    "swiss": "Swiss", "knockout": "knockout", "round_robin": "round robin", "league": "league",
    "duplicate": "duplicate",
}
"""The usual stage ids in English words (listed in :data:`ZH` for Chinese)."""


def stage_text(stage: str, t: Callable[..., str]) -> str:
    """A stage id in ``t``'s language: the usual ids in words, any other name as written."""
    word = STAGE_WORDS.get(stage)
    return t(word) if word is not None else stage


SEAT_NAMES: dict[str, str] = {"E": "东", "S": "南", "W": "西", "N": "北"}
"""The seats in Chinese (东南西北), as the rule books name them."""


def seat_name(seat: str, lang: Lang) -> str:
    """A seat letter (E, S, W, N) as printed in ``lang``."""
    return SEAT_NAMES[seat] if lang == "zh" else seat
