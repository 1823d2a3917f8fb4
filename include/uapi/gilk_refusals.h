/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Every kind of reason gilk.ko refuses a splice for, one row each:
 * GILK_REFUSAL(CODE, errno, name, meaning). GILK_REFUSED_CODE is what a
 * refused request's refusal holds (uapi/gilk.h numbers them in this order),
 * errno what the ioctl fails with, and the request's reason the sentence
 * that says where. gilk.ko refuses through this table only; user space
 * names and counts refusals by it. A name the planner also gives
 * (core/splice.h) means the same there. Included with GILK_REFUSAL defined.
 */
GILK_REFUSAL(MALFORMED, EINVAL, "malformed",
	     "the request is wrong in a field: a flag, a length, a patch's kind, trampolines longer than reserved")
GILK_REFUSAL(BAD_FILTER, EINVAL, "bad-filter",
	     "the filter program is malformed: an op, a field, a string or a jump it cannot have")
GILK_REFUSAL(BAD_FETCH, EINVAL, "bad-fetch",
	     "the fetch program is malformed (an op, a field, a width, a step after a string), or its instrument records no events")
GILK_REFUSAL(BAD_AGG, EINVAL, "bad-agg",
	     "the aggregation is malformed, too large, or on an instrument other than count")
GILK_REFUSAL(NO_RESERVATION, ENOENT, "no-reservation", "no reservation has that id")
GILK_REFUSAL(SPLICED_ALREADY, EBUSY, "spliced-already", "the reservation is spliced already")
GILK_REFUSAL(NOT_YOURS, EPERM, "not-yours", "the reservation belongs to another open /dev/gilk")
GILK_REFUSAL(NO_INSTRUMENT, ENOENT, "no-instrument", "no instrument of that name is registered")
GILK_REFUSAL(MODULE_GOING, ENOENT, "module-going", "the module of the spliced text is going away")
GILK_REFUSAL(INIT_TEXT, EFAULT, "init-text", "the site is a module's init text, freed after init")
GILK_REFUSAL(OTHER_TEXT, EXDEV, "other-text",
	     "a patch lies outside the text of the site's module (or of the kernel)")
GILK_REFUSAL(NOT_TEXT, EFAULT, "not-text", "the bytes are not kernel or module text")
GILK_REFUSAL(MODULE_NOT_LIVE, EBUSY, "module-not-live",
	     "the text is a module's still loading or going away")
GILK_REFUSAL(GILK_CODE, ELOOP, "gilk-code",
	     "the bytes are gilk.ko's own code or the instrument module's")
GILK_REFUSAL(BLACKLIST, EACCES, "blacklist",
	     "the code is kprobe-blacklisted, noinstr or entry code")
GILK_REFUSAL(IDLE, EACCES, "idle", "idle code (.cpuidle.text), where RCU-tasks does not wait")
GILK_REFUSAL(EARLY_CPU, EACCES, "early-cpu",
	     "the code runs before the CPU's %gs is its per-CPU base (bring-up, resume)")
GILK_REFUSAL(RCU_IDLE, EACCES, "rcu-idle",
	     "the code runs while RCU does not watch the CPU (idle), where no grace period waits")
GILK_REFUSAL(GILK_PATH, ELOOP, "gilk-path",
	     "gilk's own path runs the function (its int3 divert or hit path), or it is a thunk")
GILK_REFUSAL(JUMP_LABEL, EBUSY, "jump-label", "the region holds a jump label site")
GILK_REFUSAL(STATIC_CALL, EADDRINUSE, "static-call",
	     "the region holds a static call site or trampoline")
GILK_REFUSAL(FTRACE, EALREADY, "ftrace", "the region holds an ftrace call site")
GILK_REFUSAL(SMP_LOCK, ETXTBSY, "smp-lock",
	     "the region holds a lock prefix the kernel rewrites (alternatives)")
GILK_REFUSAL(KPROBE, EEXIST, "kprobe", "a kprobe is registered in the region")
GILK_REFUSAL(EXTABLE, ENOEXEC, "extable",
	     "the region holds an instruction with an exception-table entry")
GILK_REFUSAL(STALE, EILSEQ, "stale", "the bytes are not the ones the plan was made from")
GILK_REFUSAL(BUG_SITE, EPROTO, "bug-site",
	     "the region holds a BUG()/WARN() ud2 the splice does not replay")
GILK_REFUSAL(NOT_BUG, EINVAL, "not-bug",
	     "the splice replays a BUG()/WARN() ud2 where there is none")
GILK_REFUSAL(OCCUPIED, EADDRNOTAVAIL, "occupied", "another splice owns some of the bytes")
GILK_REFUSAL(NO_MEMORY, ENOMEM, "no-memory",
	     "no memory for the splice's counters, filter or bookkeeping")
GILK_REFUSAL(CHANGED, EBUSY, "changed", "another patcher changed the bytes after they were checked")
GILK_REFUSAL(RACED, EBUSY, "raced",
	     "a kprobe or another patcher came at the site during the grace period")
GILK_REFUSAL(UNVERIFIED_REQUEST, EBADMSG, "unverified-request",
	     "the checker found the request's lengths or patches inconsistent")
GILK_REFUSAL(UNVERIFIED_SITE, EBADMSG, "unverified-site",
	     "the displaced instructions: one undecodable or cut, a call not last, a BUG()/WARN() not replayed whole")
GILK_REFUSAL(UNVERIFIED_RELOCATION, EBADMSG, "unverified-relocation",
	     "the trampoline's body is not the relocation of the displaced instructions and the jump back")
GILK_REFUSAL(UNVERIFIED_WALK, EBADMSG, "unverified-walk",
	     "walking the function: an edge lands in what the splice overwrites, a slot is not dead padding, or it does not decode")
GILK_REFUSAL(UNVERIFIED_PATCH, EBADMSG, "unverified-patch",
	     "the bytes written (the jmp, its int3 fill, a bounce slot, an evicted neighbour's) are not gilk's, or out of reach")
GILK_REFUSAL(UNVERIFIED_TRAMPOLINE, EBADMSG, "unverified-trampoline",
	     "the trampoline's header or footer is not gilk's template for the instrument")
GILK_REFUSAL(NOT_JOINABLE, EADDRNOTAVAIL, "not-joinable",
	     "the site's splices take no other: trap mode, a site it does not start at, or they are changing")
