"""msprof-analyze's op and module alignment, as a pure algorithm over lists (no database).

The rules (``compare_backend/data_prepare/sequence_pre_matching.py``, ``utils/common_func.py``,
``utils/name_function.py``), applied to tracedb's ops by :mod:`tracedb.compare.store`:

1. the ops compared are the top-level ops of each rank (children of ``ProfilerStep#N`` and ops
   outside every step; only the steps of ``compare_step`` when a step is chosen), by start time;
2. when both runs know their autograd thread (``op.is_backward`` not NULL), each side is cut into
   maximal runs of backward / non-backward ops, and the runs are paired in order (if the first
   runs differ in kind, the first run of the side with more runs is emitted unmatched);
3. each pair of runs is aligned with ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` on
   a key per op: the op name after ``op_name_map`` (+ ``op.input_dims`` with --use-input-shape);
   the gaps between matching blocks become ``(op, None)`` / ``(None, op)`` rows;
4. with --max-kernel-num K, a matched pair whose both ops have children and whose larger kernel
   count (kernels of the subtree) exceeds K is replaced by the alignment of their children,
   recursively, in place.

The module trees are aligned with the same matcher (:func:`align_modules`).
"""
from __future__ import annotations

from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field
from difflib import Match, SequenceMatcher

from .. import lazy


@dataclass
class Op:
    op_id: int
    rank: int
    key: str
    is_backward: bool | None
    kernels: int
    children: list = field(default_factory=list)



@dataclass
class Module:
    module_id: int
    rank: int
    key: str
    ts_ns: int
    children: list = field(default_factory=list)




def align_modules(base: list[list[Module]], comp: list[list[Module]]) -> list:
    """msprof-analyze's module alignment (``_match_nn_module``, ``ModuleComparator``): per tree
    (forward, then backward), breadth first from the tops, the children of each pair are
    aligned as ``longest_common_subsequence_matching`` aligns them (a module one side lacks
    pairs with None, and its children with None in turn); the pairs are then ordered by the
    baseline module's start, each comparison-only module placed before the first pair whose
    comparison module starts after it."""
    pairs = []
    for b_top, c_top in zip(base, comp):
        queue = deque([(b_top, c_top)])
        while queue:
            b_children, c_children = queue.popleft()
            if not b_children and not c_children:
                continue
            for b, c in lcs_match(b_children, c_children):
                pairs.append((b, c))
                queue.append((b.children if b else [], c.children if c else []))
    based = sorted((p for p in pairs if p[0] is not None), key=lambda p: p[0].ts_ns)
    alone = sorted((p for p in pairs if p[0] is None), key=lambda p: p[1].ts_ns)
    out, i = [], 0
    for b, c in based:
        while c is not None and i < len(alone) and alone[i][1].ts_ns < c.ts_ns:
            out.append(alone[i])
            i += 1
        out.append((b, c))
    return out + alone[i:]


_P1, _P2 = 2_147_483_647, 2_147_483_629          # primes < 2**31: products stay below 2**62
_B1, _B2 = 1_000_003, 998_244_353 % _P2


