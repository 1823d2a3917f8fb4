/*
 * The decoder (see decode.h): what every instruction set shares, each
 * one's own steps named by its description (arch.h) and written in
 * decode_x86_64.c and decode_arm64.c. Capstone gives an instruction's text
 * on both, and decodes arm64, reusing one cs_insn so a scan does not
 * allocate per instruction.
 *
 * A planner decodes each function twice, close together: once as a neighbour
 * of the functions before it (their CFGs take its branches into them), once
 * for its own CFG. So the decoder keeps the last instructions it decoded, by
 * address: an entry is used only when the bytes at that address are the
 * entry's own bytes, which is all a decode depends on (an instruction set
 * may keep some out: x86's ud2, whose decoding depends on the bytes after
 * it, Xen's and KVM's emulation prefix).
 */
#include "decode_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_arm64.h"

#define DECODE_CACHE 16384	/* instructions: some 64 KiB of code */

int decoder_open(struct decoder **out, struct gerr *e)
{
	return decoder_open_arch(out, ARCH_X86_64, e);
}

int decoder_open_arch(struct decoder **out, enum arch arch, struct gerr *e)
{
	struct decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return gerr_set(e, "out of memory");
	d->arch = arch;
	d->ai = arch_info(arch);
	if (d->ai->decoder_open(d, e)) {
		free(d);
		return -1;
	}
	d->ci = cs_malloc(d->cs);
	d->cache = calloc(DECODE_CACHE, sizeof(*d->cache));
	if (!d->ci || !d->cache) {
		free(d->cache);
		if (d->ci)
			cs_free(d->ci, 1);
		cs_close(&d->cs);
		free(d);
		return gerr_set(e, "out of memory");
	}
	*out = d;
	return 0;
}

enum arch decoder_arch(const struct decoder *d)
{
	return d->arch;
}

void decoder_close(struct decoder *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->cs);
	free(d->cache);
	free(d);
}

int decode_one(struct decoder *d, const uint8_t *code, size_t avail,
	       uint64_t addr, struct insn *out)
{
	struct insn *c = &d->cache[addr % DECODE_CACHE];

	if (c->len && c->addr == addr && c->len <= avail && !memcmp(c->bytes, code, c->len)) {
		*out = *c;
		return 0;
	}
	if (d->ai->decode(d, code, avail, addr, out))
		return -1;
	if (!d->ai->keeps || d->ai->keeps(out))
		*c = *out;
	return 0;
}

int decode_cs_text(struct decoder *d, const uint8_t *p, size_t n, uint64_t a, char *buf,
		   size_t len)
{
	cs_insn *ci = d->ci;

	if (!cs_disasm_iter(d->cs, &p, &n, &a, ci))
		return -1;
	if (ci->op_str[0])
		snprintf(buf, len, "%s %s", ci->mnemonic, ci->op_str);
	else
		snprintf(buf, len, "%s", ci->mnemonic);
	return 0;
}

int decode_text(struct decoder *d, const struct insn *in, char *buf, size_t len)
{
	return d->ai->text(d, in, buf, len);
}

bool insn_has_target(const struct insn *in)
{
	switch (in->kind) {
	case IK_JMP: case IK_JCC: case IK_LOOP: case IK_CALL: case IK_XBEGIN:
		return true;
	default:
		return false;
	}
}

bool insn_is_idle(const struct insn *in)
{
	return arch_info(in->arch)->is_idle(in);
}

bool insn_is_trap_or_sys(const struct insn *in)
{
	return arch_info(in->arch)->is_trap_or_sys(in);
}

bool insn_falls_through(const struct insn *in)
{
	switch (in->kind) {
	case IK_JMP: case IK_RET: case IK_JMP_IND: case IK_UD2:
	case IK_TRAP_EXIT: case IK_INT3:
		return false;
	default:
		return true;
	}
}

bool insn_ends_block(const struct insn *in)
{
	switch (in->kind) {
	case IK_PLAIN: case IK_CALL: case IK_CALL_IND:
		return false;
	default:
		return true;
	}
}

uint32_t decode_arm64_writes(struct decoder *d, const struct insn *in)
{
	return d->ai->writes ? d->ai->writes(d, in) : ARM64_WRITES_ALL;
}
