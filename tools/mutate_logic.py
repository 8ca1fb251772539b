# SPDX-License-Identifier: MIT
"""The logic mutants of tools/mutate.py (docs/mutation.md): each names a
file, a function, a piece of its code (matched as text inside the
function's body, exactly once, so that nearby edits do not move it) and
what replaces it.  Classes:

  boundary  a comparison's boundary (< and <=, >= and >, off by one)
  swap      two stores (or a load and a store) in the other order
  recheck   a re-check, re-read or condition removed
  crash     a store moved or removed so that a process killed between
            two stores leaves a state the next one misreads
  kind      a barrier of the wrong kind (smp_rmb or smp_wmb where smp_mb
            is needed)

`hint` names the catchers tried first ("model:NAME:CASE,CASE", "seam",
"herd", "harden", "unit:TEST"); the run's own catchers follow.  `equiv`,
when set, names the heading of docs/mutation.md that argues the mutant
changes nothing a test can observe: it is listed, not run.
"""

M = []


def mut(cls, path, func, old, new, what, hint="", equiv=""):
    M.append(dict(cls=cls, path=path, func=func, old=old, new=new,
                  what=what, hint=hint, equiv=equiv))


RC = "src/ring/ring.c"
RI = "include/perfring/ring-inline.h"
RP = "include/perfring/ring-proto.h"
MC = "src/writers/mpsc.c"
GC = "src/writers/group.c"
MR = "model:ring:"
MM = "model:mpsc:"
MG = "model:group:"

# ---- the ring: the BLOCK wake-up ----
mut("boundary", RC, "pfr__reader_wake_writer",
    "(int64_t)(r->tail - mark) < 0", "(int64_t)(r->tail - mark) <= 0",
    "the mark reached at tail == mark not taken as reached",
    MR + "mark-acqrel,mark-full,unit:ring_edges")
mut("recheck", RI, "pfr_reader_end",
    "if (r->tail != r->head &&\n\t\t    r->tail",
    "if (r->tail",
    "the fenced check skipped at head too",
    MR + "mark-acqrel,mark-full")
mut("boundary", RI, "pfr_reader_end",
    "r->wake_checked < r->wake_stride", "r->wake_checked <= r->wake_stride",
    "the stride's check one byte later", MR + "mark-acqrel,block-acqrel",
    equiv="stride")
mut("recheck", RI, "pfr_reader_end",
    " &&\n\t\t    !PFR_READ_ONCE(r->ctl->writer_waiting))", ")",
    "no check prompted by writer_waiting before head",
    "unit:ring_edges")
mut("boundary", RC, "pfr__writer_block",
    "\t\tmark = w->head;\n", "\t\t;\n",
    "the mark no longer capped at the published head",
    MR + "mark-acqrel,mark-full")
mut("recheck", RC, "pfr__writer_block",
    "if (pfr__writer_space(w, need)) {\n\t\tPFR_WRITE_ONCE",
    "if (0) {\n\t\tPFR_WRITE_ONCE",
    "no re-check of the space after writer_waiting and smp_mb()",
    MR + "block-acqrel,block-full")
mut("swap", RC, "pfr__writer_block",
    "\tPFR_WRITE_ONCE(w->ctl->writer_wake_tail, mark);\n"
    "\tPFR_WRITE_ONCE(w->ctl->writer_waiting, 1);\n",
    "\tPFR_WRITE_ONCE(w->ctl->writer_waiting, 1);\n"
    "\tPFR_WRITE_ONCE(w->ctl->writer_wake_tail, mark);\n",
    "writer_waiting stored before the mark",
    MR + "mark-acqrel,block-acqrel", equiv="mark-order")
# ---- the ring: the reader's wake-up ----
mut("boundary", RP, "pfr__wake_met",
    "return bytes >= (wake_bytes", "return bytes > (wake_bytes",
    "a byte threshold met exactly not taken as met",
    "unit:ring_edges," + MR + "both-acqrel")
mut("boundary", RP, "pfr__wake_met",
    "records >= wake_records", "records > wake_records",
    "a record threshold met exactly not taken as met", "unit:ring_wait")
