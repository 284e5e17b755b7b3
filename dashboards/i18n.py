"""English and Chinese labels of the dashboards, with Chinese terms as in the rule books.

Every visible string goes through :func:`t` so that the language switch in the sidebar changes
the whole app. Chinese follows the rule books' vocabulary (rules.md §5–§7, scoring.md): 上游,
二游, 三游, 下游, 进贡, 还贡, 抗贡, 接风 (the books write 借风), 炸弹, 同花顺, 四大天王, 级差, 段位.
"""

from __future__ import annotations

from typing import Literal

Lang = Literal["en", "zh"]
LANGS: dict[Lang, str] = {"en": "English", "zh": "中文"}

LABELS: dict[str, tuple[str, str]] = {
    # navigation
    "app_title": ("Guandan Lens", "掼蛋透镜"),
    "language": ("Language", "语言"),
    "store": ("Store", "数据仓库"),
    "reload": ("Reload data", "重新加载数据"),
    "page_overview": ("Overview", "概览"),
    "page_leaderboard": ("Leaderboard", "排行榜"),
    "page_player": ("Player", "选手"),
    "page_dan": ("Dan promotion", "段位晋升"),
    "page_tributes": ("Tributes", "进贡"),
    "page_bombs": ("Bombs", "炸弹"),
    "page_tournament": ("Tournament", "赛事"),
    "page_replayer": ("Hand replayer", "牌局回放"),
    "page_quality": ("Data quality", "数据质量"),
    # results entry
    "page_entry": ("Results entry", "成绩录入"),
    "entry_intro": (
        "Enter each deal's result at the table: the rules engine derives the levels and the round "
        "result; submitted matches go to the store's inbox for the next `gdan run`.",
        "逐副录入每桌成绩：规则引擎推算级数和本轮结果；"
        "提交的比赛进入数据仓库收件箱，下次 `gdan run` 时处理。",
    ),
    "entry_new_event": ("New event", "新赛事"),
    "entry_event_id": ("Event id", "赛事编号"),
    "entry_event_name": ("Event name", "赛事名称"),
    "entry_format": ("Round format", "赛制"),
    "entry_format_help": (
        "until_a, deals:N, timed:MINUTES or timed_deals:MINUTES:N; empty: the ruleset's",
        "until_a、deals:N、timed:分钟 或 timed_deals:分钟:副数；留空则用规则默认赛制",
    ),
    "entry_pairs": ("Pairs, one per line (p01/p02)", "搭档，每行一对（p01/p02）"),
    "entry_pairs_help": (
        "Player ids or roster names; the first player of a pair sits E or N",
        "选手编号或名册中的姓名；每对的第一位坐东或北",
    ),
    "entry_bad_format": ("Not a round format", "赛制格式有误"),
    "entry_no_pairs": ("Enter at least two pairs.", "请至少输入两对搭档。"),
    "entry_bad_id": ("Not a usable event id", "赛事编号不可用"),
    "entry_unknown_rules": ("Ruleset not built in", "非内置规则"),
    "entry_tables": ("Tables", "各桌"),
    "entry_in_store": ("In the store", "已入库"),
    "entry_first": ("1st (上游)", "上游"),
    "entry_result_kind": ("Result", "结果"),
    "result_double": ("双下 (partner 2nd, +3)", "双下（对家二游，升三级）"),
    "result_one_three": ("1-3 (partner 3rd, +2)", "一三（对家三游，升两级）"),
    "result_one_four": ("1-4 (partner 4th, +1)", "一四（对家末游，升一级）"),
    "entry_add_deal": ("Add deal", "记录本副"),
    "entry_undo": ("Undo last deal", "撤销上一副"),
    "entry_open": ("The round goes on", "本轮未结束"),
    "entry_over": ("Round over", "本轮结束"),
    "entry_refused": ("Refused by the rules", "规则不允许"),
    "entry_submit": ("Submit", "提交"),
    "entry_submitted": ("Submitted: waiting for the next `gdan run`", "已提交：等待下次 `gdan run`"),
    "entry_already": ("Already submitted", "已提交过"),
    "entry_pair_next": ("Pair next round", "编排下一轮"),
    "entry_pairing_failed": ("Cannot pair", "无法编排"),
    "entry_order": ("Finishing order", "出完顺序"),
    "entry_level_gain": ("Levels won", "升级数"),
    "entry_levels_after": ("Levels after (E–W : N–S)", "打完后级数（东西 : 南北）"),
    "entry_a": ("At A", "打A"),
    "entry_levels_now": ("Levels", "当前级数"),
    "entry_correct": ("Correct a submitted match", "更正已提交的比赛"),
    "entry_none": ("–", "–"),
    "entry_revision": ("Revision", "修订版"),
    "entry_end_passed_a": ("passed A", "过A"),
    "entry_end_a_failures": ("failures at A", "打A失败"),
    "entry_end_deals": ("the format's deals", "打满规定副数"),
    "entry_end_time": ("time", "时间到"),
    # journey
    "search_player": ("Search a player: name or id", "搜索选手：姓名或编号"),
    "no_player_matches": ("No player matches “{q}”.", "没有与“{q}”匹配的选手。"),
    "no_match_matches": ("No match matches “{q}”.", "没有与“{q}”匹配的比赛。"),
    "search_match": ("Search a match: id, event or player", "搜索比赛：编号、赛事或选手"),
    "matches_listed": (
        "The list holds the first {n} of {total} matches, oldest first: search to find the others.",
        "列表只含 {total} 场比赛中最早的 {n} 场：请搜索查找其他比赛。",
    ),
    "top_n_of": ("top {n} of {m}", "前 {n} 名（共 {m} 名）"),
    "skill_mu": ("Skill μ", "实力 μ"),
    "interval_2sigma": ("μ ± 2σ (about 95 %)", "μ ± 2σ（约 95%）"),
    "rating_shown": ("Rating shown (μ − {k}σ)", "显示的等级分（μ − {k}σ）"),
    "standing_rank": ("#", "名次"),
    "pro_dan": ("Pro dan", "职业段位"),
    "nothing_filtered": ("No rows pass these filters.", "没有符合这些筛选条件的记录。"),
    # states
    "no_data": ("No data yet: run the pipeline to fill the store.", "暂无数据：请先运行数据管道。"),
    "no_data_table": ("No data yet for this view.", "此视图暂无数据。"),
    "download_csv": ("Download CSV", "下载 CSV"),
    "printouts": ("Printouts", "打印文件"),
    "printout_unavailable": ("No printout", "无可打印内容"),
    "standings_printout": ("Standings", "排名表"),
    "round_printout": ("Round results", "本轮成绩表"),
    "dan_printout": ("Dan ledger", "段位记录"),
    "dan_printout_player": ("Dan ledger of", "段位记录：选手"),
    "all": ("All", "全部"),
    "n": ("sample size", "样本量"),
    # overview
    "matches": ("Matches", "比赛场数"),
    "deals": ("Deals", "副数"),
    "players": ("Players", "选手数"),
    "events": ("Events", "赛事数"),
    "raw_events": ("Log events", "日志事件"),
    "date_range": ("Date range", "日期范围"),
    "status_valid": ("Valid", "有效"),
    "status_partial": ("Partial", "部分"),
    "status_results_only": ("Results only", "仅结果"),
    "status_invalid": ("Invalid", "无效"),
    "status": ("Status", "状态"),
    "matches_per_day": ("Matches per day", "每日比赛场数"),
    "matches_by_ruleset": ("Matches by ruleset", "各规则比赛场数"),
    "day": ("Day", "日期"),
    "ruleset": ("Ruleset", "规则"),
    "count": ("Count", "数量"),
    # leaderboard
    "club": ("Club", "俱乐部"),
    "event": ("Event", "赛事"),
    "min_rounds": ("Minimum rounds", "最少轮次"),
    "player": ("Player", "选手"),
    "name": ("Name", "姓名"),
    "rating": ("Rating", "等级分"),
    "uncertainty": ("Uncertainty (±σ)", "不确定度 (±σ)"),
    "provisional": ("Provisional", "暂定"),
    "dan": ("Dan", "段位"),
    "rounds": ("Rounds", "轮次"),
    "wins": ("Wins", "胜"),
    "draws": ("Draws", "平"),
    "losses": ("Losses", "负"),
    "win_rate": ("Win rate", "胜率"),
    "levels_gained": ("Levels gained", "升级数"),
    "open_player": ("Open", "查看"),
    "ratings_missing": (
        "Ratings are not computed yet: results are shown from the match records.",
        "等级分尚未计算：以下为比赛记录统计。",
    ),
    "rating_dist": ("Ratings with uncertainty", "等级分及不确定度"),
    # player
    "choose_player": ("Choose a player", "选择选手"),
    "rating_history": ("Rating history", "等级分历史"),
    "time": ("Time", "时间"),
    "dan_ledger": ("Dan ledger", "段位积分记录"),
    "dan_points": ("Dan points", "段位积分"),
    "next_threshold": ("Next dan threshold", "下一段位门槛"),
    "window_used": ("Window used", "已用窗口"),
    "round_no": ("Round (in time order)", "轮次（按时间）"),
    "by_partner": ("Results by partner", "按搭档统计"),
    "by_opponent": ("Results by opponent", "按对手统计"),
    "partner": ("Partner", "搭档"),
    "opponent": ("Opponent", "对手"),
    "finish_dist": ("Finishing positions", "名次分布"),
    "position": ("Position", "名次"),
    "share": ("Share", "占比"),
    "pos_1": ("上游 1st", "上游"),
    "pos_2": ("二游 2nd", "二游"),
    "pos_3": ("三游 3rd", "三游"),
    "pos_4": ("下游 4th", "下游"),
    "pos_double_loss": ("双下 double loss (3rd and 4th)", "双下"),
    "double_losses": ("Deals lost 双下 (both partners last)", "双下的副数"),
    "play_patterns": ("Play patterns against the population", "出牌风格与总体对比"),
    "metric": ("Metric", "指标"),
    "this_player": ("This player", "该选手"),
    "population": ("Population", "总体"),
    "lead_types": ("Lead types", "首出牌型"),
    "combo_type": ("Combination", "牌型"),
    "pass_when_beat": ("Pass rate when able to beat", "能压不压率"),
    "bombs_per_deal": ("Bombs per deal", "每副炸弹数"),
    "bomb_opp_left": ("Opponents' fewest cards left at a bomb", "出炸时对手最少余牌"),
    "overtake_partner": ("Overtakes the partner", "压搭档率"),
    "jie_feng": ("接风 jie feng received per deal", "每副接风（借风）次数"),
    "return_rank": ("Mean rank of 还贡 return card", "还贡平均点数"),
    "returns_by_rank": ("还贡 return cards by rank", "还贡牌点数分布"),
    "rank": ("Rank", "点数"),
    "cards": ("Cards", "张"),
    # dan
    "close_to_promotion": ("Close to promotion", "即将晋段"),
    "points_to_next": ("Points to next dan", "距下一段积分"),
    "rounds_left": ("Rounds left in window", "窗口剩余轮次"),
    "recent_changes": ("Recent promotions and window resets", "近期晋段与窗口清零"),
    "next_dan": ("Next dan", "下一段位"),
    "progress": ("Progress", "进度"),
    "last_played": ("Last played", "最近比赛"),
    "dan_change": ("Promotion or window reset", "晋段或窗口清零"),
    "dan_distribution": ("Dan distribution", "段位分布"),
    "rules_in_force": ("Rules in force (BCTA Appendix A, scoring.md §S5)", "现行规则（BCTA 附录A）"),
    "points_from": ("Points from", "积分下限"),
    "window": ("Window (rounds)", "窗口（轮）"),
    "dan_none": ("none", "无"),
    "round_points": ("Round: winner / draw / loser", "每轮：胜 / 平 / 负"),
    "deal_points": ("Deal won: +1 / +2 / +3 levels", "每局胜：升一 / 二 / 三级"),
    "a_fail_points": ("A failures: 1st / 2nd / 3rd", "打A失败：一 / 二 / 三次"),
    "a_fail_third": ("opponents win", "对手胜"),
    # the same-dan rule as one sentence per policy (scoring/dan.py ``same_dan``)
    "same_dan_note_both": (
        "A round counts only if both opponents are of the player's dan.",
        "仅两名对手均与本人同段位的比赛计分。",
    ),
    "same_dan_note_either": (
        "A round counts only if at least one opponent is of the player's dan.",
        "仅至少一名对手与本人同段位的比赛计分。",
    ),
    "players_count": ("Players", "人数"),
    # tributes
    "tribute_kind": ("Tribute kind", "进贡类型"),
    "kind_none": ("none", "无"),
    "kind_single": ("单贡 single", "单贡"),
    "kind_double": ("双贡 double", "双贡"),
    "kind_anti": ("抗贡 resisted", "抗贡"),
    "tribute_freq": ("Tribute frequency (deals after the first)", "进贡频率（首副之后）"),
    "cards_paid": ("进贡 cards paid, by rank", "进贡牌点数分布"),
    "cards_returned": ("还贡 cards returned, by rank", "还贡牌点数分布"),
    "after_tribute": (
        "Level gain in the deal after tribute: paying and receiving team",
        "进贡后本副升级数：进贡方与受贡方",
    ),
    "level_gain": ("Level gain", "升级数"),
    "share_deals": ("Share of deals", "副数占比"),
    "small_joker": ("小王 Small joker", "小王"),
    "big_joker": ("大王 Big joker", "大王"),
    "payer": ("Paid tribute", "进贡方"),
    "receiver": ("Received tribute", "受贡方"),
    # bombs
    "bombs_dist": ("Bombs per deal (both teams)", "每副炸弹数（双方）"),
    "bombs_by_class": ("Bombs by type and size", "炸弹类型与张数"),
    "bomb_class": ("Bomb class", "炸弹类型"),
    "bomb_size": ("Cards in bomb", "炸弹张数"),
    "bomb_timing": ("Timing: opponents' fewest cards left when bombing", "出炸时机：对手最少余牌"),
    "opp_cards_left": ("Opponents' fewest cards left (cards)", "对手最少余牌（张）"),
    "bomb_partner": ("炸弹 on the partner's play", "炸搭档"),
    "joker_bombs": ("四大天王 joker bombs", "四大天王"),
    "straight_flushes": ("同花顺 straight flushes", "同花顺"),
    "bombs_total": ("炸弹 bombs played", "出炸总数"),
    "win_by_bombs": ("Deal win rate by bombs held and used", "按持有/使用炸弹数的胜率"),
    "bombs_n": ("Bombs", "炸弹数"),
    "held": ("Held (natural bombs dealt)", "持有（发牌天然炸弹）"),
    "used": ("Used (bombs played)", "使用（打出炸弹）"),
    "deal_win_rate": ("Team wins the deal (%)", "本方赢得该副（%）"),
    "bomb4": ("4-card bomb", "四张炸弹"),
    "bomb5": ("5-card bomb", "五张炸弹"),
    "straight_flush": ("同花顺 straight flush", "同花顺"),
    "bomb6plus": ("6+ card bomb", "六张以上炸弹"),
    "joker_bomb": ("四大天王 joker bomb", "四大天王"),
    # tournament
    "round": ("Round", "轮次"),
    "standings": ("Standings", "排名"),
    "round_results": ("Round results", "本轮结果"),
    "table": ("Table", "桌号"),
    "winner": ("Winner", "胜方"),
    "final_levels": ("Final levels", "终局级数"),
    "level_diff": ("级差 level difference", "级差"),
    "level_points": ("级差分 level points", "级差分"),
    "standings_missing": (
        "Standings are not computed yet: round results are shown from the match records.",
        "排名尚未计算：以下为比赛记录。",
    ),
    "match_points_chart": ("Ranking points by team", "各队排名积分"),
    "match_points": ("Match points", "场分"),
    "bcta_round_score": ("BCTA round score", "BCTA 局分"),
    "team": ("Team", "队伍"),
    # table columns named by their column id (show_table labels them)
    "stage": ("Stage", "阶段"),
    "after_round": ("After round", "轮次后"),
    "entry": ("Entry", "参赛单位"),
    "team_id": ("Team id", "队伍编号"),
    "player_1": ("Player 1", "选手 1"),
    "player_2": ("Player 2", "选手 2"),
    "head_to_head": ("Head to head", "胜负关系"),
    "byes": ("Byes", "轮空"),
    "raw_level_diff": ("级差 level difference (sum)", "级差（合计）"),
    "opponents_score": ("Opponents' score", "对手分"),
    "previous_rank": ("Previous rank", "上轮名次"),
    "tied_level_points": ("Level points among the tied", "并列者间级差分"),
    "opponents_level_points": ("Opponents' level points", "对手级差分"),
    "deducted_match_points": ("Match points deducted", "扣除场分"),
    "deducted_level_points": ("Level points deducted", "扣除级差分"),
    "primary_key": ("Ranked by", "排名依据"),
    "team_EW": ("Team E–W", "东西方"),
    "team_NS": ("Team N–S", "南北方"),
    "final_level_EW": ("Final level E–W", "东西方终局级数"),
    "final_level_NS": ("Final level N–S", "南北方终局级数"),
    "match_points_EW": ("Match points E–W", "东西方场分"),
    "match_points_NS": ("Match points N–S", "南北方场分"),
    "level_points_EW": ("Level points E–W", "东西方级差分"),
    "level_points_NS": ("Level points N–S", "南北方级差分"),
    "end_reason": ("Ended by", "结束原因"),
    "deals_played": ("Deals played", "已打副数"),
    "match_id": ("Match", "比赛"),
    "bye": ("bye", "轮空"),
    "draw": ("draw", "平局"),
    # duplicate (複式) events
    "duplicate_standings": ("Duplicate (复式) standings", "复式赛排名"),
    "duplicate_intro": (
        "Every deal of a board is played in each room; a pair scores matchpoints (MP) against the "
        "pairs who held the same cards: 2 per pair beaten, 1 per pair tied. The MP score rate "
        "ranks the pairs; equal rates are split by deals placed 1st, then 2nd, …",
        "同一副牌在各个房间都要打；每对选手与持相同牌的其他对比较得比赛分（MP）：胜一对得 2 分，"
        "平一对得 1 分。按 MP 得分率排名；得分率相同则比较第一名的副数，再比第二名……",
    ),
    "duplicate_boards": ("Results per board", "各牌组结果"),
    "pair": ("Pair", "组合"),
    "deals_compared": ("Deals compared", "比较副数"),
    "mp": ("MP", "比赛分 MP"),
    "mp_max": ("MP max", "MP 满分"),
    "mp_rate": ("MP score rate", "MP 得分率"),
    "place_counts": ("Deals placed 1st · 2nd · …", "名次副数 第1 · 第2 · …"),
    "decided_by": ("Decided by", "决定因素"),
    "decided_mp_rate": ("MP score rate", "MP 得分率"),
    "decided_place": ("more deals in place {k}", "第{k}名副数更多"),
    "decided_shared": ("shared rank", "并列"),
    "decided_head_to_head": ("head to head", "胜负关系"),
    "decided_raw_level_diff": ("level difference", "级差"),
    "decided_opponents_score": ("opponents' score", "对手分"),
    "decided_previous_rank": ("previous rank", "上轮名次"),
    "decided_tied_level_points": ("level points among the tied", "并列者间级差分"),
    "decided_opponents_level_points": ("opponents' level points", "对手级差分"),
    "board": ("Board", "牌组"),
    "direction": ("Direction", "方向"),
    "room": ("Room", "房间"),
    "room_open": ("open", "开室"),
    "room_closed": ("closed", "闭室"),
    "level_result": ("Level result", "级数结果"),
    "place": ("Place", "名次"),
    "rooms": ("Rooms", "房间数"),
    # replayer
    "choose_match": ("Match", "比赛"),
    "choose_deal": ("Deal", "副"),
    "step": ("Step", "步"),
    "hands": ("Hands", "手牌"),
    "on_table": ("On the table", "桌面"),
    "trick": ("Trick", "本轮出牌"),
    "tribute_return": ("进贡 / 还贡 tribute and return", "进贡 / 还贡"),
    "flags": ("Derived flags of each play", "每手牌的派生标记"),
    "level": ("Level", "级牌"),
    "declarers": ("Declarers", "庄家"),
    "start": ("Dealt hands (before tribute)", "发牌（进贡前）"),
    "after_tribute_step": ("After tribute and return", "进贡还贡后"),
    "pass": ("pass", "过"),
    "hand_unknown": ("hand unknown", "手牌未知"),
    "out": ("out", "已出完"),
    "flags_later": ("Step into the play to see each play's flags.", "进入出牌阶段后显示每手牌的标记。"),
    "no_plays": ("This deal has no recorded plays.", "此副无出牌记录。"),
    # decision review (the exact endgame solver)
    "review": ("Decision review", "决策复盘"),
    "review_none": (
        "No decision of this deal was reviewed "
        "(the solver reviews the endgame of deals with all four hands known).",
        "此副没有复盘的决策（求解器只复盘四家手牌均已知的残局）。",
    ),
    "review_summary": ("Decisions reviewed", "复盘的决策数"),
    "mistakes": ("Mistakes", "失误"),
    "next_mistake": ("Next mistake", "下一个失误"),
    "review_not_this_step": ("This step's decision was not reviewed.", "此步决策未复盘。"),
    "review_best": ("Best move", "最佳着法"),
    "review_mistake": ("Mistake: levels lost", "失误：损失级数"),
    "value_before": ("Value before (levels)", "决策前价值（级）"),
    "value_after": ("Value after (levels)", "决策后价值（级）"),
    "best_moves": ("Best move(s)", "最佳着法"),
    "review_accuracy": ("Decision review: accuracy on real choices", "决策复盘：真实选择的准确率"),
    "review_accuracy_note": (
        "Verdicts are exact with all four hands visible (double-dummy), on the endgame the solver "
        "reaches. Accuracy: the share of real choices that were a best move, with its 95 % interval. "
        "Forced passes and positions where every action is equal are counted, not scored.",
        "判定为四家明牌（双明手）下的精确解，仅覆盖求解器可解的残局。准确率：真实选择中走出最佳着法的比例，"
        "附 95% 区间。被迫过牌及所有着法等值的局面只计数，不计分。",
    ),
    "decision_skill": (
        "Skill from decisions: mistakes per 100 real choices", "决策水平：每百次真实选择的失误数"
    ),
    "decision_estimate": ("Estimate", "估计"),
    "decision_observed": ("Observed", "实测"),
    "real_choices_reviewed": ("Real choices reviewed", "复盘的真实选择数"),
    "combined_skill": ("Combined with the rating", "与等级分综合"),
    "combined_rank": ("rank {rank} of {n}", "第 {rank} 名，共 {n} 人"),
    "decision_skill_note": (
        "From the exact review's verdicts (all hands visible) on real choices only: a mistake is a "
        "choice that lost at least one level against the best action, however many; fewer is "
        "better. The estimate is the observed figure shrunk toward the population's "
        "({population} per 100) by its reliability ({reliability}), so a player seen on few "
        "choices is not ranked on noise. Combined: the rating's mean (μ) and the decision estimate as "
        "standard scores among the rated players (0 = average, higher is better), weighted by "
        "their reliabilities (the rating's: {rating_reliability}).",
        "依据精确复盘（四家明牌）对真实选择的判定：比最佳着法少得至少一级即为一次失误（不论损失几级）；"
        "失误越少越好。"
        "估计值是实测值按其可靠度（{reliability}）向全体水平（每百次 {population}）收缩的结果，"
        "选择次数少的选手不会因偶然而排名。综合：等级分均值（μ）与决策估计在有等级分的选手中的标准分"
        "（0 为平均，越高越好），按各自可靠度加权（等级分的可靠度：{rating_reliability}）。",
    ),
    "no_decision_skill": (
        "No real choice of this player has been reviewed yet.", "该选手尚无已复盘的真实选择。"
    ),
    "review_phase": ("Decision", "决策类型"),
    "phase_lead": ("Lead", "首出"),
    "phase_follow": ("Follow", "跟牌"),
    "phase_pass": ("Pass", "过牌"),
    "phase_bomb": ("Bomb", "炸弹"),
    "phase_jie_feng": ("Lead after 接风", "接风首出"),
    "phase_tribute_return": ("Return card after a tribute", "还贡"),
    "phase_all": ("All", "全部"),
    "accuracy": ("accuracy %", "准确率 %"),
    "real_choices": ("real choices", "真实选择数"),
    "not_scored": ("forced or no choice", "被迫或无选择"),
    "match_loss_per_100": ("match chance lost per 100 (pp)", "每百次损失的胜率（百分点）"),
    "decisions_reviewed": ("decisions reviewed", "复盘决策数"),
    "review_kind_double_dummy": ("exact, all hands visible (double-dummy)", "精确，四家明牌（双明手）"),
    "review_kind_single_dummy": ("sampled from the player's view (single-dummy)", "按选手视角抽样（单明手）"),
    # decision review from the player's view (the opt-in single-dummy job)
    "review_kinds_shown": ("Verdicts shown", "显示的判定"),
    "review_kinds_none": ("none for this deal", "此副暂无"),
    "sampled_none": (
        "No single-dummy verdict for this deal: the review from the player's view is an opt-in job "
        "(slow: about 20 CPU-s a deal). Run the `single_dummy` Dagster job, or for an event file "
        "`gdan single-dummy FILE --match ID --deal N` or `gdan review FILE --match ID --deal N "
        "--single-dummy`; the job's verdicts show here from the next published run.",
        "此副没有单明手判定：按选手视角的复盘是需手动启动的任务（较慢：单核每副约 20 秒）。"
        "在编排器中运行 `single_dummy` 任务；对事件文件可用 `gdan single-dummy FILE --match ID --deal N` "
        "或 `gdan review FILE --match ID --deal N --single-dummy`。任务的判定在下次发布运行后显示于此。",
    ),
    "sampled_review_now": ("Review this deal now from the player's view", "现在按选手视角复盘此副"),
    "sampled_review_now_help": (
        "Runs the single-dummy review of this deal on the dashboard's server with the job's settings "
        "(32 layouts a decision): about 20 s, longer for a long deal. The verdicts stay in this "
        "browser session; they are not stored.",
        "在看板服务器上以任务的设置（每个决策 32 种牌局）对此副做单明手复盘：约 20 秒，长的牌局更久。"
        "判定只保留在本浏览器会话中，不写入数据库。",
    ),
    "sampled_reviewing": (
        "Reviewing from the player's view… decision at seq {seq}", "正在按选手视角复盘…… 决策序号 {seq}"
    ),
    "sampled_busy": (
        "Another review made on demand is running on this server; try again when it has finished.",
        "本服务器正在进行另一项即时复盘，请在其完成后再试。",
    ),
    "sampled_cannot": ("This deal cannot be reviewed: {reason}", "此副无法复盘：{reason}"),
    "sampled_made_now": (
        "Verdicts made on demand in this session (not stored; the opt-in job stores them).",
        "本会话中即时生成的判定（未写入数据库；需手动启动的任务会保存判定）。",
    ),
    "sampled_made_now_none": (
        "The review made on demand found no real decision in this deal.",
        "即时复盘在此副中没有找到真实选择。",
    ),
    "sampled_accuracy_note": (
        "Every decision with a choice, the return card after a tribute included, judged over layouts of "
        "the cards the player could not see, dealt at random (the opt-in single-dummy job). Accuracy: "
        "the share where the action taken had the best mean value, with its 95 % interval.",
        "每个有选择的决策（包括进贡后的还贡牌），在选手看不到的牌随机发出的多种牌局上评判（需手动启动的单明手任务）。"
        "准确率：实际着法的平均价值为最佳的比例，附 95% 区间。",
    ),
    "sampled_accuracy_none": (
        "No decision has been judged from the player's view yet: that review is an opt-in job. Run the "
        "`single_dummy` Dagster job; its verdicts show here from the next published run.",
        "尚无按选手视角判定的决策：该复盘是需手动启动的任务。在编排器中运行 `single_dummy` 任务，"
        "其判定在下次发布运行后显示于此。",
    ),
    "levels_lost_per_100": ("mean levels lost per 100", "每百次平均损失级数"),
    "sampled_summary": ("Decisions judged from the player's view", "按选手视角判定的决策数"),
    "sampled_not_this_step": (
        "This step's decision has no single-dummy verdict (forced, or not reviewed).",
        "此步决策没有单明手判定（被迫，或未复盘）。",
    ),
    "sampled_return": ("Return card after the tribute", "还贡牌"),
    "sampled_worse_in": (
        "worse than the best in {k} of {n} layouts", "在 {n} 种抽样牌局中有 {k} 种劣于最佳"
    ),
    "sampled_played_mean": ("Played, mean [95 % interval]", "实际着法，均值 [95% 区间]"),
    "mean_levels_lost": ("mean levels lost", "平均损失级数"),
    "sampled_candidates": (
        "Candidates, best first: mean value in levels over the layouts [95 % interval]",
        "候选着法（最佳在前）：各抽样牌局的平均价值（级）[95% 区间]",
    ),
    "sampled_played": ("played", "实际"),
    "sampled_best": ("best", "最佳"),
    "sampled_method": (
        "{exact} of {n} layouts solved exactly, the rest played out by the simulator's bots · "
        "{classes} action classes, {valued} valued",
        "{n} 种牌局中 {exact} 种精确求解，其余由模拟器机器人打完 · 共 {classes} 类着法，评估 {valued} 类",
    ),
    "choice_real": ("real choice", "真实选择"),
    "choice_forced": ("forced pass (no legal play)", "被迫过牌（无牌可出）"),
    "choice_all_equal": ("no choice (every action equal)", "无选择（所有着法等值）"),
    "severity_best": ("Best move", "最佳着法"),
    "severity_inaccuracy": ("Inaccuracy", "欠佳"),
    "severity_mistake": ("Mistake", "失误"),
    "severity_blunder": ("Blunder", "重大失误"),
    "levels_lost": ("levels lost", "损失级数"),
    "match_chance": ("match-winning chance", "赢得比赛的概率"),
    "sampled_chance_note": (
        "mean over the layouts, the best candidate → the action taken (a simple model: later deals "
        "even, rules.md §7 for A and the format's end)",
        "各抽样牌局的平均值：最佳候选 → 实际着法（简单模型：后续各副胜负各半，过A与赛制结束按规则 §7）",
    ),
    "match_chance_note": (
        "after the deal, best play → action played (a simple model: later deals even, "
        "rules.md §7 for A and the format's end)",
        "本副结束后：最佳着法 → 实际着法（简单模型：后续各副胜负各半，过A与赛制结束按规则 §7）",
    ),
    "player_hand": ("Hand before the decision", "决策前手牌"),
    "review_counts": ("real choices {real} · forced {forced} · no choice {equal}",
                      "真实选择 {real} · 被迫 {forced} · 无选择 {equal}"),
    # data quality
    "quarantine": ("Quarantined input", "隔离的输入"),
    "by_code": ("Quarantined rows by error", "按错误统计的隔离行"),
    "code": ("Error", "错误"),
    # validation error codes (replay/errors.py ERROR_DOCS; the codes themselves never change)
    "err_malformed_line": ("line is not a JSON event", "该行不是 JSON 事件"),
    "err_malformed_field": ("missing or wrong field", "字段缺失或有误"),
    "err_unsupported_version": ("unsupported format version", "不支持的格式版本"),
    "err_unknown_type": ("unknown event type", "未知事件类型"),
    "err_duplicate_seq": ("sequence number repeated", "序号重复"),
    "err_missing_seq": ("sequence number skipped", "序号缺失"),
    "err_event_out_of_place": ("event out of place", "事件位置不对"),
    "err_incomplete_match": ("match without its end", "比赛没有结束事件"),
    "err_unknown_ruleset": ("unknown ruleset", "未知规则"),
    "err_wrong_hand_size": ("hand not 27 cards", "手牌不是 27 张"),
    "err_bad_deck": ("not two full decks", "不是完整的两副牌"),
    "err_wrong_level": ("wrong deal level", "本副级数有误"),
    "err_wrong_declarers": ("wrong declaring team", "主打方有误"),
    "err_wrong_leader": ("wrong first player", "首出玩家有误"),
    "err_tribute_missing": ("tribute missing", "缺少进贡"),
    "err_unexpected_tribute": ("tribute not due", "不应进贡"),
    "err_wrong_tribute_route": ("tribute between the wrong seats", "进贡的座位有误"),
    "err_wrong_tribute_card": ("tribute not the highest card", "进贡的不是最大的牌"),
    "err_bad_anti_tribute": ("wrong anti-tribute", "抗贡有误"),
    "err_return_missing": ("return missing", "缺少还贡"),
    "err_wrong_return_route": ("return between the wrong seats", "还贡的座位有误"),
    "err_wrong_return_card": ("return card not allowed", "还贡的牌不符合规定"),
    "err_out_of_turn": ("played out of turn", "未轮到出牌"),
    "err_card_not_in_hand": ("card not in hand", "牌不在手中"),
    "err_not_a_combination": ("not a combination", "不是合法牌型"),
    "err_bad_reading": ("wrong reading of the cards", "牌型认定有误"),
    "err_does_not_beat": ("does not beat the last play", "压不过上一手"),
    "err_pass_on_lead": ("pass on the lead", "首出时不出"),
    "err_deal_not_over": ("deal not over", "本副尚未结束"),
    "err_wrong_finish_order": ("wrong finishing order", "名次有误"),
    "err_wrong_levels": ("wrong levels", "级数有误"),
    "err_match_not_over": ("match not over", "比赛尚未结束"),
    "err_match_already_over": ("match already over", "比赛已经结束"),
    "err_wrong_match_result": ("wrong match result", "比赛结果有误"),
    "err_bad_ruling": ("invalid ruling", "裁定无效"),
    "problem_matches": ("Partial or invalid matches", "部分或无效的比赛"),
    "incomplete": ("Incomplete matches (no `match_end` yet)", "未完成的比赛（尚无 `match_end`）"),
    "status_incomplete": ("Incomplete", "未完成"),
    "first_seq": ("First seq", "首个序号"),
    "last_seq": ("Last seq", "最后序号"),
    "last_type": ("Last event", "最后事件"),
    "source_files": ("Files", "文件"),
    "first_ingested_at": ("First ingested (UTC)", "首次导入 (UTC)"),
    "last_ingested_at": ("Last ingested (UTC)", "最近导入 (UTC)"),
    "parse_errors": ("Malformed lines", "格式错误行"),
    "nothing_quarantined": (
        "Nothing quarantined: every input line was accepted.",
        "没有被隔离的输入：所有行均已接受。",
    ),
    "duplicate_matches": ("Duplicate matches (same deals, another id)", "重复的比赛（相同牌局，不同编号）"),
    "no_duplicates": ("No match repeats another's deals.", "没有重复其他比赛牌局的比赛。"),
    "duplicate_of": ("Repeats", "重复自"),
    "repeated_deals": ("Repeated deals", "重复的副数"),
    "compared_deals": ("Deals compared", "比较的副数"),
    "excluded": ("Left out of scoring", "不计分"),
    "reason": ("Finding", "说明"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "file_problems": ("Files that need attention", "需要处理的文件"),
    "no_file_problems": ("Every inbox file was read to its end.", "所有收件文件均已完整读取。"),
    "source_file": ("File", "文件"),
    "problem": ("Problem", "问题"),
    "problem_empty": ("empty: no events", "空文件：没有事件"),
    "problem_damaged": ("damaged: cannot be read to its end", "已损坏：无法读到结尾"),
    "problem_unfinished_line": ("unfinished last line (waiting for more)", "最后一行未完成（等待后续）"),
    "message": ("Details", "详情"),
    "pending_bytes": ("Bytes waiting", "待读字节"),
    "age_hours": ("Age (hours since last row)", "时长（距最后一行的小时数）"),
    "rows": ("Rows", "行数"),
    # promotion forecast (dan_forecast)
    "forecast": ("Promotion forecast", "晋升预测"),
    "forecast_intro": (
        "The chance of reaching the next dan before the window resets, from the player's rating "
        "(win chance against the field) and the dan points per round.",
        "在本窗口重置前晋升到下一段的概率，依据选手等级分（对整体的胜率）和每轮段位分估算。",
    ),
    "p_promote": ("Chance of promotion", "晋升概率"),
    "expected_rounds": ("Expected rounds to next dan", "预计晋升所需轮数"),
    "win_chance": ("Win chance vs field", "对整体胜率"),
    "rated_rounds": ("Rated rounds", "已评分轮数"),
    "naive_promote": ("Chance at a 50 % win rate", "按 50% 胜率的晋升概率"),
    "low_data": ("Low data", "数据不足"),
    "low_data_warning": (
        "⚠ marks a forecast from few rated rounds: treat it as a rough guide.",
        "⚠ 表示评分轮数较少的预测，仅供粗略参考。",
    ),
    "no_forecast": (
        "No promotion forecast for this player (top dan, or no bcta rounds yet).",
        "该选手暂无晋升预测（已是最高段或尚无 BCTA 轮次）。",
    ),
    # luck vs skill (player_luck)
    "luck": ("Luck or skill?", "运气还是实力？"),
    "luck_intro": (
        "A model predicts each deal's result from the cards dealt (bombs, jokers, wild cards …). "
        "Expected from the cards says how good the player's cards were; levels above expectation "
        "is how many levels per deal the player's team did better than those cards predicted. It "
        "still holds the partners' and opponents' strength and the luck of play, and it ranks "
        "players no better than levels per deal: for skill, see the rating. The bar is the 95 % "
        "interval; grey players have too few deals.",
        "模型根据发到的牌（炸弹、王、逢人配……）预测每副的结果。“按手牌预期”说明该选手的牌好坏；"
        "超出预期的级数表示该选手所在一方每副比手牌预测多赢的级数。它仍包含搭档与对手的强弱以及"
        "打牌时的运气，排序选手并不比每副级数更准：衡量实力请看等级分。竖线为 95% 区间；灰色选手的副数太少。",
    ),
    "luck_chart": ("Levels above expectation, every player", "超出预期的级数（全部选手）"),
    "above_expectation": ("Levels above expectation", "超出预期级数"),
    "actual_mean": ("Levels per deal", "每副级数"),
    "expected_mean": ("Expected from the cards", "按手牌预期"),
    "ci_95": ("95 % interval", "95% 区间"),
    "no_luck": ("No luck estimate for this player yet.", "该选手暂无运气估计。"),
    # axis units
    "unit_pct": ("%", "%"),
    "unit_bombs_per_deal": ("bombs per deal", "个/副"),
    "unit_bombs_per_seat": ("bombs per seat", "个/人"),
    "unit_cards": ("cards", "张"),
    "unit_count": ("count", "个"),
    "unit_levels": ("levels", "级"),
    "unit_levels_per_deal": ("levels per deal", "级/副"),
    "unit_points": ("points", "分"),
    "unit_rounds": ("rounds", "轮"),
    # corrections
    "superseded": ("Superseded revisions", "已被更正的版本"),
    "superseded_help": (
        "Matches corrected by a later submission (a higher match_start.revision): the revision in "
        "force is replayed and scored; the superseded ones are kept in raw_events, unscored.",
        "被后来提交的更正（更高的 match_start.revision）取代的比赛：只有现行版本参与回放和计分；"
        "被取代的版本保留在 raw_events 中，不计分。",
    ),
    "no_superseded": ("No match has been corrected.", "没有被更正的比赛。"),
    "revision": ("Revision", "版本"),
    "superseded_by": ("Superseded by (in force)", "现行版本"),
    "ingested_at": ("Ingested (UTC)", "导入时间 (UTC)"),
    # ruleset names (replay/rulesets.py ids)
    "ruleset_bcta": ("BCTA", "BCTA"),
    "ruleset_national": ("National", "全国赛"),
    "ruleset_huaian": ("Huai'an", "淮安"),
    "ruleset_jiangsu": ("Jiangsu", "江苏"),
    # standings decided in a knockout (scoring/knockout.py)
    "decided_knockout": ("round reached in the knockout", "淘汰赛所进轮次"),
    "decided_third_place_match": ("3rd-place match", "三四名决赛"),
    # coach
    "page_head_to_head": ("Head-to-head", "交手与搭档"),
    "filters": ("Filters", "筛选"),
    "date_from": ("From (day)", "起始日期"),
    "date_to": ("To (day, included)", "截止日期（含）"),
    "seat": ("Seat", "座位"),
    "min_sample": ("Minimum sample", "最小样本量"),
    "min_sample_help": (
        "A rate over fewer cases than this is greyed: too few to tell skill from chance.",
        "样本少于此数的比率显示为灰色：样本太少，无法区分实力与运气。",
    ),
    "low_sample": ("Small sample", "样本不足"),
    "below_min_sample": ("greyed: fewer than {n} cases", "灰色：样本少于 {n}"),
    "no_deals_filtered": ("No deals pass these filters.", "没有符合这些筛选条件的牌局。"),
    # results-only deals left out, head-to-head minimum, dan progress
    "window_points": ("Points this window", "本窗口积分"),
    "window_needed": ("Needed this window", "本窗口所需积分"),
    "window_progress": ("Progress this window", "本窗口进度"),
    "window_progress_note": (
        "Progress is the share of the points the next dan needs that were earned in the current "
        "window: a window used up clears them (BCTA rules), so it is 0 % right after a "
        "promotion or a reset, whatever the total.",
        "进度为本窗口内已得积分占晋升下一段位所需积分的比例：窗口用完未晋段则清零（BCTA 规则），"
        "因此刚晋段或刚清零时进度为 0%，与总积分无关。",
    ),
    "results_only_excluded": (
        "Results-only deals (result recorded, no play) left out of this page's figures: {n:,}.",
        "本页数据未计入仅录成绩（无出牌记录）的牌：{n:,} 副。",
    ),
    "h2h_minimum_note": (
        "Nemesis and best partner are chosen among players met in at least {n} rounds (default "
        "{default}; two players meet far less often than one plays); fewer are greyed.",
        "克星与最佳搭档只在同场至少 {n} 轮的选手中选出（默认 {default} 轮：两名选手同场的次数远少于"
        "各自的比赛轮数）；不足者显示为灰色。",
    ),
    "deal_record": ("Deals in the filter", "筛选范围内的牌局"),
    "double_win_rate": ("双上 double wins", "双上率"),
    "double_loss_rate": ("双下 double losses", "双下率"),
    "bombs_per_seat": ("Bombs per seat and deal", "每人每副炸弹数"),
    "match_list": ("Matches", "比赛列表"),
    "date": ("Date (local time)", "日期（当地时间）"),
    "opponents": ("Opponents", "对手"),
    "result": ("Result", "结果"),
    "result_win": ("won", "胜"),
    "result_draw": ("draw", "平"),
    "result_loss": ("lost", "负"),
    "deals_in_filter": ("Deals in filter", "符合条件的副数"),
    "open_replay": ("Replay", "回放"),
    "population_unfiltered": (
        "With filters the player's rates are recomputed from the plays; the population column stays "
        "over every deal.",
        "设置筛选后，选手的比率由出牌记录重新计算；整体一列仍为全部牌局。",
    ),
    "bomb_kind": ("Bombs", "炸弹"),
    "won_of_n": ("Deals won / seats", "赢副 / 人次"),
    "choose_other": ("Compare with", "对比选手"),
    "as_partner": ("As partners", "作为搭档"),
    "as_opponent": ("As opponents", "作为对手"),
    "never_met": ("Never met.", "从未同场。"),
    "best_partner": ("Best partner", "最佳搭档"),
    "nemesis": ("Nemesis", "克星"),
    "none_enough_rounds": ("Nobody met in {n} rounds or more.", "没有同场 {n} 轮及以上的选手。"),
    "relation": ("As", "关系"),
    "period_leaderboard": ("Period leaderboard", "阶段排行榜"),
    "period": ("Period", "周期"),
    "period_month": ("Month", "月"),
    "period_season": ("Season (quarter)", "赛季（季度）"),
    "period_name": ("Which", "哪一期"),
    "most_improved": ("Most improved", "进步最大"),
    "none_enough_rated_rounds": (
        "Nobody has {n} rated rounds or more in this period.",
        "本期没有评分轮次不少于 {n} 的选手。",
    ),
    "skill_change": ("Skill change (μ, levels per 10 deals)", "实力变化（μ，每 10 副级数）"),
    "most_improved_intro": (
        "Change of the rating's skill μ over the period's rated rounds (not the display rating, "
        "which rises for every new player as σ shrinks); only players with {n} or more rated "
        "rounds in the period.",
        "本期已评分轮次中等级分实力 μ 的变化（不用显示等级分：新选手的 σ 缩小时它会自然上升）；"
        "只列出本期评分轮次不少于 {n} 的选手。",
    ),
    "current_trick": ("Trick", "本墩"),
    "trick_not_started": ("no play yet", "尚未出牌"),
    "trick_won_by": ("won by", "本墩赢家"),
    "play": ("play", "出牌"),
    "first_step": ("Start", "开始"),
    "previous_step": ("Back", "上一步"),
    "next_step": ("Next", "下一步"),
    "next_trick": ("Next trick", "下一墩"),
    "next_flagged": ("Next flagged", "下一个标记"),
    "keyboard_help": (
        "keys: ← → step, Home start, T next trick, F next flagged, M next mistake",
        "快捷键：← → 单步，Home 开始，T 下一墩，F 下一个标记，M 下一个失误",
    ),
    "level_card": ("level card", "级牌"),
    "wild_card": ("wild (heart level card, 逢人配)", "逢人配（红心级牌）"),
    "mark_could_beat": ("passed though able to beat", "能管不管"),
    "mark_overtake": ("played over the partner", "压了搭档的牌"),
    "mark_bomb": ("bomb", "炸弹"),
    "mark_jie_feng": ("接风 lead after the partner went out", "接风"),
    "notes": ("Notes and tags", "笔记与标签"),
    "no_notes": ("No notes on this deal yet.", "本副暂无笔记。"),
    "notes_read_only": (
        "This server only reads: notes are written on a dashboards server over a store folder.",
        "本服务器只读：笔记需在基于本地数据仓库文件夹的看板上填写。",
    ),
    "notes_skipped": ("{n} unreadable note lines skipped.", "跳过 {n} 行无法读取的笔记。"),
    "anonymous": ("anonymous", "匿名"),
    "note_text": ("Note", "笔记"),
    "note_tags": ("Tags (comma separated)", "标签（逗号分隔）"),
    "note_tags_hint": ("endgame, bomb timing", "残局, 炸弹时机"),
    "note_author": ("Your name (optional)", "你的名字（可选）"),
    "note_at_step": ("At this step", "记在当前这一步"),
    "note_save": ("Save note", "保存笔记"),
    "note_empty": ("Write a note or a tag first.", "请先写笔记或标签。"),
    # journey 2: every label of every page in 中文
    "combo_single": ("single", "单张"),
    "combo_pair": ("pair", "对子"),
    "combo_triple": ("triple", "三同张"),
    "combo_full_house": ("full house", "三带对"),
    "combo_straight": ("straight", "顺子"),
    "combo_tube": ("tube", "三连对"),
    "combo_plate": ("plate", "钢板"),
    "combo_bomb": ("bomb", "炸弹"),
    "combo_straight_flush": ("straight flush", "同花顺"),
    "combo_joker_bomb": ("joker bomb", "四大天王"),
    "end_passed_a": ("passed A", "过A"),
    "end_deals": ("the format's deals", "打满规定副数"),
    "end_time": ("time", "时间到"),
    "end_a_failures": ("failures at A", "打A失败"),
    "end_forfeit": ("forfeit", "弃权"),
    "end_abandoned": ("abandoned", "中止"),
    "end_bye": ("bye", "轮空"),
    "seat_E": ("E", "东"),
    "seat_N": ("N", "北"),
    "seat_W": ("W", "西"),
    "seat_S": ("S", "南"),
    "line_no": ("Line", "行号"),
    "seq": ("Seq", "序号"),
    "error_code": ("Error", "错误"),
    "error_seq": ("At seq", "出错序号"),
    "error_message": ("Details", "详情"),
    "duplicate_all": (
        "every deal ({n}) has the same hands and plays as in match {of}, ingested earlier; left out of "
        "scoring",
        "全部 {n} 副的手牌和出牌与先导入的比赛 {of} 相同；不计分",
    ),
    "duplicate_some": (
        "{n} of {m} deals have the same hands and plays as in match {of}, ingested earlier; still "
        "scored, check it",
        "{m} 副中有 {n} 副的手牌和出牌与先导入的比赛 {of} 相同；仍计分，请核查",
    ),
    "started_at": ("Started (local time)", "开始时间（当地）"),
    "dan_before": ("Dan before", "原段位"),
    "dan_after": ("Dan after", "新段位"),
    "total_before": ("Points before", "原积分"),
    "total_after": ("Points after", "新积分"),
    "window_no": ("Window", "窗口"),
    "window_size": ("Window size (rounds)", "窗口大小（轮）"),
    "dan_promoted": ("promoted", "晋段"),
    "dan_window_reset": ("window reset", "窗口清零"),
    "giver": ("Gives", "进贡者"),
    "receiver_seat": ("Receives", "受贡者"),
    "tribute_card": ("Tribute card", "贡牌"),
    "return_card": ("Return card", "还牌"),
    "equal_double": ("Equal double tribute (贡左还右)", "双贡同点（贡左还右）"),
    "anti_seats": ("Resisted by", "抗贡者"),
    "trick_no": ("Trick", "墩"),
    "pos_in_trick": ("Position in trick", "墩内顺序"),
    "is_lead": ("Lead", "首出"),
    "action": ("Action", "动作"),
    "combo_rank": ("Rank", "点数"),
    "reading_inferred": ("Reading inferred", "牌型推断"),
    "overtook_partner": ("Over the partner", "压搭档"),
    "could_beat": ("Could beat", "能管上"),
    "went_out": ("Went out", "出完"),
    "left_after": ("Cards left", "余牌"),
    "entry_no_tables": (
        "Round {r} has no tables yet: the pairing of `scoring.md` §S8 needs fixed pairs and the "
        "standings after round {prev}. Press *Pair next round* to see the pairing, run `gdan run` "
        "after the results of round {prev} are in, or choose *New event* to type the pairs.",
        "第 {r} 轮还没有桌次：`scoring.md` §S8 的编排需要固定搭档和第 {prev} 轮后的排名。"
        "点击“编排下一轮”查看编排；第 {prev} 轮成绩录入后运行 `gdan run`；或选择“新赛事”输入搭档。",
    ),
    "entry_pairing_detail": ("Details from the pairing", "编排程序的详情"),
    "pairing_refused_individual": (
        "{event} is an individual event: partners rotate between rounds, so its standings rank "
        "players, not pairs. The pairing of `scoring.md` §S8 needs fixed pairs, and neither §S8 nor "
        "the rule books say how players are seated at tables of four. Seat the round's tables "
        "yourself and enter their results on a score sheet (`gdan import`, docs/scoresheet.md).",
        "{event} 是个人赛：搭档每轮轮换，排名按选手而不是按搭档。`scoring.md` §S8 的编排需要固定搭档，"
        "而 §S8 和各规则都没有规定如何把选手分到四人一桌。请自行安排本轮桌次，并用记分表录入成绩"
        "（`gdan import`，docs/scoresheet.md）。",
    ),
    "pairing_refused_no_standings": (
        "event {event} has no standings after round {after} (rounds with results: {rounds}): pair "
        "round {after} first, or run `gdan run` once its results are in",
        "赛事 {event} 没有第 {after} 轮后的排名（已有成绩的轮次：{rounds}）：请先编排第 {after} 轮，"
        "或在其成绩录入后运行 `gdan run`",
    ),
    "pairing_refused_no_teams": (
        "event {event} has no teams in the store",
        "赛事 {event} 在数据仓库中没有队伍",
    ),
    "pairing_no_rounds": ("none", "无"),
    "pairing_title": ("{event} · round {r} pairing", "{event} · 第 {r} 轮编排"),
    "ew_team": ("E–W team", "东西方队伍"),
    "ew_players": ("E–W players", "东西方选手"),
    "ew_rank": ("E–W rank", "东西方名次"),
    "ew_points": ("E–W points", "东西方积分"),
    "ns_team": ("N–S team", "南北方队伍"),
    "ns_players": ("N–S players", "南北方选手"),
    "ns_rank": ("N–S rank", "南北方名次"),
    "ns_points": ("N–S points", "南北方积分"),
    "standing_pair": ("pair", "搭档"),
    "standing_individual": ("individual", "个人"),
    "stage_swiss": ("Swiss", "瑞士移位"),
    "stage_knockout": ("knockout", "淘汰赛"),
    "stage_round_robin": ("round robin", "循环赛"),
    "stage_league": ("league", "联赛"),
    "cards_played": ("Cards", "牌"),
    "note_round_played": (
        "round {r} already has results in the store: this is the pairing §S8 gives, to check against "
        "the one played",
        "第 {r} 轮在数据仓库中已有成绩：这是 §S8 给出的编排，可与实际对阵核对",
    ),
    "note_rematches": (
        "no pairing without rematches exists: {pairs} meet again",
        "无法避免重复对阵：{pairs} 再次相遇",
    ),
    "note_ranked_by": (
        "ranked by the standings after round {r} ({points})",
        "按第 {r} 轮后的排名（{points}）",
    ),
    "note_seeded": (
        "seeded 1–{n} by the standings of stage {stage} after round {r}; byes go to the top seeds and "
        "the better seed sits E–W (national Art. 24, huaian Art. 25)",
        "按 {stage} 阶段第 {r} 轮后的排名定种子 1–{n}；轮空给高种子，高种子坐东西（全国规则第 24 条，"
        "淮安规则第 25 条）",
    ),
    "note_third_place": ("table {t} plays for 3rd place", "第 {t} 桌争夺第三名"),
    # results entry on the event day: registry, confirmation, referee's queue (service/)
    "entry_register": ("Register event", "登记赛事"),
    "entry_event_taken": (
        "Event id {event} is taken (registered, or in the store's matches): choose another id.",
        "赛事编号 {event} 已被使用（已登记，或数据仓库中已有该赛事的比赛）：请换一个编号。",
    ),
    "entry_no_event_yours": (
        "No event here is yours to enter: an admin assigns referees to events (`gdan users assign`).",
        "这里没有您可录入的赛事：由管理员为裁判分配赛事（`gdan users assign`）。",
    ),
    "entry_unknown_event": (
        "The address names event {event}, which neither the registry nor the store knows: nothing "
        "is opened in its place.",
        "地址中的赛事 {event} 既未登记也不在数据仓库中：不会改为打开其他赛事。",
    ),
    "entry_open_default": ("Open results entry without an event", "打开成绩录入（不指定赛事）"),
    "entry_confirmation": ("Opponents confirm each table's result", "每桌成绩须由对手确认"),
    "entry_confirmation_help": (
        "N–S enter the result on the tablet, E–W confirm it; only then does it count. A disputed "
        "result goes to the referee's queue.",
        "南北方在平板上录入成绩，东西方确认后才生效；有异议的成绩交由裁判处理。",
    ),
    "entry_duplicate": (
        "Duplicate (複式): every board in an open and a closed room",
        "复式赛：每套牌在开室和闭室各打一次",
    ),
    "entry_duplicate_help": (
        "Each drawn table's board is played at two tables: the open room with the seats as drawn, "
        "the closed room with the pairs' directions swapped. Each room's table enters its own "
        "result; the two rooms are compared deal by deal and count as one match (MP table).",
        "每桌抽签的套牌在两张牌桌上打：开室按抽签座位，闭室两对交换方向。每个房间的牌桌各自录入成绩；"
        "两个房间逐副比较，算作一场（MP 表）。",
    ),
    "entry_registered_pairs": ("Registered pairs · check-in", "已登记搭档 · 报到"),
    "entry_checked_in": ("Checked in", "已报到"),
    "entry_choose_first": (
        "Choose the 1st seat (上游) and the result, then add the deal.",
        "请先选择上游座位和结果，再记录本副。",
    ),
    "entry_waiting": ("Waiting for {side} to confirm the result", "等待{side}确认成绩"),
    "entry_confirm": ("Confirm ({side})", "确认（{side}）"),
    "entry_dispute": ("Dispute", "提出异议"),
    "entry_dispute_reason": ("What is wrong (for the referee)", "异议说明（供裁判参考）"),
    "entry_disputed": (
        "Disputed by {by}: {reason} — with the referee",
        "{by} 提出异议：{reason}——交由裁判处理",
    ),
    "entry_referee_queue": ("Referee's queue: disputed results", "裁判待处理：有异议的成绩"),
    "entry_accept": ("Accept as entered", "按原录入接受"),
    "entry_correct_accept": ("Correct and accept", "更正后接受"),
    "entry_pair_anyway": (
        "Pair anyway (recorded: who, when, which tables)",
        "仍然编排（记录操作人、时间和缺少成绩的桌次）",
    ),
    "pairing_refused_missing_results": (
        "round {round} of event {event} has no result for tables {tables} (teams {teams}): enter "
        "them first, or pair anyway (the override is recorded)",
        "赛事 {event} 第 {round} 轮缺少桌次 {tables} 的成绩（队伍 {teams}）：请先录入，"
        "或仍然编排（将记录此操作）",
    ),
    "note_paired_missing": (
        "paired although round {r} has no result for {what}",
        "第 {r} 轮缺少 {what} 的成绩，仍然编排",
    ),
    # times in the event's local time (schemas/times.py)
    "unit_local": ("local time", "当地时间"),
    "local_days": ("local days of the matches", "按比赛当地日期"),
    "started_local": ("Started (local time)", "开始时间（当地）"),
    "last_played_local": ("Last played (local time)", "最近比赛（当地时间）"),
    "match_started": ("Match started", "比赛开始"),
    "deal_started": ("Deal started", "本副开始"),
    "first_ingested_local": ("First ingested (match's local time)", "首次导入（比赛当地时间）"),
    "last_ingested_local": ("Last ingested (match's local time)", "最近导入（比赛当地时间）"),
    # access control: login, table tokens, roles (dashboards/access.py) and the audit of entries
    "access_login": ("Log in", "登录"),
    "access_read_only": (
        "Read-only: these pages show the runs published to object storage; results are entered on "
        "the service host.",
        "只读：这些页面显示发布到对象存储的运行结果；成绩在服务主机上录入。",
    ),
    "access_account": ("Account", "账号"),
    "access_password": ("Password", "密码"),
    "access_login_button": ("Log in", "登录"),
    "access_login_failed": ("Wrong account or password.", "账号或密码错误。"),
    "access_throttled": (
        "Too many failed attempts: try again after {until}.",
        "失败次数过多：请在 {until} 之后再试。",
    ),
    "access_pin": ("Table PIN", "本桌验证码"),
    "access_pin_button": ("Enter table result", "录入本桌成绩"),
    "access_token_refused": (
        "This table link or PIN is not valid (wrong, expired, or its result is entered already).",
        "本桌链接或验证码无效（错误、已过期或本桌成绩已录入）。",
    ),
    "access_signed_in": ("Signed in", "已登录"),
    "access_logout": ("Log out", "退出登录"),
    "access_logged_out": ("You are logged out.", "您已退出登录。"),
    "access_expired": ("Your session expired: log in again.", "会话已过期：请重新登录。"),
    "access_revoked": (
        "Your account or table link is no longer valid.", "您的账号或本桌链接已失效。"
    ),
    "access_table_token": ("table token", "本桌令牌"),
    "access_no_events": (
        "No event is registered yet: an admin registers it (New event).",
        "尚无已登记的赛事：请管理员登记（新赛事）。",
    ),
    "access_anonymous": (
        "Anyone using this server may enter results (no login needed here).",
        "本服务器的任何使用者都可录入成绩（无需登录）。",
    ),
    "access_login_required": (
        "The pages of this store are for its members: log in on the left.",
        "本数据仓库的页面仅限成员查看：请在左侧登录。",
    ),
    "access_entry_refused": (
        "Results entry needs a referee of the event, an admin, or the table's link or PIN: log in "
        "on the left.",
        "录入成绩需要本赛事的裁判、管理员，或本桌的链接或验证码：请在左侧登录。",
    ),
    "access_table_refused": (
        "You may not enter this table's result.", "您无权录入本桌成绩。"
    ),
    "role_viewer": ("viewer", "观众"),
    "role_referee": ("referee", "裁判"),
    "role_admin": ("admin", "管理员"),
    "audit_entered_by": ("Entered by {by} at {at}", "由 {by} 于 {at} 录入"),
    "audit_replaces": ("replaces revision {r}", "取代第 {r} 版"),
    "audit_submissions": ("Submissions", "提交记录"),
    "audit_submissions_help": (
        "Every result entered in the browser: who (an account, or a table token's id), when (UTC) "
        "and the revision it replaces, as written in the match's log (`gdan sql \"SELECT * FROM "
        "submissions\"`).",
        "在浏览器中录入的每个成绩：录入者（账号或本桌令牌编号）、时间（UTC）及其取代的版本，"
        "均记录在比赛日志中（`gdan sql \"SELECT * FROM submissions\"`）。",
    ),
    "audit_entered_at": ("Entered at (UTC)", "录入时间（UTC）"),
    "audit_entered_by_column": ("Entered by", "录入者"),
    "audit_entered_via": ("How", "方式"),
    "audit_replaces_column": ("Replaces revision", "取代版本"),
    "audit_none": ("No result was entered in the browser yet.", "尚无在浏览器中录入的成绩。"),
    # duplicate events as seed 004 scores them (scoring.md §S9): snake seating, outcome classes
    "note_snake": (
        "snake seating (蛇形排位) by the MP score rate after round {r}: table 1 = ranks 1 v 2, "
        "table 2 = ranks 4 v 3, …; each table's boards are also played in the other room with the "
        "seats turned",
        "按第 {r} 轮后的 MP 得分率蛇形排位：1 号桌为第 1 名对第 2 名，2 号桌为第 4 名对第 3 名……；"
        "每桌的牌在另一房间换位再打一次",
    ),
    "note_snake_first": (
        "snake seating (蛇形排位): round 1 is drawn at random; each table's boards are also played "
        "in the other room with the seats turned",
        "蛇形排位：第 1 轮随机分桌；每桌的牌在另一房间换位再打一次",
    ),
    "note_snake_standings": (
        "snake seating (蛇形排位) by the standings after round {r} ({points}): table 1 = ranks 1 v 2, "
        "table 2 = ranks 4 v 3, …",
        "按第 {r} 轮后的排名（{points}）蛇形排位：1 号桌为第 1 名对第 2 名，2 号桌为第 4 名对第 3 名……",
    ),
    "outcome_class": ("Result (class)", "结果（升级档次）"),
    "outcome_class_help": (
        "The deal's outcome for the pair's side by finishing places: +3 1st and 2nd, +2 1st and 3rd, "
        "+1 1st and 4th; −3/−2/−1 when the other side has it (also at K or A, where the level moves "
        "less or not at all)",
        "按名次计的本方结果：头游和二游 +3，头游和三游 +2，头游和末游 +1；对方如此则为 −3/−2/−1"
        "（在 K 或 A 上升级较少或不升级时亦然）",
    ),
    "board_sets": ("Matches (board-sets)", "场次（套牌）"),
    "board_sets_help": (
        "Board-sets played: the two rooms of one board count as one match",
        "所打套牌数：同一套牌的两个房间算作一场",
    ),
    "entry_pairing_system": ("Pairing system", "编排方式"),
    "entry_pairing_system_help": (
        "How the next rounds are paired: automatic (snake seating for a duplicate event, round robin "
        "for a stage named so, else Swiss), Swiss, round robin, or snake seating (蛇形排位: table 1 = "
        "ranks 1 v 2, table 2 = ranks 4 v 3, …; round 1 drawn at random)",
        "下一轮的编排方式：自动（复式赛用蛇形排位，名为循环赛的阶段用循环赛，其余为瑞士移位）、瑞士移位、"
        "循环赛或蛇形排位（1 号桌为第 1 名对第 2 名，2 号桌为第 4 名对第 3 名……；第 1 轮随机）",
    ),
    "pairing_auto": ("automatic", "自动"),
    "pairing_swiss": ("Swiss", "瑞士移位"),
    "pairing_round_robin": ("round robin", "循环赛"),
    "pairing_snake": ("snake seating (蛇形排位)", "蛇形排位"),
    "duplicate_no_match_points": (
        "A duplicate event is ranked by its MP table above alone (scoring.md §S9, the Paohuzi rule "
        "book's MP score rate): match points (2 for a won round) would count each room as a match "
        "and no rule book gives a board-set's two rooms one match result, so no match-point "
        "standings are shown.",
        "复式赛仅以上方的 MP 表排名（scoring.md §S9，跑胡子规则的 MP 得分率）：场分（胜一轮得 2 分）会把每个"
        "房间算作一场，而规则未规定同一套牌两个房间合为一场的胜负，因此不显示场分排名。",
    ),
    # puzzles
    "page_puzzles": ("Puzzles", "残局练习"),
    "puzzle_kind": (
        "Positions from real deals where one play alone keeps the best result and the player chose "
        "another, losing at least one level. Exact, all hands visible (double-dummy): verified by the "
        "endgame solver against every other play.",
        "取自实战牌局的局面：只有一种出法能保住最佳结果，而选手选了别的出法，至少少升一级。"
        "精确结论，四家手牌全部可见（明牌分析）：残局求解器已逐一验证其他所有出法。",
    ),
    "puzzles_none": (
        "No puzzle yet: none of the reviewed mistakes has a single winning play.",
        "暂无残局：已复盘的失误中没有唯一正解的局面。",
    ),
    "puzzle": ("Puzzle", "残局"),
    "deal_n": ("deal {n}", "第 {n} 副"),
    "puzzle_to_move": ("**{seat}** to play, level {level}.", "轮到 **{seat}** 出牌，打 {level}。"),
    "puzzle_table": ("On the table: {play} by {seat}.", "桌面：{seat} 出的 {play}。"),
    "puzzle_lead": ("A new trick: the player leads.", "新一轮：由该选手首出。"),
    "puzzle_choose": ("Your play", "你的出法"),
    "puzzle_play": ("Play", "出牌"),
    "puzzle_right": ("The best play: the deal ends at {value} levels.", "正解！本副结果为 {value} 级。"),
    "puzzle_wrong": (
        "Not the best: the deal ends at {value} levels; the best play reaches {best}.",
        "不是最佳：本副结果为 {value} 级；正解可得 {best} 级。",
    ),
    "puzzle_unsolved": (
        "The solver could not finish this line within its budget.",
        "求解器未能在预算内算完这条变化。",
    ),
    "puzzle_line": ("What follows under best play", "双方最佳应对下的后续"),
    "puzzle_answer": ("Answer", "答案"),
    "puzzle_solution": ("The winning play", "正解"),
    "puzzle_in_game": ("Played in the game", "实战出法"),

}


def t(key: str, lang: Lang = "en") -> str:
    """The label for ``key`` in ``lang``; an unknown key is a programming error (``KeyError``)."""
    en, zh = LABELS[key]
    return zh if lang == "zh" else en
