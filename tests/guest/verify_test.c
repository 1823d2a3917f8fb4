/*
 * gilk.ko's code checker in the running kernel: real plans (a plain jmp, a
 * bounce through padding, an eviction) are accepted as planned, and the same
 * requests changed in one place are refused with EBADMSG and "unverified
 * code at PART+OFFSET" naming the first byte refused. Regions over a label
 * that another symbol jumps to (assembly, a .cold part, in the target
 * module and in the core kernel) are refused too. The user-space build
 * of the same checker sees tens of thousands of plans and mutations in the
 * differential tests; this shows the kernel runs it on every request.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "guest.h"

/* A request to change: what it is, and where its relocated code starts. */
struct tamper {
	struct gilk_splice req;
	size_t reloc;
	const struct splice_plan *p;
	struct live *lv;
};

/* Builds p's request, lets change() alter it, sends it; returns 0 or errno
 * (a splice made is removed, a reservation not used is given back). */
static int send_changed(struct live *lv, const struct splice_plan *p,
			void (*change)(struct tamper *t), struct tamper *t)
{
	struct gerr e;
	int err;

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->lv = lv;
	if (live_request(lv, p, "count", "", &t->req, &t->reloc, &e)) {
		snprintf(t->req.reason, sizeof(t->req.reason), "request not built: %.100s", e.msg);
		return -1;
	}
	if (change)
		change(t);
	if (ioctl(lv->fd, GILK_IOC_SPLICE, &t->req) == 0) {
		live_unsplice(lv, t->req.id, &e);
		return 0;
	}
	err = errno;
	ioctl(lv->fd, GILK_IOC_RELEASE, &t->req.id);
	return err;
}

static void expect(struct live *lv, const struct splice_plan *p, const char *what,
		   void (*change)(struct tamper *t), int want, const char *words)
{
	static struct tamper t;
	int err = send_changed(lv, p, change, &t);

	check(err == want && (!words || strstr(t.req.reason, words)),
	      "%s: %s (%s)", what, err > 0 ? strerror(err) : err ? "error" : "accepted",
	      t.req.reason);
}

static void flip_relocated(struct tamper *t)
{
	t->req.tramp[t->reloc] ^= 0x01;
}

static void flip_header(struct tamper *t)
{
	t->req.tramp[t->reloc - 1] ^= 0x08;	/* count's last header byte */
}

static void add_trailing(struct tamper *t)
{
	t->req.tramp[t->req.tramp_len++] = 0x90;
}

static void divert_elsewhere(struct tamper *t)
{
	t->req.patch[t->req.npatch - 1].divert += 1;
}

static void site_call(struct tamper *t)
{
	t->req.patch[t->req.npatch - 1].bytes[0] = 0xe8;	/* call, not jmp */
}

/* Code of the caller's choosing: `xor eax, eax; ret` for the relocation. */
static void own_code(struct tamper *t)
{
	memset(t->req.tramp + t->reloc, 0x90, t->req.tramp_len - t->reloc);
	memcpy(t->req.tramp + t->reloc, "\x31\xc0\xc3", 3);
}

static void tramp_past_array(struct tamper *t)
{
	t->req.tramp_len = 2048;
}

static void evict_past_array(struct tamper *t)
{
	t->req.evict_len = GILK_TRAMP_MAX + 1;
}

static void flip_evicted(struct tamper *t)
{
	t->req.evict[0] ^= 0x01;
}

/* The bounce slot moved over the live code right after the region. */
static void slot_over_code(struct tamper *t)
{
	struct gilk_patch *slot = &t->req.patch[0], *site = &t->req.patch[1];
	uint64_t s = t->p->region.addr + t->p->region.len;
	int32_t rel = (int32_t)(site->divert - (s + 5));
	struct gerr e;

	slot->addr = s;
	live_read_mem(t->lv, s, slot->orig, 5, &e);
	memcpy(slot->bytes + 1, &rel, 4);
	site->bytes[1] = (uint8_t)(s - (t->p->region.addr + 2));
}