mut("recheck", RC, "pfr__wait_done",
    "pfr__wake_met((uint64_t)avail, PFR_READ_ONCE(c->records) - mark,\n"
    "\t\t\t     wb, wr) ||\n"
    "\t       (avail > 0 &&\n"
    "\t\t(int64_t)(PFR_READ_ONCE(c->flush_head) - r->tail) > 0)",
    "pfr__wake_met((uint64_t)avail, PFR_READ_ONCE(c->records) - mark,\n"
    "\t\t\t     wb, wr)",
    "flush_head no longer wakes the reader", MR + "both-acqrel,both-full")
mut("boundary", RC, "pfr__wait_done",
    "(int64_t)(PFR_READ_ONCE(c->flush_head) - r->tail) > 0",
    "(int64_t)(PFR_READ_ONCE(c->flush_head) - r->tail) > 8",
    "a flush of one 8-byte record does not wake the reader",
    MR + "both8-acqrel")
mut("recheck", RC, "pfr_reader_wait",
    "\t\tavail = pfr_reader_begin(r);\n"
    "\t\tif (pfr__wait_done(r, avail, mark, wb, wr)) {",
    "\t\tif (pfr__wait_done(r, avail, mark, wb, wr)) {",
    "head not loaded again after reader_waiting and smp_mb()",
    MR + "wake-acqrel,wake-full")
mut("swap", RC, "pfr_reader_wait",
    "\t\tPFR_WRITE_ONCE(c->wake_mark, mark);\n"
    "\t\tPFR_WRITE_ONCE(c->reader_waiting, 1);\n",
    "\t\tPFR_WRITE_ONCE(c->reader_waiting, 1);\n"
    "\t\tPFR_WRITE_ONCE(c->wake_mark, mark);\n",
    "reader_waiting stored before wake_mark", MR + "wake-acqrel,both-acqrel",
    equiv="wake-mark-order")
mut("recheck", RC, "pfr__kick_reader",
    "PFR_WRITE_ONCE(c->flush_head, w->head);", "(void)0;",
    "a flush leaves flush_head as it was", MR + "both-acqrel,both-full")
mut("swap", RI, "pfr_writer_publish",
    "\tPFR_WRITE_ONCE(w->ctl->records, w->records);\n"
    "\tPFR__ORD_CALL(w->ordering, pfr__publish, w);\n",
    "\tPFR__ORD_CALL(w->ordering, pfr__publish, w);\n"
    "\tPFR_WRITE_ONCE(w->ctl->records, w->records);\n",
    "the record count stored after head (B no longer orders it)",
    "unit:ring_wait", equiv="records-order")
mut("recheck", RC, "pfr_writer_flush",
    "\tpfr__kick_reader(w);\n", "",
    "a flush does not kick the reader", MR + "both-acqrel,both-full")
# ---- the ring: space, head and limits ----
mut("boundary", RP, "pfr__space",
    "if (w->head + need - t > size)", "if (w->head + need - t >= size)",
    "a record that fills the ring exactly does not fit",
    "unit:ring_api")
mut("recheck", RP, "pfr__space",
    "if (w->head - t > size || (t & 7))", "if (w->head - t > size)",
    "an unaligned (hostile) tail trusted", "unit:ring_edges")
mut("boundary", RP, "pfr__head_check",
    "if (h - tail > size) {", "if (h - tail >= size) {",
    "a full ring's head taken for a head ahead", "unit:ring_api")
mut("recheck", RP, "pfr__head_check",
    "\tif (h & 7)\n\t\treturn -PFR_E_RECSIZE_ALIGN;\n", "",
    "an unaligned (hostile) head trusted", "unit:ring_hostile")
mut("boundary", RP, "pfr__head_check",
    "if ((int64_t)(h - tail) < 0)", "if ((int64_t)(h - tail) <= 0)",
    "HEAD_BEHIND for a head equal to the tail (never reached there)",
    "unit:ring_hostile", equiv="head-behind")
mut("recheck", RC, "pfr__writer_limit",
    "room = w->lost ? 0 : by_tail < by_end ? by_tail : by_end;",
    "room = by_tail < by_end ? by_tail : by_end;",
    "the fast path taken with a LOST record pending", "unit:ring_api")
