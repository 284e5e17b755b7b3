# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The endgame solver's search in C: ``replay.solver.Solver``'s negamax alpha-beta, node for node.

``replay.solver`` stays the reference (its ``_search``, ``_play``, ``_pass``, ``_settle``, ``_key``
and transposition table); this module walks the same tree in the same order and gives the same
values, best moves and node counts. States are C structs (hand ids and their canonical ids per
seat, turn, table beat-key id, table seat, passes, seats out in order); the transposition table is
an open-addressing C table with the Python one's rule (cleared when it holds the limit, so every
stored bound stays true); a hand's plays onto a table are C arrays (the hand left, its canonical
id, the play's beat-key id) in the solver's own order, asked from the solver once per (hand,
table) — move generation and canonical hand keys stay with it, cached per hand. The budget is
checked at the same nodes: the search runs out exactly where the Python one does.
"""

from libc.stdint cimport int8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

import time



# A hand's distinct plays onto one table (``Solver._groups``), in the solver's order.
cdef struct Groups:
    int n
    int32_t *rid    # the hand left (interned hand id)
    int32_t *crid   # its canonical id
    int32_t *bkid   # the play's beat-key id


# ``replay.solver._State`` in C (the table itself is not needed: its beat key decides).
cdef struct State:
    int32_t hid[4]
    int32_t cid[4]
    int turn
    int tbk          # beat-key id of the table, 0: leading
    int tseat        # -1: none
    int passes
    int nout
    int out[3]


# A transposition-table slot: the key (four canonical ids and the rest), bounds and hint.
cdef struct Entry:
    uint32_t k[5]
    int32_t hint
    int8_t lo
    int8_t hi
    int8_t used


cdef struct FollowSlot:
    uint64_t key     # hand id << 32 | beat-key id, +1 (0: empty)
    Groups *groups


class Unsolved(Exception):
    """The budget ran out (caught in :meth:`Search.solve`)."""


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef void *_grow(void *block, size_t old_size, size_t new_size) except NULL:
    cdef char *grown = <char *>realloc(block, new_size)
    if grown == NULL:
        raise MemoryError()
    memset(grown + old_size, 0, new_size - old_size)
    return grown


cdef void _free_groups(Groups *g) noexcept:
    if g != NULL:
        free(g.rid)
        free(g.crid)
        free(g.bkid)
        free(g)


cdef class Search:
    """The search of one ``Solver`` (its level and ruleset), keeping its transposition table and
    move groups between solves as the solver does. Built by the solver with its seat tables."""

    cdef object solver
    cdef list bks               # beat key by id (what the solver's ``_groups`` takes)
    cdef int next_seat[4]
    cdef int partner[4]
    cdef int same[4][4]
    cdef int gain2[4][4]
    cdef int gain3[4][4][4]
    # transposition table
    cdef Entry *tt
    cdef uint64_t tt_cap
    cdef uint64_t tt_count
    cdef uint64_t tt_limit
    # groups
    cdef Groups **leads
    cdef int leads_cap
    cdef FollowSlot *follows
    cdef uint64_t follows_cap
    cdef uint64_t follows_count
    # budget
    cdef public long long nodes
    cdef long long limit
    cdef long long check_at
    cdef object deadline

    def __cinit__(self, solver, next_seat, partner, same_team, gain, tt_limit):
        cdef int a, b, c
        self.solver = solver
        self.bks = [None]
        for a in range(4):
            self.next_seat[a] = next_seat[a]
            self.partner[a] = partner[a]
            for b in range(4):
                self.same[a][b] = 1 if same_team[a][b] else 0
                self.gain2[a][b] = gain.get((a, b), 0)
                for c in range(4):
                    self.gain3[a][b][c] = gain.get((a, b, c), 0)
        self.tt_limit = tt_limit
        self.tt_cap = 1 << 12
        self.tt = <Entry *>calloc(self.tt_cap, sizeof(Entry))
        self.tt_count = 0
        self.leads_cap = 1024
        self.leads = <Groups **>calloc(self.leads_cap, sizeof(Groups *))
        self.follows_cap = 1 << 12
        self.follows = <FollowSlot *>calloc(self.follows_cap, sizeof(FollowSlot))
        self.follows_count = 0
        if self.tt == NULL or self.leads == NULL or self.follows == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef int i
        cdef uint64_t j
        if self.leads != NULL:
            for i in range(self.leads_cap):
                _free_groups(self.leads[i])
            free(self.leads)
        if self.follows != NULL:
            for j in range(self.follows_cap):
                if self.follows[j].key:
                    _free_groups(self.follows[j].groups)
            free(self.follows)
        free(self.tt)

    # ---- groups ---------------------------------------------------------------------------

    cdef Groups *_load(self, int hid, int tbk) except NULL:
        """The solver's groups of hand ``hid`` onto table ``tbk`` as C arrays."""
        cdef list groups = self.solver._groups(hid, self.bks[tbk])
        cdef list canon = self.solver._canon
        cdef int n = len(groups), i, b
        cdef Groups *g = <Groups *>malloc(sizeof(Groups))
        if g == NULL:
            raise MemoryError()
        g.n = n
        g.rid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
        g.crid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
        g.bkid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
        if g.rid == NULL or g.crid == NULL or g.bkid == NULL:
            _free_groups(g)
            raise MemoryError()
        for i in range(n):
            item = groups[i]
            g.rid[i] = item[0]
            g.crid[i] = canon[item[0]]
            b = item[3]
            g.bkid[i] = b
            self._note_bk(b, item[2])
        return g

    cdef int _note_bk(self, int bkid, object bk) except -1:
        while len(self.bks) <= bkid:
            self.bks.append(None)
        self.bks[bkid] = bk
        return 0

    cdef Groups *_groups(self, int hid, int tbk) except NULL:
        cdef Groups *g
        cdef uint64_t key, mask, j
        cdef int cap
        if tbk == 0:
            if hid >= self.leads_cap:
                cap = self.leads_cap
                while cap <= hid:
                    cap *= 2
                self.leads = <Groups **>_grow(self.leads, self.leads_cap * sizeof(Groups *), cap * sizeof(Groups *))
                self.leads_cap = cap
            g = self.leads[hid]
            if g == NULL:
                g = self.leads[hid] = self._load(hid, 0)
            return g
        key = ((<uint64_t>hid) << 32 | <uint64_t>tbk) + 1
        mask = self.follows_cap - 1
        j = _mix(key) & mask
        while self.follows[j].key:
            if self.follows[j].key == key:
                return self.follows[j].groups
            j = (j + 1) & mask
        g = self._load(hid, tbk)
        self.follows[j].key = key
        self.follows[j].groups = g
        self.follows_count += 1
        if self.follows_count * 2 > self.follows_cap:
            self._grow_follows()
        return g

    cdef int _grow_follows(self) except -1:
        cdef uint64_t old_cap = self.follows_cap, i, j, mask
        cdef FollowSlot *old = self.follows
        cdef FollowSlot *new = <FollowSlot *>calloc(old_cap * 2, sizeof(FollowSlot))
        if new == NULL:
            raise MemoryError()
        mask = old_cap * 2 - 1
        for i in range(old_cap):
            if old[i].key:
                j = _mix(old[i].key) & mask
                while new[j].key:
                    j = (j + 1) & mask
                new[j] = old[i]
        free(old)
        self.follows = new
        self.follows_cap = old_cap * 2
        return 0

    # ---- transposition table --------------------------------------------------------------

    cdef inline uint64_t _slot(self, uint32_t *k) noexcept:
        cdef uint64_t h = _mix((<uint64_t>k[0] | (<uint64_t>k[1]) << 32) ^ _mix(
            (<uint64_t>k[2] | (<uint64_t>k[3]) << 32) ^ _mix(<uint64_t>k[4] + 0x9e3779b97f4a7c15ULL)))
        cdef uint64_t mask = self.tt_cap - 1
        cdef uint64_t j = h & mask
        cdef Entry *e
        while True:
            e = &self.tt[j]
            if not e.used or (e.k[0] == k[0] and e.k[1] == k[1] and e.k[2] == k[2]
                              and e.k[3] == k[3] and e.k[4] == k[4]):
                return j
            j = (j + 1) & mask

    cdef int _store(self, uint32_t *k, int lo, int hi, int hint) except -1:
        """``tt[key] = …`` with the Python table's rule: cleared first when it holds the limit."""
        cdef uint64_t j
        cdef Entry *e
        if self.tt_count >= self.tt_limit:
            memset(self.tt, 0, self.tt_cap * sizeof(Entry))
            self.tt_count = 0
        j = self._slot(k)
        e = &self.tt[j]
        if not e.used:
            e.used = 1
            e.k[0] = k[0]
            e.k[1] = k[1]
            e.k[2] = k[2]
            e.k[3] = k[3]
            e.k[4] = k[4]
            self.tt_count += 1
        e.lo = lo
        e.hi = hi
        e.hint = hint
        if self.tt_count * 2 > self.tt_cap:
            self._grow_tt()
        return 0

    cdef int _grow_tt(self) except -1:
        cdef uint64_t old_cap = self.tt_cap, i, j
        cdef Entry *old = self.tt
        self.tt = <Entry *>calloc(old_cap * 2, sizeof(Entry))
        if self.tt == NULL:
            self.tt = old
            raise MemoryError()
        self.tt_cap = old_cap * 2
        for i in range(old_cap):
            if old[i].used:
                j = self._slot(old[i].k)
                self.tt[j] = old[i]
        free(old)
        return 0

    # ---- transitions (Solver._play, _pass, _settle) ---------------------------------------

    cdef inline int _next_active(self, State *s, int seat) noexcept:
        seat = self.next_seat[seat]
        while s.hid[seat] == 0:
            seat = self.next_seat[seat]
        return seat

    cdef inline int _play(self, State *s, State *child, int i, Groups *g, int *value) noexcept:
        """``child`` := the state after the player to move plays group ``i``; returns 1 (and the
        value for the player's team) when the play ends the deal."""
        cdef int turn = s.turn, n, gain
        child[0] = s[0]
        child.hid[turn] = g.rid[i]
        child.cid[turn] = g.crid[i]
        if g.rid[i] == 0:
            child.out[child.nout] = turn
            child.nout += 1
            n = child.nout
            if n == 3 or (n == 2 and self.same[child.out[0]][turn]):
                if n == 3:
                    gain = self.gain3[child.out[0]][child.out[1]][child.out[2]]
                else:
                    gain = self.gain2[child.out[0]][child.out[1]]
                value[0] = gain if self.same[child.out[0]][turn] else -gain
                return 1
        child.turn = self._next_active(child, turn)
        child.tbk = g.bkid[i]
        child.tseat = turn
        child.passes = 0
        return 0

    cdef inline void _pass(self, State *s) noexcept:
        """``s`` := the state after the player to move passes (in place)."""
        cdef int passes = s.passes + 1
        if passes < 4 - s.nout - (s.hid[s.tseat] != 0):
            s.passes = passes
            s.turn = self._next_active(s, s.turn)
            return
        s.turn = s.tseat if s.hid[s.tseat] else self.partner[s.tseat]
        s.tbk = 0
        s.tseat = -1
        s.passes = 0

    cdef inline int _settle(self, State *s) except -1:
        while s.tbk != 0 and self._groups(s.hid[s.turn], s.tbk).n == 0:
            self._pass(s)
        return 0

    # ---- search ---------------------------------------------------------------------------

    cdef int _tick(self) except -1:
        if self.nodes > self.limit:
            raise Unsolved
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise Unsolved
        self.check_at = min(self.limit + 1, self.nodes + 256)
        return 0

    cdef int _search(self, State *s, int alpha, int beta) except -99:
        cdef int turn = s.turn, mine, lo, hi, hint, a, b, n, m, j, i, v, best, best_i, value
        cdef int table = s.tbk != 0, pass_front, moved, lo_s, hi_s, first
        cdef uint32_t k[5]
        cdef uint64_t slot
        cdef Entry *e
        cdef Groups *g
        cdef State child
        self.nodes += 1
        if self.nodes >= self.check_at:
            self._tick()
        if s.nout:
            mine = self.same[s.out[0]][turn]
            if s.nout == 2:
                lo, hi = (1, 2) if mine else (-2, -1)
            else:
                lo, hi = (1, 3) if mine else (-3, -1)
        else:
            lo, hi = -3, 3
        k[0] = s.cid[turn]
        k[1] = s.cid[(turn + 1) & 3]
        k[2] = s.cid[(turn + 2) & 3]
        k[3] = s.cid[(turn + 3) & 3]
        k[4] = (((s.out[0] - turn) & 3) if s.nout else 4) | (
            (((s.tseat - turn) & 3) if s.tseat >= 0 else 4) << 3) | s.passes << 6 | s.tbk << 8
        slot = self._slot(k)
        e = &self.tt[slot]
        hint = -2
        if e.used:
            if e.lo > lo:
                lo = e.lo
            if e.hi < hi:
                hi = e.hi
            hint = e.hint
        if lo >= hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        a = alpha if alpha > lo else lo
        b = beta if beta < hi else hi
        g = self._groups(s.hid[turn], s.tbk)
        n = g.n
        # The Python order: 0..n-1, the pass (-1) first when the table is the partner's, last
        # otherwise; then the hint moved to the front when it names an action here.
        pass_front = table and self.same[s.tseat][turn]
        m = n + table
        first = -1 if pass_front else (0 if n else -1)
        moved = hint != first and ((0 <= hint < n) or (hint == -1 and table))
        best, best_i = -4, -1
        for j in range(-1 if moved else 0, m):
            if j < 0:
                i = hint
            else:
                if pass_front:
                    i = j - 1
                else:
                    i = j if j < n else -1
                if moved and i == hint:
                    continue
            if i < 0:
                child = s[0]
                self._pass(&child)
                self._settle(&child)
                if self.same[child.turn][turn]:
                    v = self._search(&child, a, b)
                else:
                    v = -self._search(&child, -b, -a)
            elif self._play(s, &child, i, g, &value):
                v = value
            else:
                self._settle(&child)
                if self.same[child.turn][turn]:
                    v = self._search(&child, a, b)
                else:
                    v = -self._search(&child, -b, -a)
            if v > best:
                best, best_i = v, i
                if v > a:
                    a = v
                    if a >= b:
                        break
        if best > hi:
            best = hi
        if best < lo:
            best = lo
        if best <= (alpha if alpha > lo else lo):
            lo_s, hi_s = lo, best
        elif best >= (beta if beta < hi else hi):
            lo_s, hi_s = best, hi
        else:
            lo_s = hi_s = best
        self._store(k, lo_s, hi_s, best_i)
        return best

    cdef int _state(self, tuple state, State *s) except -1:
        """A ``replay.solver._State`` as a C state (its hands' canonical ids known)."""
        cdef tuple hands = state[0], out = state[6]
        cdef list canon = self.solver._canon
        cdef int i
        for i in range(4):
            s.hid[i] = hands[i]
            s.cid[i] = canon[hands[i]]
        s.turn = state[1]
        s.tbk = self.solver._bk_id(state[3])
        self._note_bk(s.tbk, state[3])
        s.tseat = state[4]
        s.passes = state[5]
        s.nout = len(out)
        for i in range(3):
            s.out[i] = out[i] if i < s.nout else 0
        return 0

    def solve(self, tuple state, long long limit, deadline):
        """``Solver.solve_state``'s search within ``limit`` nodes and the ``deadline``
        (``time.perf_counter`` seconds, or None): ``(value, indices of the best groups, whether
        passing is best)``, or None when the budget runs out (:attr:`nodes` says how many)."""
        cdef State root, child
        cdef Groups *g
        cdef int value, turn, i, v, ok, end
        cdef list best = []
        cdef bint pass_best = False
        self._state(state, &root)
        self.nodes = 0
        self.limit = limit
        self.deadline = deadline
        self.check_at = 1
        turn = root.turn
        try:
            value = self._search(&root, -4, 4)
            g = self._groups(root.hid[turn], root.tbk)
            for i in range(g.n + (root.tbk != 0)):
                if i == g.n:
                    child = root
                    self._pass(&child)
                    end = 0
                else:
                    end = self._play(&root, &child, i, g, &v)
                if end:
                    ok = v >= value
                else:
                    self._settle(&child)
                    if self.same[child.turn][turn]:
                        ok = self._search(&child, value - 1, value) >= value
                    else:
                        ok = self._search(&child, -value, 1 - value) <= -value
                if ok and i == g.n:
                    pass_best = True
                elif ok:
                    best.append(i)
        except Unsolved:
            return None
        return value, best, pass_best