/* The first plan of mode and bounce kind over the blocks of fns. */
static int find_plan(struct live *lv, const char *const *fns, enum bounce_kind kind,
		     struct splice_plan *out)
{
	static struct cfg g;
	struct gerr e;

	for (; *fns; fns++) {
		uint64_t f = sym(lv, *fns);

		/* a module's function (the target's): its text read first */
		if (!f || live_load_text(lv, f, &e) || kernel_cfg(&lv->k, f, &g, &e))
			continue;
		for (size_t b = 0; b < g.nblocks; b++)
			if (live_plan(lv, live_block_site(lv, g.blocks[b].start), 0, out, &e) == 0 &&
			    out->mode == SPLICE_BOUNCE && out->bounce_kind == kind)
				return 0;
	}
	return -1;
}

/*
 * A jmp plan over the whole instructions of [a, a + len), made by hand: the
 * planner would not make it, as it stops a region at every branch target it
 * knows. 0, or -1 where the bytes do not decode into whole instructions.
 */
static int craft_jmp_plan(struct live *lv, uint64_t a, size_t len, struct splice_plan *p)
{
	struct gerr e;

	memset(p, 0, sizeof(*p));
	if (len > SPLICE_REGION_MAX || live_load_text(lv, a, &e) ||
	    live_read_mem(lv, a, p->region.orig, len, &e))
		return -1;
	p->mode = SPLICE_JMP;
	p->reason = SPLICE_OK;
	p->region.addr = a;
	for (size_t o = 0; o < len; o += p->region.insns[p->region.ninsn++].len)
		if (p->region.ninsn == SPLICE_INSN_MAX ||
		    decode_one(lv->k.dec, p->region.orig + o, len - o, a + o,
			       &p->region.insns[p->region.ninsn]))
			return -1;
	p->region.len = p->region.live = (uint8_t)len;
	return 0;
}

/* A jmp plan from a, of whole instructions, 5 bytes at least and past over. */
static int craft_over(struct live *lv, uint64_t a, uint64_t over, struct splice_plan *p)
{
	uint64_t end = a;
	struct gerr e;

	while (end - a < 5 || end <= over) {
		uint8_t b[INSN_MAX];
		struct insn in;

		if (live_read_mem(lv, end, b, sizeof(b), &e) ||
		    decode_one(lv->k.dec, b, sizeof(b), end, &in))
			return -1;
		end += in.len;
	}
	return craft_jmp_plan(lv, a, (size_t)(end - a), p);
}

/*
 * A region over the label another symbol jumps to, in the target module
 * (target/foreign.c): its own function's decoding does not see the edge.
 * The same bytes from the label on are taken, which shows it is the edge
 * that is refused.
 */
static void foreign_label(struct live *lv, const char *fn, const char *what, const char *words)
{
	uint64_t f = sym(lv, fn);
	struct splice_plan p;
	char buf[160], landing[64];

	snprintf(landing, sizeof(landing), "lands at 0x%llx", (unsigned long long)f + 3);
	if (!words)
		words = landing;

	if (!f || craft_jmp_plan(lv, f, 6, &p)) {
		check(0, "checker: %s: a region over %s+0..6 made", what, fn);
		return;
	}
	snprintf(buf, sizeof(buf), "checker: %s into %s+3 is refused", what, fn);
	expect(lv, &p, buf, NULL, EBADMSG, words);
	if (craft_jmp_plan(lv, f + 3, 6, &p) == 0) {
		snprintf(buf, sizeof(buf), "checker: the same code from %s+3, past the edge, passes", fn);
		expect(lv, &p, buf, NULL, 0, NULL);
	} else {
		check(0, "checker: a region over %s+3..9 made", fn);
	}
}

/*
 * The function's jump into the middle of its .cold part, past an
 * instruction that falls through (gilk_target_cold_host.cold+2, target/
 * foreign.c): the planner sees it, and a region over it is refused; from
 * the landing on, the same code passes. The core kernel has hundreds
 * (oops_end+0xbc to oops_end.cold+0xc).
 */