mut("boundary", RC, "pfr__writer_limit",
    "room = w->lost ? 0 : by_tail < by_end ? by_tail : by_end;",
    "room = w->lost ? 0 : by_tail;",
    "the fast path's limit past the end of the data area",
    "unit:ring_api")
mut("boundary", RC, "pfr__reserve_slow",
    "if (end - w->tail_cache <= w->mask + 1)",
    "if (end - w->tail_cache < w->mask + 1)",
    "the cached tail's bound one byte short (the tail loaded again)",
    "unit:ring_api", equiv="cached-tail")
mut("boundary", RC, "pfr__overwrite_room",
    "h.size > w->head - old", "h.size >= w->head - old",
    "OVERWRITE: the last record before head taken for a damaged one",
    MR + "snap-acqrel", equiv="overwrite-last")
# ---- the ring: loss counts and a writer killed ----
mut("boundary", RC, "pfr__ring_lost_pending",
    "(int64_t)(PFR_READ_ONCE(c->head) - end) >= 0",
    "(int64_t)(PFR_READ_ONCE(c->head) - end) > 0",
    "a LOST record whose end is head taken as not delivered", "seam")
mut("crash", RC, "pfr__put_lost",
    "\tPFR_WRITE_ONCE(w->ctl->lost_end, end);\n", "",
    "lost_end not stored (a kill after head and before the clear "
    "reports the count twice)", "seam")
mut("crash", RC, "pfr__put_lost",
    "\tpfr_writer_publish(w);\n\tw->lost = 0;\n"
    "\tPFR_WRITE_ONCE(w->ctl->lost_pending, 0);\n",
    "\tw->lost = 0;\n\tPFR_WRITE_ONCE(w->ctl->lost_pending, 0);\n"
    "\tpfr_writer_publish(w);\n",
    "lost_pending cleared before the LOST record is published "
    "(a kill between loses the count)", "seam")
mut("crash", RC, "pfr__count_lost",
    "\tPFR_WRITE_ONCE(w->ctl->lost_end, 0);\n"
    "\tPFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);\n",
    "\tPFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);\n"
    "\tPFR_WRITE_ONCE(w->ctl->lost_end, 0);\n",
    "the new count stored before lost_end is cleared (a kill between "
    "takes it for delivered)", "seam")
mut("recheck", RC, "pfr__ring_writer_open",
    "w->lost = pfr__ring_lost_pending(c);",
    "w->lost = PFR_READ_ONCE(c->lost_pending);",
    "a new writer takes a delivered count for pending", "seam,harden")
mut("crash", RC, "pfr__ring_writer_open",
    "\tPFR_WRITE_ONCE(c->lost_end, 0);\n", "",
    "a new writer keeps the dead one's lost_end", "seam,harden",
    equiv="lost-end-open")
# ---- the ring: kinds (judged by herd7 and the models) ----
mut("kind", RP, "pfr__space",
    "pfr_smp_mb(); /* A:", "pfr_smp_rmb(); /* A:",
    "FULL's A smp_rmb (orders loads only)", "herd")
mut("kind", RP, "pfr__end",
    "pfr_smp_mb(); /* D:", "pfr_smp_wmb(); /* D:",
    "FULL's D smp_wmb (orders stores only)", "herd")
mut("kind", RP, "pfr__begin",
    "pfr_smp_rmb(); /* C:", "pfr_smp_wmb(); /* C:",
    "FULL's C smp_wmb", "herd," + MR + "proto-full")
mut("kind", RP, "pfr__publish",
    "pfr_smp_wmb(); /* B:", "pfr_smp_rmb(); /* B:",
    "FULL's B smp_rmb", "herd," + MR + "proto-full")