class Matcher(SequenceMatcher):
    """``difflib.SequenceMatcher(None, a, b, autojunk=False)`` with the same matching blocks,
    found faster on long sequences.

    difflib's ``find_longest_match`` visits every pair of equal items in the window: on two
    9 000-op sequences of 18 op names that is ~11 M dictionary probes per call, quadratic in
    the length, and most of ``tracedb compare`` on a 20 MB pair. Without junk its answer is
    the longest common substring of ``a[alo:ahi]`` and ``b[blo:bhi]``; of several, the one
    starting first in ``a``, then first in ``b`` (its scan keeps the first block that reaches
    the longest length, scanning ``a`` then ``b`` in order). Here the length is found by a
    binary search on "some substring of length L of the ``a`` window occurs in the ``b``
    window" (monotone in L), each test a vectorised set membership of polynomial hashes of all
    L-long substrings (two moduli, so a collision needs both to collide); the chosen block is
    then compared item by item, and if it is not equal (a hash collision) the window falls
    back to difflib's scan (:meth:`_scan`). Small windows use that scan directly. ``get_matching_blocks``
    is difflib's, unchanged.
    """

    SMALL = 5_000          # window area (len a × len b) below which the scan is cheaper

    def __init__(self, a: list, b: list):
        super().__init__(None, a, b, autojunk=False)
        np = lazy.np
        self._caps: dict[tuple[int, int, int, int], int] = {}
        codes: dict = {}
        self._ca = np.fromiter((codes.setdefault(x, len(codes) + 1) for x in a), np.int64, len(a))
        self._cb = np.fromiter((codes.setdefault(x, len(codes) + 1) for x in b), np.int64, len(b))
        self._ha = [self._prefix(self._ca, p, base) for p, base in ((_P1, _B1), (_P2, _B2))]
        self._hb = [self._prefix(self._cb, p, base) for p, base in ((_P1, _B1), (_P2, _B2))]
        n = max(len(a), len(b)) + 1
        self._pow = []
        for p, base in ((_P1, _B1), (_P2, _B2)):
            pw = np.empty(n, np.int64)
            pw[0] = 1
            for k in range(1, n):          # n ≤ ops per rank; once per matcher
                pw[k] = pw[k - 1] * base % p
            self._pow.append(pw)

    @staticmethod
    def _prefix(codes, p: int, base: int):
        np = lazy.np
        h = np.zeros(len(codes) + 1, np.int64)
        acc = 0
        for k, c in enumerate(codes.tolist(), 1):
            acc = (acc * base + c) % p
            h[k] = acc
        return h

    def _keys(self, h, lo: int, hi: int, length: int):
        """Hash of every substring of length ``length`` starting in [lo, hi - length]."""
        np = lazy.np
        starts = np.arange(lo, hi - length + 1)
        out = None
        for (pref, p, pw) in ((h[0], _P1, self._pow[0]), (h[1], _P2, self._pow[1])):
            v = (pref[starts + length] - pref[starts] * pw[length] % p) % p
            out = v if out is None else out * _P2 + v
        return out

    def _scan(self, alo: int, ahi: int, blo: int, bhi: int):
        """difflib's scan (no junk), with each item's positions in ``b`` entered by bisection:
        difflib walks them from the start of ``b``, which costs more than the window itself
        once the recursion reaches the end of a long ``b``."""
        a, b2j = self.a, self.b2j
        besti, bestj, bestsize = alo, blo, 0
        j2len: dict = {}
        for i in range(alo, ahi):
            new: dict = {}
            where = b2j.get(a[i], ())
            for x in range(bisect_left(where, blo), len(where)):
                j = where[x]
                if j >= bhi:
                    break
                k = new[j] = j2len.get(j - 1, 0) + 1
                if k > bestsize:
                    besti, bestj, bestsize = i - k + 1, j - k + 1, k
            j2len = new
        return Match(besti, bestj, bestsize)

    def find_longest_match(self, alo=0, ahi=None, blo=0, bhi=None):
        np = lazy.np
        ahi = len(self.a) if ahi is None else ahi
        bhi = len(self.b) if bhi is None else bhi
        if (ahi - alo) * (bhi - blo) < self.SMALL:
            return self._scan(alo, ahi, blo, bhi)
        # a window inside the one of an earlier match holds no longer match than that one
        cap = self._caps.pop((alo, ahi, blo, bhi), None)
        top = min(ahi - alo, bhi - blo, ahi - alo if cap is None else cap)
        capped = cap is not None
        lo, hi, found = 0, top, None        # a common substring of length lo exists, none longer than hi

        def test(length):
            ka = self._keys(self._ha, alo, ahi, length)
            kb = self._keys(self._hb, blo, bhi, length)
            hit = np.isin(ka, kb)
            return (ka, kb, hit) if hit.any() else None

        step = 1                            # gallop up (the longest block is short in most windows) ...
        if capped and hi > 1:               # the enclosing match's length is the likeliest
            if (t := test(hi)) is not None:
                lo, found = hi, t
            else:
                hi -= 1
        while lo < hi:
            mid = min(lo + step, hi)
            if (t := test(mid)) is None:
                hi = mid - 1
                break
            lo, found, step = mid, t, step * 2
        while lo < hi:                      # ... then bisect
            mid = (lo + hi + 1) // 2
            if (t := test(mid)) is None:
                hi = mid - 1
            else:
                lo, found = mid, t
        if lo == 0:
            return Match(alo, blo, 0)
        ka, kb, hit = found
        i = int(np.argmax(hit))
        j = int(np.argmax(kb == ka[i]))
        i, j = alo + i, blo + j
        if not np.array_equal(self._ca[i:i + lo], self._cb[j:j + lo]):   # a hash collision
            return self._scan(alo, ahi, blo, bhi)
        # the two windows difflib's get_matching_blocks searches next
        self._caps[(alo, i, blo, j)] = self._caps[(i + lo, ahi, j + lo, bhi)] = lo
        return Match(i, j, lo)