static void cold_part_landing(struct live *lv)
{
	const char *part = "gilk_target_cold_host.cold";
	uint64_t c = sym(lv, part);
	struct splice_plan p;
	struct cfg g;
	struct gerr e;

	memset(&g, 0, sizeof(g));
	if (!c || live_load_text(lv, c, &e) || kernel_cfg(&lv->k, c, &g, &e)) {
		check(0, "checker: %s's decoding (%s)", part, c ? e.msg : "no symbol");
		return;
	}
	check(cfg_is_target(&g, c + 2), "planner: the function's jump into %s+2 is a target", part);
	cfg_free(&g);
	if (craft_jmp_plan(lv, c, 5, &p) == 0)
		expect(lv, &p, "checker: a region over the function's landing in its .cold part is refused",
		       NULL, EBADMSG, "a .cold part edge lands");
	else
		check(0, "checker: a region over %s+0..5 made", part);
	if (craft_jmp_plan(lv, c + 2, 8, &p) == 0)
		expect(lv, &p, "checker: the same code from the landing on passes", NULL, 0, NULL);
	else
		check(0, "checker: a region over %s+2..10 made", part);
}

/*
 * The core kernel's .cold parts, which gilk.ko indexes at load: a region
 * over an instruction a .cold part jumps back to, made from the instruction
 * before it, must be refused. Candidates whose region is refused for
 * another reason (a call inside it, a jump label site) are passed over;
 * any accepted is a landing the index missed.
 */
static void core_cold_landings(struct live *lv)
{
	size_t n = symtab_count(lv->k.syms), tried = 0, refused = 0, accepted = 0, parts = 0;
	char reason[GILK_REASON_MAX] = "";

	for (size_t i = 0; i < n && refused < 3 && tried < 200; i++) {
		const struct ksym *c = symtab_at(lv->k.syms, i);
		uint64_t cs, ce, fs, fe, a, prev = 0;
		const char *dot = strstr(c->name, ".cold");
		uint8_t code[512];
		struct splice_plan p;
		struct insn in;
		struct gerr e;

		if (c->module || !dot || (dot[5] && dot[5] != '.'))
			continue;
		parts++;
		if (symtab_function(lv->k.syms, c->addr, NULL, &cs, &ce) || ce - cs > sizeof(code) ||
		    live_read_mem(lv, cs, code, ce - cs, &e))
			continue;
		for (a = cs; a < ce; a += in.len) {
			if (decode_one(lv->k.dec, code + (a - cs), ce - a, a, &in))
				break;
			if ((in.kind == IK_JMP || in.kind == IK_JCC) && (in.target < cs || in.target >= ce))
				break;
		}
		if (a >= ce || symtab_function(lv->k.syms, in.target, NULL, &fs, &fe) ||
		    in.target == fs || in.target - fs > 4096)
			continue;
		/* the instruction before the landing, by decoding its function */
		for (a = fs; a < in.target;) {
			struct insn f;
			uint8_t b[INSN_MAX];

			if (live_read_mem(lv, a, b, sizeof(b), &e) ||
			    decode_one(lv->k.dec, b, sizeof(b), a, &f))
				break;
			prev = a;
			a += f.len;
		}
		if (a == in.target && craft_over(lv, prev, in.target, &p) == 0) {
			static struct tamper t;
			int err = send_changed(lv, &p, NULL, &t);

			tried++;
			if (err == 0) {
				accepted++;
				snprintf(reason, sizeof(reason), "0x%llx, a landing of %s, accepted",
					 (unsigned long long)in.target, c->name);
			} else if (err == EBADMSG && strstr(t.req.reason, "a .cold part edge lands")) {
				refused++;
			}
		}
	}
	if (!parts) {
		/* 6.12 is built without hot/cold splitting */
		check(1, "checker: the core kernel has no .cold parts to splice over");
		return;
	}
	check(refused && !accepted,
	      "checker: regions over the core kernel's .cold landings are refused (%zu of %zu tried%s%s)",
	      refused, tried, accepted ? "; " : "", accepted ? reason : "");
}

