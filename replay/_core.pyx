# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules engine's hot core in C: readings of a set of cards and legal moves (rules.md §3–§5).

The Python modules stay the reference (``replay.combos._compute``, ``replay.moves._generate``);
this core gives the same readings and the same moves in the same order, from a count per card code
(codes as in ``replay.cards``: suit-major, ``SB`` 52, ``HR`` 53) instead of Python tuples and
dicts. It names a reading by numbers (type index in ``replay.combos.TYPES``, rank code, size) and
asks the Python side once per reading for the interned ``Combo`` (the ``reading`` callable), so
callers get the very objects the Python engine makes. Moves are made afresh on every call, equal
to the Python engine's (which interns them: there a lookup is cheaper than making one, here it is
not). Any input the core does not take (an unknown card or level, three copies of a card) makes
it return ``None``: the Python reference then raises its own error, so messages stay in one place.
"""

from cpython.dict cimport PyDict_GetItem
from cpython.unicode cimport PyUnicode_GET_LENGTH, PyUnicode_READ_CHAR
from cpython.list cimport PyList_Append
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.string cimport memset

cdef extern from *:
    """
    /* A record object (the engine's Move) made without its __init__: allocated by its type's
       tp_new and each field set through the field's slot descriptor, which is what the frozen
       dataclass __init__ does through object.__setattr__, at a fraction of the cost. The record
       and its cards tuple are left out of the cycle collector: they hold only strings and an
       interned reading, so they can be in no reference cycle, and the many that callers keep
       (the solver's moves per hand) would otherwise make every full collection walk them. */
    static PyObject *gdan_new_record(PyObject *type, PyObject *empty, PyObject *field1, PyObject *value1,
                                     PyObject *field2, PyObject *value2) {
        PyTypeObject *t = (PyTypeObject *)type;
        PyObject *obj = t->tp_new(t, empty, NULL);
        if (obj == NULL) return NULL;
        if (Py_TYPE(field1)->tp_descr_set(field1, obj, value1) < 0
            || Py_TYPE(field2)->tp_descr_set(field2, obj, value2) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
        if (PyObject_IS_GC(obj) && PyObject_GC_IsTracked(obj)) PyObject_GC_UnTrack(obj);
        if (PyObject_GC_IsTracked(value1)) PyObject_GC_UnTrack(value1);
        return obj;
    }
    """
    object gdan_new_record(object type_, object empty, object field1, object value1, object field2,
                           object value2)


cdef enum:
    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    FULL_HOUSE = 3
    STRAIGHT = 4
    TUBE = 5
    PLATE = 6
    BOMB = 7
    STRAIGHT_FLUSH = 8
    JOKER_BOMB = 9
    SMALL = 52
    BIG = 53
    N_CODES = 54
    SMALL_RANK = 13
    BIG_RANK = 14
    N_IDS = 1760
    MAX_SUBSETS = 81
    MAX_OPTIONS = 32


cdef inline int combo_id(int type_, int rank, int size) noexcept nogil:
    """The number of a reading: type index, rank code (rank index, 13/14 for the small/big joker,
    a sequence's lowest position 1–13, 0 for the joker bomb) and size."""
    return (type_ * 16 + rank) * 11 + size


cdef inline int strength_class(int type_, int size) noexcept nogil:
    """§4 strength class, as ``replay.combos.strength_class``."""
    if type_ == BOMB:
        return 1 if size == 4 else 2 if size == 5 else 4
    if type_ == STRAIGHT_FLUSH:
        return 3
    if type_ == JOKER_BOMB:
        return 5
    return 0


cdef inline int sort_key(int cid, int lv) noexcept nogil:
    """``replay.combos.sort_key`` of reading ``cid`` at level index ``lv``, packed in one int."""
    cdef int size = cid % 11
    cdef int rank = (cid // 11) % 16
    cdef int type_ = cid // 176
    cdef int value
    if type_ == STRAIGHT or type_ == TUBE or type_ == PLATE or type_ == STRAIGHT_FLUSH:
        value = rank
    elif type_ == JOKER_BOMB:
        value = 16
    elif rank == SMALL_RANK:
        value = 14
    elif rank == BIG_RANK:
        value = 15
    else:
        value = 13 if rank == lv else rank
    return ((strength_class(type_, size) * 16 + (size if type_ == BOMB else 0)) * 16 + type_) * 32 + value


cdef extern from *:
    int __builtin_clz(unsigned int) nogil
    int __builtin_popcount(unsigned int) nogil


cdef inline int bit_length(unsigned int x) noexcept nogil:
    return 0 if x == 0 else 32 - __builtin_clz(x)


cdef int windows(int* cnt, int length, int* starts) noexcept nogil:
    """Start positions of sequence windows of ``length`` holding every natural rank counted in
    ``cnt`` (A at position 1 or 14), as ``replay.combos._windows``; returns how many."""
    cdef unsigned int mask = 0, window
    cdef int r, start, found = 0, last = 15 - length
    cdef bint has_ace = cnt[12] > 0
    for r in range(12):
        if cnt[r]:
            mask |= 1u << (r + 2)
    if mask and bit_length(mask) - bit_length(mask & (~mask + 1)) >= length:
        return 0
    for start in range(1, 16 - length):
        window = ((1u << length) - 1) << start
        if not (mask & ~window) and (not has_ace or start == 1 or start == last):
            starts[found] = start
            found += 1
    return found


cdef int reading_ids(int* counts, int n, int lv, int* out) noexcept nogil:
    """The readings of ``n`` (1–10) cards counted per code at level index ``lv``, weakest first
    (``replay.combos._compute``); returns how many were written to ``out``."""
    cdef int wc = 13 + lv
    cdef int wild = counts[wc], sb = counts[SMALL], hr = counts[BIG]
    cdef int cnt[13]
    cdef int starts[16]
    cdef unsigned int suits = 0
    cdef int c, r, t, p, i, j, k, key, found = 0, distinct = 0, top = 0, first = -1, second = -1, ns
    memset(cnt, 0, sizeof(cnt))
    for c in range(SMALL):
        if c != wc and counts[c]:
            r = c % 13
            cnt[r] += counts[c]
            suits |= 1u << (c // 13)
    for r in range(13):
        if cnt[r]:
            distinct += 1
            if cnt[r] > top:
                top = cnt[r]
            if first < 0:
                first = r
            else:
                second = r
    if sb or hr:
        if n == 1:
            out[0] = combo_id(SINGLE, SMALL_RANK if sb else BIG_RANK, 1)
            return 1
        if n == 2 and (sb == 2 or hr == 2):
            out[0] = combo_id(PAIR, SMALL_RANK if sb else BIG_RANK, 2)
            return 1
        if n == 4 and sb == 2 and hr == 2:
            out[0] = combo_id(JOKER_BOMB, 0, 4)
            return 1
        if n == 5 and sb + hr == 2 and (sb == 2 or hr == 2) and distinct == 1:
            out[0] = combo_id(FULL_HOUSE, first, 5)
            return 1
        return 0
    if n <= 3:
        if distinct == 0:
            if n <= 2:
                out[0] = combo_id(SINGLE + n - 1, lv, n)
                return 1
        elif distinct == 1:
            out[0] = combo_id(SINGLE + n - 1, first, n)
            return 1
        return 0
    if distinct == 1 and cnt[first] >= 2:
        out[found] = combo_id(BOMB, first, n)
        found += 1
    if n == 5:
        if distinct == 2:
            for i in range(2):
                t = first if i == 0 else second
                p = second if i == 0 else first
                if cnt[t] <= 3 and cnt[p] <= 2:
                    out[found] = combo_id(FULL_HOUSE, t, 5)
                    found += 1
        elif distinct == 1 and wild == 2 and cnt[first] == 3:
            out[found] = combo_id(FULL_HOUSE, first, 5)
            found += 1
        if distinct == n - wild:
            ns = windows(cnt, 5, starts)
            for i in range(ns):
                if wild or __builtin_popcount(suits) != 1:
                    out[found] = combo_id(STRAIGHT, starts[i], 5)
                    found += 1
                if __builtin_popcount(suits) == 1:
                    out[found] = combo_id(STRAIGHT_FLUSH, starts[i], 5)
                    found += 1
    elif n == 6:
        if top <= 2:
            ns = windows(cnt, 3, starts)
            for i in range(ns):
                out[found] = combo_id(TUBE, starts[i], 6)
                found += 1
        if top <= 3:
            ns = windows(cnt, 2, starts)
            for i in range(ns):
                out[found] = combo_id(PLATE, starts[i], 6)
                found += 1
    # stable insertion sort by sort_key (few readings)
    for i in range(1, found):
        k = out[i]
        key = sort_key(k, lv)
        j = i - 1
        while j >= 0 and sort_key(out[j], lv) > key:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = k
    return found


cdef struct Hand:
    int lv
    int wc
    int size
    int w
    int sb
    int hr
    int nat[13]
    unsigned int suit_ranks[4]
    int ncodes[13]
    int codes[13][4]
    int nsub[13]
    unsigned char sublen[13][MAX_SUBSETS]
    unsigned char sub[13][MAX_SUBSETS][8]


cdef void prepare(Hand* h, int* counts, int n, int lv) noexcept nogil:
    """Rank counts of a hand (``replay.moves._Hand``) and, per rank, every distinct choice of its
    natural cards in the order ``replay.moves._subsets`` lists them (itertools.product order)."""
    cdef int c, r, s, i, j, total, pos
    cdef int mult[4]
    cdef int choice[4]
    h.lv = lv
    h.wc = 13 + lv
    h.size = n
    h.w = counts[h.wc]
    h.sb = counts[SMALL]
    h.hr = counts[BIG]
    for s in range(4):
        h.suit_ranks[s] = 0
    for r in range(13):
        h.nat[r] = 0
        h.ncodes[r] = 0
        for s in range(4):
            c = s * 13 + r
            if c != h.wc and counts[c]:
                h.codes[r][h.ncodes[r]] = c
                h.ncodes[r] += 1
                h.nat[r] += counts[c]
                h.suit_ranks[s] |= 1u << r
        # odometer over (0..mult[0]) x ... x (0..mult[k-1]), the last digit fastest
        for i in range(h.ncodes[r]):
            mult[i] = counts[h.codes[r][i]]
            choice[i] = 0
        h.nsub[r] = 0
        while True:
            total = 0
            pos = 0
            for i in range(h.ncodes[r]):
                for j in range(choice[i]):
                    h.sub[r][h.nsub[r]][pos] = <unsigned char>h.codes[r][i]
                    pos += 1
            h.sublen[r][h.nsub[r]] = <unsigned char>pos
            h.nsub[r] += 1
            i = h.ncodes[r] - 1
            while i >= 0 and choice[i] == mult[i]:
                choice[i] = 0
                i -= 1
            if i < 0:
                break
            choice[i] += 1


cdef inline int value_of(Hand* h, int r) noexcept nogil:
    return 13 if r == h.lv else r


cdef inline int rank_at(int position) noexcept nogil:
    return 12 if position == 1 else position - 2


cdef struct Option:
    int n
    int u
    int cards[3]


cdef inline bint next_pick(int* pick, int* noptions, int n) noexcept nogil:
    """Step ``pick``, a counter whose digit j runs 0 … noptions[j] − 1 and whose last digit moves
    fastest (the order of ``itertools.product``); False once every choice was made."""
    cdef int j = n - 1
    while j >= 0 and pick[j] == noptions[j] - 1:
        pick[j] = 0
        j -= 1
    if j < 0:
        return False
    pick[j] += 1
    return True


cdef int group_options(Hand* h, int r, int width, int max_wilds, Option* out) noexcept nogil:
    """(cards, wilds used) for ``width`` cards of rank ``r`` with at most ``max_wilds`` wilds: per
    number of wilds, each choice of naturals, then the wilds (the pairs and triples of
    ``replay.moves._full_houses``, the groups of ``_sequences``); returns how many."""
    cdef int u, i, j, k, found = 0
    for u in range((h.w if h.w < max_wilds else max_wilds) + 1):
        k = width - u
        if k > h.nat[r]:
            continue
        for i in range(h.nsub[r]):
            if h.sublen[r][i] != k:
                continue
            for j in range(k):
                out[found].cards[j] = h.sub[r][i][j]
            for j in range(u):
                out[found].cards[k + j] = h.wc
            out[found].n = width
            out[found].u = u
            found += 1
    return found


cdef class Core:
    """The core bound to the Python engine's objects: the ``reading(type index, rank code, size)``
    callable giving interned ``Combo`` objects, the card codes by string and the strings by code,
    the level index by rank, and the ``Move`` class (``None`` where only readings are asked for)."""

    cdef object reading
    cdef dict type_index
    cdef short code_of[128][128]
    cdef tuple cards
    cdef dict levels
    cdef object move_class
    cdef object move_cards
    cdef object move_combo
    cdef list combos

    def __init__(self, reading, tuple types, dict codes, tuple cards, dict levels, move_class=None):
        """``types``: the type ids in type-index order (``replay.combos.TYPES``); ``codes``: the
        code of every card string (two ASCII characters); ``move_class``: a class with slot
        fields ``cards`` and ``combo`` (the engine's frozen ``Move``)."""
        self.reading = reading
        self.type_index = {name: i for i, name in enumerate(types)}
        for i in range(128):
            for j in range(128):
                self.code_of[i][j] = -1
        for card, code in codes.items():
            self.code_of[ord(card[0])][ord(card[1])] = code
        self.cards = cards
        self.levels = levels
        self.move_class = move_class
        if move_class is not None:
            self.move_cards = move_class.__dict__["cards"]
            self.move_combo = move_class.__dict__["combo"]
        self.combos = [None] * N_IDS

    cdef object combo(self, int cid):
        cdef object c = self.combos[cid]
        if c is None:
            c = self.combos[cid] = self.reading(cid // 176, (cid // 11) % 16, cid % 11)
        return c

    cdef int count(self, object cards, int* counts, bint* too_many) except -2:
        """Count ``cards`` (a sequence of card strings or one space/comma-separated string) per
        code; -1 for anything that is not a card."""
        cdef int n = 0, code
        if isinstance(cards, str):
            cards = cards.replace(",", " ").split()
        elif not isinstance(cards, (list, tuple)):
            return -1
        memset(counts, 0, N_CODES * sizeof(int))
        too_many[0] = False
        for card in cards:
            code = self.code(card)
            if code < 0:
                return -1
            counts[code] += 1
            if counts[code] > 2:
                too_many[0] = True
            n += 1
        return n

    cdef int count_multiset(self, object multiset, int* counts, bint* too_many) except -2:
        """Count a card multiset (card → copies, e.g. a ``Counter``) as ``replay.moves._Counts``
        does: copies of 0 or fewer are skipped before the card is looked at; -1 for a card that
        is not one."""
        cdef int n = 0, code, copies
        memset(counts, 0, N_CODES * sizeof(int))
        too_many[0] = False
        for card, value in multiset.items():
            if not isinstance(value, int):
                return -1
            copies = value if -3 < value < 3 else (3 if value > 0 else 0)
            if copies <= 0:
                continue
            if copies > 2:
                too_many[0] = True
                continue
            code = self.code(card)
            if code < 0:
                return -1
            counts[code] += copies
            n += copies
        return n

    cdef inline int code(self, object card) noexcept:
        """The code of a card string, -1 for anything else."""
        cdef Py_UCS4 first, second
        if not isinstance(card, str) or PyUnicode_GET_LENGTH(card) != 2:
            return -1
        first = PyUnicode_READ_CHAR(card, 0)
        second = PyUnicode_READ_CHAR(card, 1)
        if first >= 128 or second >= 128:
            return -1
        return self.code_of[first][second]

    cdef int level(self, object level) except -2:
        cdef PyObject* found = PyDict_GetItem(self.levels, level) if isinstance(level, str) else NULL
        return -1 if found is NULL else <int><object>found

    def readings(self, cards, level):
        """``replay.combos.readings`` of the cards at ``level`` (``[]`` outside 1–10 cards), or
        ``None`` where the Python reference must report an error."""
        cdef int counts[N_CODES]
        cdef int ids[16]
        cdef bint too_many
        cdef int n = self.count(cards, counts, &too_many)
        cdef int lv, found, i
        if n < 0:
            return None
        lv = self.level(level)
        if lv < 0:
            return None
        if n < 1 or n > 10:
            return []
        if too_many:
            return None
        found = reading_ids(counts, n, lv, ids)
        return [self.combo(ids[i]) for i in range(found)]

    def probe(self, hand, int lv, bint joker_pair):
        """A :class:`Probe` of ``hand`` (cards, or a card multiset such as a ``Counter``) at level
        index ``lv``, as ``replay.moves.BeatProbe``; ``None`` where the Python reference must
        report an error."""
        cdef int counts[N_CODES]
        cdef bint too_many
        cdef int n
        if isinstance(hand, dict):
            n = self.count_multiset(hand, counts, &too_many)
        else:
            n = self.count(hand, counts, &too_many)
        if n < 0 or too_many or not 0 <= lv < 13:
            return None
        probe = Probe()
        probe.prepare(counts, lv, joker_pair, self.type_index)
        return probe

    def legal_moves(self, hand, int lv, int table_type, int table_value, int table_size,
                    bint joker_pair):
        """``replay.moves.legal_moves`` at level index ``lv``: leading when ``table_type`` is -1,
        else following the table of that type index, rank value (``replay.combos.rank_value``)
        and size; ``None`` where the Python reference must report an error."""
        cdef int counts[N_CODES]
        cdef bint too_many
        cdef Hand h
        cdef int n = self.count(hand, counts, &too_many)
        cdef int cls
        if n < 0 or too_many or not 0 <= lv < 13:
            return None
        prepare(&h, counts, n, lv)
        cdef list out = []
        if table_type < 0:
            self.same_rank(&h, out, 1, -1)
            self.same_rank(&h, out, 2, -1)
            self.same_rank(&h, out, 3, -1)
            self.full_houses(&h, out, -1, joker_pair)
            self.straights(&h, out, 0)
            self.sequences(&h, out, TUBE, 2, 3, 0)
            self.sequences(&h, out, PLATE, 3, 2, 0)
            self.bombs(&h, out, 4, -1)
            self.flushes(&h, out, 0)
            self.joker_bomb(&h, out)
            return out
        cls = strength_class(table_type, table_size)
        if cls == 0:
            if table_type <= TRIPLE:
                self.same_rank(&h, out, table_type + 1, table_value)
            elif table_type == FULL_HOUSE:
                self.full_houses(&h, out, table_value, joker_pair)
            elif table_type == STRAIGHT:
                self.straights(&h, out, table_value)
            elif table_type == TUBE:
                self.sequences(&h, out, TUBE, 2, 3, table_value)
            else:
                self.sequences(&h, out, PLATE, 3, 2, table_value)
            self.bombs(&h, out, 4, -1)
            self.flushes(&h, out, 0)
        elif cls == 1 or cls == 2:
            self.bombs(&h, out, 3 + cls, table_value)
            self.flushes(&h, out, 0)
        elif cls == 3:
            self.bombs(&h, out, 6, -1)
            self.flushes(&h, out, table_value)
        elif cls == 4:
            self.bombs(&h, out, table_size, table_value)
        if cls < 5:
            self.joker_bomb(&h, out)
        return out

    # ---- moves, one generator per type (``replay.moves``); ``above``: the rank value to exceed

    cdef int emit(self, list out, int* codes, int n, int cid) except -1:
        """Append the move playing these card codes (sorted here) as reading ``cid``."""
        cdef int sorted_codes[10]
        cdef int i, j, c
        for i in range(n):
            c = codes[i]
            j = i - 1
            while j >= 0 and sorted_codes[j] > c:
                sorted_codes[j + 1] = sorted_codes[j]
                j -= 1
            sorted_codes[j + 1] = c
        cards = PyTuple_New(n)
        for i in range(n):
            card = self.cards[sorted_codes[i]]
            Py_INCREF(card)
            PyTuple_SET_ITEM(cards, i, card)
        PyList_Append(out, gdan_new_record(self.move_class, (), self.move_cards, cards, self.move_combo,
                                           self.combo(cid)))
        return 0

    cdef int rank_groups(self, Hand* h, list out, int r, int k, int u, int cid) except -1:
        """Every choice of ``k`` natural cards of rank ``r`` (in ``replay.moves._subsets`` order),
        each with ``u`` wilds, played as reading ``cid``."""
        cdef int cards[10]
        cdef int i, j
        for i in range(h.nsub[r]):
            if h.sublen[r][i] != k:
                continue
            for j in range(k):
                cards[j] = h.sub[r][i][j]
            for j in range(u):
                cards[k + j] = h.wc
            self.emit(out, cards, k + u, cid)
        return 0

    cdef int same_rank(self, Hand* h, list out, int n, int above) except -1:
        """Singles, pairs, triples (n = 1, 2, 3) of a natural rank plus wilds, and joker ones."""
        cdef int r, u, k, cid
        cdef int cards[2]
        for r in range(13):
            if (h.nat[r] == 0 and r != h.lv) or h.nat[r] + h.w < n or value_of(h, r) <= above:
                continue
            cid = combo_id(SINGLE + n - 1, r, n)
            for u in range((h.w if h.w < n else n) + 1):
                k = n - u
                if (k == 0 and r != h.lv) or k > h.nat[r]:
                    continue
                self.rank_groups(h, out, r, k, u, cid)
        if n <= 2:
            cards[0] = cards[1] = SMALL
            if h.sb >= n and 14 > above:
                self.emit(out, cards, n, combo_id(SINGLE + n - 1, SMALL_RANK, n))
            cards[0] = cards[1] = BIG
            if h.hr >= n and 15 > above:
                self.emit(out, cards, n, combo_id(SINGLE + n - 1, BIG_RANK, n))
        return 0

    cdef int full_houses(self, Hand* h, list out, int above, bint joker_pair) except -1:
        """A triple (compared, §4) plus a pair of another rank or, if allowed, of jokers."""
        cdef Option pairs[13][16]
        cdef int npairs[13]
        cdef Option extra[3]
        cdef Option triples[MAX_OPTIONS]
        cdef int nextra = 0, ntriples, t, p, i, j, cid
        cdef int cards[5]
        if h.size < 5:
            return 0
        for p in range(13):
            npairs[p] = group_options(h, p, 2, 1, pairs[p])
        if h.w == 2:
            extra[nextra].cards[0] = extra[nextra].cards[1] = h.wc
            extra[nextra].u = 2
            nextra += 1
        if joker_pair:
            if h.sb == 2:
                extra[nextra].cards[0] = extra[nextra].cards[1] = SMALL
                extra[nextra].u = 0
                nextra += 1
            if h.hr == 2:
                extra[nextra].cards[0] = extra[nextra].cards[1] = BIG
                extra[nextra].u = 0
                nextra += 1
        for t in range(13):
            if value_of(h, t) <= above or h.nat[t] == 0:
                continue
            cid = combo_id(FULL_HOUSE, t, 5)
            ntriples = group_options(h, t, 3, 2, triples)
            for i in range(ntriples):
                cards[0] = triples[i].cards[0]
                cards[1] = triples[i].cards[1]
                cards[2] = triples[i].cards[2]
                for p in range(13):
                    if p == t:
                        continue
                    for j in range(npairs[p]):
                        if triples[i].u + pairs[p][j].u <= h.w:
                            cards[3] = pairs[p][j].cards[0]
                            cards[4] = pairs[p][j].cards[1]
                            self.emit(out, cards, 5, cid)
                for j in range(nextra):
                    if triples[i].u + extra[j].u <= h.w:
                        cards[3] = extra[j].cards[0]
                        cards[4] = extra[j].cards[1]
                        self.emit(out, cards, 5, cid)
        return 0

    cdef int sequences(self, Hand* h, list out, int type_, int width, int length, int above) except -1:
        """Tubes (width 2, length 3) and plates (width 3, length 2): consecutive groups of one rank."""
        cdef Option options[3][MAX_OPTIONS]
        cdef int noptions[3]
        cdef int pick[3]
        cdef int cards[6]
        cdef int start, j, i, used, pos, cid
        if h.size < width * length:
            return 0
        for start in range(1, 16 - length):
            if start <= above:
                continue
            for j in range(length):
                noptions[j] = group_options(h, rank_at(start + j), width, width, options[j])
                if noptions[j] == 0:
                    break
            else:
                cid = combo_id(type_, start, width * length)
                for j in range(length):
                    pick[j] = 0
                while True:
                    used = 0
                    pos = 0
                    for j in range(length):
                        used += options[j][pick[j]].u
                        for i in range(width):
                            cards[pos] = options[j][pick[j]].cards[i]
                            pos += 1
                    if used <= h.w:
                        self.emit(out, cards, pos, cid)
                    if not next_pick(pick, noptions, length):
                        break
        return 0

    cdef int straights(self, Hand* h, list out, int above) except -1:
        """Plain straights starting above position ``above``: per rank any natural card or a wild.
        Five one-suit naturals without a wild are a straight flush only (§3), so they are skipped."""
        cdef int options[5][5]
        cdef int noptions[5]
        cdef int pick[5]
        cdef int cards[5]
        cdef int start, j, r, i, u, cid
        cdef unsigned int suits
        if h.size < 5:
            return 0
        for start in range((above + 1 if above + 1 > 1 else 1), 11):
            for j in range(5):
                r = rank_at(start + j)
                noptions[j] = h.ncodes[r]
                for i in range(h.ncodes[r]):
                    options[j][i] = h.codes[r][i]
                if h.w:
                    options[j][noptions[j]] = h.wc
                    noptions[j] += 1
                if noptions[j] == 0:
                    break
            else:
                cid = combo_id(STRAIGHT, start, 5)
                for j in range(5):
                    pick[j] = 0
                while True:
                    u = 0
                    suits = 0
                    for j in range(5):
                        cards[j] = options[j][pick[j]]
                        if cards[j] == h.wc:
                            u += 1
                        suits |= 1u << (cards[j] // 13)
                    if u <= h.w and (u or __builtin_popcount(suits) > 1):
                        self.emit(out, cards, 5, cid)
                    if not next_pick(pick, noptions, 5):
                        break
        return 0

    cdef int flushes(self, Hand* h, list out, int above) except -1:
        """Straight flushes starting above position ``above``: per suit, each rank its card of that
        suit or a wild (at most the hand's wilds)."""
        cdef int suits[4]
        cdef int nsuits = 0, s, i, j, start, r, u, cid, held_in
        cdef unsigned int held, window
        cdef int ranks[5]
        cdef int options[5][2]
        cdef int noptions[5]
        cdef int pick[5]
        cdef int cards[5]
        if h.size < 5:
            return 0
        for s in range(4):
            if __builtin_popcount(h.suit_ranks[s]) + h.w >= 5:
                suits[nsuits] = s
                nsuits += 1
        if nsuits == 0:
            return 0
        for start in range((above + 1 if above + 1 > 1 else 1), 11):
            window = 0
            for j in range(5):
                ranks[j] = rank_at(start + j)
                window |= 1u << ranks[j]
            cid = combo_id(STRAIGHT_FLUSH, start, 5)
            for i in range(nsuits):
                s = suits[i]
                held = h.suit_ranks[s]
                if 5 - __builtin_popcount(held & window) > h.w:
                    continue
                for j in range(5):
                    r = ranks[j]
                    if (held >> r) & 1:
                        options[j][0] = s * 13 + r
                        options[j][1] = h.wc
                        noptions[j] = 2
                    else:
                        options[j][0] = h.wc
                        noptions[j] = 1
                    pick[j] = 0
                while True:
                    u = 0
                    for j in range(5):
                        cards[j] = options[j][pick[j]]
                        if cards[j] == h.wc:
                            u += 1
                    if u <= h.w:
                        self.emit(out, cards, 5, cid)
                    if not next_pick(pick, noptions, 5):
                        break
        return 0

    cdef int bombs(self, Hand* h, list out, int min_size, int above_at_min) except -1:
        """Bombs of ``min_size`` or more cards; those of exactly ``min_size`` must rank above
        ``above_at_min``."""
        cdef int r, v, u, k, size, low
        if h.size < 4:
            return 0
        for r in range(13):
            if h.nat[r] < 2:
                continue
            v = value_of(h, r)
            for u in range(h.w + 1):
                low = 2
                if min_size - u > low:
                    low = min_size - u
                if 4 - u > low:
                    low = 4 - u
                for k in range(low, h.nat[r] + 1):
                    size = k + u
                    if size == min_size and v <= above_at_min:
                        continue
                    self.rank_groups(h, out, r, k, u, combo_id(BOMB, r, size))
        return 0

    cdef int joker_bomb(self, Hand* h, list out) except -1:
        """The joker bomb, when the hand holds all four jokers."""
        cdef int cards[4]
        if h.sb == 2 and h.hr == 2:
            cards[0] = cards[1] = SMALL
            cards[2] = cards[3] = BIG
            self.emit(out, cards, 4, combo_id(JOKER_BOMB, 0, 4))
        return 0


cdef inline unsigned int flush_starts(unsigned int mask, int need) noexcept nogil:
    """Bit ``s`` set for each window start ``s`` (1–10) holding ``need`` or more positions of
    ``mask`` (``replay.moves._flush_starts``)."""
    cdef unsigned int starts = 0
    cdef int start
    for start in range(1, 11):
        if __builtin_popcount(mask & (0b11111u << start)) >= need:
            starts |= 1u << start
    return starts


cdef class Probe:
    """A hand prepared once for many "can it beat this table?" questions (§4), from counts alone:
    ``replay.moves.BeatProbe`` (its reference) in C."""

    cdef int lv
    cdef int w
    cdef int sb
    cdef int hr
    cdef int nat[13]
    cdef unsigned int masks[4]
    cdef bint joker_pair
    cdef bint joker_bomb
    cdef int nbombs
    cdef int bomb_size[13]
    cdef int bomb_value[13]
    cdef bint big_bomb
    cdef int flush
    cdef dict type_index

    cdef void prepare(self, int* counts, int lv, bint joker_pair, dict type_index):
        cdef int c, r, s
        self.lv = lv
        self.type_index = type_index
        self.joker_pair = joker_pair
        self.w = counts[13 + lv]
        self.sb = counts[SMALL]
        self.hr = counts[BIG]
        for s in range(4):
            self.masks[s] = 0
        for r in range(13):
            self.nat[r] = 0
        for c in range(SMALL):
            if c == 13 + lv or not counts[c]:
                continue
            r = c % 13
            self.nat[r] += counts[c]
            self.masks[c // 13] |= (1u << 1 | 1u << 14) if r == 12 else 1u << (r + 2)
        self.joker_bomb = self.sb == 2 and self.hr == 2
        self.nbombs = 0
        self.big_bomb = False
        for r in range(13):
            if self.nat[r] >= 2 and self.nat[r] + self.w >= 4:
                self.bomb_size[self.nbombs] = self.nat[r] + self.w
                self.bomb_value[self.nbombs] = 13 if r == lv else r
                if self.bomb_size[self.nbombs] >= 6:
                    self.big_bomb = True
                self.nbombs += 1
        self.flush = -1

    cdef bint has_flush(self, int above) noexcept:
        cdef int s, need = 5 - self.w
        for s in range(4):
            if flush_starts(self.masks[s], need) >> (above + 1):
                return True
        return False

    cdef bint has_group_sequence(self, int width, int length, int above) noexcept:
        cdef int start, pos, need, n
        for start in range((above + 1 if above + 1 > 1 else 1), 16 - length):
            need = 0
            for pos in range(start, start + length):
                n = self.nat[rank_at(pos)]
                if n < width:
                    need += width - n
            if need <= self.w:
                return True
        return False

    cdef bint has_same_type(self, int type_, int v) noexcept:
        cdef int r, n, p, spare
        if type_ <= TRIPLE:
            n = type_ + 1
            for r in range(13):
                if (13 if r == self.lv else r) > v and (self.nat[r] >= 1 or r == self.lv) \
                        and self.nat[r] + self.w >= n:
                    return True
            return n <= 2 and ((self.sb >= n and v < 14) or (self.hr >= n and v < 15))
        if type_ == FULL_HOUSE:
            for r in range(13):
                if (13 if r == self.lv else r) <= v or self.nat[r] == 0:
                    continue
                spare = self.w - (3 - self.nat[r] if self.nat[r] < 3 else 0)
                if spare < 0:
                    continue
                if spare >= 2 or (self.joker_pair and (self.sb == 2 or self.hr == 2)):
                    return True
                for p in range(13):
                    if p != r and self.nat[p] >= 1 and self.nat[p] + spare >= 2:
                        return True
            return False
        if type_ == STRAIGHT:
            return self.has_group_sequence(1, 5, v)
        if type_ == TUBE:
            return self.has_group_sequence(2, 3, v)
        return self.has_group_sequence(3, 2, v)

    def beats_key(self, tuple key):
        """Whether some play from the hand beats a table given by its ``replay.combos.beat_key``
        (strength class, family, order value) at the probe's level (§4)."""
        cdef int cls = key[0], v = key[2], i
        if cls == 5:
            return False
        if self.joker_bomb:
            return True
        if cls == 4:
            for i in range(self.nbombs):
                if self.bomb_size[i] * 32 + self.bomb_value[i] > v:
                    return True
            return False
        if self.big_bomb:
            return True
        if cls == 3:
            return self.has_flush(v)
        if self.flush < 0:
            self.flush = self.has_flush(0)
        if self.flush:
            return True
        if cls == 2:
            for i in range(self.nbombs):
                if self.bomb_size[i] == 5 and self.bomb_value[i] > v:
                    return True
            return False
        if cls == 1:
            for i in range(self.nbombs):
                if self.bomb_size[i] == 5 or self.bomb_value[i] > v:
                    return True
            return False
        if self.nbombs:
            return True
        return self.has_same_type(self.type_index[key[1]], v)