def lcs_match(base: list, comp: list) -> list[tuple]:
    """msprof-analyze ``longest_common_subsequence_matching`` of two lists of ops or modules
    (their ``key``). The same keys on both sides are one matching block; short lists go to
    difflib itself (the hashed search pays off on long ones: its set-up is most of the time of
    the thousands of two-or-three-child lists a module tree has)."""
    a, b = [o.key for o in base], [o.key for o in comp]
    if a == b:
        return list(zip(base, comp))
    matcher = SequenceMatcher(None, a, b, autojunk=False) if len(a) * len(b) <= 4096 else Matcher(a, b)
    out: list[tuple] = []
    i = j = 0
    for block in matcher.get_matching_blocks():
        while i < block.a:
            out.append((base[i], None))
            i += 1
        while j < block.b:
            out.append((None, comp[j]))
            j += 1
        for k in range(block.size):
            out.append((base[i + k], comp[j + k]))
        i += block.size
        j += block.size
    out += [(o, None) for o in base[i:]]
    out += [(None, o) for o in comp[j:]]
    return out


def _match(base: list[Op], comp: list[Op], max_kernel_num: int | None) -> list:
    """``_match_torch_op``: the alignment, drilled down where a pair has too many kernels."""
    if not base and not comp:
        return []
    result = lcs_match(base, comp)
    if max_kernel_num is None:
        return result
    out = []
    todo = deque(reversed(result))
    while todo:
        b, c = todo.pop()
        if b is None or c is None or not b.children or not c.children \
                or max(b.kernels, c.kernels) <= max_kernel_num:
            out.append((b, c))
            continue
        todo.extend(reversed(lcs_match(b.children, c.children)))
    return out


def _segments(ops: list[Op]) -> list[tuple[bool, list[Op]]]:
    """Maximal runs of backward / other ops (``_split_operator_data``)."""
    out: list[tuple[bool, list[Op]]] = []
    for op in ops:
        bwd = bool(op.is_backward)
        if out and out[-1][0] == bwd:
            out[-1][1].append(op)
        else:
            out.append((bwd, [op]))
    return out


def align_ops(base: list[Op], comp: list[Op], max_kernel_num: int | None = None) -> list:
    """The aligned pairs of two ranks' top-level ops (SequencePreMatching.run, op mode)."""
    if any(o.is_backward is None for o in base) or any(o.is_backward is None for o in comp) \
            or not base or not comp:
        return _match(base, comp, max_kernel_num)
    bs, cs = _segments(base), _segments(comp)
    out = []
    bi = ci = 0
    if bs[0][0] != cs[0][0]:
        if len(bs) > len(cs):
            out += _match(bs[0][1], [], max_kernel_num)
            bi = 1
        else:
            out += _match([], cs[0][1], max_kernel_num)
            ci = 1
    while bi < len(bs):
        out += _match(bs[bi][1], cs[ci][1] if ci < len(cs) else [], max_kernel_num)
        bi += 1
        ci += 1
    while ci < len(cs):
        out += _match([], cs[ci][1], max_kernel_num)
        ci += 1
    return out