/*
 * A computed goto: ___bpf_prog_run's `goto *jumptable[op]` loads its label
 * from a table in .rodata and jumps through a retpoline thunk, edges no
 * decoding of branches finds; gilk_target_cgoto (target/cgoto.c) does the
 * same in a module. The table is found here as the planner and gilk.ko
 * find it (a [table + index*8] load) and read through /proc/kcore. Every
 * label must start a block for the planner, and a region over one must be
 * refused by gilk.ko: crafted from the jmp before a label that decodes as
 * padding (gilk_target_cgoto's first; on 6.1's live ___bpf_prog_run the
 * one such is an lfence by then) it is otherwise sound, and gilk.ko took
 * it before it read tables. On a kernel built with IBT every label is an
 * endbr64, which no region may hold anyway. Returns the function's start.
 */
static uint64_t computed_goto(struct live *lv, const char *fn)
{
	uint64_t fs, fe, table = 0, prev = 0, *t = NULL;
	size_t nt = 0, in_fn = 0, starts = 0, tried = 0, refused = 0, accepted = 0;
	static uint8_t code[1 << 16];
	char note[GILK_REASON_MAX] = "nothing to craft: no label is padding after a jmp";
	struct insn in;
	struct cfg g;
	struct gerr e;

	if (symtab_function(lv->k.syms, sym(lv, fn), NULL, &fs, &fe) ||
	    fe - fs > sizeof(code) || live_load_text(lv, fs, &e) ||
	    live_read_mem(lv, fs, code, fe - fs, &e)) {
		check(0, "computed goto: %s read", fn);
		return 0;
	}
	/* the first [table + index*8] whose words, while text, land in fn */
	t = calloc(4096, sizeof(*t));
	for (uint64_t a = fs; t && a < fe && !in_fn; a += in.len) {
		if (decode_one(lv->k.dec, code + (a - fs), fe - a, a, &in))
			break;
		table = in.table;
		for (nt = 0; table && nt < 4096; nt++) {
			if (live_read_mem(lv, table + 8 * nt, &t[nt], 8, &e) ||
			    symtab_function(lv->k.syms, t[nt], NULL, NULL, NULL))
				break;
			in_fn += t[nt] >= fs && t[nt] < fe;
		}
	}
	memset(&g, 0, sizeof(g));
	if (!in_fn || kernel_cfg(&lv->k, fs, &g, &e)) {
		check(0, "computed goto: %s's jump table found (0x%llx, %zu words)", fn,
		      (unsigned long long)table, nt);
		free(t);
		return 0;
	}
	for (size_t i = 0; i < nt; i++)
		starts += t[i] >= fs && t[i] < fe && cfg_is_target(&g, t[i]);
	check(starts == in_fn,
	      "computed goto: the planner sees every label of %s's table (%zu of %zu words in the function)",
	      fn, starts, in_fn);
	cfg_free(&g);

	for (uint64_t a = fs; a < fe; prev = a, a += in.len) {
		struct splice_plan p;
		static struct tamper tm;
		bool label = false;
		int err;

		if (decode_one(lv->k.dec, code + (a - fs), fe - a, a, &in))
			break;
		for (size_t i = 0; i < nt && !label; i++)
			label = t[i] == a;
		if (!label || !prev || !in.nop || code[prev - fs] != 0xe9 ||
		    craft_jmp_plan(lv, prev, (size_t)(a + in.len - prev), &p))
			continue;
		/* the jmp relocated, the label's nop overwritten as padding */
		p.region.live = (uint8_t)(a - prev);
		p.region.ninsn = 1;
		tried++;
		err = send_changed(lv, &p, NULL, &tm);
		if (err == EBADMSG && strstr(tm.req.reason, "jump table"))
			refused++;
		else if (!err)
			accepted++;
		snprintf(note, sizeof(note), "%s", err ? tm.req.reason : "accepted");
	}
	free(t);
	check(refused == tried && !accepted,
	      "computed goto: regions over a label of %s's table refused (%zu of %zu; %s)",
	      fn, refused, tried, note);
	return fs;
}