# ---- the shared ring ----
mut("crash", MC, "pfr__mpsc_reserve_slow",
    "\t\tpfr__mpsc_store_busy(p, at, lost_size); /* H */\n"
    "\t\tlr.id = p->index;\n\t\tlr.lost = p->lost;\n"
    "\t\tmemcpy(d + (at & p->mask) + 8, &lr.id, 16);\n",
    "\t\tlr.id = p->index;\n\t\tlr.lost = p->lost;\n"
    "\t\tmemcpy(d + (at & p->mask) + 8, &lr.id, 16);\n"
    "\t\tpfr__mpsc_store_busy(p, at, lost_size); /* H */\n",
    "the LOST payload stored before its BUSY header",
    MM + "dead-lost-stores")
mut("recheck", MC, "pfr__mpsc_reserve_slow",
    "\t\tp->lost = 0;\n\t\tpos = end;\n", "\t\tpos = end;\n",
    "the LOST count not cleared once written", MM + "lost-2p,dead-lost-stores")
mut("recheck", MC, "pfr__mpsc_reserve_slow",
    "for (int k = 0; k < 4 && pos - cons > ring; k++)",
    "for (int k = 0; k < 0 && pos - cons > ring; k++)",
    "cons_pos and prod_pos not loaded again when they disagree",
    MM + "proto-3p,proto-2p")
mut("boundary", MC, "pfr__mpsc_reserve_slow",
    "if ((pos & 7) || end - p->cons_cache > ring)",
    "if ((pos & 7) || end - p->cons_cache >= ring)",
    "the cached cons_pos's bound one byte short (loaded again)",
    MM + "proto-2p", equiv="cached-cons")
mut("boundary", MC, "pfr__mpsc_reserve_slow",
    "\t\t\tif (end - cons > ring) {", "\t\t\tif (end - cons >= ring) {",
    "a reservation that fills the ring exactly refused", "unit:mpsc_edges")
mut("recheck", MC, "pfr__mpsc_reserve_slow",
    "\t\tif (at != pos) /* H */\n\t\t\tpfr__mpsc_store_hdr(p, pos,",
    "\t\tif (0) /* H */\n\t\t\tpfr__mpsc_store_hdr(p, pos,",
    "no PAD record before a LOST record at the wrap",
    MM + "lost-2p,dead-lost-stores")
mut("boundary", MC, "pfr__mpsc_hole",
    "if (re - tail > lim - tail)", "if (re - tail >= lim - tail)",
    "an announcement ending at lim (prod_pos) refused",
    MM + "dead-cas,dead-2-lost-cas")
mut("boundary", MC, "pfr__mpsc_hole",
    "(!best || re - tail > best - tail)",
    "(!best || re - tail < best - tail)",
    "the shortest zero announcement taken, not the longest",
    MM + "dead-2-lost-cas")
mut("recheck", MC, "pfr__mpsc_hole",
    "if (dead == 2 && !pfr__mpsc_zeroes(r, tail, best))\n\t\t\tbest = 0;",
    ";",
    "the first dead announcement kept without the zero test",
    MM + "dead-2-lost-2r,dead-2-lost-cas")
mut("recheck", MC, "pfr__mpsc_hole",
    "if (PFR_READ_ONCE(*(const uint64_t *)(r->data + (tail & r->mask))))"
    "\n\t\treturn 0;",
    ";",
    "the header not loaded again before the hole is skipped",
    MM + "dead-cas,dead-2-lost-cas")
mut("boundary", MC, "pfr__mpsc_hole",
    "if (rp != re && rp - tail - 1 < lim - tail - 1)",
    "if (rp != re && rp - tail < lim - tail)",
    "a reservation starting at the tail lowers lim to the tail",
    MM + "dead-cas,dead-2-lost-cas")
mut("boundary", MC, "pfr__mpsc_zeroes",
    "for (uint64_t at = from; at != to; at += 8)",
    "for (uint64_t at = from + 8; at != to; at += 8)",
    "the zero test skips the tail's own word (its header)",
    MM + "dead-2-lost-cas", equiv="zeroes-first")
mut("boundary", MC, "pfr__mpsc_reusable",
    "(int64_t)(cons - rp) < 0", "(int64_t)(cons - rp) <= 0",
    "a slot not reusable once the reader reached its res_pos",
    MM + "reuse-3p,reuse-dead")
mut("boundary", MC, "pfr__mpsc_reusable",
    "(int64_t)(prod - rp) > 0", "(int64_t)(prod - rp) >= 0",
    "a slot whose res_pos is prod_pos waits for its res_end",
    "unit:mpsc_edges," + MM + "reuse-3p")
