# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The endgame solver's search in C: ``replay.solver.Solver``'s negamax alpha-beta, node for node.

``replay.solver`` stays the reference (its ``_search``, ``_play``, ``_pass``, ``_settle``, ``_key``,
``_groups``, ``_canonical_hand`` and transposition table); this module walks the same tree in the
same order and gives the same values, best moves and node counts. States are C structs (hand ids
and their canonical ids per seat, turn, table beat-key id, table seat, passes, seats out in order).
Hands are counts per card code, interned here, each with its canonical id (the solver's canonical
key, worked out from the counts). A hand's leads come from ``replay.moves.legal_moves`` (the
Cython core) once, grouped and ordered here as the solver does; the plays onto a table are the
leads whose beat key beats it, compared as integers. The transposition table is an
open-addressing C table with the Python one's rule (cleared when it holds the limit, so every
stored bound stays true). The budget is checked at the same nodes: the search runs out exactly
where the Python one does.
"""

from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, memset
from cpython.exc cimport PyErr_CheckSignals
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_READ_CHAR

cdef extern from *:
    int _popcount "__builtin_popcount" (unsigned int x) nogil

cdef enum:
    N_CODES = 54  # card codes as in replay.cards: suit-major, SB 52, HR 53

import time



# A hand's distinct plays onto one table (``Solver._groups``), in the solver's order.
cdef struct Groups:
    int n
    int32_t *rid    # the hand left (hand id)
    int32_t *crid   # its canonical id
    int32_t *bkid   # the play's beat-key id


# A hand: cards held per code, its canonical id, its leads once made.
cdef struct HandRec:
    uint8_t counts[N_CODES]
    int32_t cid
    Groups *leads


cdef struct Slot:
    uint64_t hash
    int32_t id       # hand id + 1 (0: empty)


cdef struct ReadingSlot:
    PyObject *reading  # NULL: empty (the readings are kept alive by Search.readings)
    int32_t bkid
    int32_t size


cdef struct CanonSlot:
    uint64_t k0
    uint64_t k1
    uint64_t k2
    int32_t cid
    int32_t used


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


cdef uint64_t _hash_counts(uint8_t *counts) noexcept:
    cdef uint64_t a = 0, b = 0
    cdef int c
    for c in range(32):
        a |= (<uint64_t>counts[c]) << (2 * c)
    for c in range(32, N_CODES):
        b |= (<uint64_t>counts[c]) << (2 * (c - 32))
    return _mix(a ^ _mix(b + 0x9e3779b97f4a7c15ULL))


cdef int _compare_keys(const void *x, const void *y) noexcept nogil:
    cdef uint64_t a = (<uint64_t *>x)[0], b = (<uint64_t *>y)[0]
    return (a > b) - (a < b)


cdef void _sort(uint64_t *keys, int n) noexcept:
    """Sort keys ascending (each ends in its item's index: a stable order)."""
    qsort(keys, n, sizeof(uint64_t), _compare_keys)


cdef int _fill(Groups *g, int n, uint64_t *keys, int32_t *rids, int32_t *bids, HandRec *hands) except -1:
    """``g`` := the items named by the low 32 bits of ``keys``, in that order."""
    cdef int j, i
    g.n = n
    g.rid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    g.crid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    g.bkid = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    if g.rid == NULL or g.crid == NULL or g.bkid == NULL:
        raise MemoryError()
    for j in range(n):
        i = <int>(keys[j] & 0xffffffffu)
        g.rid[j] = rids[i]
        g.crid[j] = hands[rids[i]].cid
        g.bkid[j] = bids[i]
    return 0


cdef void _free_groups(Groups *g) noexcept:
    if g != NULL:
        free(g.rid)
        free(g.crid)
        free(g.bkid)
        free(g)


cdef class Search:
    """The search of one ``Solver`` (its level and ruleset), keeping its transposition table,
    hands and move groups between solves as the solver does. Built by the solver with its seat
    tables; asks ``replay.moves.legal_moves`` for each hand's leads (the Cython core), once."""

    cdef list solver_hands       # the solver's hands by its ids (cards; not the solver: no cycle)
    cdef object level
    cdef bint joker_pair
    cdef object legal_moves
    cdef object beat_key
    cdef dict codes              # card string -> code
    cdef short code_of[128][128]  # code by a card string's two characters
    cdef tuple card_of           # code -> card string
    cdef int wild
    cdef int pos_bits[54]
    cdef int next_seat[4]
    cdef int partner[4]
    cdef int same[4][4]
    cdef int gain2[4][4]
    cdef int gain3[4][4][4]
    # hands: counts per card code, canonical id, leads
    cdef HandRec *hands
    cdef int n_hands
    cdef int hands_cap
    cdef Slot *hand_slots
    cdef uint64_t hand_slots_cap
    cdef CanonSlot *canon_slots
    cdef uint64_t canon_slots_cap
    cdef int n_canon
    # beat keys: class, family id, order value by id; ids by key and by reading
    cdef int *bk_cls
    cdef int *bk_fam
    cdef int *bk_ord
    cdef int bk_cap
    cdef dict bk_ids
    cdef dict families
    cdef ReadingSlot *reading_slots  # beat-key id and size by reading (by identity)
    cdef uint64_t reading_slots_cap
    cdef uint64_t n_readings
    cdef list readings           # the readings in reading_slots, kept alive
    # transposition table
    cdef Entry *tt
    cdef uint64_t tt_cap
    cdef uint64_t tt_count
    cdef uint64_t tt_limit
    # follows by (hand, table)
    cdef FollowSlot *follows
    cdef uint64_t follows_cap
    cdef uint64_t follows_count
    # budget
    cdef public long long nodes
    cdef long long limit
    cdef long long check_at
    cdef object deadline

    def __cinit__(self, solver, next_seat, partner, same_team, gain, tt_limit):
        from replay.cards import CARDS, CODE
        from replay.combos import beat_key
        from replay.moves import legal_moves

        cdef int a, b, c
        cdef uint8_t empty[N_CODES]
        self.solver_hands = solver._hands
        self.level = solver.level
        self.joker_pair = solver.ruleset.full_house_joker_pair
        self.legal_moves = legal_moves
        self.beat_key = beat_key
        self.codes = dict(CODE)
        for a in range(128):
            for b in range(128):
                self.code_of[a][b] = -1
        for card, code in CODE.items():
            self.code_of[ord(card[0])][ord(card[1])] = code
        self.card_of = tuple(CARDS)
        self.wild = solver._wc
        for a in range(N_CODES):
            self.pos_bits[a] = solver._pos_bits[a]
        for a in range(4):
            self.next_seat[a] = next_seat[a]
            self.partner[a] = partner[a]
            for b in range(4):
                self.same[a][b] = 1 if same_team[a][b] else 0
                self.gain2[a][b] = gain.get((a, b), 0)
                for c in range(4):
                    self.gain3[a][b][c] = gain.get((a, b, c), 0)
        self.bk_ids = {None: 0}
        self.families = {}
        self.readings = []
        self.reading_slots_cap = 1 << 8
        self.reading_slots = <ReadingSlot *>calloc(self.reading_slots_cap, sizeof(ReadingSlot))
        self.tt_limit = tt_limit
        self.tt_cap = 1 << 12
        self.tt = <Entry *>calloc(self.tt_cap, sizeof(Entry))
        self.follows_cap = 1 << 12
        self.follows = <FollowSlot *>calloc(self.follows_cap, sizeof(FollowSlot))
        self.hands_cap = 1024
        self.hands = <HandRec *>calloc(self.hands_cap, sizeof(HandRec))
        self.hand_slots_cap = 1 << 12
        self.hand_slots = <Slot *>calloc(self.hand_slots_cap, sizeof(Slot))
        self.canon_slots_cap = 1 << 12
        self.canon_slots = <CanonSlot *>calloc(self.canon_slots_cap, sizeof(CanonSlot))
        self.bk_cap = 64
        self.bk_cls = <int *>calloc(self.bk_cap, sizeof(int))
        self.bk_fam = <int *>calloc(self.bk_cap, sizeof(int))
        self.bk_ord = <int *>calloc(self.bk_cap, sizeof(int))
        if (self.tt == NULL or self.reading_slots == NULL or self.follows == NULL or self.hands == NULL or self.hand_slots == NULL
                or self.canon_slots == NULL or self.bk_cls == NULL or self.bk_fam == NULL
                or self.bk_ord == NULL):
            raise MemoryError()
        memset(empty, 0, sizeof(empty))
        self._intern(empty)  # hand id 0: the empty hand, canonical id 0

    def __dealloc__(self):
        cdef int i
        cdef uint64_t j
        if self.hands != NULL:
            for i in range(self.n_hands):
                _free_groups(self.hands[i].leads)
            free(self.hands)
        if self.follows != NULL:
            for j in range(self.follows_cap):
                if self.follows[j].key:
                    _free_groups(self.follows[j].groups)
            free(self.follows)
        free(self.tt)
        free(self.reading_slots)
        free(self.hand_slots)
        free(self.canon_slots)
        free(self.bk_cls)
        free(self.bk_fam)
        free(self.bk_ord)

    # ---- hands (Solver._hand_id, _canonical_hand) -----------------------------------------

    cdef int _intern(self, uint8_t *counts) except -1:
        """The id of the hand with these counts per card code, its canonical id worked out."""
        cdef uint64_t h = _hash_counts(counts), mask = self.hand_slots_cap - 1, j
        cdef int hid
        j = h & mask
        while self.hand_slots[j].id:
            if self.hand_slots[j].hash == h and memcmp(self.hands[self.hand_slots[j].id - 1].counts,
                                                       counts, N_CODES) == 0:
                return self.hand_slots[j].id - 1
            j = (j + 1) & mask
        if self.n_hands == self.hands_cap:
            self.hands = <HandRec *>_grow(self.hands, self.hands_cap * sizeof(HandRec),
                                          2 * self.hands_cap * sizeof(HandRec))
            self.hands_cap *= 2
        hid = self.n_hands
        self.n_hands += 1
        memcpy(self.hands[hid].counts, counts, N_CODES)
        self.hands[hid].leads = NULL
        self.hands[hid].cid = self._canonical(counts)
        self.hand_slots[j].hash = h
        self.hand_slots[j].id = hid + 1
        if <uint64_t>self.n_hands * 2 > self.hand_slots_cap:
            self._grow_hand_slots()
        return hid

    cdef int _grow_hand_slots(self) except -1:
        cdef uint64_t cap = self.hand_slots_cap * 2, i, j
        cdef Slot *new = <Slot *>calloc(cap, sizeof(Slot))
        if new == NULL:
            raise MemoryError()
        for i in range(self.hand_slots_cap):
            if self.hand_slots[i].id:
                j = self.hand_slots[i].hash & (cap - 1)
                while new[j].id:
                    j = (j + 1) & (cap - 1)
                new[j] = self.hand_slots[i]
        free(self.hand_slots)
        self.hand_slots = new
        self.hand_slots_cap = cap
        return 0

    cdef int _canonical(self, uint8_t *counts) except -1:
        """The canonical id of a hand: what of it can matter for the rest of the deal (wilds,
        jokers, natural rank counts and, per suit, the cards inside a window where a straight
        flush can still form, suits unordered) — ``Solver._canonical_hand``'s key, as a number."""
        cdef int nat[13]
        cdef uint32_t masks[4]
        cdef uint32_t kept[4]
        cdef uint32_t live, w, t
        cdef int c, k, s, r, start, need, n_kept = 0, i, j
        cdef uint64_t key0, key1, key2, h, mask
        memset(nat, 0, sizeof(nat))
        memset(masks, 0, sizeof(masks))
        for c in range(52):
            k = counts[c]
            if k and c != self.wild:
                nat[c % 13] += k
                masks[c // 13] |= self.pos_bits[c]
        need = 5 - counts[self.wild]
        for s in range(4):
            if _popcount(masks[s]) < need:
                continue
            live = 0
            for start in range(1, 11):
                w = 0b11111u << start
                if _popcount(masks[s] & w) >= need:
                    live |= w
            if not live:
                continue
            t = 0
            for r in range(13):
                c = s * 13 + r
                if c != self.wild and counts[c] and self.pos_bits[c] & live:
                    t |= (<uint32_t>counts[c]) << (2 * r)
            if t:
                kept[n_kept] = t
                n_kept += 1
        for i in range(1, n_kept):  # suits are interchangeable: sort them
            t = kept[i]
            j = i - 1
            while j >= 0 and kept[j] > t:
                kept[j + 1] = kept[j]
                j -= 1
            kept[j + 1] = t
        for i in range(n_kept, 4):
            kept[i] = 0
        key0 = <uint64_t>counts[self.wild] | (<uint64_t>counts[52]) << 2 | (<uint64_t>counts[53]) << 4
        for r in range(13):
            key0 |= (<uint64_t>nat[r]) << (6 + 4 * r)
        key1 = <uint64_t>kept[0] | (<uint64_t>kept[1]) << 32
        key2 = <uint64_t>kept[2] | (<uint64_t>kept[3]) << 32
        h = _mix(key0 ^ _mix(key1 ^ _mix(key2 + 0x9e3779b97f4a7c15ULL)))
        mask = self.canon_slots_cap - 1
        j = h & mask
        while self.canon_slots[j].used:
            if (self.canon_slots[j].k0 == key0 and self.canon_slots[j].k1 == key1
                    and self.canon_slots[j].k2 == key2):
                return self.canon_slots[j].cid
            j = (j + 1) & mask
        self.canon_slots[j].used = 1
        self.canon_slots[j].k0 = key0
        self.canon_slots[j].k1 = key1
        self.canon_slots[j].k2 = key2
        self.canon_slots[j].cid = self.n_canon
        self.n_canon += 1
        if <uint64_t>self.n_canon * 2 > self.canon_slots_cap:
            self._grow_canon_slots()
        return self.n_canon - 1

    cdef int _grow_canon_slots(self) except -1:
        cdef uint64_t cap = self.canon_slots_cap * 2, i, j
        cdef CanonSlot *new = <CanonSlot *>calloc(cap, sizeof(CanonSlot))
        if new == NULL:
            raise MemoryError()
        for i in range(self.canon_slots_cap):
            if self.canon_slots[i].used:
                j = _mix(self.canon_slots[i].k0 ^ _mix(self.canon_slots[i].k1 ^ _mix(
                    self.canon_slots[i].k2 + 0x9e3779b97f4a7c15ULL))) & (cap - 1)
                while new[j].used:
                    j = (j + 1) & (cap - 1)
                new[j] = self.canon_slots[i]
        free(self.canon_slots)
        self.canon_slots = new
        self.canon_slots_cap = cap
        return 0

    cdef int _hand_of(self, object cards) except -1:
        """The id of a hand given as card strings."""
        cdef uint8_t counts[N_CODES]
        memset(counts, 0, sizeof(counts))
        for card in cards:
            counts[<int>self.codes[card]] += 1
        return self._intern(counts)

    # ---- beat keys (replay.combos.beat_key, key_beats) ------------------------------------

    cdef int _bk_id(self, object bk) except -1:
        """The id of a beat key (0: none, leading)."""
        cdef object found = self.bk_ids.get(bk)
        cdef int bid, cap
        if found is not None:
            return found
        bid = len(self.bk_ids)
        if bid >= self.bk_cap:
            cap = self.bk_cap * 2
            self.bk_cls = <int *>_grow(self.bk_cls, self.bk_cap * sizeof(int), cap * sizeof(int))
            self.bk_fam = <int *>_grow(self.bk_fam, self.bk_cap * sizeof(int), cap * sizeof(int))
            self.bk_ord = <int *>_grow(self.bk_ord, self.bk_cap * sizeof(int), cap * sizeof(int))
            self.bk_cap = cap
        if not (0 <= bk[0] < 64 and 0 <= bk[2] < 1 << 20):
            raise ValueError(f"beat key {bk} out of the search's range")
        family = self.families.setdefault(bk[1], len(self.families))
        self.bk_cls[bid] = bk[0]
        self.bk_fam[bid] = family
        self.bk_ord[bid] = bk[2]
        self.bk_ids[bk] = bid
        return bid

    cdef ReadingSlot *_reading(self, object reading) except NULL:
        """The beat-key id and size of a reading (the engine interns readings: by identity)."""
        cdef PyObject *key = <PyObject *>reading
        cdef uint64_t mask = self.reading_slots_cap - 1
        cdef uint64_t j = _mix(<uint64_t>key) & mask
        cdef ReadingSlot *slot
        while self.reading_slots[j].reading != NULL:
            if self.reading_slots[j].reading == key:
                return &self.reading_slots[j]
            j = (j + 1) & mask
        if (self.n_readings + 1) * 2 > self.reading_slots_cap:
            self._grow_readings()
            return self._reading(reading)
        bid = self._bk_id(self.beat_key(reading, self.level))
        slot = &self.reading_slots[j]
        slot.reading = key
        slot.bkid = bid
        slot.size = reading.size
        self.readings.append(reading)
        self.n_readings += 1
        return slot

    cdef int _grow_readings(self) except -1:
        cdef uint64_t cap = self.reading_slots_cap * 2, i, j
        cdef ReadingSlot *new = <ReadingSlot *>calloc(cap, sizeof(ReadingSlot))
        if new == NULL:
            raise MemoryError()
        for i in range(self.reading_slots_cap):
            if self.reading_slots[i].reading != NULL:
                j = _mix(<uint64_t>self.reading_slots[i].reading) & (cap - 1)
                while new[j].reading != NULL:
                    j = (j + 1) & (cap - 1)
                new[j] = self.reading_slots[i]
        free(self.reading_slots)
        self.reading_slots = new
        self.reading_slots_cap = cap
        return 0

    cdef inline bint _beats(self, int play, int table) noexcept:
        return self.bk_cls[play] > self.bk_cls[table] or (
            self.bk_cls[play] == self.bk_cls[table] and self.bk_fam[play] == self.bk_fam[table]
            and self.bk_ord[play] > self.bk_ord[table])

    # ---- groups (Solver._groups) ----------------------------------------------------------

    cdef Groups *_leads(self, int hid) except NULL:
        """The distinct leads of hand ``hid`` (by the hand left's canonical id and the beat key),
        in the solver's order: going out first, then non-bombs before bombs, more cards first,
        lower order value first; ties in ``legal_moves`` order."""
        cdef Groups *g = self.hands[hid].leads
        cdef uint8_t counts[N_CODES]
        cdef uint8_t rest[N_CODES]
        cdef int n_moves, n = 0, i, k, rid, crid, bid, size, code
        cdef ReadingSlot *rs
        cdef PyObject *card
        cdef tuple played
        cdef uint64_t *keys
        cdef int32_t *rids
        cdef int32_t *bids
        cdef int *sizes
        if g != NULL:
            return g
        memcpy(counts, self.hands[hid].counts, N_CODES)
        cards = []
        for code in range(N_CODES):
            for i in range(counts[code]):
                cards.append(self.card_of[code])
        moves = self.legal_moves(cards, self.level, None, full_house_joker_pair=self.joker_pair)
        n_moves = len(moves)
        rids = <int32_t *>malloc((n_moves + 1) * sizeof(int32_t))
        bids = <int32_t *>malloc((n_moves + 1) * sizeof(int32_t))
        sizes = <int *>malloc((n_moves + 1) * sizeof(int))
        keys = <uint64_t *>malloc((n_moves + 1) * sizeof(uint64_t))
        g = <Groups *>calloc(1, sizeof(Groups))
        try:
            if rids == NULL or bids == NULL or sizes == NULL or keys == NULL or g == NULL:
                raise MemoryError()
            for m in moves:
                memcpy(rest, counts, N_CODES)
                played = m.cards
                for k in range(PyTuple_GET_SIZE(played)):
                    card = PyTuple_GET_ITEM(played, k)
                    rest[self.code_of[<int>PyUnicode_READ_CHAR(<object>card, 0) & 127][
                        <int>PyUnicode_READ_CHAR(<object>card, 1) & 127]] -= 1
                rs = self._reading(m.combo)
                bid = rs.bkid
                size = rs.size
                rid = self._intern(rest)
                crid = self.hands[rid].cid
                for i in range(n):  # one group per (hand left's canonical id, beat key)
                    if bids[i] == bid and self.hands[rids[i]].cid == crid:
                        break
                else:
                    rids[n] = rid
                    bids[n] = bid
                    sizes[n] = size
                    n += 1
            for i in range(n):
                keys[i] = ((<uint64_t>(rids[i] != 0)) << 62 | (<uint64_t>(self.bk_cls[bids[i]] > 0)) << 61
                           | (<uint64_t>(255 - sizes[i])) << 52 | (<uint64_t>self.bk_ord[bids[i]]) << 32
                           | <uint64_t>i)
            _sort(keys, n)
            _fill(g, n, keys, rids, bids, self.hands)
        except BaseException:
            _free_groups(g)
            raise
        finally:
            free(rids)
            free(bids)
            free(sizes)
            free(keys)
        self.hands[hid].leads = g
        return g

    cdef Groups *_follows(self, int hid, int tbk) except NULL:
        """The leads of hand ``hid`` that beat table ``tbk``: going out first, then by strength
        class and order value; ties in lead order."""
        cdef Groups *leads = self._leads(hid)
        cdef Groups *g = <Groups *>calloc(1, sizeof(Groups))
        cdef uint64_t *keys = <uint64_t *>malloc((leads.n + 1) * sizeof(uint64_t))
        cdef int i, n = 0
        if g == NULL or keys == NULL:
            free(g)
            free(keys)
            raise MemoryError()
        for i in range(leads.n):
            if self._beats(leads.bkid[i], tbk):
                keys[n] = ((<uint64_t>(leads.rid[i] != 0)) << 62 | (<uint64_t>self.bk_cls[leads.bkid[i]]) << 52
                           | (<uint64_t>self.bk_ord[leads.bkid[i]]) << 32 | <uint64_t>i)
                n += 1
        _sort(keys, n)
        try:
            _fill(g, n, keys, leads.rid, leads.bkid, self.hands)
        except BaseException:
            _free_groups(g)
            raise
        finally:
            free(keys)
        return g

    cdef Groups *_groups(self, int hid, int tbk) except NULL:
        cdef Groups *g
        cdef uint64_t key, mask, j
        if tbk == 0:
            return self._leads(hid)
        key = ((<uint64_t>hid) << 32 | <uint64_t>tbk) + 1
        mask = self.follows_cap - 1
        j = _mix(key) & mask
        while self.follows[j].key:
            if self.follows[j].key == key:
                return self.follows[j].groups
            j = (j + 1) & mask
        g = self._follows(hid, tbk)
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
        """Every 256 nodes: past the budget, :class:`Unsolved`; a signal (Ctrl-C) is handled."""
        if PyErr_CheckSignals() < 0:
            return -1
        if self.nodes > self.limit:
            raise Unsolved
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise Unsolved
        self.check_at = min(self.limit + 1, self.nodes + 256)
        return 0

    cdef int _search(self, State *s, int alpha, int beta) except -99:
        cdef int turn = s.turn, mine, lo, hi, hint, a, b, n, m, j, i, v, best, best_i, value = 0
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
        cdef list cards = self.solver_hands
        cdef int i
        for i in range(4):
            s.hid[i] = self._hand_of(cards[hands[i]])
            s.cid[i] = self.hands[s.hid[i]].cid
        s.turn = state[1]
        s.tbk = self._bk_id(state[3])
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
        cdef int value, turn, i, v = 0, ok, end
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

