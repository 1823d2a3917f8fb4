/* What gilk.ko's errnos mean (see errnos.h). */
#include "errnos.h"

#include <errno.h>

#include "uapi/gilk.h"

#define ROW(e, text) { e, #e, text }

static const struct gilk_errno table[] = {
	ROW(EPERM, "no CAP_SYS_ADMIN, or the kernel is locked down; or the reservation or splice is another open /dev/gilk's"),
	ROW(EACCES, "kprobe-blacklisted, noinstr, entry or idle code, or code that runs before a CPU's per-CPU base is set or while RCU does not watch it; or a READ of memory that is no kernel text or data"),
	ROW(ELOOP, "gilk's own code or path (its int3 divert, its hit path), the instrument's code, or a thunk"),
	ROW(EFAULT, "a user pointer that cannot be read or written; or an address that is no kernel or module text"),
	ROW(EINVAL, "a request wrong in a field: a length, a kind, a flag, an id"),
	ROW(ENOENT, "no such splice, reservation or instrument; at load, a kernel symbol gilk.ko needs is missing"),
	ROW(EBUSY, "a jump label site; a module not yet (or no longer) live; a reservation already spliced; bytes another patcher changed meanwhile"),
	ROW(EADDRNOTAVAIL, "another splice owns some of the bytes"),
	ROW(EADDRINUSE, "a static call site or trampoline"),
	ROW(EALREADY, "an ftrace call site"),
	ROW(ETXTBSY, "an SMP lock prefix the kernel rewrites (alternatives)"),
	ROW(EEXIST, "a kprobe in the region; or an instrument of that name registered already"),
	ROW(ENOEXEC, "an instruction with an exception-table entry"),
	ROW(EILSEQ, "the bytes are not the ones the plan was made from"),
	ROW(EPROTO, "a BUG()/WARN() ud2 the splice does not replay"),
	ROW(EBADMSG, "gilk.ko's code checker refused the bytes: the reason says which and where"),
	ROW(EXDEV, "a patch outside the text of the function's module (or of the kernel)"),
	ROW(ENOMEM, "no memory for a buffer, a trampoline or a counter"),
	ROW(ENOSPC, "no splice id left; an instrument's event found the buffer full (counted as lost)"),
	ROW(EDQUOT, "the inline tsc template's rings take 1/32 of RAM already: more tsc splices call the tsc instrument instead"),
	ROW(E2BIG, "at load, gilk's own path runs through more functions than its table holds; in the checker, a jump table past its limit"),
	ROW(EIO, "kernel memory that could not be read; at load, a stub that did not take its target"),
	ROW(ERANGE, "at load, a kernel function out of reach of gilk.ko's stub"),
	ROW(EAGAIN, "a batch whose requests could not be copied in with page faults off: retried, then EFAULT"),
	ROW(EINTR, "a fatal signal ended a wait for gilk.ko behind another's batch of thousands: nothing was done"),
	ROW(ENODATA, "reading the maps of a splice that aggregates nothing"),
	ROW(ENOTTY, "an ioctl /dev/gilk does not know"),
};

const struct gilk_errno *gilk_errno_at(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

static const struct gilk_refusal_row refusals[] = {
#define GILK_REFUSAL(code, err, name, meaning) { GILK_REFUSED_##code, err, #err, name, meaning },
#include "uapi/gilk_refusals.h"
#undef GILK_REFUSAL
};

_Static_assert(sizeof(refusals) / sizeof(refusals[0]) == GILK_NREFUSALS - 1,
	       "a row per code but none");

const struct gilk_refusal_row *gilk_refusal_at(size_t i)
{
	return i < sizeof(refusals) / sizeof(refusals[0]) ? &refusals[i] : NULL;
}

const struct gilk_refusal_row *gilk_refusal_of(unsigned code)
{
	return code && code < GILK_NREFUSALS ? &refusals[code - 1] : NULL;
}