/* gilk_target_cgoto's labels are spliced as any block: each hit counted. */
static void computed_goto_module(struct live *lv)
{
	uint64_t f = computed_goto(lv, "gilk_target_cgoto"), label;
	struct splice_plan p;
	uint8_t b[4] = { 0 };
	uint32_t id;
	struct gerr e;
	int ret;

	if (!f)
		return;
	/* the first label, past its endbr64 on an IBT kernel */
	live_read_mem(lv, f + 13, b, 4, &e);
	label = f + 13 + (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e ? 4 : 0);
	if (splice_at(lv, label, 0, "count", "", &id, &p)) {
		check(0, "computed goto: gilk_target_cgoto's first label spliced");
		return;
	}
	ret = write_file("/proc/gilk_target", "cgoto 0", 0);
	check(ret == 0 && target_result() == 0xa && hits(lv, id) == 1 &&
	      write_file("/proc/gilk_target", "cgoto 1", 0) == 0 && target_result() == 0xb &&
	      hits(lv, id) == 1,
	      "computed goto: gilk_target_cgoto's first label spliced: one hit through the table, none by the other label");
	ret = live_unsplice(lv, id, &e);
	check(ret == 0 && restored(lv, &p), "computed goto: unspliced, the original bytes (%s)",
	      ret ? e.msg : "ok");
}

/*
 * The other way: the core kernel's functions jump into the middle of their
 * .cold parts (hundreds on 6.1, oops_end+0xbc to oops_end.cold+0xc). A
 * region over such a landing that an instruction falls into, made from
 * that instruction, must be refused. Candidates refused for another reason
 * are passed over; any accepted is a landing gilk.ko missed.
 */
static void core_landings_in_cold(struct live *lv)
{
	size_t n = symtab_count(lv->k.syms), tried = 0, refused = 0, accepted = 0, parts = 0;
	char reason[GILK_REASON_MAX] = "";

	for (size_t i = 0; i < n && refused < 3 && tried < 200; i++) {
		const struct ksym *c = symtab_at(lv->k.syms, i), *fn[4];
		const char *dot = strstr(c->name, ".cold");
		uint64_t cs, ce, fs, fe, land = 0;
		static uint8_t code[1 << 16];
		char base[256];
		struct insn in;
		struct gerr e;
		size_t nf;

		if (c->module || !dot || (dot[5] && dot[5] != '.') ||
		    (size_t)(dot - c->name) >= sizeof(base) ||
		    symtab_function(lv->k.syms, c->addr, NULL, &cs, &ce) || cs != c->addr)
			continue;
		parts++;
		snprintf(base, sizeof(base), "%.*s", (int)(dot - c->name), c->name);
		nf = symtab_by_name(lv->k.syms, base, fn, 4);
		for (size_t j = 0; j < nf && j < 4 && !land; j++) {
			if (fn[j]->module || symtab_function(lv->k.syms, fn[j]->addr, NULL, &fs, &fe) ||
			    fe - fs > sizeof(code) || live_read_mem(lv, fs, code, fe - fs, &e))
				continue;
			for (uint64_t a = fs; a < fe && !land; a += in.len) {
				if (decode_one(lv->k.dec, code + (a - fs), fe - a, a, &in)) {
					in.len = 1;
					continue;
				}
				if ((in.kind == IK_JMP || in.kind == IK_JCC) && in.target > cs &&
				    in.target < ce)
					land = in.target;
			}
		}
		if (!land || ce - cs > sizeof(code) || live_read_mem(lv, cs, code, ce - cs, &e))
			continue;
		/* the instruction before the landing, falling into it */
		for (uint64_t a = cs; a < land; a += in.len) {
			struct splice_plan p;
			static struct tamper t;
			int err;

			if (decode_one(lv->k.dec, code + (a - cs), ce - a, a, &in))
				break;
			if (a + in.len != land || !insn_falls_through(&in) ||
			    craft_over(lv, a, land, &p))
				continue;
			tried++;
			err = send_changed(lv, &p, NULL, &t);
			if (err == 0) {
				accepted++;
				snprintf(reason, sizeof(reason), "0x%llx, a landing in %s, accepted",
					 (unsigned long long)land, c->name);
			} else if (err == EBADMSG && strstr(t.req.reason, "a .cold part edge lands")) {
				refused++;
			}
		}
	}
	if (!parts) {
		check(1, "checker: the core kernel has no .cold parts to splice in");
		return;
	}
	check(refused && !accepted,
	      "checker: regions over the core kernel's landings in .cold parts are refused (%zu of %zu tried%s%s)",
	      refused, tried, accepted ? "; " : "", accepted ? reason : "");
}