mut("swap", MC, "pfr__mpsc_claim",
    "\tif (!pfr__mpsc_cas_acqrel(&s->owner, &owner, want))\n"
    "\t\treturn 0;\n"
    "\tlost = pfr__mpsc_inherited(s, dead);\n",
    "\tlost = pfr__mpsc_inherited(s, dead);\n"
    "\tif (!pfr__mpsc_cas_acqrel(&s->owner, &owner, want))\n"
    "\t\treturn 0;\n",
    "the inherited drops read before the claim's CAS",
    MM + "reuse-3p,reuse-dead")
mut("crash", MC, "pfr__mpsc_claim",
    "\tPFR_WRITE_ONCE(s->lost_left, 0);\n", "",
    "lost_left not cleared by the new owner",
    MM + "reuse-3p,reuse-dead", equiv="lost-left-join")
mut("crash", MC, "pfr__mpsc_count_lost",
    "\tPFR_WRITE_ONCE(p->slot->lost_due, "
    "PFR_READ_ONCE(p->slot->lost_due) + 1);\n", "",
    "a drop not counted in shared memory (a dead owner's drops unknown)",
    MM + "reuse-dead,lost-2p")
mut("recheck", MC, "pfr__mpsc_begin_slow",
    "\tif (h != r->tail)\n\t\tpfr__mpsc_stop(r);\n", "",
    "a reserved, unwritten record does not stop the reader",
    MM + "dead-cas,dead-2-lost-cas")
# ---- the group ----
mut("boundary", GC, "pfr__fresh",
    "return s->open_pass >= g->passes;", "return s->open_pass > g->passes;",
    "a slot opened in a scan's last pass read in the same drain", "seam")
mut("boundary", GC, "pfr__open_slot",
    "s->open_pass = g->passes + 1;", "s->open_pass = g->passes;",
    "a slot's opening pass taken as the one before", "seam")
mut("recheck", GC, "pfr__in_round",
    "!s->dead &&\n\t       !pfr__fresh(g, s);", "!s->dead;",
    "fresh slots in the round", "seam")
mut("recheck", GC, "pfr__scan",
    "\tg->rescan = 1;\n", "",
    "slots a scan's second pass opened wait for another change",
    "seam,unit:group_rejoin,unit:group")
mut("boundary", GC, "pfr__scan",
    "for (int pass = 0; pass < 2; pass++)",
    "for (int pass = 0; pass < 1; pass++)",
    "one pass per scan (its slots wait for the next drain)",
    "unit:group_rejoin,unit:group,seam")
mut("boundary", GC, "pfr__scan",
    "for (int pass = 0; pass < 2; pass++)",
    "for (int pass = 0; pass < 3; pass++)",
    "three passes per scan", "seam", equiv="three-passes")
mut("recheck", GC, "pfr__drain_lasts",
    "\t\tif (pfr__fresh(g, s)) {\n\t\t\tleft = 1;\n\t\t\tcontinue;\n\t\t}\n",
    "", "a fresh closing slot drained at once", "seam,unit:group_rejoin")
mut("boundary", GC, "pfr_group_join",
    "while (hint < i + 1 &&", "while (hint < i &&",
    "the hint not raised for the slot joined", "unit:group")
mut("recheck", GC, "pfr__drain_slot",
    "uint64_t pend = pfr__ring_lost_pending(c);",
    "uint64_t pend = PFR_READ_ONCE(c->lost_pending);",
    "a closing slot's delivered count reported again",
    "seam,harden")
mut("crash", GC, "pfr_group_leave",
    "\tPFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);\n\t/* L:", "\t/* L:",
    "the leaver does not store its count again before CLOSING",
    "harden,unit:group", equiv="leave-pending")
mut("swap", GC, "pfr_group_leave",
    "\tpfr_writer_flush(w);\n\tPFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);\n",
    "\tPFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);\n\tpfr_writer_flush(w);\n",
    "the leaver's count stored before its flush",
    "harden,unit:group", equiv="leave-pending")