void test_verifier(struct live *lv)
{
	static const char *const fns[] = {
		"path_init", "link_path_walk", "walk_component", "do_sys_openat2",
		"do_filp_open", "tcp_v4_rcv", "ip_rcv", "__do_sys_newuname",
		"gilk_target_pad", NULL,
	};
	struct splice_plan jmp, pad, ev;
	struct gerr e;

	if (live_plan(lv, live_block_site(lv, sym(lv, "__x64_sys_getppid")), 0, &jmp, &e)) {
		check(0, "plan at __x64_sys_getppid: %s", e.msg);
		return;
	}
	expect(lv, &jmp, "checker: a real jmp plan passes", NULL, 0, NULL);
	expect(lv, &jmp, "checker: one byte of the relocated code changed", flip_relocated,
	       EBADMSG, "unverified code at trampoline+");
	expect(lv, &jmp, "checker: the trampoline header changed", flip_header, EBADMSG,
	       "not gilk's trampoline header");
	expect(lv, &jmp, "checker: bytes after the relocated code", add_trailing, EBADMSG,
	       "bytes after the end of the relocated code");
	expect(lv, &jmp, "checker: an int3 divert off the trampoline's start", divert_elsewhere,
	       EBADMSG, "divert must go to the trampoline");
	expect(lv, &jmp, "checker: a call written at the site instead of the jmp", site_call,
	       EBADMSG, "unverified code at patch0+0");
	expect(lv, &jmp, "checker: code of the caller's choosing in the trampoline", own_code,
	       EBADMSG, "unverified code at trampoline+");
	/* Defect: lengths up to 2048 were taken while the arrays hold 512, so
	 * heap memory past the request went into a trampoline. */
	expect(lv, &jmp, "defect 1: a tramp_len past the request's array (2048)", tramp_past_array,
	       EINVAL, "malformed");
	expect(lv, &jmp, "defect 1: an evict_len past the request's array", evict_past_array,
	       EINVAL, "malformed");

	if (find_plan(lv, fns, BOUNCE_PADDING, &pad) == 0) {
		expect(lv, &pad, "checker: a real bounce through padding passes", NULL, 0, NULL);
		expect(lv, &pad, "checker: the bounce slot moved over live code", slot_over_code,
		       EBADMSG, "not dead padding");
	} else {
		check(0, "found a bounce through padding among the test functions");
	}
	if (find_plan(lv, fns, BOUNCE_EVICT, &ev) == 0) {
		expect(lv, &ev, "checker: a real eviction bounce passes", NULL, 0, NULL);
		expect(lv, &ev, "checker: one byte of the evicted neighbour's trampoline changed",
		       flip_evicted, EBADMSG, "unverified code at evicted+0");
	} else {
		check(0, "found an eviction bounce among the test functions");
	}
	foreign_label(lv, "gilk_target_asm_tail", "assembly's jump from the symbol before", NULL);
	foreign_label(lv, "gilk_target_cold_host", "a .cold part's jump from 8 KiB away",
		      "a .cold part edge lands");
	core_cold_landings(lv);
	cold_part_landing(lv);
	core_landings_in_cold(lv);
	computed_goto(lv, "___bpf_prog_run");
	computed_goto_module(lv);
}
